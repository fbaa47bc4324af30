/*  columns_more: the tables of search.csv, search_summary.csv,
    syscalls.csv, threads.csv, memory.csv and sizing.csv (columns.h); results.csv's,
    latency.csv's and sockets.csv's are in columns_files.c.

    search.csv: a row per trial and link; its row is the link
    (link_row_t), and what is the trial's (search_trial_t) is taken from
    ctx->of.  search_summary.csv: a row per size and loss ratio
    (search_found_t).  syscalls.csv: a row per traced trial, stage,
    thread and system call (syscall_row_t); only the "all" rows fill
    cpu_ns .. lost.
*/
#include "report/columns.h"

#include "report/report_sizing.h"
#include "trial/search.h"

#define FN(f, fmt) COLUMN_ROW_COMPUTED(f, fmt, 0)

//  ---------------------------------------------------------------------
//  search.csv

static const search_trial_t *s_trial(const column_ctx_t *ctx)
{
    return ctx->of;
}
//  Which search of the size (repeat = N searches it N times)
static void s_search_repeat(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, ctx->info->search);
}
static void s_rate(const column_ctx_t *ctx, column_value_t *v)
{
    column_real(v, link_rate(ctx->row));
}
static void s_lost(const column_ctx_t *ctx, column_value_t *v)
{
    column_uint(v, (uint64_t)link_lost(ctx->row));
}
static void s_loss_ratio(const column_ctx_t *ctx, column_value_t *v)
{
    const link_row_t *row = ctx->row;
    uint64_t lost = (uint64_t)link_lost(row);
    column_real(v, row->expected ? (double)lost / (double)row->expected : 0.0);
}
static void s_pass(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, s_trial(ctx)->verdict == VERDICT_PASS);
}
static void s_phase(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, search_phase_names[s_trial(ctx)->phase]);
}
static void s_verdict(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, search_verdict_names[s_trial(ctx)->verdict]);
}
static void s_starved(const column_ctx_t *ctx, column_value_t *v)
{
    int starved = s_trial(ctx)->starved;
    column_text(v, starved > 0 ? "yes" : starved == 0 ? "no" : "unknown");
}
//  "0 0.005": the ratios the trial passed
static void s_passed(const column_ctx_t *ctx, column_value_t *v)
{
    const search_trial_t *trial = s_trial(ctx);
    size_t used = 0;
    v->buf[0] = 0;
    for (int k = 0; k < trial->nratios && used < sizeof v->buf; k++)
        if (trial->verdicts[k] == VERDICT_PASS)
            used += (size_t)snprintf(v->buf + used, sizeof v->buf - used,
                                     "%s%g", used ? " " : "",
                                     ctx->params->loss_ratio.ratio[k]);
    column_text(v, v->buf);
}
static void s_cut_short(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, s_trial(ctx)->cut_short);
}
static void s_setup(const column_ctx_t *ctx, column_value_t *v)
{
    column_real(v, s_trial(ctx)->result->setup_seconds);
}
static void s_drain(const column_ctx_t *ctx, column_value_t *v)
{
    column_real(v, s_trial(ctx)->result->drain_seconds);
}
static void s_pipeline(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, s_trial(ctx)->result->pipeline);
}

#define TRIAL(f, fmt, fl)                                                      \
    COLUMN_ROW_FIELD(search_trial_t, f, fmt, COLUMN_OF | (fl))
#define LINK(f) COLUMN_ROW_FIELD(link_row_t, f, NULL, 0)

