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

static const column_table_t *const s_tables[] = {
    [REPORT_RESULTS] = &columns_results,
    [REPORT_LATENCY] = &columns_latency,
    [REPORT_THREADS] = &columns_threads,
    [REPORT_SOCKETS] = &columns_sockets,
    [REPORT_MEMORY] = &columns_memory};

void report_header(FILE *out, report_file_t file, const report_info_t *info)
{
    columns_header(out, s_tables[file], info);
}

void report_rows(FILE *out, report_file_t file, const report_info_t *info,
                 const trial_result_t *trial)
{
    const void *rows = NULL;
    int n = 0;
    size_t size = 0;
    switch (file) {
    case REPORT_RESULTS:
        rows = trial->links, n = trial->nlinks, size = sizeof *trial->links;
        break;
    case REPORT_LATENCY:
        rows = trial->latency, n = trial->nlatency;
        size = sizeof *trial->latency;
        break;
    case REPORT_THREADS:
        rows = trial->threads, n = trial->nthreads;
        size = sizeof *trial->threads;
        break;
    case REPORT_SOCKETS:
        rows = trial->sockets, n = trial->nsockets;
        size = sizeof *trial->sockets;
        break;
    case REPORT_MEMORY:
        rows = trial->memory, n = trial->nmemory, size = sizeof *trial->memory;
        break;
    }
    char repeat[16];
    columns_rows(out, s_tables[file],
                 s_trial(info, trial, repeat, sizeof repeat), rows, n, size,
                 false);
}

void report_median_rows(FILE *out, report_file_t file,
                        const report_info_t *info, const summary_t *summary)
{
    column_ctx_t ctx = {
        .info = info, .size = summary->size, .repeat = COLUMN_MEDIAN};
    if (file == REPORT_RESULTS)
        columns_rows(out, s_tables[file], ctx, summary->links, summary->nlinks,
                     sizeof *summary->links, true);
    else if (file == REPORT_LATENCY)
        columns_rows(out, s_tables[file], ctx, summary->latency,
                     summary->nlatency, sizeof *summary->latency, true);
}

void report_latency_rows(FILE *out, const report_info_t *info, uint32_t size,
                         const char *repeat, const latency_row_t *rows,
                         int nrows)
{
    column_ctx_t ctx = {.info = info, .size = size, .repeat = repeat};
    columns_rows(out, &columns_latency, ctx, rows, nrows, sizeof *rows, false);
}
