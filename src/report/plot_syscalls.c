/*  plot_syscalls: syscalls.csv as stacked bars; see plot_syscalls.h.

    syscalls.csv is read by column name (report_syscalls.c writes it),
    its per-call rows only (thread and syscall not "all").  Each chart's
    data file has one line per size:

        size_label series_1 .. series_K other total

    in ns per message, medians over the repeats.  The file is outside
    input: a malformed one is an error naming the file and line.
*/
#include "report/plot_syscalls.h"

#include "base/stats.h"
#include "report/columns.h"
#include "report/plot_read.h"

#include <stdlib.h>
#include <string.h>

#define SERIES_MAX 7 //  syscalls with a colour of their own, per chart

enum { C_TOPO, C_SIZE, C_REPEAT, C_STAGE, C_THREAD, C_CALL, C_NS, C_COUNT };
static const char *const s_columns[C_COUNT] = {
    COLUMN_TOPOLOGY, COLUMN_SIZE,    COLUMN_REPEAT,    COLUMN_STAGE,
    COLUMN_THREAD,   COLUMN_SYSCALL, COLUMN_NS_PER_MSG};

typedef struct {
    int chart, call, repeat;
    unsigned size;
    double ns; //  per message
} point_t;

//  ------------------------------------------------------------------------
//  Reading

static int s_number(plot_read_t *self, int c, double *out, errbuf_t *err)
{
    if (rundir_number(&self->in, c, out, err))
        return -1;
    return *out < 0 ? rundir_bad(&self->in, c, "is below 0", err) : 0;
}

//  A row: its chart is the topology, its sweep values and its stage; the
//  call is an index into plot_read's names
static int s_row(plot_read_t *self, errbuf_t *err)
{
    const char *call = rundir_text(&self->in, C_CALL);
    if (strcmp(rundir_text(&self->in, C_THREAD), "all") == 0 ||
        strcmp(call, "all") == 0 || !*rundir_text(&self->in, C_NS))
        return 0; //  totals, or a stage that handled nothing
    point_t p;
    double size, repeat;
    if (s_number(self, C_SIZE, &size, err) ||
        s_number(self, C_REPEAT, &repeat, err) ||
        s_number(self, C_NS, &p.ns, err))
        return -1;
    p.size = (unsigned)size, p.repeat = (int)repeat;
    p.chart =
        plot_read_chart(self, PLOT_VALUES, rundir_text(&self->in, C_STAGE));
    p.call = plot_names_index(&self->names, call);
    if (p.chart < 0 || p.call < 0)
        return err_set(err, "out of memory");
    return plot_read_add(self, &p, err);
}

//  ------------------------------------------------------------------------
//  A chart's table: sizes x syscalls, medians over the repeats

typedef struct {
    unsigned *sizes;
    int nsizes, ncalls;
    double *value; //  [size][call], ns per message
} grid_t;

//  A chart's points by size, call and repeat
static int s_by_size(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    if (x->call != y->call)
        return x->call < y->call ? -1 : 1;
    return x->repeat < y->repeat ? -1 : x->repeat > y->repeat;
}

//  The repeats of points [a, b) (one chart and size): how many distinct
static int s_repeats(const point_t *p, int a, int b)
{
    int n = 0;
    for (int i = a; i < b; i++) {
        bool seen = false;
        for (int j = a; j < i && !seen; j++)
            seen = p[j].repeat == p[i].repeat;
        n += !seen;
    }
    return n;
}

//  One call at one size over nrep repeats: points [a, b), sorted by
//  repeat, each repeat's threads summed; a repeat without it counts 0
static double s_median(const point_t *p, int a, int b, int nrep, double *v)
{
    int n = 0;
    for (int d = a; d < b;) {
        int repeat = p[d].repeat;
        double sum = 0;
        for (; d < b && p[d].repeat == repeat; d++)
            sum += p[d].ns;
        v[n++] = sum;
    }
    while (n < nrep)
        v[n++] = 0;
    stats_sort(v, n);
    return stats_median_sorted(v, n);
}

