/*  plot_syscalls: syscalls.csv as stacked bars; see plot_syscalls.h.

    syscalls.csv is read by column name (report_syscalls.c writes it),
    its per-call rows only (thread and syscall not "all").  Each chart's
    data file has one line per size:

        size_label series_1 .. series_K other total

    in ns per message, medians over the repeats.  The file is outside
    input: a malformed one is an error naming the file and line.
*/
#include "report/plot_syscalls.h"

#include "base/grow.h"
#include "base/outfile.h"
#include "report/columns.h"
#include "report/rundir.h"

#include "base/stats.h"

#include <errno.h>
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

typedef struct {
    rundir_rows_t in;
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology\tcombo\tstage"
    plot_names_t calls;  //  syscall names
    const char *out;     //  the charts' data files go there
    plot_charts_t *into; //  and the charts into this list
} reader_t;

//  ------------------------------------------------------------------------
//  Reading

static const char *s_field(const reader_t *self, int c)
{
    return rundir_text(&self->in, c);
}

static int s_number(reader_t *self, int c, double *out, errbuf_t *err)
{
    if (rundir_number(&self->in, c, out, err))
        return -1;
    return *out < 0 ? rundir_bad(&self->in, c, "is below 0", err) : 0;
}

//  The row's chart: topology, its sweep values, stage
static int s_chart_of(reader_t *self)
{
    char key[PLOT_NAME], combo[PLOT_NAME];
    rundir_combo(&self->in, false, combo, sizeof combo);
    snprintf(key, sizeof key, "%.80s\t%.100s\t%.60s", s_field(self, C_TOPO),
             combo, s_field(self, C_STAGE));
    return plot_names_index(&self->charts, key);
}

static int s_row(reader_t *self, errbuf_t *err)
{
    if (strcmp(s_field(self, C_THREAD), "all") == 0 ||
        strcmp(s_field(self, C_CALL), "all") == 0 || !*s_field(self, C_NS))
        return 0; //  totals, or a stage that handled nothing
    if (grow(&self->points, &self->cap, self->n + 1, sizeof *self->points))
        return err_set(err, "out of memory");
    point_t *p = &self->points[self->n];
    double size, repeat;
    if (s_number(self, C_SIZE, &size, err) ||
        s_number(self, C_REPEAT, &repeat, err) ||
        s_number(self, C_NS, &p->ns, err))
        return -1;
    p->size = (unsigned)size, p->repeat = (int)repeat;
    if ((p->chart = s_chart_of(self)) < 0 ||
        (p->call = plot_names_index(&self->calls, s_field(self, C_CALL))) < 0)
        return err_set(err, "out of memory");
    self->n++;
    return 0;
}

//  ------------------------------------------------------------------------
//  A chart's table: sizes x syscalls, medians over the repeats

typedef struct {
    unsigned *sizes;
    int nsizes, ncalls;
    double *value; //  [size][call], ns per message
} grid_t;

static int s_by_chart(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    if (x->chart != y->chart)
        return x->chart < y->chart ? -1 : 1;
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
static int s_grid(const reader_t *self, int a, int b, grid_t *g)
{
    const point_t *p = self->points;
    g->ncalls = self->calls.n;
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

static void s_describe(plot_chart_t *chart, const char *key)
{
    char part[3][PLOT_NAME], safe[3][PLOT_NAME];
    const char *p = key;
    for (int i = 0; i < 3; i++) {
        size_t n = strcspn(p, "\t");
        snprintf(part[i], sizeof part[i], "%.*s", (int)n, p);
        p += n + (p[n] == '\t');
        plot_safe_name(safe[i], sizeof safe[i], part[i]);
    }
    snprintf(chart->name, sizeof chart->name, "%.80s%s%.80s%s stage %.60s",
             part[0], part[1][0] ? " (" : "", part[1], part[1][0] ? ")" : "",
             part[2]);
    snprintf(chart->what, sizeof chart->what, "%.200s", part[2]);
    snprintf(chart->data, sizeof chart->data,
             "plot-syscalls-%.60s%s%.60s-%.60s.dat", safe[0],
             part[1][0] ? "-" : "", safe[1], safe[2]);
    snprintf(chart->png, sizeof chart->png, "%.60s%s%.60s-syscalls-%.60s.png",
             safe[0], part[1][0] ? "-" : "", safe[1], safe[2]);
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

static int s_write(const char *dir, plot_chart_t *chart, const reader_t *self,
                   const grid_t *g, errbuf_t *err)
{
    int series[SERIES_MAX], n = s_pick(g, series);
    if (n < 0)
        return err_set(err, "out of memory");
    FILE *file =
        plot_chart_data(dir, chart, err, "ns per message by system call");
    if (!file)
        return -1;
    fputs("# size", file);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        fprintf(file, " %s", self->calls.v[series[i]]);
        rc |= plot_names_add(&chart->series, self->calls.v[series[i]]) < 0;
    }
    rc |= plot_names_add(&chart->series, "other") < 0;
    fputs(" other total\n", file);
    s_rows(file, chart, g, series, n);
    chart->sizes = malloc((size_t)g->nsizes * sizeof *chart->sizes);
    if (chart->sizes)
        memcpy(chart->sizes, g->sizes, (size_t)g->nsizes * sizeof *g->sizes);
    chart->nsizes = chart->sizes ? g->nsizes : 0;
    rc = rc || !chart->sizes ? err_set(err, "out of memory") : 0;
    return outfile_close(file, dir, chart->data, rc, err);
}

static int s_chart(void *ctx, int a, int b, errbuf_t *err)
{
    reader_t *self = ctx;
    plot_chart_t *chart = plot_charts_add(self->into, PLOT_SYSCALLS, err);
    if (!chart)
        return -1;
    s_describe(chart, self->charts.v[self->points[a].chart]);
    grid_t grid = {0};
    int rc = s_grid(self, a, b, &grid)
                 ? err_set(err, "out of memory")
                 : s_write(self->out, chart, self, &grid, err);
    free(grid.sizes);
    free(grid.value);
    return rc;
}

int plot_syscalls_charts(const rundir_t *run, const char *out,
                         plot_charts_t *charts, errbuf_t *err)
{
    reader_t self = {.out = out, .into = charts};
    int rc =
        rundir_rows(&self.in, run, &columns_syscalls, s_columns, C_COUNT, err);
    while (rc > 0 && rundir_next(&self.in))
        rc = s_row(&self, err) ? -1 : 1;
    if (rc > 0)
        rc = plot_chart_runs(self.points, self.n, sizeof *self.points,
                             s_by_chart, s_chart, &self, err);
    free(self.points);
    plot_names_free(&self.charts);
    plot_names_free(&self.calls);
    return rc < 0 ? -1 : 0;
}
