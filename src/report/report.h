/*  report: the output formats, each a function over trial results.

    Measurement fills trial_result_t; these functions only print it.  CSV
    rows are written (and flushed) as each trial ends, so an interrupted
    run keeps what it measured; the table prints one block per size once
    its repetitions are done.
*/
#ifndef HOPBENCH_REPORT_H
#define HOPBENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "config/params.h"
#include "trial/results.h"
#include "trial/search.h"
#include "trial/summary.h"
#include "config/sweep.h"
#include "report/resultsdir.h"

#define REPORT_MAX_SWEEP SWEEP_MAX_KEYS //  one column per swept key

//  What every row of a run shares
typedef struct {
    const char *topology;
    const char *pattern;
    const char *mode; //  pubsub and pushpull: capacity, flood or search;
                      //  "" where no mode applies (reqrep, connect)
    int nsweep;       //  swept keys, and this
    const char *sweep_key[REPORT_MAX_SWEEP]; //  combination's values
    const char *sweep_value[REPORT_MAX_SWEEP];
    char loss_ratio[24]; //  search rows: the ratio they confirm; else ""
    int search;          //  search rows: which search of the size (repeat), 1..
    int trial; //  timeline.csv's rows of a search's trial: its number, 0: not
    //  latency_at (latency.csv): its columns are there when 'load' is
    //  set; a row of an open-loop trial at 'fraction' of 'found' msgs/s
    //  (the rate the search found for loss ratio 'ratio') fills them
    struct {
        bool load;
        double fraction, found, ratio; //  fraction 0: not such a row
    } at;
} report_info_t;

//  The CSV files of trials' rows, each written by its table of columns
//  (report/columns_files.c, columns_more.c)
typedef enum {
    REPORT_RESULTS,  //  results.csv: a row per trial and link
    REPORT_LATENCY,  //  latency.csv: a row per distribution
    REPORT_THREADS,  //  threads.csv: the contract columns, size, repeat,
                     //  mem_node, then a sweep_KEY column per swept key
    REPORT_SOCKETS,  //  sockets.csv: a row per SUB socket of subscribers of
                     //  several
    REPORT_MEMORY,   //  memory.csv: per stage and region the pages by node
    REPORT_TIMELINE, //  timeline.csv: each link's rate step by step
} report_file_t;
void report_header(FILE *out, report_file_t file, const report_info_t *info);
//  A trial's rows of the file, its repeat's number in their repeat column
void report_rows(FILE *out, report_file_t file, const report_info_t *info,
                 const trial_result_t *trial);
//  The `repeat = median` rows of a size (3 or more repeats) in results
//  or latency: each figure the median over the repeats (latency: of each
//  percentile, with the intervals of p50 and p99)
void report_median_rows(FILE *out, report_file_t file,
                        const report_info_t *info, const summary_t *summary);
//  latency.csv's rows of the distributions given: repeat "1".."N", or
//  "all" for the repetitions merged
void report_latency_rows(FILE *out, const report_info_t *info, uint32_t size,
                         const char *repeat, const latency_row_t *rows,
                         int nrows);

//  One size: every hop's median msgs/s and MB/s (+-x %: the interval of
//  the median, 3 or more repeats; min-max for 2), loss, CPU per message
void report_table_size(FILE *out, const report_info_t *info,
                       const summary_t *summary);
//  The median of values[0..n-1], n > 0 (sorts them: min first, max last)
double report_median(double *values, int n);
//  A rate for people: 1234567 -> "1.23M", 12345 -> "12.3k"
const char *report_short(double value, char *buf, size_t len);
//  1234567 -> "1,234,567"
const char *report_grouped(double value, char *buf, size_t len);

//  search.csv (mode = search): one row per trial and link
void report_search_header(FILE *out, const report_info_t *info);
void report_search_rows(FILE *out, const report_info_t *info,
                        const search_trial_t *trial, const params_t *params);
//  search_summary.csv: one row per size and loss ratio
void report_search_summary_header(FILE *out, const report_info_t *info);
void report_search_summary_rows(FILE *out, const report_info_t *info,
                                uint32_t size, const search_outcome_t *outcome);
//  The table's line for a size: the rate found, the bottleneck (search:
//  which search of the size's repeat, 1..)
void report_search_summary(FILE *out, const search_outcome_t *outcome,
                           const params_t *params, int search);
//  repeat = N searches of a size: per loss ratio, the median and range
//  of what they found (found[r * PARAMS_MAX_RATIOS + k]; 0: none held)
void report_search_repeats(FILE *out, const double *found, int n,
                           const ratios_t *ratios);
//  latency_at: the table's line for one open-loop trial at a fraction of
//  a found rate (its end-to-end percentiles)
void report_latency_at_line(FILE *out, double fraction, double found,
                            double ratio, const trial_result_t *trial);

//  syscalls.csv (--profile syscalls, report_syscalls.c): a traced
//  trial's rows
void report_syscalls_header(FILE *out, const report_info_t *info);
void report_syscalls_rows(FILE *out, const report_info_t *info,
                          const trial_result_t *trial);
//  The block under a size's table: the profile's cost (the n traced
//  twins' rate against the n untraced repeats'), then per stage its
//  totals and its five system calls with the most time
void report_syscalls_table(FILE *out, const report_info_t *info,
                           const trial_result_t *plain,
                           const trial_result_t *traced, int n);

//  The run's files as one JSON document (metadata, rows, latency, the
//  search's, the system calls') into DIR/results.json, and onto also
//  (unless NULL): 0, or -1 and err
int report_json(const char *dir, FILE *also, errbuf_t *err);

//  Latency lines under a size's block (the repetitions merged), and with
//  3 or more repeats the median p50 and p99 over them (summary, or NULL)
//  e2e: what the end-to-end row measures ("round trip", "end to end")
void report_table_latency(FILE *out, const latency_row_t *rows, int nrows,
                          const summary_t *summary, const char *e2e);

//  Under latency measured one way across hosts: each host's clock offset
//  and its uncertainty, which bound what the latency figures can mean
void report_table_clocks(FILE *out, const run_host_t *hosts, int nhosts);

#endif