static const column_t s_search[] = {
    {COLUMN_TOPOLOGY, COLUMN_TAKE_TOPOLOGY, {0}, "the topology's name"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, {0}, "the message size in bytes"},
    {COLUMN_REPEAT, FN(s_search_repeat, NULL),
     "the search of the size, 1 first (repeat = N: N searches)"},
    {"trial", TRIAL(number, NULL, 0), "the trial, 1 first within the search"},
    {COLUMN_OFFERED, TRIAL(offered, "%.1f", 0),
     "what the publishers were asked for, msgs/s (the bound: what they sent)"},
    {"sent_per_sec", TRIAL(sent, "%.1f", 0),
     "what they sent in the window, msgs/s"},
    {COLUMN_HOP, LINK(hop), "the hop"},
    {COLUMN_FROM, LINK(from), "the stage the link starts at"},
    {COLUMN_TO, LINK(to), "the stage it ends at"},
    {COLUMN_RECEIVED_RATE, FN(s_rate, "%.1f"), "the hop's rate in the window"},
    {COLUMN_LOST, FN(s_lost, NULL), "what the hop lost, whole trial"},
    {COLUMN_LOSS_RATIO, FN(s_loss_ratio, "%.6f"),
     "...as a share of what it should have carried"},
    {COLUMN_P99_US, TRIAL(p99_us, "%.3f", COLUMN_OPTIONAL),
     "the end-to-end p99 (empty: not timed)"},
    {COLUMN_PASS, FN(s_pass, NULL),
     "1: the trial passed the smallest loss ratio"},
    {COLUMN_PHASE, FN(s_phase, NULL), "bound, step or confirm"},
    {"verdict", FN(s_verdict, NULL),
     "pass, fail, generator-limited, unjudged or behind, against the smallest "
     "loss ratio"},
    {"window", TRIAL(window, "%g", 0), "the trial's seconds"},
    {"starved", FN(s_starved, NULL),
     "yes, no or unknown: a stage waited for a CPU during it"},
    {"passed", FN(s_passed, NULL),
     "the loss ratios it passed, space-separated"},
    {"cut_short", FN(s_cut_short, NULL),
     "1: its window ended early, once it had lost more than allowed"},
    {"setup_seconds", FN(s_setup, "%.3f"),
     "its time from the trial's start to its window"},
    {"drain_seconds", FN(s_drain, "%.3f"),
     "...and from its window's end until the pipeline was still or gone"},
    {"pipeline", FN(s_pipeline, NULL),
     "fresh, reused, or fallback:WHY (search_reuse)"},
};

const column_table_t columns_search =
    COLUMN_TABLE("search.csv", s_search, true);

//  ---------------------------------------------------------------------
//  search_summary.csv

static bool s_publishers(const search_found_t *f)
{
    return f->limited || f->fail == 0;
}
static void s_bottleneck(const column_ctx_t *ctx, column_value_t *v)
{
    const search_found_t *f = ctx->row;
    snprintf(v->buf, sizeof v->buf, "publishers");
    if (!s_publishers(f) && f->latency)
        snprintf(v->buf, sizeof v->buf, "p99");
    else if (!s_publishers(f) && f->bottleneck >= 0)
        snprintf(v->buf, sizeof v->buf, "hop%d", f->bottleneck_hop);
    column_text(v, v->buf);
}
static void s_starved_all(const column_ctx_t *ctx, column_value_t *v)
{
    const search_found_t *f = ctx->row;
    column_text(v, search_starved_all(f) ? "yes"
                   : f->failures > 0 && f->starved + f->unknown == f->failures
                       ? "unknown"
                       : "no");
}
static void s_set_by(const column_ctx_t *ctx, column_value_t *v)
{
    const search_found_t *f = ctx->row;
    column_text(v, s_publishers(f)         ? "publishers"
                   : search_starved_all(f) ? "machine"
                                           : "pipeline");
}

#define FOUND(f, fmt) COLUMN_ROW_FIELD(search_found_t, f, fmt, 0)

