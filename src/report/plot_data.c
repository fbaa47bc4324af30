/*  plot_data: results.csv as a table of rows; see plot_data.h.

    The records come from base/csv (RFC 4180, no limit on a line's
    length; hopbench writes no quotes in results.csv, a spreadsheet may).
    Every number is checked: a field that is not one, or is out of range,
    stops the read with file:line and column.
*/
#include "report/plot_data.h"
#include "report/columns.h"

#include "base/check.h"
#include "base/csv.h"
#include "base/number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLOT_MAX_SWEEP 16

//  The columns the charts use, found by name
enum {
    C_TOPOLOGY,
    C_SIZE,
    C_HOP,
    C_FROM,
    C_TO,
    C_TRANSPORT,
    C_SENT,
    C_LOST,
    C_RATE,
    C_MBPS,
    C_NEEDED
};

//  Name, and for numbers the range and whether it must be whole
static const struct {
    const char *name;
    double min, max;
    bool integer;
} s_columns[C_NEEDED] = {{COLUMN_TOPOLOGY, 0, 0, false},
                         {COLUMN_SIZE, 1, 1 << 30, true},
                         {COLUMN_HOP, 1, 1e6, true},
                         {COLUMN_FROM, 0, 0, false},
                         {COLUMN_TO, 0, 0, false},
                         {COLUMN_TRANSPORT, 0, 0, false},
                         {COLUMN_SENT, 0, 1e300, false},
                         {COLUMN_LOST, -1e300, 1e300, false},
                         {COLUMN_MSGS_PER_SEC, 0, 1e300, false},
                         {COLUMN_MB_PER_SEC, 0, 1e300, false}};

typedef struct {
    plot_table_t *table;
    int col[C_NEEDED];         //  field index of each needed column
    int sweep[PLOT_MAX_SWEEP]; //  field index of each sweep_ column
    const char *key[PLOT_MAX_SWEEP];
    char header[PLOT_MAX_SWEEP][PLOT_NAME];
    int nsweep, ncolumns, line;
    int repeat;    //  the repeat column, or -1
    int expected;  //  the expected column (topics), or -1: older files
    int cpu_ns;    //  from_cpu_ns_per_msg, or -1
    int sockets;   //  sockets (sockets = N), or -1: older files
    bool too_many; //  sweep_ columns beyond PLOT_MAX_SWEEP
    csv_t *csv;    //  its current record: the header, or a row
} reader_t;

//  ---------------------------------------------------------------------
//  Growth and interning

int plot_grow(void *array_p, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 0;
    int cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *bigger = realloc(*(void **)array_p, (size_t)cap2 * size);
    if (!bigger)
        return -1;
    *(void **)array_p = bigger;
    *cap = cap2;
    return 0;
}

static int s_find(const plot_names_t *names, const char *name)
{
    for (int i = 0; i < names->n; i++)
        if (strcmp(names->v[i], name) == 0)
            return i;
    return -1;
}

int plot_names_add(plot_names_t *names, const char *name)
{
    if (plot_grow(&names->v, &names->cap, names->n + 1, sizeof *names->v))
        return -1;
    snprintf(names->v[names->n], PLOT_NAME, "%s", name);
    return names->n++;
}

void plot_names_free(plot_names_t *names)
{
    free(names->v);
    memset(names, 0, sizeof *names);
}

int plot_names_index(plot_names_t *names, const char *name)
{
    int index = s_find(names, name);
    return index >= 0 ? index : plot_names_add(names, name);
}

//  ---------------------------------------------------------------------
//  The header

static void s_sweep_column(reader_t *self, int index)
{
    const char *name = csv_field(self->csv, index);
    if (strncmp(name, COLUMN_SWEEP_PREFIX, 6) || !name[6])
        return;
    if (self->nsweep == PLOT_MAX_SWEEP) {
        self->too_many = true;
        return;
    }
    snprintf(self->header[self->nsweep], PLOT_NAME, "%s", name + 6);
    self->key[self->nsweep] = self->header[self->nsweep];
    self->sweep[self->nsweep++] = index;
}

