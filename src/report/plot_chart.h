/*  plot_chart: which charts a results table makes, and their gnuplot data
    files.

    For each topology and sweep combination (a "panel"):

        STEM-rate-vs-size.png    msgs/s against size, one line per link
        STEM-mbps-vs-size.png    MB/s (and Gbit/s) against size, the same
        STEM-hops-at-SIZEB.png   one bar per link at one size: msgs/s and
                                 loss %; SIZE is 1024 when measured (the
                                 broker-sizing question), else the largest

    and for each topology with sweep_ columns:

        TOPO-sweep-KEYS-rate-vs-size.png   the last hop's msgs/s against
                                           size, one line per combination
        TOPO-rate-vs-KEY.png               with one swept key whose values
                                           are numbers: the last hop's
                                           msgs/s against its value, one
                                           line per size (the cost of a
                                           key as a curve: subscriptions)
        TOPO-cpu-vs-KEY.png                the same hop's sender's CPU ns
                                           per message it delivered (per
                                           message and connection: a
                                           broker's cost of a subscriber
                                           socket, for a sweep over sockets)

    and, for a search (search.csv, plot_search.h), per size:

        STEM-search-SIZEB.png    what each hop delivered, and the share it
                                 lost, against the offered rate

    and, with --profile syscalls (syscalls.csv, plot_syscalls.h), per stage:

        STEM-syscalls-STAGE.png  ns per message by system call, stacked,
                                 one bar per size

    STEM is the topology, then the combination ("proxy-transport-ipc").
    Points are medians over the repetitions (and, on the sweep chart, over
    the links of a fan-out hop), with the min and max beside them.  Data
    files are plot-*.dat in the results directory: gnuplot reads them, and
    so can a person.  This module decides and writes data; plot_script
    turns the chart list into gnuplot commands.
*/
#ifndef HOPBENCH_PLOT_CHART_H
#define HOPBENCH_PLOT_CHART_H

#include "report/plot_data.h"

#include <stdio.h>

//  PLOT_DELTA is hopbench compare's (report/compare_plot.c): each link's
//  delta of msgs/s against size, with its interval, one line per link
typedef enum {
    PLOT_RATE,
    PLOT_MBPS,
    PLOT_HOPS,
    PLOT_SWEEP,
    PLOT_KNEE,
    PLOT_DELTA,
    PLOT_SYSCALLS,
    PLOT_VALUE,
    PLOT_COST,
    PLOT_LATLOAD,   //  latency_at's curve (plot_latency_at.h)
    PLOT_SIZING,    //  a sizing's candidates (plot_sizing.h)
    PLOT_QUANTILES, //  latency's quantiles (plot_quantiles.h)
    PLOT_TIMELINE   //  each link's rate over the window (plot_timeline.h)
} plot_kind_t;

//  Columns of a size chart's data file (1-based, as gnuplot counts)
#define PLOT_COLUMNS                                                           \
    "size rate rate_min rate_max mbps mbps_min mbps_max sent lost loss_pct "   \
    "rows starved"
#define PLOT_STARVED 12 //  its rows of a starved trial
//  and of a bar chart's: x, the bar's rate and range, loss, two labels
#define PLOT_BAR_COLUMNS                                                       \
    "x rate rate_min rate_max loss_pct rate_label loss_label"

typedef struct {
    plot_kind_t kind;
    char name[PLOT_NAME]; //  for titles: "proxy", "proxy (transport=ipc)"
    char what[PLOT_NAME]; //  PLOT_SWEEP: "the last hop (hop 2 broker->sub),
                          //  one line per transport"; PLOT_SYSCALLS: the
                          //  stage; PLOT_TIMELINE: which trials it draws
    char data[PLOT_NAME]; //  data file, relative to the results directory
    char png[PLOT_NAME];  //  the chart, relative to it (".svg" when the
                          //  terminal is svg: plot_charts_as_svg)
    plot_names_t series;  //  block i of the data file (PLOT_HOPS: bar i;
                          //  PLOT_SYSCALLS: column i + 2)
    unsigned *sizes;      //  the x axis (not PLOT_HOPS), ascending
    int nsizes;
    unsigned size;           //  PLOT_HOPS: the size shown
    bool expected;           //  PLOT_HOPS: loss is a share of what was
                             //  expected (topics), not of what was sent
    int repeats;             //  most rows behind one point
    bool starved;            //  a point of a starved repeat: ringed
    double rate[2], mbps[2]; //  smallest and largest value drawn
                             //  (PLOT_DELTA: rate[] in percent;
                             //  PLOT_SYSCALLS: rate[1], the tallest bar)
    double offered[2];       //  PLOT_KNEE: the x axis's extent
    double found;            //  PLOT_KNEE: the rate the search found, 0;
                             //  PLOT_SIZING: the target x (1 + headroom)
    plot_names_t ticks;      //  PLOT_VALUE: the x axis's values, in order
    char key[PLOT_NAME];     //  ...and the swept key they are of
    bool joined;             //  PLOT_TIMELINE: windows laid end to end
} plot_chart_t;

typedef struct {
    plot_chart_t *v;
    int n, cap;
} plot_charts_t;

//  text as a file name: letters, digits and .+- stay, '=' becomes '-',
//  anything else '_'
void plot_safe_name(char *out, size_t len, const char *text);
//  One more chart of 'kind', zeroed; NULL when out of memory
//  DIR/chart->data created, its first line "# hopbench plot data: NAME,
//  " and what FORMAT says; NULL and err naming the file
FILE *plot_chart_data(const char *dir, const plot_chart_t *chart, errbuf_t *err,
                      const char *format, ...)
    __attribute__((format(printf, 4, 5)));
//  A block of a chart's data file (gnuplot's index): "# NAME", after two
//  blank lines but for the first, and NAME the chart's next series
int plot_chart_block(FILE *file, plot_chart_t *chart, const char *name,
                     errbuf_t *err);
plot_chart_t *plot_charts_add(plot_charts_t *charts, plot_kind_t kind,
                              errbuf_t *err);
//  Decide the charts and write their data files into dir
int plot_charts_write(const plot_table_t *table, const char *dir,
                      plot_charts_t *charts, errbuf_t *err);
void plot_charts_free(plot_charts_t *charts);
//  The last chart let go (its data file stays)
void plot_charts_drop(plot_charts_t *charts);
//  Every chart's file name ends in .svg instead of .png
void plot_charts_as_svg(plot_charts_t *charts);

#endif
