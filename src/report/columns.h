/*  columns: the CSV files' columns as data.

    Every CSV file the report layer writes as rows (results.csv,
    latency.csv, search.csv, ...) is one table of columns_files.c; a
    column is its name, how a row's cell takes its value (a field of the
    row's struct, found by offset as fio's options are, or a function for
    what is computed), how the file's median row takes it when it has
    those, and one line of what it means.  The table drives the header,
    the rows, the median rows, the man page's lists, and the names
    compare and plot look up (the COLUMN_* names below, or columns_find).
    A new column is one row of one table.

    A field's type is read off the struct by _Generic, so the table cannot
    print an int as a double; a char * field is taken as the struct's own
    array, a const char * as a pointer to a string.  Cells are printed with
    the take's format (the type's own when NULL); COLUMN_OPTIONAL leaves a
    negative number's cell empty, COLUMN_WHOLE prints a whole number as
    one and anything else with one decimal (the medians of counts),
    COLUMN_QUOTED puts a text that may hold commas in double quotes.
*/
#ifndef HOPBENCH_COLUMNS_H
#define HOPBENCH_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/jsondoc.h"
#include "report/report.h"

#define COLUMN_CELL 2048 //  the longest cell printed

//  How a take reads its value
typedef enum {
    COLUMN_NONE, //  nothing: the cell stays empty
    COLUMN_INT,
    COLUMN_UINT,
    COLUMN_I64,
    COLUMN_U64,
    COLUMN_DOUBLE,
    COLUMN_CHARS, //  a char array in the struct
    COLUMN_TEXT,  //  a const char * in the struct
    COLUMN_FN     //  computed by the take's function
} column_kind_t;

//  A cell's value, as a take's function gives it
typedef struct {
    enum {
        VALUE_EMPTY,
        VALUE_INT,
        VALUE_UINT,
        VALUE_REAL,
        VALUE_TEXT,
        VALUE_BOOL //  i: 1 or 0 (CSV), true or false (JSON)
    } kind;
    long long i;
    unsigned long long u;
    double d;
    const char *s; //  text: into buf, or a string that outlives the row
    char buf[200];
} column_value_t;

//  What a row's cells are taken from
typedef struct {
    const report_info_t *info; //  topology, pattern, mode, sweep values
    uint32_t size;
    const char *repeat; //  "1".., "all", "median"
    const void *row;    //  the struct the fields' offsets are into
    const void *of;     //  what the row belongs to (COLUMN_OF offsets)
    const params_t *params;
} column_ctx_t;

typedef void (*column_fn_t)(const column_ctx_t *ctx, column_value_t *value);

//  Flags of a take
#define COLUMN_OPTIONAL 1u  //  a negative number: an empty cell
#define COLUMN_WHOLE    2u  //  "%.0f" when whole, else "%.1f"
#define COLUMN_OF       4u  //  the offset is into ctx->of, not ctx->row
#define COLUMN_QUOTED   8u  //  text in double quotes, its quotes doubled
#define COLUMN_ESCAPED  16u //  ...only when it holds a comma, quote or newline

typedef struct {
    column_kind_t kind;
    size_t offset;
    column_fn_t fn;
    const char *format; //  printf's, of the value; NULL: the type's own
    unsigned flags;
} column_take_t;

typedef struct {
    const char *name;
    column_take_t row;    //  a row's cell
    column_take_t median; //  the median row's (files that have them)
    const char *meaning;  //  one line, for the man page
} column_t;

typedef struct {
    const char *file; //  "results.csv"
    const column_t *columns;
    int ncolumns;
    bool sweep; //  followed by one sweep_KEY column per swept key
    //  then, in the runs where tail_when says so (tail_what: which, in
    //  words), these columns
    const column_t *tail;
    int ntail;
    bool (*tail_when)(const report_info_t *info);
    const char *tail_what;
} column_table_t;

//  A table of a file, its columns an array; sweep: with sweep_KEY columns
#define COLUMN_TABLE(name, array, with_sweep)                                  \
    {                                                                          \
        .file = (name), .columns = (array),                                    \
        .ncolumns = (int)(sizeof(array) / sizeof *(array)),                    \
        .sweep = (with_sweep)                                                  \
    }