static int s_header(reader_t *self, errbuf_t *err)
{
    const char *path = self->table->path;
    self->ncolumns = csv_count(self->csv);
    for (int c = 0; c < C_NEEDED; c++)
        self->col[c] = -1;
    for (int i = self->ncolumns - 1; i >= 0; i--) { //  first of a name wins
        for (int c = 0; c < C_NEEDED; c++)
            if (strcmp(csv_field(self->csv, i), s_columns[c].name) == 0)
                self->col[c] = i;
    }
    self->repeat = self->expected = self->cpu_ns = self->sockets = -1;
    for (int i = 0; i < self->ncolumns; i++) {
        const char *name = csv_field(self->csv, i);
        s_sweep_column(self, i);
        if (strcmp(name, COLUMN_REPEAT) == 0)
            self->repeat = i;
        if (strcmp(name, COLUMN_EXPECTED) == 0)
            self->expected = i;
        if (strcmp(name, COLUMN_FROM_CPU_NS) == 0)
            self->cpu_ns = i;
        if (strcmp(name, COLUMN_SOCKETS) == 0)
            self->sockets = i;
    }
    for (int c = 0; c < C_NEEDED; c++)
        if (self->col[c] < 0)
            return err_set(err,
                           "%s:1: no column '%s' in the header (is this a "
                           "hopbench results.csv?)",
                           path, s_columns[c].name);
    if (self->too_many)
        return err_set(err, "%s:1: more than %d sweep_ columns", path,
                       PLOT_MAX_SWEEP);
    size_t used = 0;
    for (int s = 0; s < self->nsweep; s++)
        used += (size_t)snprintf(self->table->sweep + used,
                                 used < PLOT_NAME ? PLOT_NAME - used : 0,
                                 "%s%s", s ? ", " : "", self->key[s]);
    return 0;
}

//  ---------------------------------------------------------------------
//  A row

static int s_number(const reader_t *self, int c, double *out, errbuf_t *err)
{
    const char *text = csv_field(self->csv, self->col[c]);
    if (number_parse(text, out))
        return err_set(err, "%s:%d: %s '%.40s' is not a number",
                       self->table->path, self->line, s_columns[c].name, text);
    if (*out < s_columns[c].min || *out > s_columns[c].max ||
        (s_columns[c].integer && *out != floor(*out)))
        return err_set(err, "%s:%d: %s '%.40s' is out of range",
                       self->table->path, self->line, s_columns[c].name, text);
    return 0;
}

static const char *s_text(const reader_t *self, int c)
{
    return csv_field(self->csv, self->col[c]);
}

//  Loss is a share of what the hop should have carried: expected, where
//  the file has it (a filtering subscriber takes less than was sent)
static int s_expected(reader_t *self, plot_row_t *row, errbuf_t *err)
{
    if (self->expected < 0 || !*csv_field(self->csv, self->expected))
        return 0;
    double value;
    const char *text = csv_field(self->csv, self->expected);
    if (number_parse(text, &value) || value < 0 || value != floor(value))
        return err_set(err, "%s:%d: expected '%.40s' is not a count",
                       self->table->path, self->line, text);
    if (value != row->sent)
        self->table->expected = true;
    row->sent = value;
    return 0;
}

//  The sender's CPU per message sent on the link and per connection:
//  from_cpu_ns_per_msg over the link's sockets (-1 when the file does not
//  say: an older file, or a repeat that did not know)
static void s_cpu(const reader_t *self, plot_row_t *row)
{
    double ns, sockets = 1;
    const char *text = self->cpu_ns >= 0 ? csv_field(self->csv, self->cpu_ns)
                                         : "";
    const char *n = self->sockets >= 0 ? csv_field(self->csv, self->sockets)
                                       : "";
    row->cpu_ns = -1;
    if (!*text || number_parse(text, &ns) || ns <= 0)
        return;
    if (*n && (number_parse(n, &sockets) || sockets < 1))
        return;
    row->cpu_ns = ns / sockets;
}

