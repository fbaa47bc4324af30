/*  report_table: the human table, one block per message size.

    proxy (pubsub)  size 1024 B  window 1.00 s  median of 9 repeats, ±: its 95% interval
     hop  from -> to      transport    msgs/s  ±             MB/s  lost  lost%  cpu ns/msg fr/to
       1  pub -> broker   tcp       1,234,567  ±1.6%        1264.2     0  0.00%        310 / 402

    A stage on another host (host = NAME) is "broker@h2" in its rows.

    msgs/s and MB/s are medians over the repetitions (trial/summary.h),
    with 3 or more the ±x % of the median's interval, the larger of its
    two sides ('*': fewer repeats than the confidence needs, the interval
    is min to max; '!': wider than --precision when max_repeat ran out),
    with 2 the min - max; lost and lost% add up every repetition; CPU
    per message is the median.  Where topics filter (a link whose
    selectivity is under 1), two columns before lost: expected (what the
    link should have carried, added up as lost is) and selectivity (its
    share of what its publishers sent, the median).  In flood mode a
    row whose rate is the HWM's bound (hwm_bound) ends with "HWM", and a
    line under the block says what sets it.  A row with a stage whose
    thread waited for a CPU more than starved_pct of the window ends with
    "starved", and a line under the block names the stage, its wait and
    the threads that share its CPUs.  A row whose window stalled (twice:
    run.c retries it once) ends with "STALLED", and a line says so.  Where
    a stage sends to several connections (instances, or sockets = N), a
    line says what it delivered in all (the rows' msgs/s summed: messages
    x connections per second) and its CPU per message, and per message and
    connection.  Where a link took more than came into the stage feeding
    it (a backlog delivered in the window; medians each their own), a
    line says so.
*/
#include "report/report.h"
#include "report/columns.h"

#include "base/stats.h"
#include "config/params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double report_median(double *values, int n)
{
    stats_sort(values, n);
    return stats_median_sorted(values, n);
}

const char *report_grouped(double value, char *buf, size_t len)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", value);
    int n = (int)strlen(digits), out = 0;
    for (int i = 0; i < n && out + 2 < (int)len; i++) {
        if (i && (n - i) % 3 == 0 && digits[i - 1] != '-')
            buf[out++] = ',';
        buf[out++] = digits[i];
    }
    buf[out] = 0;
    return buf;
}

const char *report_short(double value, char *buf, size_t len)
{
    if (value >= 1e6)
        snprintf(buf, len, "%.2fM", value / 1e6);
    else if (value >= 1e3)
        snprintf(buf, len, "%.1fk", value / 1e3);
    else
        snprintf(buf, len, "%.0f", value);
    return buf;
}

//  Does a link of the block carry only some of its publishers' topics?
//  Then the table shows expected and selectivity
static bool s_filtered(const summary_t *summary)
{
    for (int l = 0; l < summary->nlinks; l++)
        if (summary->links[l].selectivity < 1)
            return true;
    return false;
}

//  The view of a block: the spread's heading and width as the repeats
//  make it (3 or more: "±x %", 2: "(min - max)", 1: none), expected and
//  selectivity where topics filter
static void s_view(const summary_t *summary, column_view_t *view)
{
    int n = columns_view_count(columns_results_view), kept = 0;
    bool filtered = s_filtered(summary);
    for (int c = 0; c <= n; c++) {
        const column_view_t *cell = &columns_results_view[c];
        if (cell->heading && !filtered &&
            (strcmp(cell->heading, "expected") == 0 ||
             strcmp(cell->heading, "selectivity") == 0))
            continue;
        view[kept] = *cell;
        if (cell->heading && strcmp(cell->heading, "±") == 0) {
            view[kept].heading = summary->n >= SUMMARY_MIN_REPEATS ? "±"
                                 : summary->n == 2 ? "(min - max)"
                                                   : "";
            view[kept].width = summary->n >= SUMMARY_MIN_REPEATS ? -10
                               : summary->n == 2                 ? -19
                                                                 : 0;
        }
        kept++;
    }
}