static const column_t s_search_summary[] = {
    {COLUMN_TOPOLOGY, COLUMN_TAKE_TOPOLOGY, {0}, "the topology's name"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, {0}, "the message size in bytes"},
    {COLUMN_REPEAT, FN(s_search_repeat, NULL),
     "the search of the size, 1 first (repeat = N: N searches)"},
    {COLUMN_LOSS_RATIO, FOUND(ratio, "%g"), "the loss ratio"},
    {"found", FOUND(found, "%.1f"), "the rate confirmed, msgs/s (0: none)"},
    {"fail", FOUND(fail, "%.1f"), "the lowest failing rate"},
    {"best_step", FOUND(best_step, "%.1f"), "the highest short pass"},
    {"trials", FOUND(trials, NULL), "trials when this ratio was settled"},
    {"seconds", FOUND(seconds, "%.3f"), "...and the search's seconds then"},
    {"bottleneck", FN(s_bottleneck, NULL),
     "the hop that lost first (hop1, ...), p99 or publishers"},
    {"failures", FOUND(failures, NULL), "trials that failed against it"},
    {"starved_failures", FOUND(starved, NULL), "...of which were starved"},
    {"starved_all", FN(s_starved_all, NULL),
     "yes: every failure starved; unknown: some not known; else no"},
    {"set_by", FN(s_set_by, NULL), "machine, publishers or pipeline"},
};

const column_table_t columns_search_summary =
    COLUMN_TABLE("search_summary.csv", s_search_summary, true);

//  ---------------------------------------------------------------------
//  syscalls.csv

static const syscall_row_t *s_call(const column_ctx_t *ctx)
{
    return ctx->row;
}
static void s_calls_per_msg(const column_ctx_t *ctx, column_value_t *v)
{
    const syscall_row_t *row = s_call(ctx);
    if (row->messages)
        column_real(v, (double)row->calls / (double)row->messages);
}
static void s_ns_per_msg(const column_ctx_t *ctx, column_value_t *v)
{
    const syscall_row_t *row = s_call(ctx);
    if (row->messages)
        column_real(v, (double)row->total_ns / (double)row->messages);
}
static void s_cpu_ns(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_call(ctx)->totals)
        column_uint(v, s_call(ctx)->cpu_ns);
}
static void s_utime_ns(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_call(ctx)->totals)
        column_uint(v, s_call(ctx)->utime_ns);
}
static void s_stime_ns(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_call(ctx)->totals)
        column_uint(v, s_call(ctx)->stime_ns);
}
static void s_kernel_share(const column_ctx_t *ctx, column_value_t *v)
{
    const syscall_row_t *row = s_call(ctx);
    uint64_t whole = row->utime_ns + row->stime_ns;
    if (row->totals && whole)
        column_real(v, (double)row->stime_ns / (double)whole);
}
static void s_dropped(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_call(ctx)->totals)
        column_uint(v, s_call(ctx)->lost);
}

#define CALL(f, fmt) COLUMN_ROW_FIELD(syscall_row_t, f, fmt, 0)

static const column_t s_syscalls[] = {
    {COLUMN_TOPOLOGY, COLUMN_TAKE_TOPOLOGY, {0}, "the topology's name"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, {0}, "the message size in bytes"},
    {COLUMN_REPEAT, COLUMN_TAKE_REPEAT, {0}, "the traced repetition"},
    {COLUMN_STAGE, CALL(stage, NULL), "the stage's instance"},
    {COLUMN_THREAD, CALL(thread, NULL), "its thread, or all"},
    {COLUMN_SYSCALL, CALL(syscall, NULL), "the system call, or all"},
    {"calls", CALL(calls, NULL), "calls begun and ended in the window"},
    {"total_ns", CALL(total_ns, NULL),
     "the time between their entries and exits"},
    {COLUMN_CALLS_PER_MSG, FN(s_calls_per_msg, "%.6f"),
     "calls per message the stage handled in the window"},
    {COLUMN_NS_PER_MSG, FN(s_ns_per_msg, "%.1f"), "their time per message"},
    {COLUMN_MESSAGES, CALL(messages, NULL),
     "what the stage handled in the window"},
    {"seconds", CALL(seconds, "%.6f"), "the stage's window"},
    {COLUMN_CPU_NS, FN(s_cpu_ns, NULL),
     "all rows: the threads' CPU time over the window"},
    {"utime_ns", FN(s_utime_ns, NULL), "all rows: user time"},
    {"stime_ns", FN(s_stime_ns, NULL), "all rows: system time"},
    {"kernel_share", FN(s_kernel_share, "%.4f"),
     "all rows: stime over utime + stime"},
    {COLUMN_LOST, FN(s_dropped, NULL),
     "all rows: records the kernel dropped (two a call)"},
    {"host", CALL(host, NULL), "the stage's host (empty: the controller's)"},
    {COLUMN_PATTERN, COLUMN_TAKE_PATTERN, {0}, "the topology's pattern"},
    {COLUMN_MODE, COLUMN_TAKE_MODE, {0}, "as in results.csv"},
};