//  Points [a, b) of one chart, sorted, into the grid
static int s_grid(const plot_read_t *self, int a, int b, grid_t *g)
{
    const point_t *p = self->points;
    g->ncalls = self->names.n;
    g->sizes = calloc((size_t)(b - a), sizeof *g->sizes);
    g->value =
        calloc((size_t)(b - a) * (size_t)g->ncalls + 1, sizeof *g->value);
    double *v = calloc((size_t)(b - a) + 1, sizeof *v);
    if (!g->sizes || !g->value || !v) {
        free(v);
        return -1;
    }
    for (int s = a; s < b;) {
        int e = s;
        while (e < b && p[e].size == p[s].size)
            e++;
        int nrep = s_repeats(p, s, e), at = g->nsizes++;
        g->sizes[at] = p[s].size;
        for (int c = s; c < e;) {
            int d = c;
            while (d < e && p[d].call == p[c].call)
                d++;
            g->value[at * g->ncalls + p[c].call] = s_median(p, c, d, nrep, v);
            c = d;
        }
        s = e;
    }
    free(v);
    return 0;
}

//  The chart's syscalls with a colour: the SERIES_MAX largest anywhere
static int s_pick(const grid_t *g, int *series)
{
    double *most = calloc((size_t)g->ncalls + 1, sizeof *most);
    int n = 0;
    if (!most)
        return -1;
    for (int c = 0; c < g->ncalls; c++)
        for (int s = 0; s < g->nsizes; s++)
            if (g->value[s * g->ncalls + c] > most[c])
                most[c] = g->value[s * g->ncalls + c];
    for (; n < SERIES_MAX; n++) {
        int best = -1;
        for (int c = 0; c < g->ncalls; c++)
            if (most[c] > 0 && (best < 0 || most[c] > most[best]))
                best = c;
        if (best < 0)
            break;
        series[n] = best;
        most[best] = 0;
    }
    free(most);
    return n;
}

//  ------------------------------------------------------------------------
//  Charts

//  The chart's names and files, from its key "topology\tcombo\tstage"
static void s_describe(const plot_read_t *self, const plot_key_t *key,
                       plot_chart_t *chart, char *head, size_t len)
{
    (void)self;
    char tail[PLOT_NAME];
    snprintf(chart->name, sizeof chart->name, "%.180s stage %.60s", key->title,
             key->rest);
    snprintf(chart->what, sizeof chart->what, "%.200s", key->rest);
    snprintf(tail, sizeof tail, "-");
    plot_safe_name(tail + 1, sizeof tail - 1, key->rest);
    plot_read_files(chart, key->stem, "syscalls", "syscalls", tail);
    snprintf(head, len, "ns per message by system call");
}

static void s_rows(FILE *file, plot_chart_t *chart, const grid_t *g,
                   const int *series, int n)
{
    for (int s = 0; s < g->nsizes; s++) {
        double total = 0, shown = 0;
        for (int c = 0; c < g->ncalls; c++)
            total += g->value[s * g->ncalls + c];
        fprintf(file, "%u", g->sizes[s]);
        for (int i = 0; i < n; i++) {
            double v = g->value[s * g->ncalls + series[i]];
            shown += v;
            fprintf(file, " %.3f", v);
        }
        fprintf(file, " %.3f %.3f\n", total - shown > 0 ? total - shown : 0,
                total);
        chart->rate[1] = total > chart->rate[1] ? total : chart->rate[1];
    }
}

//  The grid's busiest calls, a column each, then "other" and the total
static int s_table(FILE *file, plot_chart_t *chart, const plot_read_t *self,
                   const grid_t *g, errbuf_t *err)
{
    int series[SERIES_MAX], n = s_pick(g, series);
    if (n < 0)
        return err_set(err, "out of memory");
    fputs("# size", file);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        fprintf(file, " %s", self->names.v[series[i]]);
        rc |= plot_names_add(&chart->series, self->names.v[series[i]]) < 0;
    }
    rc |= plot_names_add(&chart->series, "other") < 0;
    fputs(" other total\n", file);
    s_rows(file, chart, g, series, n);
    chart->sizes = malloc((size_t)g->nsizes * sizeof *chart->sizes);
    if (chart->sizes)
        memcpy(chart->sizes, g->sizes, (size_t)g->nsizes * sizeof *g->sizes);
    chart->nsizes = chart->sizes ? g->nsizes : 0;
    return rc || !chart->sizes ? err_set(err, "out of memory") : 0;
}

//  Points [a, b): a line per size
static int s_write(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                   int b, errbuf_t *err)
{
    grid_t grid = {0};
    int rc = s_grid(self, a, b, &grid) ? err_set(err, "out of memory")
                                       : s_table(file, chart, self, &grid, err);
    free(grid.sizes);
    free(grid.value);
    return rc;
}

const plot_reader_t plot_syscalls_reader =
    PLOT_READER(&columns_syscalls, s_columns, PLOT_SYSCALLS, point_t, s_row,
                s_by_size, s_describe, s_write);