//  The kind of a field, from its type
#define COLUMN_KIND(T, f)                                                      \
    _Generic(((T *)0)->f,                                                      \
        int: COLUMN_INT,                                                       \
        unsigned: COLUMN_UINT,                                                 \
        int64_t: COLUMN_I64,                                                   \
        uint64_t: COLUMN_U64,                                                  \
        double: COLUMN_DOUBLE,                                                 \
        char *: COLUMN_CHARS,                                                  \
        const char *: COLUMN_TEXT)

//  A take of field f of T (of the row; or with COLUMN_OF, of ctx->of)
#define COLUMN_FIELD(T, f, fmt, fl)                                            \
    {                                                                          \
        .kind = COLUMN_KIND(T, f), .offset = offsetof(T, f), .format = (fmt),  \
        .flags = (fl)                                                          \
    }
//  A computed take
#define COLUMN_COMPUTED(function, fmt, fl)                                     \
    {                                                                          \
        .kind = COLUMN_FN, .fn = (function), .format = (fmt), .flags = (fl)    \
    }

//  The same, in a file without median rows: the row's take, none for
//  the median
#define COLUMN_ROW_FIELD(T, f, fmt, fl)                                        \
    COLUMN_FIELD(T, f, fmt, fl),                                               \
    {                                                                          \
        0                                                                      \
    }
#define COLUMN_ROW_COMPUTED(function, fmt, fl)                                 \
    COLUMN_COMPUTED(function, fmt, fl),                                        \
    {                                                                          \
        0                                                                      \
    }

//  A computed take's value
static inline void column_text(column_value_t *v, const char *text)
{
    v->kind = VALUE_TEXT;
    v->s = text;
}
static inline void column_int(column_value_t *v, long long value)
{
    v->kind = VALUE_INT;
    v->i = value;
}
static inline void column_uint(column_value_t *v, unsigned long long value)
{
    v->kind = VALUE_UINT;
    v->u = value;
}
static inline void column_real(column_value_t *v, double value)
{
    v->kind = VALUE_REAL;
    v->d = value;
}
static inline void column_bool(column_value_t *v, bool value)
{
    v->kind = VALUE_BOOL;
    v->i = value;
}

//  The takes every file shares: the run's (ctx->info) and the row's
//  place (ctx->size, ctx->repeat)
void columns_topology(const column_ctx_t *ctx, column_value_t *v);
void columns_pattern(const column_ctx_t *ctx, column_value_t *v);
void columns_mode(const column_ctx_t *ctx, column_value_t *v);
void columns_loss_ratio(const column_ctx_t *ctx, column_value_t *v);
void columns_size(const column_ctx_t *ctx, column_value_t *v);
void columns_repeat(const column_ctx_t *ctx, column_value_t *v);
#define COLUMN_TAKE_TOPOLOGY COLUMN_COMPUTED(columns_topology, NULL, 0)
#define COLUMN_TAKE_PATTERN  COLUMN_COMPUTED(columns_pattern, NULL, 0)
#define COLUMN_TAKE_MODE     COLUMN_COMPUTED(columns_mode, NULL, 0)
#define COLUMN_TAKE_SIZE     COLUMN_COMPUTED(columns_size, NULL, 0)
#define COLUMN_TAKE_REPEAT   COLUMN_COMPUTED(columns_repeat, NULL, 0)

//  The tables (columns_files.c, columns_more.c, columns_fit.c)
extern const column_table_t columns_results, columns_latency, columns_search,
    columns_search_summary, columns_sockets, columns_syscalls, columns_threads,
    columns_memory, columns_sizing, columns_sizing_fit, columns_timeline;
//  Every table, NULL-terminated
extern const column_table_t *const columns_tables[];

