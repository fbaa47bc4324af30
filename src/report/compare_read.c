/*  compare_read: results directories as sides of series; see
    compare_internal.h.

    results.csv, latency.csv and syscalls.csv are read through base/csv,
    by column name, keeping only the per-repeat rows (repeat is a
    number): the `median` and `all` rows are sums of those.  Of
    syscalls.csv, the rows of a stage's calls (one series per stage, kind
    of thread and syscall, the threads of a kind summed) and its totals.
    metadata.json is read through rundir, which refuses one that is not
    what hopbench writes; the notes take a few of its fields.  Every file is
    outside input: a malformed one is an error naming file:line, never a
    crash.  Each file is read once, in one pass: a row whose fields are
    not the header's in number (a line cut short), a number that is not
    one (nan, 0x10, negative), a file with no row: each is an error at
    file:line naming the column.
*/
#include "report/compare_internal.h"
#include "report/columns.h"
#include "report/rundir.h"

#include "base/csv.h"
#include "base/number.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

//  What one file's reader needs: the columns, the sides
typedef struct {
    const compare_options_t *options;
    side_t *sides; //  room for LIMIT_COMPARE_RUNS... or --by values
    int *nsides, most;
    const char *path, *dir;
    const json_t *meta; //  the directory's metadata.json
    csv_t *csv;
    bool latency;  //  latency.csv: p50 and p99; else msgs/s
    bool syscalls; //  syscalls.csv (compare_syscalls): ns and calls per msg
    int columns;   //  of the header
    int rows;      //  read after it
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
    if (side->nseries == side->cap) {
        int cap = side->cap ? 2 * side->cap : 64;
        series_t *v = realloc(side->series, (size_t)cap * sizeof *v);
        if (!v) {
            err_set(err, "out of memory");
            return NULL;
        }
        side->series = v;
        side->cap = cap;
    }
    series_t *s = &side->series[side->nseries++];
    *s = *key;
    s->values = NULL;
    s->n = s->cap = 0;
    return s;
}

static int s_add(series_t *s, double value, errbuf_t *err)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        double *v = realloc(s->values, (size_t)cap * sizeof *v);
        if (!v)
            return err_set(err, "out of memory");
        s->values = v;
        s->cap = cap;
    }
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

static int s_column(const csv_t *csv, const char *name)
{
    for (int i = 0; i < csv_count(csv); i++)
        if (strcmp(csv_field(csv, i), name) == 0)
            return i;
    return -1;
}

static int s_need(reader_t *self, int *col, const char *name, errbuf_t *err)
{
    if ((*col = s_column(self->csv, name)) < 0)
        return err_set(err,
                       "%s:1: no column '%s' (is this a hopbench results "
                       "directory?)",
                       self->path, name);
    return 0;
}

//  syscalls.csv's columns
static int s_syscalls_header(reader_t *self, errbuf_t *err)
{
    self->cpu_ns = s_column(self->csv, COLUMN_CPU_NS);
    self->messages = s_column(self->csv, COLUMN_MESSAGES);
    return s_need(self, &self->topology, COLUMN_TOPOLOGY, err) ||
                   s_need(self, &self->pattern, COLUMN_PATTERN, err) ||
                   s_need(self, &self->size, COLUMN_SIZE, err) ||
                   s_need(self, &self->repeat, COLUMN_REPEAT, err) ||
                   s_need(self, &self->stage, COLUMN_STAGE, err) ||
                   s_need(self, &self->thread, COLUMN_THREAD, err) ||
                   s_need(self, &self->syscall, COLUMN_SYSCALL, err) ||
                   s_need(self, &self->calls_per_msg, COLUMN_CALLS_PER_MSG,
                          err) ||
                   s_need(self, &self->ns_per_msg, COLUMN_NS_PER_MSG, err)
               ? -1
               : 0;
}

static int s_header(reader_t *self, errbuf_t *err)
{
    const char *by = self->options->by;
    char want[COMPARE_TEXT + 8];
    snprintf(want, sizeof want, "sweep_%s", by ? by : "");
    for (char *p = want + 6; *p; p++)
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
            !(*p >= '0' && *p <= '9'))
            *p = '_';
    self->by = -1;
    self->nsweep = 0;
    for (int i = 0; i < csv_count(self->csv); i++) {
        const char *name = csv_field(self->csv, i);
        if (strncmp(name, COLUMN_SWEEP_PREFIX, 6))
            continue;
        if (by && strcmp(name, want) == 0)
            self->by = i;
        else if (self->nsweep < 64) {
            snprintf(self->sweep_name[self->nsweep], COMPARE_TEXT, "%s",
                     name + 6);
            self->sweep[self->nsweep++] = i;
        }
    }
    if (by && self->by < 0)
        return err_set(err,
                       "%s:1: no column %s: --by %s needs a run with "
                       "--sweep %s=...",
                       self->path, want, by, by);
    self->columns = csv_count(self->csv);
    self->rows = 0;
    self->mode = s_column(self->csv, COLUMN_MODE);
    self->loss_ratio = s_column(self->csv, COLUMN_LOSS_RATIO);
    self->from_host = s_column(self->csv, COLUMN_FROM_HOST);
    self->to_host = s_column(self->csv, COLUMN_TO_HOST);
    if (self->syscalls)
        return s_syscalls_header(self, err);
    return s_need(self, &self->topology, COLUMN_TOPOLOGY, err) ||
                   s_need(self, &self->pattern, COLUMN_PATTERN, err) ||
                   s_need(self, &self->size, COLUMN_SIZE, err) ||
                   s_need(self, &self->repeat, COLUMN_REPEAT, err) ||
                   s_need(self, &self->hop, COLUMN_HOP, err) ||
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
    return col >= 0 && col < csv_count(self->csv) ? csv_field(self->csv, col)
                                                  : "";
}

