/*  columns_files: the tables of results.csv, latency.csv and sockets.csv
    (columns.h): per column its name, how a row and the median row take
    it, and what it means.  The search's, the profile's and the machine's
    files are in columns_more.c.

    results.csv: a row per trial and link (trial/results.h link_row_t),
    and with 3 or more repeats a `repeat = median` row per link
    (trial/summary.h link_summary_t): every number the median of that
    column over the repeats, CPUs and nodes the repeats' when they all
    agree, else -1; only those rows fill ci_low .. precise.
*/
#include "report/columns.h"

#include "trial/summary.h"

//  ---------------------------------------------------------------------
//  What every file shares: the run's and the row's place

void columns_topology(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, ctx->info->topology);
}
void columns_pattern(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, ctx->info->pattern);
}
void columns_mode(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, ctx->info->mode);
}
void columns_loss_ratio(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, ctx->info->loss_ratio);
}
void columns_size(const column_ctx_t *ctx, column_value_t *v)
{
    v->kind = VALUE_UINT;
    v->u = ctx->size;
}
void columns_repeat(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, ctx->repeat);
}

//  ---------------------------------------------------------------------
//  results.csv

static void s_lost(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, link_lost(ctx->row));
}
static void s_rate(const column_ctx_t *ctx, column_value_t *v)
{
    column_real(v, link_rate(ctx->row));
}
static void s_mbps(const column_ctx_t *ctx, column_value_t *v)
{
    column_real(v, link_rate(ctx->row) * ctx->size / 1e6);
}
static void s_sent_rate(const column_ctx_t *ctx, column_value_t *v)
{
    column_real(v, link_sent_rate(ctx->row));
}
//  The median row's: 1 when any repeat starved, -1 unknown
static void s_starved(const column_ctx_t *ctx, column_value_t *v)
{
    const link_summary_t *s = ctx->row;
    column_int(v, s->starved > 0 ? 1 : s->starved);
}

#define ROW(f, fmt, fl)  COLUMN_FIELD(link_row_t, f, fmt, fl)
#define MED(f, fmt, fl)  COLUMN_FIELD(link_summary_t, f, fmt, fl)
#define BOTH(f, fmt, fl) ROW(f, fmt, fl), MED(f, fmt, fl)
#define OPT              COLUMN_OPTIONAL
#define WHOLE            COLUMN_WHOLE

