/*  report_csv: results.csv, latency.csv, sockets.csv, threads.csv and
    memory.csv, each written by its table of columns (report/columns.h;
    the columns and what each means: columns_files.c, columns_more.c).

    results.csv has a row per trial and link, and with 3 or more repeats
    a `repeat = median` row per link after a size's repeats
    (trial/summary.h): every number in it is the median of that column
    over the repeats (so its msgs_per_sec is not received / seconds);
    from_cpu .. to_node are the repeats' when they all agree, else -1.
    Only these rows fill ci_low and ci_high (the interval of the median
    msgs/s at `confidence`; mb_per_sec's is the same times size / 10^6),
    ci_coverage (the interval's exact coverage: below the confidence when
    there were too few repeats for it, 6 at 0.95, and then the interval is
    min to max) and, with --precision, precise.  from_cpu, to_cpu,
    from_node, to_node: a number, or for a row that stands for several
    stage instances (a fan-in into a proxy that cannot tell them apart:
    pub.*) whose CPUs differ, the CPUs ascending joined by '+' ("0+1+2+3":
    one CSV field, no quotes); -1 not pinned, "-1+2" where some are and
    some are not.

    latency.csv's `repeat = median` rows: each figure the median over the
    repeats of that percentile, with the intervals of p50 and p99 (the
    `repeat = all` rows merge the repeats' distributions instead).
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
