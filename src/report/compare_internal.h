/*  compare_internal: what the compare_*.c files share.

    A side is one set of runs: a results directory, or one value of the
    --by key within one.  Its series are the figures it measured, each
    with the values of its repeats.  A comparison pairs the series of two
    sides and keeps, for each, the statistics the printers show.
*/
#ifndef HOPBENCH_COMPARE_INTERNAL_H
#define HOPBENCH_COMPARE_INTERNAL_H

#include "base/stats.h"
#include "report/columns.h"
#include "report/compare.h"
#include "report/plot_chart.h"
#include "report/rundir.h"

#define COMPARE_TEXT 64
#define COMPARE_LONG 512

//  One figure of one link at one size, over the repeats
typedef struct {
    char topology[COMPARE_TEXT], pattern[COMPARE_TEXT], mode[COMPARE_TEXT];
    char sweep[COMPARE_LONG]; //  the other swept keys: "hwm=10 transport=ipc"
    unsigned size;
    char hop[16]; //  "1", or latency's "e2e"
    char from[COMPARE_TEXT], to[COMPARE_TEXT], transport[COMPARE_TEXT];
    char metric[16]; //  "msgs/s", "p50_us", "p99_us"; syscalls.csv's:
                     //  "ns/msg", "calls/msg", "cpu_ns/msg"
    char hosts[2 * COMPARE_TEXT + 5]; //  "h1 -> h2" (host = NAME), or ""
    //  A system call's row (syscalls.csv): from is the stage, to the
    //  thread's kind ("ZMQbg/IO": its number dropped, the threads of one
    //  kind summed), hop "-"; "all" for a stage's total
    char syscall[32];
    int repeat; //  of the last value: the next row of it adds to it
    double *values;
    int n, cap;
} series_t;

typedef struct {
    char label[COMPARE_LONG]; //  the directory, or "placement=compact"
    char dir[COMPARE_LONG];
    //  from metadata.json ("" when it does not say)
    char topology[COMPARE_TEXT], host[COMPARE_TEXT], cpu[COMPARE_LONG];
    char kernel[COMPARE_TEXT], libzmq[COMPARE_TEXT], started[COMPARE_TEXT];
    series_t *series;
    int nseries, cap;
} side_t;

//  One side's figure, summed up
typedef struct {
    int n;
    double median;
    stats_ci_t ci;
} side_stats_t;

//  A matched row (a and b), or a row of one side only (only 'a' or 'b')
typedef struct {
    const series_t *a, *b; //  b NULL: only in the base; a NULL: only in b
    side_stats_t sa, sb;
    double delta;     //  b / a - 1 of the medians
    stats_ci_t shift; //  interval of b / a - 1 (Hodges-Lehmann)
    bool has_shift;   //  both sides' values are all positive
    stats_mw_t mw;
    bool significant; //  mw.p <= alpha
} compare_row_t;

//  Geometric means of one metric over the matched rows
typedef struct {
    char metric[16];
    int n;
    double a, b, delta;
} compare_geomean_t;

typedef struct {
    const side_t *base, *other;
    double alpha;
    compare_row_t *rows;
    int nrows;
    compare_geomean_t geomean[3];
    int ngeomean;
    char notes[2048]; //  one per line: mismatched topologies, hosts, ...
} comparison_t;

//  compare_read.c: the sides of the command's directories (runs[i] read
//  from options->dirs[i])
int compare_read(const compare_options_t *options, rundir_t *const *runs,
                 side_t **sides, int *nsides, errbuf_t *err);
void compare_sides_free(side_t *sides, int nsides);
//  "hop 1 pub -> sub" and friends
bool compare_series_match(const series_t *a, const series_t *b, bool by_mode);

//  compare_match.c: pair base and other; -1 when out of memory
int compare_match(comparison_t *self, const side_t *base, const side_t *other,
                  double alpha, bool by_mode, errbuf_t *err);
void compare_free(comparison_t *self);

//  compare_print.c: the formats
void compare_print_table(FILE *out, const comparison_t *cmps, int n);

//  Sizing runs (compare_sizing.c): is the run one; and compare them
//  (the exit status, as compare_results')
bool compare_is_sizing(const rundir_t *run);
int compare_sizing(const compare_options_t *options, rundir_t *const *runs,
                   FILE *out, errbuf_t *err);
//  The same as a page's tables (report_html_compare): the exit status
//  (1: no candidate of a run is one of the first's)
int compare_sizing_html(FILE *out, rundir_t *const *runs,
                        const char *const *dirs, int n, errbuf_t *err);
void compare_print_csv(FILE *out, const comparison_t *cmps, int n, bool header);
//  0, or -1 and err (out of memory, a write that failed)
int compare_print_json(FILE *out, const comparison_t *cmps, int n,
                       errbuf_t *err);
//  A figure as the table prints it: msgs/s as 1.23M, latency in us
const char *compare_value(const char *metric, double v, char *buf, size_t len);

//  A row of compare's table of columns (columns_compare): a matched row
//  (or one side's), or a metric's geometric mean
typedef struct {
    const comparison_t *c;
    const compare_row_t *row; //  NULL: g
    const compare_geomean_t *g;
    const series_t *s; //  the row's series (a's, or b's)
} compare_record_t;
extern const column_table_t columns_compare;
//  A matched row for people: "size hop from -> to metric base ± other ±
//  delta interval significance"
extern const column_view_t compare_view_links[];
//  The view of a matched row: compare_view_links, or for a system call's
//  row (stage thread syscall where hop and link are) one made in calls
//  (COLUMNS_VIEW_MAX + 1 cells)
const column_view_t *compare_view(const compare_row_t *row,
                                  column_view_t *calls);
//  A matched row as a record, and the ctx its views and columns take
void compare_record_ctx(const comparison_t *c, const compare_row_t *row,
                        compare_record_t *record, column_ctx_t *ctx);

//  compare_plot.c: the delta charts' data files into dir, the charts
//  listed (not drawn): 0, or -1 and err
int compare_plot_charts(const comparison_t *cmps, int n, const char *dir,
                        plot_charts_t *charts, errbuf_t *err);
//  the delta charts into dir (made if need be): the exit
//  status, as plot_results's
int compare_plot(const comparison_t *cmps, int n, const char *dir,
                 FILE *listing, errbuf_t *err);

#endif