//  Under a block with starved rows: which stage waited for a CPU, how
//  long, and what else may run where it may (each stage once)
static void s_starved_note(FILE *out, const summary_t *summary)
{
    for (int l = 0; l < summary->nlinks; l++) {
        const char *note = summary->links[l].starved_note;
        bool said = false;
        for (int k = 0; k < l && !said; k++)
            said = summary->links[k].starved > 0 &&
                   strcmp(summary->links[k].starved_note, note) == 0;
        if (summary->links[l].starved > 0 && !said)
            fprintf(out, "      starved: %s\n", note);
    }
    for (int l = 0; l < summary->nlinks; l++)
        if (summary->links[l].stalled > 0)
            fprintf(out,
                    "      STALLED: hop %d delivered next to nothing for a "
                    "while in %d of %d repeats, and again when retried: "
                    "not a figure (status stalled; metadata.json's "
                    "warnings)\n",
                    summary->links[l].hop, summary->links[l].stalled,
                    summary->n);
}

//  Under a flood block with HWM-bound rows: what sets their figure, and
//  where the machine starved those stages, that it slowed them as well
static void s_hwm_note(FILE *out, const summary_t *summary)
{
    double bound = 0, rate = 0;
    bool starved = false;
    for (int l = 0; l < summary->nlinks; l++)
        if (summary->links[l].hwm_bound) {
            bound = summary->links[l].bound_rate;
            rate = rate > 0 && rate < summary->links[l].rate
                       ? rate
                       : summary->links[l].rate;
            starved |= summary->links[l].starved > 0;
        }
    if (bound <= 0)
        return;
    char text[32];
    fprintf(out,
            "      HWM: this rate is set by the HWM and libzmq's command "
            "batching, not by the pipeline:\n"
            "      a sending XPUB dropped at a full pipe while its receiver "
            "was not the limit; it delivers at most\n"
            "      about pipe HWM x TSC Hz / 3e6 = %s msgs/s per pipe "
            "(here %.0f %% of it; mode = capacity measures the pipeline)\n",
            report_grouped(bound, text, sizeof text), 100 * rate / bound);
    if (starved)
        fprintf(out, "      and the machine: these stages waited for a CPU "
                     "(starved), which stretches the pauses between "
                     "refills\n");
}

//  The msgs/s a proxy took in over all of its links; 0 for a publisher
static double s_taken_rate(const summary_t *summary, const char *name)
{
    double rate = 0;
    for (int k = 0; k < summary->nlinks; k++)
        if (strcmp(summary->links[k].to, name) == 0)
            rate += summary->links[k].rate;
    return rate;
}

//  Under a block where a stage sends to several connections (count,
//  sockets = N, a tree's tier): what it delivered in all, and its CPU per
//  message it handled and per copy it delivered
static void s_fanout_note(FILE *out, const summary_t *summary)
{
    for (int l = 0; l < summary->nlinks; l++) {
        const link_summary_t *s = &summary->links[l];
        bool first = true;
        for (int k = 0; k < l && first; k++)
            first = strcmp(summary->links[k].from, s->from) != 0;
        int connections = 0;
        double delivered = 0;
        for (int k = l; k < summary->nlinks && first; k++)
            if (strcmp(summary->links[k].from, s->from) == 0) {
                connections += summary->links[k].sockets > 0
                                   ? summary->links[k].sockets
                                   : 1;
                delivered += summary->links[k].rate;
            }
        if (!first || connections < 2 || s->from_cpu_ns <= 0 || delivered <= 0)
            continue;
        //  its CPU over the copies it delivered: with topics a message
        //  reaches only the connections that take its topic
        double taken = s_taken_rate(summary, s->from);
        double copy =
            s->from_cpu_ns * (taken > 0 ? taken : s->sent_rate) / delivered;
        char rate[32], ns[32];
        fprintf(out,
                "      fan-out: %s delivers %s msgs/s to %d connections; "
                "its CPU %s ns/msg, %.0f ns per delivered copy\n",
                s->from, report_grouped(delivered, rate, sizeof rate),
                connections, report_grouped(s->from_cpu_ns, ns, sizeof ns),
                copy);
    }
}

//  Is name some link's sending end (a proxy or publisher), or receiving
//  end (a proxy or subscriber)?
static bool s_sends(const summary_t *summary, const char *name)
{
    for (int k = 0; k < summary->nlinks; k++)
        if (strcmp(summary->links[k].from, name) == 0)
            return true;
    return false;
}

