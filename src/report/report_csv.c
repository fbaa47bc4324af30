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

#include <stddef.h>
#include <stdio.h>
#include <string.h>

//  A trial's rows: its size and its repeat, into buf
static column_ctx_t s_trial(const report_info_t *info,
                            const trial_result_t *trial, char *buf, size_t len)
{
    snprintf(buf, len, "%d", trial->repeat);
    return (column_ctx_t){
        .info = info, .size = trial->size, .repeat = buf, .of = trial};
}

//  Each file: its table, and where a trial keeps its rows and their count
#define S_FILE(table, rows, n)                                                 \
    {                                                                          \
        &table, offsetof(trial_result_t, rows), offsetof(trial_result_t, n),   \
            sizeof *((trial_result_t *)0)->rows                                \
    }
static const struct {
    const column_table_t *table;
    size_t rows, n, size;
} s_files[] = {[REPORT_RESULTS] = S_FILE(columns_results, links, nlinks),
               [REPORT_LATENCY] = S_FILE(columns_latency, latency, nlatency),
               [REPORT_THREADS] = S_FILE(columns_threads, threads, nthreads),
               [REPORT_SOCKETS] = S_FILE(columns_sockets, sockets, nsockets),
               [REPORT_MEMORY] = S_FILE(columns_memory, memory, nmemory),
               [REPORT_TIMELINE] =
                   S_FILE(columns_timeline, timeline, ntimeline)};

void report_header(FILE *out, report_file_t file, const report_info_t *info)
{
    columns_header(out, s_files[file].table, info);
}

void report_rows(FILE *out, report_file_t file, const report_info_t *info,
                 const trial_result_t *trial)
{
    const char *at = (const char *)trial;
    const void *rows;
    int n;
    char repeat[16];
    memcpy(&rows, at + s_files[file].rows, sizeof rows);
    memcpy(&n, at + s_files[file].n, sizeof n);
    columns_rows(out, s_files[file].table,
                 s_trial(info, trial, repeat, sizeof repeat), rows, n,
                 s_files[file].size, false);
}

void report_median_rows(FILE *out, report_file_t file,
                        const report_info_t *info, const summary_t *summary)
{
    column_ctx_t ctx = {
        .info = info, .size = summary->size, .repeat = COLUMN_MEDIAN};
    if (file == REPORT_RESULTS)
        columns_rows(out, s_files[file].table, ctx, summary->links,
                     summary->nlinks, sizeof *summary->links, true);
    else if (file == REPORT_LATENCY)
        columns_rows(out, s_files[file].table, ctx, summary->latency,
                     summary->nlatency, sizeof *summary->latency, true);
}

void report_latency_rows(FILE *out, const report_info_t *info, uint32_t size,
                         const char *repeat, const latency_row_t *rows,
                         int nrows)
{
    column_ctx_t ctx = {.info = info, .size = size, .repeat = repeat};
    columns_rows(out, &columns_latency, ctx, rows, nrows, sizeof *rows, false);
}
