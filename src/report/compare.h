/*  compare: `hopbench compare A B [C...]`, the differences between runs
    and whether they are real.

        A/results.csv, latency.csv --compare_read--> series of repeats
            --compare_match--> matched rows: medians, delta, interval, p
            --compare_print--> table | csv | json      (--plot: compare_plot)

    Every directory after the first is compared with the first; with
    --by KEY, one directory with a sweep of KEY is split by its values and
    each value compared with the first value swept.  A row is one figure
    of one link at one size: msgs/s from results.csv, p50 and p99 from
    latency.csv, over the per-repeat rows (the median rows are recomputed,
    never trusted).  Rows match by topology, pattern, mode, size, hop,
    from, to, the metric and the other swept keys; a row on one side
    only is listed as such, never dropped.  Statistics: base/stats.h.
*/
#ifndef HOPBENCH_COMPARE_H
#define HOPBENCH_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"

typedef enum { COMPARE_TABLE, COMPARE_CSV, COMPARE_JSON } compare_format_t;

typedef struct {
    const char *const *dirs; //  A B C...: results directories
    int ndirs;
    const char *by; //  --by KEY, or NULL
    double alpha;   //  significance level; 0: 0.05
    compare_format_t format;
    const char *output; //  --plot: where the chart goes, NULL: results/
    bool plot;
} compare_options_t;

//  Print the comparison on out; the exit status: 0 done, 1 the chart
//  could not be drawn (gnuplot missing or failed), 2 bad arguments or a
//  directory that cannot be read (err says which)
int compare_results(const compare_options_t *options, FILE *out, errbuf_t *err);

#endif