static bool s_receives(const summary_t *summary, const char *name)
{
    for (int k = 0; k < summary->nlinks; k++)
        if (strcmp(summary->links[k].to, name) == 0)
            return true;
    return false;
}

//  Under a block where a link took more than came into the stage that
//  feeds it (per socket at its end): how that can be, with nothing lost.
//  A proxy that held messages when the window opened delivers them in
//  it, and each hop's median over the repeats is its own
static void s_ahead_note(FILE *out, const summary_t *summary)
{
    for (int l = 0; l < summary->nlinks; l++) {
        const link_summary_t *s = &summary->links[l];
        double taken = s_taken_rate(summary, s->from);
        double per = s->rate / (s->sockets > 1 ? s->sockets : 1);
        char a[32], b[32];
        report_grouped(per, a, sizeof a);
        report_grouped(taken, b, sizeof b);
        if (taken <= 0 || per <= taken || strcmp(a, b) == 0)
            continue;
        fprintf(out,
                "      hop %d took %s msgs/s, more than came into %s (%s): "
                "msgs/s is what a hop took in the window, what %s held "
                "when it opened included%s\n",
                s->hop, a, s->from, b, s->from,
                summary->n > 1 ? ", and each hop's median is its own" : "");
        return;
    }
}

//  Under a block where a subscriber (hopbench's own harness) spent more
//  of a CPU than the proxy feeding it, and at least half of one: the
//  subscriber, not the broker, may have set the rate.  A stage's share of
//  a CPU is its CPU per message times the messages it handled per second;
//  the proxy's messages are the link's per socket (each socket takes a
//  copy of every message it took in)
static void s_harness_note(FILE *out, const summary_t *summary)
{
    for (int l = 0; l < summary->nlinks; l++) {
        const link_summary_t *s = &summary->links[l];
        if (s->from_cpu_ns <= 0 || s->to_cpu_ns <= 0 ||
            s_sends(summary, s->to) || !s_receives(summary, s->from))
            continue;
        double to = s->to_cpu_ns * s->rate / 1e9;
        double from =
            s->from_cpu_ns * s->rate / (s->sockets > 1 ? s->sockets : 1) / 1e9;
        if (to < 0.5 || to < from)
            continue;
        fprintf(out,
                "      harness: %s took %.0f %% of a CPU to read %d "
                "socket%s, %s %.0f %%: the subscriber, not %s, may have set "
                "hop %d's rate%s\n",
                s->to, 100 * to, s->sockets > 1 ? s->sockets : 1,
                s->sockets > 1 ? "s" : "", s->from, 100 * from, s->from, s->hop,
                s->sockets > 1 ? " (more instances, fewer sockets each)" : "");
    }
}

//  Under a block of 3 or more repeats: what the intervals are worth, and
//  whether --precision was met
static void s_interval_notes(FILE *out, const summary_t *summary)
{
    bool short_of = false;
    for (int l = 0; l < summary->nlinks; l++)
        short_of |= !summary->links[l].ci.reached;
    if (short_of && summary->nlinks)
        fprintf(out,
                "      *: %d repeats give at most a %.1f%% interval: ± is "
                "then min to max, the farther of the two from the median; "
                "%.0f%% needs %d\n",
                summary->n, 100 * summary->links[0].ci.coverage,
                100 * summary->confidence,
                summary_repeats_needed(summary->confidence));
    if (summary->precision <= 0)
        return;
    if (summary->precise) {
        fprintf(out,
                "      precise: every hop within ±%.1f%% after %d "
                "repeats\n",
                100 * summary->precision, summary->n);
        return;
    }
    fprintf(out,
            "      !: NOT PRECISE after %d repeats (max_repeat):", summary->n);
    for (int l = 0; l < summary->nlinks; l++)
        if (summary->links[l].precise == 0)
            fprintf(out, " hop %d ±%.1f%%", summary->links[l].hop,
                    100 * summary->links[l].spread);
    fprintf(out, " wider than ±%.1f%% (precise = 0)\n",
            100 * summary->precision);
}

