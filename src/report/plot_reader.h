/*  plot_reader: one results file read by column name, for the chart
    readers that each want a few columns of it (plot_search: search.csv,
    plot_syscalls: syscalls.csv, plot_latency_at: latency.csv).

    The file is opened when it is there (a run without a search has no
    search.csv, and then no such chart); its header line says where each
    wanted column is and which are the sweep_KEY columns; a row's fields
    are then taken by the wanted column's index.  The file is outside
    input: a field that is not a number is an error naming the file, the
    line and the column.
*/
#ifndef HOPBENCH_PLOT_READER_H
#define HOPBENCH_PLOT_READER_H

#include "base/csv.h"
#include "base/errbuf.h"

#include <stdio.h>

#define PLOT_READER_COLUMNS 16 //  columns one reader may want
#define PLOT_READER_SWEEP   64 //  sweep_KEY columns it keeps

typedef struct {
    char path[700];
    FILE *file;
    csv_t *csv; //  its current record
    const char *const *wanted;
    int nwanted;
    int col[PLOT_READER_COLUMNS];
    int sweep[PLOT_READER_SWEEP], nsweep;
} plot_reader_t;

//  DIR/NAME opened to read the wanted columns: 1 when it is there, 0 when
//  there is no such file, -1 and err when it cannot be read
int plot_reader_open(plot_reader_t *self, const char *dir, const char *name,
                     const char *const *wanted, int nwanted, errbuf_t *err);
void plot_reader_close(plot_reader_t *self);
//  The next record: 1, 0 at the end, -1 and err
int plot_reader_next(plot_reader_t *self, errbuf_t *err);
//  The header, then every row through row(ctx, err): 0, or -1 and err
//  ("PATH: empty", "PATH:1: no column X"; when optional, an empty file or
//  a missing column is a file of no rows, 0)
int plot_reader_rows(plot_reader_t *self, bool optional,
                     int (*row)(void *ctx, errbuf_t *err), void *ctx,
                     errbuf_t *err);
//  The current record as the header: the first wanted column it lacks,
//  or NULL when it has them all
const char *plot_reader_header(plot_reader_t *self);
//  The current row's field of wanted column c ("" when the row is short)
const char *plot_reader_field(const plot_reader_t *self, int c);
//  Its number, or -1 and err naming the file, line and column
int plot_reader_number(const plot_reader_t *self, int c, double *out,
                       errbuf_t *err);
//  The current row's sweep values joined by spaces ("" without a sweep)
void plot_reader_combo(const plot_reader_t *self, char *out, size_t len);

//  points: n elements of size bytes, each beginning with its chart's
//  index (an int); sorted by cmp, then each chart's run [a, b) through
//  chart(ctx, a, b, err): 0, or -1 at the first that fails
int plot_reader_charts(void *points, int n, size_t size,
                       int (*cmp)(const void *, const void *),
                       int (*chart)(void *ctx, int a, int b, errbuf_t *err),
                       void *ctx, errbuf_t *err);

int plot_reader_test(bool verbose);

#endif