//  Names that compare and plot look up
#define COLUMN_TOPOLOGY      "topology"
#define COLUMN_PATTERN       "pattern"
#define COLUMN_MODE          "mode"
#define COLUMN_SIZE          "size"
#define COLUMN_REPEAT        "repeat"
#define COLUMN_HOP           "hop"
#define COLUMN_FROM          "from"
#define COLUMN_TO            "to"
#define COLUMN_TRANSPORT     "transport"
#define COLUMN_SENT          "sent"
#define COLUMN_LOST          "lost"
#define COLUMN_MSGS_PER_SEC  "msgs_per_sec"
#define COLUMN_MB_PER_SEC    "mb_per_sec"
#define COLUMN_FROM_CPU_NS   "from_cpu_ns_per_msg"
#define COLUMN_FROM_HOST     "from_host"
#define COLUMN_TO_HOST       "to_host"
#define COLUMN_EXPECTED      "expected"
#define COLUMN_LOSS_RATIO    "loss_ratio"
#define COLUMN_SOCKETS       "sockets"
#define COLUMN_P50_US        "p50_us"
#define COLUMN_P99_US        "p99_us"
#define COLUMN_OFFERED       "offered_per_sec"
#define COLUMN_RECEIVED_RATE "received_per_sec"
#define COLUMN_PASS          "pass"
#define COLUMN_PHASE         "phase"
#define COLUMN_STAGE         "stage"
#define COLUMN_THREAD        "thread"
#define COLUMN_SYSCALL       "syscall"
#define COLUMN_CALLS_PER_MSG "calls_per_msg"
#define COLUMN_NS_PER_MSG    "ns_per_msg"
#define COLUMN_CPU_NS        "cpu_ns"
#define COLUMN_MESSAGES      "messages"
#define COLUMN_SWEEP_PREFIX  "sweep_"
#define COLUMN_MEDIAN        "median" //  repeat of a median row

//  The header line: the names, the sweep_KEY columns, newline; flushed
void columns_header(FILE *out, const column_table_t *table,
                    const report_info_t *info);
//  One row: each column's row take (median: its median take), the sweep
//  values, newline (not flushed)
void columns_row(FILE *out, const column_table_t *table,
                 const column_ctx_t *ctx, bool median);
//  n rows of stride bytes each from rows, ctx's row each in turn; flushed
void columns_rows(FILE *out, const column_table_t *table, column_ctx_t ctx,
                  const void *rows, int n, size_t stride, bool median);
//  A row as a JSON object: each column (median: its median take) by its
//  name, a number as the CSV prints it (an optional one's own value: -1
//  stays -1), text as a string, empty as null, VALUE_BOOL true or false;
//  NULL when out of memory
json_t *columns_json_row(const column_table_t *table, const column_ctx_t *ctx,
                         bool median);

//  A view of a table's rows for people (the terminal): cells in order,
//  each under its heading, padded to its width in characters (UTF-8's,
//  not bytes: '±' is one); negative: left-aligned.  A view ends at a cell
//  whose heading is NULL
typedef struct {
    const char *heading;
    int width;          //  at least this wide
    bool grow;          //  ...and as wide as its widest cell printed
    const char *before; //  what stands before it; NULL: one space
    column_take_t take; //  its text: the take's value in the take's format
} column_view_t;

#define COLUMNS_VIEW_MAX 32 //  cells of a view

//  results.csv's median rows (link_summary_t, ctx->of the summary_t) for
//  people: the table under each size (report_table.c)
extern const column_view_t columns_results_view[];
//  ...and its columns on the report page, each a column's name and its
//  heading there, in order ("": the row's flags); NULL-ended: the table
//  per size, and its details, folded under it
extern const char *const columns_results_page[][2],
    *const columns_results_more[][2];

//  The cells of a view
int columns_view_count(const column_view_t *view);
//  The widths of a view's cells over n rows of stride bytes each (grow:
//  the widest), into widths[columns_view_count (view)]
void columns_view_widths(const column_view_t *view, column_ctx_t ctx,
                         const void *rows, int n, size_t stride, int *widths);
//  The headings, and a row, at those widths; each line ends with '\n'
void columns_view_header(FILE *out, const column_view_t *view,
                         const int *widths);
void columns_view_row(FILE *out, const column_view_t *view,
                      const column_ctx_t *ctx, const int *widths);
//  A view's cell's text (for a printer's own line)
void columns_view_cell(const column_view_t *cell, const column_ctx_t *ctx,
                       char *buf, size_t len);

//  "sweep_" and key with what is not alphanumeric turned into '_'
void columns_sweep_name(const char *key, char *buf, size_t len);
//  A cell's value as its take gives it (an optional negative number:
//  empty), for writers other than CSV (sizing.json)
void columns_value(const column_take_t *take, const column_ctx_t *ctx,
                   column_value_t *v);
//  ...and that value as JSON: text, a number, or null when empty
json_t *columns_json_value(const column_value_t *v);
//  The column's index in the table, -1 when it has none of that name
int columns_find(const column_table_t *table, const char *name);
//  The header's names joined by ',' (no sweep columns; tail: the tail's
//  instead): malloc'd, or NULL
char *columns_names(const column_table_t *table, bool tail);

int columns_test(bool verbose);

#endif