const column_table_t columns_syscalls =
    COLUMN_TABLE("syscalls.csv", s_syscalls, true);

//  ---------------------------------------------------------------------
//  threads.csv and memory.csv

#define THREAD(f, fmt, fl) COLUMN_ROW_FIELD(thread_row_t, f, fmt, fl)

static const column_t s_threads[] = {
    {COLUMN_STAGE, THREAD(stage, NULL, 0),
     "the stage's instance, or controller for hopbench's own"},
    {COLUMN_THREAD, THREAD(thread, NULL, 0), "main, or libzmq's name"},
    {"tid", THREAD(tid, NULL, 0), "its thread id"},
    {"allowed_cpus", THREAD(allowed, "\"%s\"", 0), "the CPUs it may run on"},
    {"last_cpu", THREAD(last_cpu, NULL, 0), "the CPU it last ran on"},
    {"node", THREAD(node, NULL, 0), "...and that CPU's node"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, {0}, "the message size in bytes"},
    {COLUMN_REPEAT, COLUMN_TAKE_REPEAT, {0}, "the repetition"},
    {"mem_node", THREAD(mem_node, NULL, 0),
     "main threads: the node of a message buffer it touched"},
    {"host", THREAD(host, NULL, 0), "its host (empty: the controller's)"},
    {"wait_pct", THREAD(wait_pct, "%.2f", COLUMN_OPTIONAL),
     "its share of the window waiting for a CPU"},
    {"nonvoluntary_switches", THREAD(preempted, NULL, COLUMN_OPTIONAL),
     "times it was preempted in the window"},
};

const column_table_t columns_threads =
    COLUMN_TABLE("threads.csv", s_threads, true);

static void s_on_node(const column_ctx_t *ctx, column_value_t *v)
{
    const memory_row_t *row = ctx->row;
    if (row->node >= 0)
        column_int(v, pin_pages_on(&row->pages, row->node));
}
static void s_by_node(const column_ctx_t *ctx, column_value_t *v)
{
    pin_pages_format(&((const memory_row_t *)ctx->row)->pages, v->buf,
                     sizeof v->buf);
    column_text(v, v->buf);
}

#define MEMORY(f) COLUMN_ROW_FIELD(memory_row_t, f, NULL, 0)

static const column_t s_memory[] = {
    {COLUMN_STAGE, MEMORY(stage), "the stage's instance"},
    {"region", MEMORY(region), "counters, messages, stack or zerocopy"},
    {"node", MEMORY(node), "the stage's node in the plan (-1: not pinned)"},
    {"pages", MEMORY(pages.pages), "the region's pages"},
    {"present", MEMORY(pages.present), "...of which in memory"},
    {"on_node", FN(s_on_node, NULL),
     "...of which on the stage's node (empty: it has none)"},
    {"by_node", FN(s_by_node, NULL), "node:pages, '0:9 1:1'"},
    {COLUMN_SIZE, COLUMN_TAKE_SIZE, {0}, "the message size in bytes"},
    {COLUMN_REPEAT, COLUMN_TAKE_REPEAT, {0}, "the repetition"},
};