//  topology, combination and link of the row, interned
static int s_names(reader_t *self, plot_row_t *row)
{
    plot_table_t *t = self->table;
    char combo[PLOT_NAME] = "", title[PLOT_NAME], tick[PLOT_NAME];
    size_t used = 0;
    for (int s = 0; s < self->nsweep && used < sizeof combo; s++)
        used += (size_t)snprintf(combo + used, sizeof combo - used, "%s%s=%s",
                                 s ? " " : "", self->key[s],
                                 csv_field(self->csv, self->sweep[s]));
    snprintf(title, sizeof title, "hop %d %s->%s (%s)", row->hop,
             s_text(self, C_FROM), s_text(self, C_TO),
             s_text(self, C_TRANSPORT));
    snprintf(tick, sizeof tick, "hop %d\n%s->%s\n%s", row->hop,
             s_text(self, C_FROM), s_text(self, C_TO),
             s_text(self, C_TRANSPORT));
    row->topo = plot_names_index(&t->topos, s_text(self, C_TOPOLOGY));
    row->combo = plot_names_index(&t->combos, combo);
    row->link = s_find(&t->links, title);
    if (row->link < 0 && (row->link = plot_names_add(&t->links, title)) >= 0)
        plot_names_add(&t->ticks, tick);
    return row->topo < 0 || row->combo < 0 || row->link < 0 ||
                   t->ticks.n != t->links.n
               ? -1
               : 0;
}

static int s_row(reader_t *self, errbuf_t *err)
{
    plot_table_t *t = self->table;
    if (csv_count(self->csv) != self->ncolumns)
        return err_set(err, "%s:%d: %d fields, but the header has %d", t->path,
                       self->line, csv_count(self->csv), self->ncolumns);
    if (!*s_text(self, C_TOPOLOGY))
        return err_set(err, "%s:%d: empty topology", t->path, self->line);
    if (self->repeat >= 0 &&
        strcmp(csv_field(self->csv, self->repeat), COLUMN_MEDIAN) == 0)
        return 0; //  made of the repeats, which are drawn
    plot_row_t row = {0};
    double size, hop;
    if (s_number(self, C_SIZE, &size, err) ||
        s_number(self, C_HOP, &hop, err) ||
        s_number(self, C_SENT, &row.sent, err) ||
        s_number(self, C_LOST, &row.lost, err) ||
        s_number(self, C_RATE, &row.rate, err) ||
        s_number(self, C_MBPS, &row.mbps, err) || s_expected(self, &row, err))
        return -1;
    row.size = (unsigned)size;
    row.hop = (int)hop;
    s_cpu(self, &row);
    if (s_names(self, &row) ||
        plot_grow(&t->rows, &t->cap, t->nrows + 1, sizeof *t->rows))
        return err_set(err, "%s:%d: out of memory", t->path, self->line);
    t->rows[t->nrows++] = row;
    return 0;
}

//  ---------------------------------------------------------------------
//  The file

static int s_read(reader_t *self, errbuf_t *err)
{
    const char *path = self->table->path;
    int rc, records = 0;
    while ((rc = csv_next(self->csv, err)) > 0) {
        self->line = csv_line(self->csv);
        rc = records++ == 0 ? s_header(self, err) : s_row(self, err);
        if (rc)
            return -1;
    }
    if (rc < 0)
        return -1;
    if (records == 0)
        return err_set(err, "%s: empty file (no header line)", path);
    if (self->table->nrows == 0)
        return err_set(err, "%s: no rows, only the header", path);
    return 0;
}

