/*  plot_data: results.csv, read by column name (rundir), as a table the
    charts can group and reduce.

    Columns are found by name in the header, so extra columns (the CPU and
    sequence columns, and sweep_KEY ones) may come in any order; rows of
    `repeat = median` are left out (they sum up the repeats, which are
    read); every
    sweep_KEY column together forms a row's combination ("transport=ipc
    hwm=10").  Topologies, combinations and links (hop, from, to,
    transport) are interned in first-seen order, so charts list them in
    the order the run wrote them.  The file is outside input: a malformed
    one is an error naming the file, line and column, never a crash.
*/
#ifndef HOPBENCH_PLOT_DATA_H
#define HOPBENCH_PLOT_DATA_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "report/rundir.h"

#define PLOT_NAME 256

//  Distinct strings in first-seen order
typedef struct {
    char (*v)[PLOT_NAME];
    int n, cap;
} plot_names_t;

typedef struct {
    int topo, combo, link; //  indexes into the table's name lists
    int hop;
    unsigned size;
    double rate, mbps, sent, lost; //  sent: expected where the file has it
    double cpu_ns; //  the sender's CPU per message and connection, or -1
    bool starved;  //  a stage of it waited for a CPU (results.csv starved)
} plot_row_t;

typedef struct {
    char path[600];        //  DIR/results.csv, for messages
    char sweep[PLOT_NAME]; //  swept keys, "transport, hwm"; "" if none
    bool expected;         //  a row expected other than it sent (topics):
                           //  loss is a share of what was expected
    plot_row_t *rows;
    int nrows, cap;
    plot_names_t topos;  //  topology names
    plot_names_t combos; //  "transport=ipc hwm=10", "" without a sweep
    plot_names_t links;  //  "hop 1 pub->broker (tcp)"
    plot_names_t ticks;  //  same link as a bar label: "hop 1\npub->broker\ntcp"
} plot_table_t;

//  One point of a chart: the rows of one link (or hop) at one size
typedef struct {
    unsigned size;
    int n;                   //  rows behind it (repetitions x links)
    double rate[3], mbps[3]; //  median, min, max
    int starved;             //  rows of a starved repeat
    double sent, lost;       //  summed over the rows
} plot_point_t;

//  Append a copy of name (truncated to PLOT_NAME - 1); its index or -1
int plot_names_add(plot_names_t *names, const char *name);
//  The index of name, added when it is not there yet; -1 out of memory
int plot_names_index(plot_names_t *names, const char *name);
void plot_names_free(plot_names_t *names);

//  The run's results.csv as a table; NULL and err on a cell that is not
//  what a chart needs, or a file of no rows
plot_table_t *plot_table_read(const rundir_t *run, errbuf_t *err);
void plot_table_destroy(plot_table_t **self_p);
//  other's rows appended to self's, each side's combinations named by its
//  run first ("run=base transport=ipc") and "run" the first swept key, so
//  that a sweep's charts (one line per combination) overlay the two runs:
//  0, or -1 out of memory
int plot_table_overlay(plot_table_t *self, const char *mine,
                       const plot_table_t *other, const char *theirs);

//  Sort rows by topology, combination, link, size (by_link) or by
//  topology, combination, size (!by_link)
void plot_rows_sort(plot_row_t *rows, int n, bool by_link);
//  Reduce n rows to one point (their size is rows[0].size)
int plot_point(const plot_row_t *rows, int n, plot_point_t *point,
               errbuf_t *err);

int plot_data_test(bool verbose);

#endif