const column_table_t columns_memory =
    COLUMN_TABLE("memory.csv", s_memory, true);

//  ---------------------------------------------------------------------
//  sizing.csv

static void s_sizing_verdict(const column_ctx_t *ctx, column_value_t *v)
{
    const sizing_row_t *row = ctx->row;
    column_text(v, sizing_verdict_names[row->verdict]);
}
static void s_pareto(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, ((const sizing_row_t *)ctx->row)->pareto);
}
static void s_sizing_starved(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, ((const sizing_row_t *)ctx->row)->starved);
}
static void s_sizing_answer(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, ((const sizing_row_t *)ctx->row)->answer);
}

//  The target, from ctx->of (a sizing_target_t): none without one
static const sizing_target_t *s_target(const column_ctx_t *ctx)
{
    return ctx->of;
}
static void s_target_rate(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_target(ctx))
        column_real(v, s_target(ctx)->rate);
}
static void s_target_p99(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_target(ctx) && s_target(ctx)->p99_us > 0)
        column_real(v, s_target(ctx)->p99_us);
}
static void s_target_loss(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_target(ctx))
        column_real(v, s_target(ctx)->loss);
}
static void s_headroom(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_target(ctx))
        column_real(v, s_target(ctx)->headroom);
}

#define SIZING(f, fmt, fl) COLUMN_ROW_FIELD(sizing_row_t, f, fmt, fl)
#define MEASURED           COLUMN_OPTIONAL //  empty: not measured

