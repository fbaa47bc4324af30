/*  compare_read: results directories as sides of series; see
    compare_internal.h.

    The runs come read and checked (rundir: metadata.json, and CSV files
    whose headers are theirs and whose rows are whole); of results.csv,
    latency.csv and syscalls.csv this takes, by column name, only the
    per-repeat rows (repeat is a number): the `median` and `all` rows
    are sums of those.  Of syscalls.csv, the rows of a stage's calls (one
    series per stage, kind of thread and syscall, the threads of a kind
    summed) and its totals; of metadata.json, a few fields for the notes.
    A cell that is not what the comparison needs (a number that is not
    one: nan, 0x10, negative; a repeat that is not one) or a results.csv
    without rows is an error at file:line naming the column.
*/
#include "report/compare_internal.h"
#include "report/columns.h"
#include "report/rundir.h"

#include "base/grow.h"
#include "base/number.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

//  What one file's reader needs: the columns, the sides
typedef struct {
    const compare_options_t *options;
    side_t *sides; //  room for LIMIT_COMPARE_RUNS... or --by values
    int *nsides, most;
    const rundir_t *run;
    const rundir_file_t *file;
    int row;       //  the row read
    bool latency;  //  latency.csv: p50 and p99; else msgs/s
    bool syscalls; //  syscalls.csv (compare_syscalls): ns and calls per msg
    int topology, pattern, mode, size, repeat, hop, from, to, transport;
    int stage, thread, syscall, calls_per_msg, ns_per_msg, cpu_ns, messages;
    int from_host, to_host; //  -1 when the file has none
    int loss_ratio;         //  search rows' ratio, -1: no such column
    int value[2];
    int by;                //  the sweep_KEY column of --by, or -1
    int sweep[64], nsweep; //  the other sweep_ columns
    char sweep_name[64][COMPARE_TEXT];
    int side; //  without --by: the side this file fills
} reader_t;

//  ---------------------------------------------------------------------
//  metadata.json

//  What the side's run says of itself, for the notes (rundir checked it)
static void s_metadata(side_t *side, const json_t *meta)
{
    static const struct {
        const char *key;
        size_t offset, len;
    } fields[] = {
#define S_META(key, field)                                                     \
    {key, offsetof(side_t, field), sizeof((side_t *)0)->field}
        S_META("topology", topology), S_META("hostname", host),
        S_META("cpu_model", cpu),     S_META("kernel", kernel),
        S_META("libzmq", libzmq),     S_META("started_utc", started)};
#undef S_META
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        snprintf((char *)side + fields[i].offset, fields[i].len, "%s",
                 jsondoc_get_text(meta, fields[i].key));
}

//  ---------------------------------------------------------------------
//  Series

static series_t *s_series(side_t *side, const series_t *key, errbuf_t *err)
{
    //  newest first: a size's repeats follow each other
    for (int i = side->nseries - 1; i >= 0; i--)
        if (side->series[i].size == key->size &&
            compare_series_match(&side->series[i], key, false))
            return &side->series[i];
    if (grow(&side->series, &side->cap, side->nseries + 1, sizeof *key)) {
        err_set(err, "out of memory");
        return NULL;
    }
    series_t *s = &side->series[side->nseries++];
    *s = *key;
    s->values = NULL;
    s->n = s->cap = 0;
    return s;
}

static int s_add(series_t *s, double value, errbuf_t *err)
{
    if (grow(&s->values, &s->cap, s->n + 1, sizeof value))
        return err_set(err, "out of memory");
    s->values[s->n++] = value;
    return 0;
}

bool compare_series_match(const series_t *a, const series_t *b, bool by_mode)
{
    return a->size == b->size && strcmp(a->hop, b->hop) == 0 &&
           strcmp(a->metric, b->metric) == 0 && strcmp(a->from, b->from) == 0 &&
           strcmp(a->to, b->to) == 0 && strcmp(a->topology, b->topology) == 0 &&
           strcmp(a->pattern, b->pattern) == 0 &&
           (by_mode || strcmp(a->mode, b->mode) == 0) &&
           strcmp(a->sweep, b->sweep) == 0 &&
           strcmp(a->syscall, b->syscall) == 0;
}

//  ---------------------------------------------------------------------
//  Columns

static int s_need(reader_t *self, int *col, const char *name, errbuf_t *err)
{
    if ((*col = rundir_column(self->file, name)) < 0)
        return err_set(err,
                       "%s:1: no column '%s' (is this a hopbench results "
                       "directory?)",
                       rundir_path(self->file), name);
    return 0;
}

