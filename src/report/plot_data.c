/*  plot_data: results.csv as a table of rows; see plot_data.h.

    The records come from base/csv (RFC 4180, no limit on a line's
    length; hopbench writes no quotes in results.csv, a spreadsheet may).
    Every number is checked: a field that is not one, or is out of range,
    stops the read with file:line and column.
*/
#include "report/plot_data.h"
#include "report/columns.h"
#include "report/rundir.h"

#include "base/check.h"
#include "base/grow.h"
#include "base/number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

//  Their names, for the walk over results.csv
static const char *const s_wanted[C_NEEDED] = {
    COLUMN_TOPOLOGY,     COLUMN_SIZE,      COLUMN_HOP,  COLUMN_FROM,
    COLUMN_TO,           COLUMN_TRANSPORT, COLUMN_SENT, COLUMN_LOST,
    COLUMN_MSGS_PER_SEC, COLUMN_MB_PER_SEC};

//  For numbers, the range and whether one must be whole
static const struct {
    double min, max;
    bool integer;
} s_range[C_NEEDED] = {
    [C_SIZE] = {1, 1 << 30, true}, [C_HOP] = {1, 1e6, true},
    [C_SENT] = {0, 1e300, false},  [C_LOST] = {-1e300, 1e300, false},
    [C_RATE] = {0, 1e300, false},  [C_MBPS] = {0, 1e300, false}};

typedef struct {
    plot_table_t *table;
    rundir_rows_t in; //  results.csv, its current row
    const rundir_file_t *file;
    int repeat;   //  the repeat column, or -1
    int expected; //  the expected column (topics), or -1: older files
    int cpu_ns;   //  from_cpu_ns_per_msg, or -1
    int sockets;  //  sockets (sockets = N), or -1: older files
    int starved;  //  starved, or -1
} reader_t;

//  ---------------------------------------------------------------------
//  Interning

static int s_find(const plot_names_t *names, const char *name)
{
    for (int i = 0; i < names->n; i++)
        if (strcmp(names->v[i], name) == 0)
            return i;
    return -1;
}

int plot_names_add(plot_names_t *names, const char *name)
{
    if (grow(&names->v, &names->cap, names->n + 1, sizeof *names->v))
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
//  A row

static int s_number(const reader_t *self, int c, double *out, errbuf_t *err)
{
    if (rundir_number(&self->in, c, out, err))
        return -1;
    if (*out < s_range[c].min || *out > s_range[c].max ||
        (s_range[c].integer && *out != floor(*out)))
        return rundir_bad(&self->in, c, "is out of range", err);
    return 0;
}

static const char *s_text(const reader_t *self, int c)
{
    return rundir_text(&self->in, c);
}

static const char *s_cell(const reader_t *self, int col)
{
    return rundir_cell(self->file, self->in.row, col);
}

//  Loss is a share of what the hop should have carried: expected, where
//  the file has it (a filtering subscriber takes less than was sent)
static int s_expected(reader_t *self, plot_row_t *row, errbuf_t *err)
{
    const char *text = s_cell(self, self->expected);
    double value;
    if (!*text)
        return 0;
    if (number_parse(text, &value) || value < 0 || value != floor(value))
        return err_set(err, "%s:%d: expected '%.40s' is not a count",
                       self->table->path, rundir_line(self->file, self->in.row),
                       text);
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
    const char *text = s_cell(self, self->cpu_ns);
    const char *n = s_cell(self, self->sockets);
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
    char combo[PLOT_NAME], title[PLOT_NAME], tick[PLOT_NAME];
    rundir_combo(&self->in, true, combo, sizeof combo);
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
    if (!*s_text(self, C_TOPOLOGY))
        return rundir_bad(&self->in, C_TOPOLOGY, "is empty", err);
    if (strcmp(s_cell(self, self->repeat), COLUMN_MEDIAN) == 0)
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
    row.starved = atof(s_cell(self, self->starved)) > 0;
    if (s_names(self, &row) ||
        grow(&t->rows, &t->cap, t->nrows + 1, sizeof *t->rows))
        return err_set(err, "%s: out of memory", t->path);
    t->rows[t->nrows++] = row;
    return 0;
}

//  ---------------------------------------------------------------------
//  The file

//  The swept keys, "transport, hwm"
static void s_sweep(plot_table_t *table, const rundir_file_t *file)
{
    size_t used = 0;
    for (int k = 0; k < rundir_nsweep(file) && used < sizeof table->sweep; k++)
        used +=
            (size_t)snprintf(table->sweep + used, sizeof table->sweep - used,
                             "%s%s", k ? ", " : "",
                             rundir_name(file, rundir_sweep(file, k)) +
                                 strlen(COLUMN_SWEEP_PREFIX));
}

static int s_read(reader_t *self, const rundir_t *run, errbuf_t *err)
{
    int rc =
        rundir_rows(&self->in, run, &columns_results, s_wanted, C_NEEDED, err);
    if (rc <= 0)
        return -1; //  results.csv is there: rundir_open saw to that
    self->file = self->in.file;
    self->repeat = rundir_column(self->file, COLUMN_REPEAT);
    self->expected = rundir_column(self->file, COLUMN_EXPECTED);
    self->cpu_ns = rundir_column(self->file, COLUMN_FROM_CPU_NS);
    self->sockets = rundir_column(self->file, COLUMN_SOCKETS);
    self->starved = rundir_column(self->file, "starved");
    s_sweep(self->table, self->file);
    while (rundir_next(&self->in))
        if (s_row(self, err))
            return -1;
    if (self->table->nrows == 0)
        return err_set(err, "%s: no rows, only the header", self->table->path);
    return 0;
}

plot_table_t *plot_table_read(const rundir_t *run, errbuf_t *err)
{
    reader_t reader = {.table = calloc(1, sizeof *reader.table)};
    if (!reader.table)
        err_set(err, "out of memory");
    else if (snprintf(reader.table->path, sizeof reader.table->path,
                      "%s/results.csv", rundir_dir(run)) < 0 ||
             s_read(&reader, run, err))
        plot_table_destroy(&reader.table);
    return reader.table;
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
            grow(&self->rows, &self->cap, self->nrows + 1, sizeof *self->rows))
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
        point->starved += rows[i].starved;
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
    rundir_t *run = rundir_open(dir, err);
    plot_table_t *table = run ? plot_table_read(run, err) : NULL;
    rundir_destroy(&run);
    return table;
}

static int s_test_bad(const char *dir)
{
    static const char *const cases[][2] = {
        {"", "results.csv: empty"},
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
    if (!mkdtemp(dir) || rundir_test_metadata(dir))
        return -1;
    int rc = s_test_bad(dir) || s_test_good(dir) ? -1 : 0;
    char path[600];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    unlink(path);
    rmdir(dir);
    return rc;
}