//  A number of 0 or more in column col (called name)
static int s_number(const reader_t *self, int col, const char *name,
                    double *out, errbuf_t *err)
{
    const char *text = s_field(self, col);
    if (number_parse(text, out) || *out < 0)
        return err_set(err, "%s:%d: %s '%.40s' is not a number (of 0 or more)",
                       self->path, csv_line(self->csv), name, text);
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
        err_set(err, "%s: more than %d values of %s", self->path, self->most,
                self->options->by);
        return NULL;
    }
    side_t *side = &self->sides[(*self->nsides)++];
    snprintf(side->label, sizeof side->label, "%s", label);
    snprintf(side->dir, sizeof side->dir, "%s", self->dir);
    s_metadata(side, self->meta);
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
    self->rows++;
    if (csv_count(self->csv) != self->columns)
        return err_set(err,
                       "%s:%d: %d fields, but the header has %d (a line cut "
                       "short?)",
                       self->path, csv_line(self->csv), csv_count(self->csv),
                       self->columns);
    if (strcmp(repeat, COLUMN_MEDIAN) == 0 || strcmp(repeat, "all") == 0)
        return 0; //  made of the repeats
    if (!*repeat || strspn(repeat, "0123456789") != strlen(repeat))
        return err_set(err,
                       "%s:%d: repeat '%.40s' is not a repeat's number, "
                       "median or all",
                       self->path, csv_line(self->csv), repeat);
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

//  One CSV file of dir; a missing latency.csv or syscalls.csv is no error
static int s_file(reader_t *self, const char *dir, const char *name,
                  errbuf_t *err)
{
    char path[COMPARE_LONG + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    self->path = path;
    self->dir = dir;
    self->latency = strcmp(name, "latency.csv") == 0;
    self->syscalls = strcmp(name, "syscalls.csv") == 0;
    FILE *file = fopen(path, "r");
    if (!file)
        return (self->latency || self->syscalls) && errno == ENOENT
                   ? 0
                   : err_set(err, "cannot read %s: %s", path, strerror(errno));
    int rc = (self->csv = csv_new(file, path)) ? csv_next(self->csv, err)
                                               : err_set(err, "out of memory");
    if (rc == 0)
        rc = err_set(err, "%s: empty (no header)", path);
    if (rc > 0)
        rc = s_header(self, err);
    while (rc >= 0 && (rc = csv_next(self->csv, err)) > 0)
        rc = s_row(self, err);
    if (rc == 0 && self->rows == 0 && !self->latency && !self->syscalls)
        rc = err_set(err, "%s: a header and no rows (the run measured nothing)",
                     path);
    csv_destroy(&self->csv);
    fclose(file);
    return rc < 0 ? -1 : 0;
}

//  One directory: its metadata.json (for the side without --by), then
//  its files
static int s_dir(reader_t *self, side_t *side, const char *dir, errbuf_t *err)
{
    json_t *meta = rundir_metadata(dir, err);
    self->meta = meta;
    if (meta && side)
        s_metadata(side, meta);
    int rc = meta && s_file(self, dir, "results.csv", err) == 0 &&
                     s_file(self, dir, "latency.csv", err) == 0 &&
                     s_file(self, dir, "syscalls.csv", err) == 0
                 ? 0
                 : -1;
    json_decref(meta);
    self->meta = NULL;
    return rc;
}

int compare_read(const compare_options_t *options, side_t **sides_p,
                 int *nsides, errbuf_t *err)
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
        return s_dir(&reader, NULL, options->dirs[0], err);
    for (int d = 0; d < options->ndirs; d++) {
        side_t *side = &sides[(*nsides)++];
        snprintf(side->label, sizeof side->label, "%s", options->dirs[d]);
        snprintf(side->dir, sizeof side->dir, "%s", options->dirs[d]);
        reader.side = d;
        if (s_dir(&reader, side, options->dirs[d], err))
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