void report_table_size(FILE *out, const report_info_t *info,
                       const summary_t *summary)
{
    if (summary->n == 0)
        return;
    int n = summary->n;
    fprintf(out, "\n%s (%s%s%s)  size %u B  window %.2f s", info->topology,
            info->pattern, info->mode[0] ? ", " : "", info->mode, summary->size,
            summary->nlinks ? summary->links[0].seconds : 0.0);
    if (n >= SUMMARY_MIN_REPEATS)
        fprintf(out, "  median of %d repeats, ±: its %.0f%% interval", n,
                100 * summary->confidence);
    else if (n > 1)
        fprintf(out, "  median of %d repeats", n);
    for (int i = 0; i < info->nsweep; i++)
        fprintf(out, "  %s=%s", info->sweep_key[i], info->sweep_value[i]);
    column_view_t view[COLUMNS_VIEW_MAX + 1];
    int widths[COLUMNS_VIEW_MAX];
    column_ctx_t ctx = {.info = info, .size = summary->size, .of = summary};
    s_view(summary, view);
    columns_view_widths(view, ctx, summary->links, summary->nlinks,
                        sizeof *summary->links, widths);
    fputc('\n', out);
    columns_view_header(out, view, widths);
    for (int l = 0; l < summary->nlinks; l++) {
        ctx.row = &summary->links[l];
        columns_view_row(out, view, &ctx, widths);
    }
    s_hwm_note(out, summary);
    s_starved_note(out, summary);
    s_fanout_note(out, summary);
    s_ahead_note(out, summary);
    s_harness_note(out, summary);
    if (n >= SUMMARY_MIN_REPEATS)
        s_interval_notes(out, summary);
    fflush(out);
}

//  "median over 5 repeats: p50 12.3 ±4.0%  p99 40.1 ±9.9% us"
static void s_latency_repeats(FILE *out, const summary_t *summary,
                              const char *hop)
{
    for (int r = 0; summary && r < summary->nlatency; r++) {
        const latency_summary_t *s = &summary->latency[r];
        if (strcmp(s->hop, hop) || s->n < SUMMARY_MIN_REPEATS)
            continue;
        double p50 =
            s->p50 > 0
                ? fmax(s->p50 - s->p50_ci.low, s->p50_ci.high - s->p50) / s->p50
                : 0;
        double p99 =
            s->p99 > 0
                ? fmax(s->p99 - s->p99_ci.low, s->p99_ci.high - s->p99) / s->p99
                : 0;
        fprintf(out,
                "      %-23s median over %d repeats: p50 %.1f ±%.1f%%%s  "
                "p99 %.1f ±%.1f%%%s us\n",
                "", s->n, s->p50, 100 * p50, s->p50_ci.reached ? "" : "*",
                s->p99, 100 * p99, s->p99_ci.reached ? "" : "*");
    }
}

void report_table_latency(FILE *out, const latency_row_t *rows, int nrows,
                          const summary_t *summary, const char *e2e)
{
    for (int r = 0; r < nrows; r++) {
        const histogram_t *h = &rows[r].histogram;
        char samples[32], what[32];
        if (strcmp(rows[r].hop, "e2e") == 0)
            snprintf(what, sizeof what, "%s", e2e);
        else
            snprintf(what, sizeof what, "to end of hop %s", rows[r].hop);
        fprintf(
            out,
            "      latency %-15s %s samples  mean %.1f  p50 %.1f  p90 "
            "%.1f  p99 %.1f  p99.9 %.1f  max %.1f us\n",
            what,
            report_grouped((double)histogram_count(h), samples, sizeof samples),
            histogram_mean(h) / 1e3, histogram_percentile(h, 50) / 1e3,
            histogram_percentile(h, 90) / 1e3,
            histogram_percentile(h, 99) / 1e3,
            histogram_percentile(h, 99.9) / 1e3, histogram_max(h) / 1e3);
        s_latency_repeats(out, summary, rows[r].hop);
    }
    fflush(out);
}

void report_table_clocks(FILE *out, const run_host_t *hosts, int nhosts)
{
    fputs("      clocks  ", out);
    for (int i = 0; i < nhosts; i++)
        fprintf(out, "%s%s %+.1f +- %.1f us", i ? ", " : "", hosts[i].name,
                hosts[i].clock_offset_ns / 1e3,
                hosts[i].clock_uncertainty_ns / 1e3);
    fputs(" against the controller's: one-way latency across hosts is "
          "corrected by these offsets and is no better than their "
          "uncertainty\n",
          out);
    fflush(out);
}