plot_table_t *plot_table_read(const char *dir, errbuf_t *err)
{
    plot_table_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "out of memory");
        return NULL;
    }
    snprintf(self->path, sizeof self->path, "%s/results.csv", dir);
    FILE *file = fopen(self->path, "r");
    reader_t reader = {.table = self};
    reader.csv = file ? csv_new(file, self->path) : NULL;
    int rc = !file         ? err_set(err, "%s: %s", self->path, strerror(errno))
             : !reader.csv ? err_set(err, "%s: out of memory", self->path)
                           : s_read(&reader, err);
    csv_destroy(&reader.csv);
    if (file)
        fclose(file);
    if (rc)
        plot_table_destroy(&self);
    return self;
}

int plot_table_overlay(plot_table_t *self, const char *mine,
                       const plot_table_t *other, const char *theirs)
{
    char name[PLOT_NAME];
    for (int c = 0; c < self->combos.n; c++) {
        snprintf(name, sizeof name, "run=%.60s%s%.180s", mine,
                 self->combos.v[c][0] ? " " : "", self->combos.v[c]);
        snprintf(self->combos.v[c], PLOT_NAME, "%s", name);
    }
    for (int r = 0; r < other->nrows; r++) {
        plot_row_t row = other->rows[r];
        const char *combo = other->combos.v[row.combo];
        snprintf(name, sizeof name, "run=%.60s%s%.180s", theirs,
                 combo[0] ? " " : "", combo);
        int links = self->links.n;
        row.topo = plot_names_index(&self->topos, other->topos.v[row.topo]);
        row.combo = plot_names_index(&self->combos, name);
        row.link = plot_names_index(&self->links, other->links.v[row.link]);
        if (row.link == links && //  a new link: its bar label too
            plot_names_add(&self->ticks, other->ticks.v[other->rows[r].link]) <
                0)
            return -1;
        if (row.topo < 0 || row.combo < 0 || row.link < 0 ||
            plot_grow(&self->rows, &self->cap, self->nrows + 1,
                      sizeof *self->rows))
            return -1;
        self->rows[self->nrows++] = row;
    }
    snprintf(name, sizeof name, "run%s%.200s", self->sweep[0] ? ", " : "",
             self->sweep);
    snprintf(self->sweep, sizeof self->sweep, "%s", name);
    self->expected |= other->expected;
    return 0;
}

void plot_table_destroy(plot_table_t **self_p)
{
    plot_table_t *self = *self_p;
    if (!self)
        return;
    free(self->rows);
    plot_names_free(&self->topos);
    plot_names_free(&self->combos);
    plot_names_free(&self->links);
    plot_names_free(&self->ticks);
    free(self);
    *self_p = NULL;
}

//  ---------------------------------------------------------------------
//  Ordering and reduction

static int s_compare_int(long a, long b)
{
    return a < b ? -1 : a > b;
}

static int s_by_link(const void *a, const void *b)
{
    const plot_row_t *x = a, *y = b;
    int c = s_compare_int(x->topo, y->topo);
    c = c ? c : s_compare_int(x->combo, y->combo);
    c = c ? c : s_compare_int(x->hop, y->hop);
    c = c ? c : s_compare_int(x->link, y->link);
    return c ? c : s_compare_int(x->size, y->size);
}

static int s_by_size(const void *a, const void *b)
{
    const plot_row_t *x = a, *y = b;
    int c = s_compare_int(x->topo, y->topo);
    c = c ? c : s_compare_int(x->combo, y->combo);
    return c ? c : s_compare_int(x->size, y->size);
}

void plot_rows_sort(plot_row_t *rows, int n, bool by_link)
{
    qsort(rows, (size_t)n, sizeof *rows, by_link ? s_by_link : s_by_size);
}

static int s_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

//  median, min, max (sorts values)
static void s_stats(double *values, int n, double out[3])
{
    qsort(values, (size_t)n, sizeof *values, s_compare_double);
    out[0] = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    out[1] = values[0];
    out[2] = values[n - 1];
}