static const column_t s_results[] = {
    {COLUMN_TOPOLOGY, COLUMN_TAKE_TOPOLOGY, COLUMN_TAKE_TOPOLOGY,
     "the topology's name"},
    {COLUMN_PATTERN, COLUMN_TAKE_PATTERN, COLUMN_TAKE_PATTERN,
     "pubsub, pushpull, reqrep or connect"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, COLUMN_TAKE_SIZE,
     "the message size in bytes"},
    {COLUMN_REPEAT, COLUMN_TAKE_REPEAT, COLUMN_TAKE_REPEAT,
     "the repetition, 1 first, or median"},
    {COLUMN_HOP, BOTH(hop, NULL, 0), "the hop, 1 from the publishers on"},
    {COLUMN_FROM, BOTH(from, NULL, 0), "the stage the link starts at"},
    {COLUMN_TO, BOTH(to, NULL, 0), "the stage it ends at"},
    {COLUMN_TRANSPORT, BOTH(transport, NULL, 0), "inproc, ipc or tcp"},
    {COLUMN_SENT, ROW(sent, NULL, 0), MED(sent, NULL, WHOLE),
     "messages handed to the hop's socket in the whole trial"},
    {"received", ROW(received, NULL, 0), MED(received, NULL, WHOLE),
     "messages taken from it, whole trial, after draining"},
    {COLUMN_LOST, COLUMN_COMPUTED(s_lost, NULL, 0), MED(lost, NULL, WHOLE),
     "expected - received"},
    {"seconds", BOTH(seconds, "%.6f", 0), "the window, at the receiving end"},
    {COLUMN_MSGS_PER_SEC, COLUMN_COMPUTED(s_rate, "%.1f", 0),
     MED(rate, "%.1f", 0), "messages received in the window, per second"},
    {COLUMN_MB_PER_SEC, COLUMN_COMPUTED(s_mbps, "%.3f", 0),
     MED(mbps, "%.3f", 0), "msgs_per_sec times size, in 10^6 bytes"},
    {"from_cpu", BOTH(from_cpu, NULL, 0),
     "the sending stage's CPUs ('0+1' for several instances; -1 unpinned)"},
    {"to_cpu", BOTH(to_cpu, NULL, 0), "the receiving stage's CPUs"},
    {"from_node", BOTH(from_node, NULL, 0), "the sending stage's node"},
    {"to_node", BOTH(to_node, NULL, 0), "the receiving stage's node"},
    {COLUMN_FROM_CPU_NS, BOTH(from_cpu_ns, "%.1f", OPT),
     "CPU time of the sending stage's threads per message (empty: unknown)"},
    {"to_cpu_ns_per_msg", BOTH(to_cpu_ns, "%.1f", OPT),
     "...of the receiving stage's"},
    {"seq_lost", ROW(seq_lost, NULL, OPT), MED(seq_lost, NULL, OPT | WHOLE),
     "loss the receiver's sequence numbers prove (rows into a subscriber)"},
    {"sent_per_sec", COLUMN_COMPUTED(s_sent_rate, "%.1f", 0),
     MED(sent_rate, "%.1f", 0),
     "what the sending end offered in its window, per second"},
    {COLUMN_MODE, COLUMN_TAKE_MODE, COLUMN_TAKE_MODE,
     "capacity, flood or search; empty for reqrep, "
     "connect"},
    {"hwm_bound", BOTH(hwm_bound, NULL, 0),
     "1: a flood row whose rate is the one the HWM allows"},
    {COLUMN_FROM_HOST, BOTH(from_host, NULL, 0),
     "the sending stage's host (empty: the controller's)"},
    {COLUMN_TO_HOST, BOTH(to_host, NULL, 0), "the receiving stage's host"},
    {"ci_low",
     {0},
     MED(ci.low, "%.1f", 0),
     "median rows: the interval of the median msgs/s at confidence, low"},
    {"ci_high", {0}, MED(ci.high, "%.1f", 0), "...and high"},
    {"ci_coverage",
     {0},
     MED(ci.coverage, "%.4f", 0),
     "...and its exact coverage"},
    {"precise",
     {0},
     MED(precise, NULL, OPT),
     "with --precision: 1 within it, 0 max_repeat ran out first"},
    {COLUMN_EXPECTED, ROW(expected, NULL, 0), MED(expected, NULL, WHOLE),
     "what the hop should have carried of its downstream's topics"},
    {"selectivity", BOTH(selectivity, "%.6g", 0),
     "the share of its sources' messages its downstream subscribed to"},
    {COLUMN_LOSS_RATIO, COLUMN_COMPUTED(columns_loss_ratio, NULL, 0),
     COLUMN_COMPUTED(columns_loss_ratio, NULL, 0),
     "mode = search: the loss ratio whose confirmed rate the row is"},
    {"from_wait_pct", BOTH(from_wait_pct, "%.2f", OPT),
     "the sending stage's share of the window waiting for a CPU"},
    {"to_wait_pct", BOTH(to_wait_pct, "%.2f", OPT), "...the receiving's"},
    {"steal_pct", BOTH(steal_pct, "%.2f", OPT),
     "time stolen by the hypervisor from their CPUs"},
    {"starved", ROW(starved, NULL, 0), COLUMN_COMPUTED(s_starved, NULL, 0),
     "1: a stage of it waited for a CPU; -1 unknown"},
    {"edge_span",
     ROW(edge_span, "%.6f", OPT),
     {0},
     "seconds from the first reading of the stages' counters at a window "
     "edge to the last, the longer edge's (empty: reqrep, median rows)"},
    {COLUMN_SOCKETS, BOTH(sockets, NULL, 0),
     "the SUB sockets at its receiving end"},
    {"min_socket_msgs_per_sec", BOTH(min_socket_rate, "%.1f", 0),
     "the slowest of them in the window"},
    {"max_socket_msgs_per_sec", BOTH(max_socket_rate, "%.1f", 0),
     "the fastest"},
};

const column_table_t columns_results =
    COLUMN_TABLE("results.csv", s_results, true);

//  The table under each size (report_table.c): a median row
//  (link_summary_t) per hop, ctx->of its summary_t.  The spread's heading
//  and width are the printer's, as they depend on the repeats

