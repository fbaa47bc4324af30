/*  report_csv: results.csv, latency.csv, threads.csv and memory.csv.

    results.csv: the contract columns (REPORT_CSV_COLUMNS), then
    from_cpu_ns_per_msg, to_cpu_ns_per_msg (CPU time of the stage's thread
    and its libzmq I/O threads over the window, per message it handled;
    empty when unknown), seq_lost (loss proven by the receiver's sequence
    numbers on the way from the publishers, on rows that end at a
    subscriber; empty elsewhere), sent_per_sec (what the sending end handed
    to the hop during the window, per second of the sending end's own
    window: the offered load), mode (capacity, flood, search; empty for
    reqrep and connect), hwm_bound (1: a flood row whose rate is the one
    the HWM and libzmq's command batching allow, trial/results.h),
    from_host, to_host (the hosts of the hop's ends, host = NAME; empty
    for a stage where the controller runs), ci_low, ci_high, ci_coverage,
    precise (below), expected (what the hop should have carried of its
    downstream's subscribed topics: sent where it takes every topic; lost
    is expected - received, trial/trial_topics.c), selectivity (the share
    of its sources' messages its downstream subscribed to, 1 for all),
    loss_ratio (mode = search: the loss ratio whose confirmed rate the row
    is, one set of rows per ratio; empty elsewhere), from_wait_pct,
    to_wait_pct, steal_pct, starved (trial/trial_starve.c),
    sockets (the SUB sockets at its receiving end, sockets = N, else 1),
    min_socket_msgs_per_sec, max_socket_msgs_per_sec (the slowest and
    fastest of them in the window; with one socket, msgs_per_sec), then
    one sweep_KEY column per swept key.

    sockets.csv (--per-socket, when a subscriber has several sockets):
    topology,size,repeat,stage,socket,received,lost,msgs_per_sec,seq_lost,
    then the sweep_KEY columns: a row per socket and trial; lost is on its
    link (its instance's rows' expected over N, less what it took: the
    sockets' add up to the rows'), seq_lost what its sequence numbers
    prove it missed from the publishers on (trial/trial_sockets.c).
    from_cpu, to_cpu, from_node, to_node: a number, or for a row that
    stands for several stage instances (a fan-in into a proxy that cannot
    tell them apart: pub.*) whose CPUs differ, the CPUs ascending joined by
    '+' ("0+1+2+3": one CSV field, no quotes); -1 not pinned, "-1+2" where
    some are and some are not.

    With 3 or more repeats a size also has one `repeat = median` row per
    link after its repeats (trial/summary.h): every number in it is the
    median of that column over the repeats (so its msgs_per_sec is not
    received / seconds); from_cpu .. to_node are the repeats' when they
    all agree, else -1.  Only these rows fill ci_low and ci_high (the
    interval of the median msgs/s at `confidence`; mb_per_sec's is the
    same times size / 10^6), ci_coverage (the interval's exact coverage:
    below the confidence when there were too few repeats for it, 6 at
    0.95, and then the interval is min to max) and, with --precision,
    precise (1: within it, 0: max_repeat ran out first).  Per-repeat rows
    leave the four empty.

    latency.csv gains mode, then p50_ci_low_us, p50_ci_high_us,
    p99_ci_low_us, p99_ci_high_us: filled on its `repeat = median` rows,
    where each figure is the median over the repeats of that percentile
    (the `repeat = all` rows merge the repeats' distributions instead).

    threads.csv: the contract columns (stage is "controller" for
    hopbench's own threads), size, repeat, mem_node, host (as in
    results.csv), then the sweep_KEY columns.  memory.csv: per trial,
    stage and region (counters, messages, stack, zerocopy) the stage's
    node in the plan (-1: not pinned), the region's pages, how many are in
    memory, how many of those are on the stage's node (empty when it has
    none), by_node ("0:9 1:1", node:pages), size, repeat, sweep_KEY
    columns.
*/
#include "report/report.h"

#include "report/columns.h"

#include <stdio.h>

//  A trial's rows: its size and its repeat, into buf
static column_ctx_t s_trial(const report_info_t *info,
                            const trial_result_t *trial, char *buf, size_t len)
{
    snprintf(buf, len, "%d", trial->repeat);
    return (column_ctx_t){.info = info, .size = trial->size, .repeat = buf};
}

void report_csv_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_results, info);
}

void report_csv_rows(FILE *out, const report_info_t *info,
                     const trial_result_t *trial)
{
    char repeat[16];
    columns_rows(out, &columns_results,
                 s_trial(info, trial, repeat, sizeof repeat), trial->links,
                 trial->nlinks, sizeof *trial->links, false);
}

void report_csv_median_rows(FILE *out, const report_info_t *info,
                            const summary_t *summary)
{
    column_ctx_t ctx = {
        .info = info, .size = summary->size, .repeat = COLUMN_MEDIAN};
    columns_rows(out, &columns_results, ctx, summary->links, summary->nlinks,
                 sizeof *summary->links, true);
}

void report_sockets_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_sockets, info);
}

void report_sockets_rows(FILE *out, const report_info_t *info,
                         const trial_result_t *trial)
{
    char repeat[16];
    columns_rows(out, &columns_sockets,
                 s_trial(info, trial, repeat, sizeof repeat), trial->sockets,
                 trial->nsockets, sizeof *trial->sockets, false);
}

void report_latency_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_latency, info);
}

void report_latency_rows(FILE *out, const report_info_t *info, uint32_t size,
                         const char *repeat, const latency_row_t *rows,
                         int nrows)
{
    column_ctx_t ctx = {.info = info, .size = size, .repeat = repeat};
    columns_rows(out, &columns_latency, ctx, rows, nrows, sizeof *rows, false);
}

void report_latency_median_rows(FILE *out, const report_info_t *info,
                                const summary_t *summary)
{
    column_ctx_t ctx = {
        .info = info, .size = summary->size, .repeat = COLUMN_MEDIAN};
    columns_rows(out, &columns_latency, ctx, summary->latency,
                 summary->nlatency, sizeof *summary->latency, true);
}

void report_threads_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_threads, info);
}

void report_threads_rows(FILE *out, const report_info_t *info,
                         const trial_result_t *trial)
{
    char repeat[16];
    columns_rows(out, &columns_threads,
                 s_trial(info, trial, repeat, sizeof repeat), trial->threads,
                 trial->nthreads, sizeof *trial->threads, false);
}

void report_memory_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_memory, info);
}

void report_memory_rows(FILE *out, const report_info_t *info,
                        const trial_result_t *trial)
{
    char repeat[16];
    columns_rows(out, &columns_memory,
                 s_trial(info, trial, repeat, sizeof repeat), trial->memory,
                 trial->nmemory, sizeof *trial->memory, false);
}