//  syscalls.csv's columns
static int s_syscalls_header(reader_t *self, errbuf_t *err)
{
    self->cpu_ns = rundir_column(self->file, COLUMN_CPU_NS);
    self->messages = rundir_column(self->file, COLUMN_MESSAGES);
    return s_need(self, &self->stage, COLUMN_STAGE, err) ||
                   s_need(self, &self->thread, COLUMN_THREAD, err) ||
                   s_need(self, &self->syscall, COLUMN_SYSCALL, err) ||
                   s_need(self, &self->calls_per_msg, COLUMN_CALLS_PER_MSG,
                          err) ||
                   s_need(self, &self->ns_per_msg, COLUMN_NS_PER_MSG, err)
               ? -1
               : 0;
}

//  The sweep_ columns: --by's, and the others that make a row's sweep
static int s_sweeps(reader_t *self, errbuf_t *err)
{
    const char *by = self->options->by;
    char want[COMPARE_TEXT + 8];
    columns_sweep_name(by ? by : "", want, sizeof want);
    self->by = -1;
    self->nsweep = 0;
    for (int k = 0; k < rundir_nsweep(self->file); k++) {
        int col = rundir_sweep(self->file, k);
        const char *name = rundir_name(self->file, col);
        if (by && strcmp(name, want) == 0)
            self->by = col;
        else if (self->nsweep < 64) {
            snprintf(self->sweep_name[self->nsweep], COMPARE_TEXT, "%s",
                     name + strlen(COLUMN_SWEEP_PREFIX));
            self->sweep[self->nsweep++] = col;
        }
    }
    if (by && self->by < 0)
        return err_set(err,
                       "%s:1: no column %s: --by %s needs a run with "
                       "--sweep %s=...",
                       rundir_path(self->file), want, by, by);
    return 0;
}

static int s_header(reader_t *self, errbuf_t *err)
{
    if (s_sweeps(self, err))
        return -1;
    self->mode = rundir_column(self->file, COLUMN_MODE);
    self->loss_ratio = rundir_column(self->file, COLUMN_LOSS_RATIO);
    self->from_host = rundir_column(self->file, COLUMN_FROM_HOST);
    self->to_host = rundir_column(self->file, COLUMN_TO_HOST);
    if (s_need(self, &self->topology, COLUMN_TOPOLOGY, err) ||
        s_need(self, &self->pattern, COLUMN_PATTERN, err) ||
        s_need(self, &self->size, COLUMN_SIZE, err) ||
        s_need(self, &self->repeat, COLUMN_REPEAT, err))
        return -1;
    if (self->syscalls)
        return s_syscalls_header(self, err);
    return s_need(self, &self->hop, COLUMN_HOP, err) ||
                   (self->latency
                        ? s_need(self, &self->value[0], COLUMN_P50_US, err) ||
                              s_need(self, &self->value[1], COLUMN_P99_US, err)
                        : s_need(self, &self->from, COLUMN_FROM, err) ||
                              s_need(self, &self->to, COLUMN_TO, err) ||
                              s_need(self, &self->transport, COLUMN_TRANSPORT,
                                     err) ||
                              s_need(self, &self->value[0], COLUMN_MSGS_PER_SEC,
                                     err))
               ? -1
               : 0;
}

//  ---------------------------------------------------------------------
//  Rows

static const char *s_field(const reader_t *self, int col)
{
    return rundir_cell(self->file, self->row, col);
}

//  A number of 0 or more in column col (called name)
static int s_number(const reader_t *self, int col, const char *name,
                    double *out, errbuf_t *err)
{
    const char *text = s_field(self, col);
    if (number_parse(text, out) || *out < 0)
        return err_set(err, "%s:%d: %s '%.40s' is not a number (of 0 or more)",
                       rundir_path(self->file),
                       rundir_line(self->file, self->row), name, text);
    return 0;
}