static const column_t s_sizing[] = {
    {"candidate", SIZING(number, NULL, 0),
     "its number: the files, then the --try values, in the order given"},
    {COLUMN_TOPOLOGY, SIZING(topology, NULL, 0), "the file's topology name"},
    {"try", SIZING(tried, NULL, COLUMN_QUOTED),
     "its --try values, \"engine=forwarder io_threads=2\""},
    {COLUMN_SIZE, SIZING(size, NULL, 0), "the message size in bytes"},
    {"cost", SIZING(cost, "%g", MEASURED),
     "what it takes, in cost_unit: the brokers' busy cores at rate x (1 + "
     "headroom) rounded up per broker (or the CPUs their cpus = reserve, "
     "whichever is larger), the hosts' or the brokers' own cost ="},
    {"broker_cpus", SIZING(brokers, "%g", 0),
     "the CPUs the brokers' cpus = reserve (0: none)"},
    {"generator_cpus", SIZING(generators, "%g", 0),
     "the CPUs the load generators may run on (never in the cost)"},
    {"capacity_per_sec", SIZING(capacity.value, "%.1f", MEASURED),
     "what it carried flat out, msgs/s offered: the mean of its trials"},
    {"confirmed_per_sec", SIZING(confirmed, "%.1f", MEASURED),
     "rate x (1 + headroom) when its loss there met the target, else 0"},
    {COLUMN_P99_US, SIZING(p99_us.value, "%.3f", MEASURED),
     "end to end at the target rate, over every window"},
    {"busy_cores", SIZING(busy_cores, "%.4f", MEASURED),
     "the brokers' CPU at rate x (1 + headroom), in cores"},
    {"ndr_per_sec", SIZING(ndr, "%.1f", MEASURED), "--ndr: the search's rate"},
    {"verdict", FN(s_sizing_verdict, NULL),
     "meets, fails on capacity/loss/p99, fails its proof, undecided, "
     "inconclusive: the machine, does not fit, or not tried"},
    {"figure", SIZING(figure, "%g", 0), "the figure that decided it"},
    {COLUMN_HOP, SIZING(hop, NULL, COLUMN_QUOTED), "the hop that set it"},
    {"why", SIZING(why, NULL, COLUMN_QUOTED), "the reason, in words"},
    {"pareto", FN(s_pareto, NULL),
     "1 on the front of cost against capacity, of those that meet"},
    {"starved", FN(s_sizing_starved, NULL), "1 when a trial of it was starved"},
    {"seconds", SIZING(seconds, "%.1f", MEASURED),
     "the wall time its measuring took"},
    {COLUMN_SOCKETS, SIZING(sockets, NULL, 0),
     "its subscribers' SUB sockets: each takes what it subscribes to"},
    {"file", SIZING(file, NULL, COLUMN_QUOTED), "its topology file"},
    {"cost_unit", SIZING(cost_unit, NULL, 0), "cores, hosts or yours"},
    {"planned_cost", SIZING(planned_cost, "%g", MEASURED),
     "its cost before it was measured: each broker a core, or the CPUs it "
     "reserves (the order candidates are tried in)"},
    {"capacity_low", SIZING(capacity.low, "%.1f", MEASURED),
     "...the interval of capacity_per_sec (confidence)"},
    {"capacity_high", SIZING(capacity.high, "%.1f", MEASURED), "...its top"},
    {"capacity_trials", SIZING(capacity_trials, NULL, 0),
     "the flat-out trials it rests on"},
    {"loss_good_seconds", SIZING(loss_good, "%.2f", 0),
     "trial-seconds at rate x (1 + headroom) that lost no more than loss"},
    {"loss_bad_seconds", SIZING(loss_bad, "%.2f", 0),
     "...that lost more, not starved"},
    {"loss_starved_seconds", SIZING(loss_starved, "%.2f", 0),
     "...that lost more, starved (counted as neither)"},
    {"loss_worst", SIZING(loss_worst, "%g", 0),
     "the most any of those trials lost, a ratio"},
    {"p99_low_us", SIZING(p99_us.low, "%.3f", MEASURED),
     "...the interval of p99_us (confidence), from its windows"},
    {"p99_high_us", SIZING(p99_us.high, "%.3f", MEASURED), "...its top"},
    {"p99_windows", SIZING(p99_windows, NULL, 0), "the windows it rests on"},
    {"decided_by", SIZING(decided_by, NULL, 0),
     "the criterion that gave the verdict: capacity, loss, p99 or proof"},
    {"answer", FN(s_sizing_answer, NULL),
     "1 for its size's answer: the cheapest that meets, proven"},
    {"proof_seconds", SIZING(proof_seconds, "%.2f", 0),
     "its proof at rate (0: none)"},
    {"proof_loss", SIZING(proof_loss, "%g", 0),
     "the most a window of the proof lost, a ratio"},
    {"proof_p99_us", SIZING(proof_p99_us.value, "%.3f", MEASURED),
     "...its p99, and the interval"},
    {"proof_p99_low_us", SIZING(proof_p99_us.low, "%.3f", MEASURED),
     "...its interval's bottom"},
    {"proof_p99_high_us", SIZING(proof_p99_us.high, "%.3f", MEASURED),
     "...its top"},
    {"trial_seconds", SIZING(trial_seconds, "%.2f", 0),
     "the trial-seconds its verdict rests on"},
    {"target_per_sec", FN(s_target_rate, "%.10g"),
     "the target (every row): msgs/s offered by the publishers together"},
    {"target_p99_us", FN(s_target_p99, "%.10g"),
     "...its p99 bound (empty: any)"},
    {"target_loss", FN(s_target_loss, "%g"), "...the loss ratio allowed"},
    {"headroom", FN(s_headroom, "%g"),
     "...and the share above it each candidate must carry"},
};

const column_table_t columns_sizing =
    COLUMN_TABLE("sizing.csv", s_sizing, false);

const column_table_t *const columns_tables[] = {
    &columns_results,        &columns_latency,  &columns_search,
    &columns_search_summary, &columns_sockets,  &columns_syscalls,
    &columns_threads,        &columns_memory,   &columns_sizing,
    &columns_sizing_fit,     &columns_timeline, NULL};