static const link_summary_t *s_med(const column_ctx_t *ctx)
{
    return ctx->row;
}
//  "pub -> broker", and "pub@h1 -> broker@h2" for stages on other hosts
static void s_view_link(const column_ctx_t *ctx, column_value_t *v)
{
    const link_summary_t *s = s_med(ctx);
    snprintf(v->buf, sizeof v->buf, "%.40s%s%.40s -> %.40s%s%.40s", s->from,
             s->from_host[0] ? "@" : "", s->from_host, s->to,
             s->to_host[0] ? "@" : "", s->to_host);
    column_text(v, v->buf);
}
static void s_view_rate(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, report_grouped(s_med(ctx)->rate, v->buf, sizeof v->buf));
}
//  "±2.1%" (3 or more repeats; '*' when the interval falls short of the
//  confidence, '!' when it is wider than the precision), "(min - max)"
static void s_view_spread(const column_ctx_t *ctx, column_value_t *v)
{
    const summary_t *summary = ctx->of;
    const link_summary_t *s = s_med(ctx);
    char lo[16], hi[16];
    if (summary->n >= SUMMARY_MIN_REPEATS)
        snprintf(v->buf, sizeof v->buf, "±%.1f%%%s%s", 100 * s->spread,
                 s->ci.reached ? "" : "*", s->precise == 0 ? "!" : "");
    else if (summary->n == 2)
        snprintf(v->buf, sizeof v->buf, "(%s - %s)",
                 report_short(s->rate_min, lo, sizeof lo),
                 report_short(s->rate_max, hi, sizeof hi));
    else
        v->buf[0] = 0;
    column_text(v, v->buf);
}
static void s_view_lost(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(
        v, report_grouped((double)s_med(ctx)->lost_all, v->buf, sizeof v->buf));
}
static void s_view_expected(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, report_grouped((double)s_med(ctx)->expected_all, v->buf,
                                  sizeof v->buf));
}
static void s_view_lost_pct(const column_ctx_t *ctx, column_value_t *v)
{
    const link_summary_t *s = s_med(ctx);
    column_real(v, s->expected_all
                       ? 100.0 * (double)s->lost_all / (double)s->expected_all
                       : 0.0);
}
static void s_view_cpu(const column_ctx_t *ctx, column_value_t *v)
{
    const link_summary_t *s = s_med(ctx);
    char a[16] = "-", b[16] = "-";
    if (s->from_cpu_ns >= 0)
        snprintf(a, sizeof a, "%.0f", s->from_cpu_ns);
    if (s->to_cpu_ns >= 0)
        snprintf(b, sizeof b, "%.0f", s->to_cpu_ns);
    snprintf(v->buf, sizeof v->buf, "%s / %s", a, b);
    column_text(v, v->buf);
}
static void s_view_flags(const column_ctx_t *ctx, column_value_t *v)
{
    const link_summary_t *s = s_med(ctx);
    snprintf(v->buf, sizeof v->buf, "%s%s%s", s->hwm_bound ? "  HWM" : "",
             s->starved > 0 ? "  starved" : "",
             s->stalled > 0 ? "  STALLED" : "");
    column_text(v, v->buf);
}

const char *const columns_results_page[][2] = {
    {COLUMN_HOP, "hop"},
    {COLUMN_FROM, "from"},
    {COLUMN_TO, "to"},
    {COLUMN_TRANSPORT, "transport"},
    {COLUMN_REPEAT, "repeat"},
    {COLUMN_MSGS_PER_SEC, "msgs/s"},
    {COLUMN_MB_PER_SEC, "MB/s"},
    {COLUMN_LOST, "lost"},
    {"", "flags"},
    {COLUMN_FROM_CPU_NS, "CPU ns/msg from"},
    {"to_cpu_ns_per_msg", "CPU ns/msg to"},
    {NULL, NULL}};

const char *const columns_results_more[][2] = {{COLUMN_HOP, "hop"},
                                               {COLUMN_REPEAT, "repeat"},
                                               {COLUMN_SENT, "sent"},
                                               {COLUMN_EXPECTED, "expected"},
                                               {"selectivity", "selectivity"},
                                               {"received", "received"},
                                               {"seq_lost", "seq lost"},
                                               {"from_cpu", "from CPU"},
                                               {"to_cpu", "to CPU"},
                                               {"from_node", "from node"},
                                               {"to_node", "to node"},
                                               {"from_wait_pct", "from wait %"},
                                               {"to_wait_pct", "to wait %"},
                                               {NULL, NULL}};

#define VIEW(f, fmt) COLUMN_COMPUTED(f, fmt, 0)

const column_view_t columns_results_view[] = {
    {"hop", 4, false, "", MED(hop, NULL, 0)},
    {"from -> to", -22, true, "  ", VIEW(s_view_link, NULL)},
    {"transport", -9, false, NULL, MED(transport, NULL, 0)},
    {"msgs/s", 11, false, NULL, VIEW(s_view_rate, NULL)},
    {"±", -10, false, "  ", VIEW(s_view_spread, NULL)},
    {"MB/s", 10, false, "", MED(mbps, "%.1f", 0)},
    {"expected", 12, false, NULL, VIEW(s_view_expected, NULL)},
    {"selectivity", 11, false, NULL, MED(selectivity, "%.4f", 0)},
    {"lost", 12, false, NULL, VIEW(s_view_lost, NULL)},
    {"lost%", 7, false, NULL, VIEW(s_view_lost_pct, "%.2f%%")},
    {"cpu ns/msg fr/to", 17, false, NULL, VIEW(s_view_cpu, NULL)},
    {"", 0, false, "", VIEW(s_view_flags, NULL)},
    {NULL, 0, false, NULL, {0}}};