//  The side a row belongs to: the --by value's (made on first sight)
static side_t *s_side(reader_t *self, errbuf_t *err)
{
    if (self->by < 0)
        return &self->sides[self->side];
    char label[COMPARE_LONG];
    snprintf(label, sizeof label, "%s=%s", self->options->by,
             s_field(self, self->by));
    for (int i = 0; i < *self->nsides; i++)
        if (strcmp(self->sides[i].label, label) == 0)
            return &self->sides[i];
    if (*self->nsides == self->most) {
        err_set(err, "%s: more than %d values of %s", rundir_path(self->file),
                self->most, self->options->by);
        return NULL;
    }
    side_t *side = &self->sides[(*self->nsides)++];
    snprintf(side->label, sizeof side->label, "%s", label);
    snprintf(side->dir, sizeof side->dir, "%s", rundir_dir(self->run));
    s_metadata(side, rundir_meta(self->run));
    return side;
}

static void s_key(const reader_t *self, series_t *key)
{
    memset(key, 0, sizeof *key);
    snprintf(key->topology, sizeof key->topology, "%s",
             s_field(self, self->topology));
    snprintf(key->pattern, sizeof key->pattern, "%s",
             s_field(self, self->pattern));
    snprintf(key->mode, sizeof key->mode, "%s", s_field(self, self->mode));
    //  a search's rows for each loss ratio are series of their own
    const char *ratio = s_field(self, self->loss_ratio);
    if (ratio[0])
        snprintf(key->mode, sizeof key->mode, "%s loss_ratio=%s",
                 s_field(self, self->mode), ratio);
    snprintf(key->hop, sizeof key->hop, "%s", s_field(self, self->hop));
    if (!self->latency && !self->syscalls) {
        snprintf(key->from, sizeof key->from, "%s", s_field(self, self->from));
        snprintf(key->to, sizeof key->to, "%s", s_field(self, self->to));
        snprintf(key->transport, sizeof key->transport, "%s",
                 s_field(self, self->transport));
        const char *a = s_field(self, self->from_host);
        const char *b = s_field(self, self->to_host);
        if (*a || *b)
            snprintf(key->hosts, sizeof key->hosts, "%.*s -> %.*s",
                     COMPARE_TEXT, *a ? a : "(controller)", COMPARE_TEXT,
                     *b ? b : "(controller)");
    }
    size_t used = 0;
    for (int i = 0; i < self->nsweep && used < sizeof key->sweep; i++)
        used += (size_t)snprintf(key->sweep + used, sizeof key->sweep - used,
                                 "%s%s=%s", i ? " " : "", self->sweep_name[i],
                                 s_field(self, self->sweep[i]));
}

//  ---------------------------------------------------------------------
//  syscalls.csv: a call of a kind of thread, or a stage's total

//  "ZMQbg/IO/1" -> "ZMQbg/IO": a kind of thread, whatever its number
static void s_thread_kind(const char *thread, char *out, size_t len)
{
    size_t n = strlen(thread), digits = 0;
    while (digits < n && thread[n - 1 - digits] >= '0' &&
           thread[n - 1 - digits] <= '9')
        digits++;
    if (digits && digits < n && thread[n - 1 - digits] == '/')
        n -= digits + 1;
    snprintf(out, len, "%.*s", (int)n, thread);
}

//  One value of a series; a repeat's second row of it (another thread of
//  the same kind) adds to the first
static int s_add_repeat(series_t *s, int repeat, double value, errbuf_t *err)
{
    if (s->n > 0 && s->repeat == repeat) {
        s->values[s->n - 1] += value;
        return 0;
    }
    s->repeat = repeat;
    return s_add(s, value, err);
}

static int s_syscalls_row(reader_t *self, series_t *key, side_t *side,
                          int repeat, errbuf_t *err)
{
    const char *thread = s_field(self, self->thread);
    const char *call = s_field(self, self->syscall);
    bool total = strcmp(thread, "all") == 0;
    if (total != (strcmp(call, "all") == 0) ||
        !*s_field(self, self->ns_per_msg))
        return 0; //  a thread's total (its calls are read), or no messages
    snprintf(key->hop, sizeof key->hop, "-");
    snprintf(key->from, sizeof key->from, "%s", s_field(self, self->stage));
    s_thread_kind(thread, key->to, sizeof key->to);
    snprintf(key->syscall, sizeof key->syscall, "%s", call);
    double v[3], cpu, messages;
    int n = total && *s_field(self, self->cpu_ns) ? 3 : 2;
    if (s_number(self, self->ns_per_msg, "ns_per_msg", &v[0], err) ||
        s_number(self, self->calls_per_msg, "calls_per_msg", &v[1], err))
        return -1;
    if (n == 3 && (s_number(self, self->cpu_ns, "cpu_ns", &cpu, err) ||
                   s_number(self, self->messages, "messages", &messages, err)))
        return -1;
    if (n == 3)
        v[2] = messages > 0 ? cpu / messages : 0;
    static const char *const metrics[3] = {"ns/msg", "calls/msg", "cpu_ns/msg"};
    for (int m = 0; m < n; m++) {
        snprintf(key->metric, sizeof key->metric, "%s", metrics[m]);
        series_t *s = s_series(side, key, err);
        if (!s || s_add_repeat(s, repeat, v[m], err))
            return -1;
    }
    return 0;
}