int plot_point(const plot_row_t *rows, int n, plot_point_t *point,
               errbuf_t *err)
{
    double *values = n > 0 ? malloc(2 * (size_t)n * sizeof *values) : NULL;
    if (!values)
        return err_set(err, "out of memory (%d rows)", n);
    memset(point, 0, sizeof *point);
    point->size = rows[0].size;
    point->n = n;
    for (int i = 0; i < n; i++) {
        values[i] = rows[i].rate;
        values[n + i] = rows[i].mbps;
        point->sent += rows[i].sent;
        point->lost += rows[i].lost;
    }
    s_stats(values, n, point->rate);
    s_stats(values + n, n, point->mbps);
    free(values);
    return 0;
}

//  ---------------------------------------------------------------------
//  Selftest: how to read a results directory, and what a bad one says

//  Write text as DIR/results.csv and read it; NULL and err on failure
static plot_table_t *s_try(const char *dir, const char *text, errbuf_t *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *file = fopen(path, "w");
    if (!file)
        return NULL;
    fputs(text, file);
    fclose(file);
    return plot_table_read(dir, err);
}

static int s_test_bad(const char *dir)
{
    static const char *const cases[][2] = {
        {"", "empty file"},
        {"topology,size\n", "no column 'hop'"},
        {"topology,size,hop,from,to,transport,sent,lost,msgs_per_sec,"
         "mb_per_sec\n",
         "no rows"},
        {"topology,size,hop,from,to,transport,sent,lost,msgs_per_sec,"
         "mb_per_sec\np,64,1,a,b,tcp,10,0,fast,1\n",
         "results.csv:2: msgs_per_sec 'fast' is not a number"},
        {"topology,size,hop,from,to,transport,sent,lost,msgs_per_sec,"
         "mb_per_sec\np,64,1,a,b,tcp,10,0,5\n",
         "results.csv:2: 9 fields, but the header has 10"},
        {"topology,size,hop,from,to,transport,sent,lost,msgs_per_sec,"
         "mb_per_sec\np,6.5,1,a,b,tcp,10,0,5,1\n",
         "size '6.5' is out of range"}};
    errbuf_t err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plot_table_t *t = s_try(dir, cases[i][0], &err);
        CHECK(t == NULL);
        CHECK(strstr(err.msg, cases[i][1]));
    }
    return 0;
}

static int s_test_good(const char *dir)
{
    errbuf_t err;
    plot_table_t *t = s_try(
        dir,
        "mb_per_sec,msgs_per_sec,topology,size,hop,from,to,transport,sent,"
        "lost,sweep_transport\n"
        "1,300,p,64,1,a,\"b\",tcp,10,0,tcp\n"
        "1,100,p,64,1,a,b,tcp,10,2,tcp\n"
        "1,200,p,64,1,a,b,tcp,10,1,tcp\n"
        "1,50,p,64,1,a,b,ipc,10,0,ipc\n",
        &err);
    CHECK(t && t->nrows == 4 && t->topos.n == 1 && t->combos.n == 2);
    CHECK(strcmp(t->combos.v[1], "transport=ipc") == 0);
    CHECK(strcmp(t->links.v[0], "hop 1 a->b (tcp)") == 0);
    CHECK(strcmp(t->ticks.v[1], "hop 1\na->b\nipc") == 0);
    CHECK(strcmp(t->sweep, "transport") == 0);
    plot_rows_sort(t->rows, t->nrows, true);
    plot_point_t point;
    CHECK(plot_point(t->rows, 3, &point, &err) == 0);
    CHECK(point.rate[0] == 200 && point.rate[1] == 100 && point.rate[2] == 300);
    CHECK(point.sent == 30 && point.lost == 3 && point.size == 64);
    plot_table_destroy(&t);
    CHECK(t == NULL);
    return 0;
}

int plot_data_test(bool verbose)
{
    (void)verbose;
    char dir[] = "/tmp/hopbench-plot-test.XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    int rc = s_test_bad(dir) || s_test_good(dir) ? -1 : 0;
    char path[600];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    unlink(path);
    rmdir(dir);
    errbuf_t err;
    CHECK(plot_table_read(dir, &err) == NULL);
    CHECK(strstr(err.msg, "results.csv: No such file or directory"));
    return rc;
}
