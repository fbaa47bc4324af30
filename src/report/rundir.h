/*  rundir: a results directory read back, the one reader of what run,
    search and size wrote there, for report, compare and plot.  The
    writers are elsewhere (resultsdir.c, report_csv.c and the column
    tables of columns.h); this module only reads, once, and refuses what
    is not as they write it.

        rundir_t *run = rundir_open("results/x", &err);   //  or NULL: exit 2
        rundir_rows_t rows;
        static const char *const want[] = {"size", "hop", "msgs_per_sec"};
        if (rundir_rows(&rows, run, &columns_results, want, 3, &err) < 0)
            ...
        while (rundir_next(&rows))
            if (rundir_number(&rows, 2, &rate, &err)) ...
        rundir_destroy(&run);

    Opening reads the whole directory: metadata.json (jansson, strict:
    every field the writer puts there, each of its type), every CSV
    file of a column table that is there (results.csv is one it must
    have), config.cfg and a sweep's config-N.cfg.  A CSV file's header must be the file's (each name a column
    of its table, a sweep_KEY, or one of its tail's, none twice), and
    every row as long as the header and ended by a line break, or the
    file was cut.  Each error names the file and, where there is one,
    the line: "DIR/metadata.json:3: '}' expected near ','", "DIR/
    metadata.json: no field \"status\"", "DIR/results.csv:7: 12 fields,
    but the header has 40 (a line cut short?)", "DIR/results.csv:1:
    'samples' is not a column of results.csv".
*/
#ifndef HOPBENCH_RUNDIR_H
#define HOPBENCH_RUNDIR_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "base/jsondoc.h"
#include "report/columns.h"

typedef struct rundir_s rundir_t;
typedef struct rundir_file_s rundir_file_t;

//  DIR read whole; NULL and err when it is not a results directory as
//  hopbench writes one
rundir_t *rundir_open(const char *dir, errbuf_t *err);
void rundir_destroy(rundir_t **self_p);
const char *rundir_dir(const rundir_t *self);
//  metadata.json, checked
const json_t *rundir_meta(const rundir_t *self);
//  config.cfg's text (the effective topology); NULL when not there (a
//  sizing run's directory)
const char *rundir_config(const rundir_t *self);
//  A sweep's: config.cfg is combination 1's, config-N.cfg the Nth's; how
//  many there are (0: no config.cfg), and the Nth's text (NULL: none)
int rundir_nconfigs(const rundir_t *self);
const char *rundir_config_of(const rundir_t *self, int n);
//  The file of a table (&columns_results, ...); NULL when not there
const rundir_file_t *rundir_file(const rundir_t *self,
                                 const column_table_t *table);

//  A file as it was read: "DIR/NAME", its header, its rows
const char *rundir_path(const rundir_file_t *file);
int rundir_ncolumns(const rundir_file_t *file);
const char *rundir_name(const rundir_file_t *file, int col);
//  The index of a column by its name, -1 when the header has none
int rundir_column(const rundir_file_t *file, const char *name);
int rundir_nrows(const rundir_file_t *file);
//  A cell; "" when col is -1
const char *rundir_cell(const rundir_file_t *file, int row, int col);
//  The line of the file row starts on
int rundir_line(const rundir_file_t *file, int row);
//  Its sweep_KEY columns: how many, and the index of the k-th
int rundir_nsweep(const rundir_file_t *file);
int rundir_sweep(const rundir_file_t *file, int k);

//  A reader's walk over a file's rows by the columns it wants
#define RUNDIR_WANTED 24
typedef struct {
    const rundir_file_t *file;
    const char *const *wanted;
    int nwanted;
    int col[RUNDIR_WANTED]; //  each wanted column's index
    int row;                //  the current row, -1 before the first
} rundir_rows_t;

//  A walk over table's file by the wanted columns: 1, 0 when the
//  directory has no such file, -1 and err ("PATH:1: no column X")
int rundir_rows(rundir_rows_t *self, const rundir_t *run,
                const column_table_t *table, const char *const *wanted,
                int nwanted, errbuf_t *err);
//  To the next row: false after the last
bool rundir_next(rundir_rows_t *self);
//  Wanted column c's cell in the current row
const char *rundir_text(const rundir_rows_t *self, int c);
//  ...as a decimal number; -1 and err ("PATH:LINE: NAME 'x' is not a
//  number")
int rundir_number(const rundir_rows_t *self, int c, double *out, errbuf_t *err);
//  -1 and err "PATH:LINE: NAME 'x' why", for a reader's own checks
int rundir_bad(const rundir_rows_t *self, int c, const char *why,
               errbuf_t *err);
//  The current row's sweep_KEY columns as "key=value key=value" (names:
//  true) or "value value" (false); "" without a sweep
void rundir_combo(const rundir_rows_t *self, bool names, char *out, size_t len);

//  For selftests: DIR/metadata.json with every field, each "x", 1, [] or
//  a NUMA node of its own; 0, or -1
int rundir_test_metadata(const char *dir);

int rundir_test(bool verbose);

#endif