//  ---------------------------------------------------------------------
//  latency.csv: a row per distribution (trial, hop or e2e), microseconds

static double s_us(const column_ctx_t *ctx, double which)
{
    const histogram_t *h = &((const latency_row_t *)ctx->row)->histogram;
    return (which == 0    ? histogram_mean(h)
            : which > 100 ? (double)histogram_max(h)
                          : (double)histogram_percentile(h, which)) /
           1e3;
}
static void s_samples(const column_ctx_t *ctx, column_value_t *v)
{
    v->kind = VALUE_UINT;
    v->u = histogram_count(&((const latency_row_t *)ctx->row)->histogram);
}
//  A distribution's figure in microseconds: 0 the mean, > 100 the max,
//  else that percentile
#define S_PERCENTILE(name, which)                                              \
    static void s_##name(const column_ctx_t *ctx, column_value_t *v)           \
    {                                                                          \
        column_real(v, s_us(ctx, which));                                      \
    }
S_PERCENTILE(mean, 0)
S_PERCENTILE(p50, 50)
S_PERCENTILE(p90, 90)
S_PERCENTILE(p99, 99)
S_PERCENTILE(p999, 99.9)
S_PERCENTILE(p9999, 99.99)
S_PERCENTILE(max, 101)

#define US(f)  COLUMN_COMPUTED(f, "%.3f", 0)
#define LAT(f) COLUMN_FIELD(latency_summary_t, f, "%.3f", 0)

static const column_t s_latency[] = {
    {COLUMN_TOPOLOGY, COLUMN_TAKE_TOPOLOGY, COLUMN_TAKE_TOPOLOGY,
     "the topology's name"},
    {COLUMN_PATTERN, COLUMN_TAKE_PATTERN, COLUMN_TAKE_PATTERN, "its pattern"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, COLUMN_TAKE_SIZE,
     "the message size in bytes"},
    {COLUMN_REPEAT, COLUMN_TAKE_REPEAT, COLUMN_TAKE_REPEAT,
     "the repetition, all (the repetitions merged) or median"},
    {COLUMN_HOP, COLUMN_FIELD(latency_row_t, hop, NULL, 0),
     COLUMN_FIELD(latency_summary_t, hop, NULL, 0),
     "e2e for end to end, or the hop"},
    {"samples", COLUMN_COMPUTED(s_samples, NULL, 0),
     COLUMN_FIELD(latency_summary_t, samples, NULL, 0), "messages timed"},
    {"mean_us", US(s_mean), LAT(mean), "their mean latency"},
    {COLUMN_P50_US, US(s_p50), LAT(p50), "the median"},
    {"p90_us", US(s_p90), LAT(p90), "the 90th percentile"},
    {COLUMN_P99_US, US(s_p99), LAT(p99), "the 99th"},
    {"p999_us", US(s_p999), LAT(p999), "the 99.9th"},
    {"p9999_us", US(s_p9999), LAT(p9999), "the 99.99th"},
    {"max_us", US(s_max), LAT(max), "the largest"},
    {COLUMN_MODE, COLUMN_TAKE_MODE, COLUMN_TAKE_MODE, "as in results.csv"},
    {"p50_ci_low_us",
     {0},
     LAT(p50_ci.low),
     "median rows: the interval of the median p50, low"},
    {"p50_ci_high_us", {0}, LAT(p50_ci.high), "...and high"},
    {"p99_ci_low_us", {0}, LAT(p99_ci.low), "...of the median p99, low"},
    {"p99_ci_high_us", {0}, LAT(p99_ci.high), "...and high"},
};

//  latency_at's columns, after the sweep's, in a run that has them: a
//  row of an open-loop trial at a fraction of a found rate fills them
static bool s_latency_at_run(const report_info_t *info)
{
    return info->at.load;
}
static void s_at_fraction(const column_ctx_t *ctx, column_value_t *v)
{
    if (ctx->info->at.fraction > 0)
        column_real(v, ctx->info->at.fraction);
}
static void s_at_found(const column_ctx_t *ctx, column_value_t *v)
{
    if (ctx->info->at.fraction > 0)
        column_real(v, ctx->info->at.found);
}
static void s_at_ratio(const column_ctx_t *ctx, column_value_t *v)
{
    if (ctx->info->at.fraction > 0)
        column_real(v, ctx->info->at.ratio);
}
#define AT(f, fmt) COLUMN_COMPUTED(f, fmt, 0), COLUMN_COMPUTED(f, fmt, 0)

