/*  plot_read: the one walk of the chart readers that draw from a results
    file other than results.csv (search.csv, timeline.csv, syscalls.csv,
    latency.csv): its rows by column name, as points, then a chart per
    run of points.

        rundir rows --row()--> points, each tagged with its chart
                    --sort by chart, then order--> a run per chart
                    --describe()--> the chart listed, named, its data file
                    --write()--> the data file's lines

    A reader says what is its own in a plot_reader_t (PLOT_READER): the
    file and its columns (the first of them the topology), its point (an
    int, the chart's index, first), and four functions: what a row adds,
    how a chart's points sort, what it is called, what its data file
    holds; a reader that must know more of the run (which trials a
    search confirmed) keeps its state in own, from start() to stop().
    This module owns the rest: the walk, the points, the charts' keys
    ("topology\tcombo\tREST") and their rate found, the data file's
    opening and closing, a block per series (plot_read_lines), and
    freeing it all.  It neither decides a chart's look (plot_script) nor
    reads results.csv (plot_data).
*/
#ifndef HOPBENCH_PLOT_READ_H
#define HOPBENCH_PLOT_READ_H

#include "base/errbuf.h"
#include "report/plot_chart.h"
#include "report/rundir.h"

typedef struct plot_read_s plot_read_t;

//  A chart's key split: "proxy", "transport=ipc", REST; title is
//  "proxy (transport=ipc)", or "proxy" without a combination, stem
//  "proxy-transport-ipc" or "proxy" (for file names); index is the
//  chart's, in the order the file first names it
typedef struct {
    char topo[PLOT_NAME], combo[PLOT_NAME], rest[PLOT_NAME];
    char title[PLOT_NAME], stem[PLOT_NAME];
    int index;
} plot_key_t;

//  What a chart's key has between the topology and REST: the row's sweep
//  values, with their keys' names ("transport=ipc") or without, or none
typedef enum { PLOT_VALUES, PLOT_NAMES, PLOT_NO_COMBO } plot_combo_t;

typedef struct {
    const column_table_t *table; //  &columns_search, ...
    const char *const *columns;  //  the wanted columns, the topology first
    int ncolumns;
    plot_kind_t kind; //  its charts'
    size_t size;      //  a point's bytes; a point begins with its chart
    //  The current row (self->in): points added, or none; 0, or -1
    int (*row)(plot_read_t *self, errbuf_t *err);
    //  Two points of one chart in the data file's order
    int (*order)(const void *a, const void *b);
    //  The chart of key: its names and files (plot_read_files), and the
    //  data file's first line, after the chart's name, into head
    void (*describe)(const plot_read_t *self, const plot_key_t *key,
                     plot_chart_t *chart, char *head, size_t len);
    //  Points [a, b) of the chart into its data file: 0, or -1
    int (*write)(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                 int b, errbuf_t *err);
    //  Optional: a file without these columns has no chart
    bool optional;
    //  Optional: own bytes of the reader's state (self->own, zeroed),
    //  start() after the header, before the rows (0, or -1), and stop()
    //  when the charts are written (what own holds freed)
    size_t own;
    int (*start)(plot_read_t *self, const rundir_t *run, errbuf_t *err);
    void (*stop)(plot_read_t *self);
} plot_reader_t;

//  A reader of file (&columns_search, ...) by the columns of an array,
//  its points of type point; then what is optional (.optional = true)
#define PLOT_READER(file, array, kind_, point, row_, order_, describe_,        \
                    write_, ...)                                               \
    {                                                                          \
        .table = (file), .columns = (array),                                   \
        .ncolumns = (int)(sizeof(array) / sizeof *(array)), .kind = (kind_),   \
        .size = sizeof(point), .row = (row_), .order = (order_),               \
        .describe = (describe_), .write = (write_), __VA_ARGS__                \
    }

struct plot_read_s {
    const plot_reader_t *reader;
    void *own;        //  the reader's state, reader->own bytes, or NULL
    rundir_rows_t in; //  the file, its current row
    void *points;     //  n points of reader->size bytes
    int n, cap;
    plot_names_t charts; //  each chart's key
    plot_names_t names;  //  the reader's series (links, lines, calls)
    double *found;       //  per chart: what chart->found becomes, 0
    const char *out;     //  the data files go there
};

//  The run's file as reader says, its charts' data files into out, the
//  charts added to the list: 0 (also when there is no such file), or -1
//  and err naming the file and line
int plot_read_charts(const plot_reader_t *reader, const rundir_t *run,
                     const char *out, plot_charts_t *charts, errbuf_t *err);
//  A copy of point (reader->size bytes) at the end of the points: 0, or
//  -1 and err
int plot_read_add(plot_read_t *self, const void *point, errbuf_t *err);
//  The current row's chart, "topology\tcombo\tREST" (combo as it says),
//  found 0 when it is new: its index, or -1 when out of memory
int plot_read_chart(plot_read_t *self, plot_combo_t combo, const char *rest);
//  Points [a, b) of a chart into its data file through line() (prev: the
//  point before on its line, or NULL), a block (plot_chart_block) where a
//  point's series changes: the int after its chart, an index into names.
//  0, or -1 and err
int plot_read_lines(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                    int b,
                    void (*line)(plot_read_t *self, plot_chart_t *chart,
                                 FILE *file, const void *point,
                                 const void *prev),
                    errbuf_t *err);
//  A chart's files: "plot-DATA-STEMTAIL.dat" and "STEM-PNGTAIL.png"
void plot_read_files(plot_chart_t *chart, const char *stem, const char *data,
                     const char *png, const char *tail);

#endif