static int s_row(reader_t *self, errbuf_t *err)
{
    const char *repeat = s_field(self, self->repeat);
    if (strcmp(repeat, COLUMN_MEDIAN) == 0 || strcmp(repeat, "all") == 0)
        return 0; //  made of the repeats
    if (!*repeat || strspn(repeat, "0123456789") != strlen(repeat))
        return err_set(err,
                       "%s:%d: repeat '%.40s' is not a repeat's number, "
                       "median or all",
                       rundir_path(self->file),
                       rundir_line(self->file, self->row), repeat);
    double size, value;
    series_t key;
    s_key(self, &key);
    if (s_number(self, self->size, "size", &size, err))
        return -1;
    key.size = (unsigned)size;
    side_t *side = s_side(self, err);
    if (!side)
        return -1;
    if (self->syscalls)
        return s_syscalls_row(self, &key, side, atoi(repeat), err);
    static const char *const metrics[2][2] = {{"msgs/s", NULL},
                                              {"p50_us", "p99_us"}};
    static const char *const columns[2][2] = {{"msgs_per_sec", NULL},
                                              {"p50_us", "p99_us"}};
    for (int m = 0; m < 2 && metrics[self->latency][m]; m++) {
        snprintf(key.metric, sizeof key.metric, "%s",
                 metrics[self->latency][m]);
        series_t *s = s_series(side, &key, err);
        if (!s ||
            s_number(self, self->value[m], columns[self->latency][m], &value,
                     err) ||
            s_add(s, value, err))
            return -1;
    }
    return 0;
}

//  One file of the run; a missing latency.csv or syscalls.csv is none
static int s_file(reader_t *self, const column_table_t *table, errbuf_t *err)
{
    self->latency = table == &columns_latency;
    self->syscalls = table == &columns_syscalls;
    if (!(self->file = rundir_file(self->run, table)))
        return 0; //  results.csv is there: rundir_open saw to that
    if (s_header(self, err))
        return -1;
    if (table == &columns_results && rundir_nrows(self->file) == 0)
        return err_set(err,
                       "%s: a header and no rows (the run measured "
                       "nothing)",
                       rundir_path(self->file));
    for (self->row = 0; self->row < rundir_nrows(self->file); self->row++)
        if (s_row(self, err))
            return -1;
    return 0;
}

static int s_run(reader_t *self, const rundir_t *run, errbuf_t *err)
{
    self->run = run;
    return s_file(self, &columns_results, err) ||
                   s_file(self, &columns_latency, err) ||
                   s_file(self, &columns_syscalls, err)
               ? -1
               : 0;
}

int compare_read(const compare_options_t *options, rundir_t *const *runs,
                 side_t **sides_p, int *nsides, errbuf_t *err)
{
    int most = options->by ? 64 : options->ndirs;
    side_t *sides = calloc((size_t)most, sizeof *sides);
    reader_t reader = {
        .options = options, .sides = sides, .nsides = nsides, .most = most};
    *nsides = 0;
    *sides_p = sides;
    if (!sides)
        return err_set(err, "out of memory");
    if (options->by)
        return s_run(&reader, runs[0], err);
    for (int d = 0; d < options->ndirs; d++) {
        side_t *side = &sides[(*nsides)++];
        snprintf(side->label, sizeof side->label, "%s", options->dirs[d]);
        snprintf(side->dir, sizeof side->dir, "%s", options->dirs[d]);
        s_metadata(side, rundir_meta(runs[d]));
        reader.side = d;
        if (s_run(&reader, runs[d], err))
            return -1;
    }
    return 0;
}

void compare_sides_free(side_t *sides, int nsides)
{
    for (int i = 0; i < nsides; i++) {
        for (int s = 0; s < sides[i].nseries; s++)
            free(sides[i].series[s].values);
        free(sides[i].series);
    }
    free(sides);
}