static const column_t s_latency_at[] = {
    {"latency_at", AT(s_at_fraction, "%g"),
     "latency_at rows: the fraction of the found rate offered"},
    {"found_per_sec", AT(s_at_found, "%.1f"),
     "...the rate the search found (msgs/s)"},
    {"found_loss_ratio", AT(s_at_ratio, "%g"), "...for this loss ratio"},
};

const column_table_t columns_latency = {
    .file = "latency.csv",
    .columns = s_latency,
    .ncolumns = (int)(sizeof s_latency / sizeof *s_latency),
    .sweep = true,
    .tail = s_latency_at,
    .ntail = (int)(sizeof s_latency_at / sizeof *s_latency_at),
    .tail_when = s_latency_at_run,
    .tail_what = "in a search with latency_at"};

//  ---------------------------------------------------------------------
//  sockets.csv: a row per SUB socket of a subscriber of several

#define SOCKET(f, fmt) COLUMN_ROW_FIELD(socket_row_t, f, fmt, 0)

static const column_t s_sockets[] = {
    {COLUMN_TOPOLOGY, COLUMN_TAKE_TOPOLOGY, {0}, "the topology's name"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, {0}, "the message size in bytes"},
    {COLUMN_REPEAT, COLUMN_TAKE_REPEAT, {0}, "the repetition"},
    {COLUMN_STAGE, SOCKET(stage, NULL), "the subscriber's instance"},
    {"socket", SOCKET(socket, NULL), "the socket, 1 first"},
    {"received", SOCKET(received, NULL), "messages it took, whole trial"},
    {COLUMN_LOST, SOCKET(lost, NULL),
     "its share of its link's loss: the sockets' add up to the row's"},
    {COLUMN_MSGS_PER_SEC, SOCKET(rate, "%.1f"), "its rate in the window"},
    {"seq_lost", SOCKET(seq_lost, NULL),
     "what its sequence numbers prove it missed from the publishers on"},
};

const column_table_t columns_sockets =
    COLUMN_TABLE("sockets.csv", s_sockets, true);

//  ---------------------------------------------------------------------
//  timeline.csv: each link's rate over each step of a trial's window
//  (timeline_row_t); ctx->of is the trial, whose links name the row's.
//  A search's trials are rows too: repeat is the search, trial the trial

static const link_row_t *s_step_link(const column_ctx_t *ctx)
{
    const trial_result_t *trial = ctx->of;
    return &trial->links[((const timeline_row_t *)ctx->row)->link];
}
static void s_step_hop(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, s_step_link(ctx)->hop);
}
static void s_step_from(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, s_step_link(ctx)->from);
}
static void s_step_to(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, s_step_link(ctx)->to);
}
//  A search's trial: its number within the search (search.csv's trial)
static void s_step_trial(const column_ctx_t *ctx, column_value_t *v)
{
    if (ctx->info->trial > 0)
        column_int(v, ctx->info->trial);
}

#define STEP(f, fmt) COLUMN_ROW_FIELD(timeline_row_t, f, fmt, 0)

static const column_t s_timeline[] = {
    {COLUMN_TOPOLOGY, COLUMN_TAKE_TOPOLOGY, {0}, "the topology's name"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, {0}, "the message size in bytes"},
    {COLUMN_REPEAT, COLUMN_TAKE_REPEAT, {0}, "the repetition"},
    {COLUMN_HOP, COLUMN_COMPUTED(s_step_hop, NULL, 0), {0}, "the hop"},
    {COLUMN_FROM,
     COLUMN_COMPUTED(s_step_from, NULL, 0),
     {0},
     "the stage the link starts at"},
    {COLUMN_TO,
     COLUMN_COMPUTED(s_step_to, NULL, 0),
     {0},
     "the stage it ends at"},
    {"seconds", STEP(seconds, "%.6f"),
     "the step's end, seconds into the window (a step: the controller's "
     "poll, ~50 ms, coarser in a long window)"},
    {COLUMN_MSGS_PER_SEC, STEP(rate, "%.1f"),
     "what the link took over the step, per second"},
    {"trial",
     COLUMN_COMPUTED(s_step_trial, NULL, 0),
     {0},
     "mode = search: the trial (search.csv's), its search the repeat; "
     "empty otherwise"},
};

const column_table_t columns_timeline =
    COLUMN_TABLE("timeline.csv", s_timeline, true);
