/*  plot_latency_at: latency.csv's latency_at rows as latency-load curves;
    see plot_latency_at.h.  The file is read by column name; a file
    without the latency_at column has no such chart.  Data files:

        offered p50_us p99_us
*/
#include "report/plot_latency_at.h"

#include "base/grow.h"
#include "base/outfile.h"
#include "report/rundir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { C_TOPO, C_SIZE, C_HOP, C_P50, C_P99, C_AT, C_FOUND, C_RATIO, C_COUNT };
static const char *const s_columns[C_COUNT] = {
    "topology", "size",       "hop",           "p50_us",
    "p99_us",   "latency_at", "found_per_sec", "found_loss_ratio"};

typedef struct {
    int chart;
    double offered, p50, p99;
} point_t;

typedef struct {
    rundir_rows_t in;
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology (combo)\tsize\tratio"
    double found[256];
    const char *out;     //  the charts' data files go there
    plot_charts_t *into; //  and the charts into this list
} reader_t;

//  By chart, then by the rate offered
static int s_by_chart(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    int c = (x->chart > y->chart) - (x->chart < y->chart);
    return c ? c : (x->offered > y->offered) - (x->offered < y->offered);
}

static const char *s_field(const reader_t *self, int c)
{
    return rundir_text(&self->in, c);
}

//  The row's chart key, "topology (combo)\tsize\tratio"
static int s_chart_of(reader_t *self)
{
    char key[PLOT_NAME], combo[PLOT_NAME];
    rundir_combo(&self->in, false, combo, sizeof combo);
    snprintf(key, sizeof key, "%.80s%s%.100s%s\t%.20s\t%.20s",
             s_field(self, C_TOPO), *combo ? " (" : "", combo,
             *combo ? ")" : "", s_field(self, C_SIZE), s_field(self, C_RATIO));
    int known = self->charts.n;
    if (known == 256) {
        for (int i = 0; i < known; i++)
            if (strcmp(self->charts.v[i], key) == 0)
                return i;
        return -1;
    }
    return plot_names_index(&self->charts, key);
}

static int s_row(reader_t *self, errbuf_t *err)
{
    double at, found, p50, p99;
    if (!s_field(self, C_AT)[0] || strcmp(s_field(self, C_HOP), "e2e"))
        return 0;
    if (rundir_number(&self->in, C_AT, &at, err) ||
        rundir_number(&self->in, C_FOUND, &found, err) ||
        rundir_number(&self->in, C_P50, &p50, err) ||
        rundir_number(&self->in, C_P99, &p99, err))
        return -1;
    if (grow(&self->points, &self->cap, self->n + 1, sizeof *self->points))
        return err_set(err, "out of memory");
    int chart = s_chart_of(self);
    if (chart < 0)
        return err_set(err, "%s: too many latency_at charts",
                       rundir_path(self->in.file));
    self->found[chart] = found;
    self->points[self->n++] = (point_t){chart, at * found, p50, p99};
    return 0;
}

//  The chart of points [a, b)
static int s_chart(void *ctx, int a, int b, errbuf_t *err)
{
    reader_t *self = ctx;
    plot_chart_t *chart = plot_charts_add(self->into, PLOT_LATLOAD, err);
    if (!chart)
        return -1;
    const char *key = self->charts.v[self->points[a].chart];
    int name = (int)strcspn(key, "\t");
    chart->size = (unsigned)strtoul(key + name + 1, NULL, 10);
    chart->found = self->found[self->points[a].chart];
    const char *ratio = strchr(key + name + 1, '\t');
    char safe[PLOT_NAME];
    snprintf(chart->name, sizeof chart->name, "%.*s, loss ratio %s", name, key,
             ratio ? ratio + 1 : "0");
    snprintf(chart->what, sizeof chart->what, "%.*s", name, key);
    plot_safe_name(safe, sizeof safe, chart->what);
    snprintf(chart->data, sizeof chart->data,
             "plot-latency-load-%.100s-%uB-%d.dat", safe, chart->size,
             self->points[a].chart);
    snprintf(chart->png, sizeof chart->png, "%.100s-latency-load-%uB-%d.png",
             safe, chart->size, self->points[a].chart);
    FILE *file = plot_chart_data(self->out, chart, err,
                                 "latency against load at %u bytes\n"
                                 "# offered p50_us p99_us",
                                 chart->size);
    if (!file)
        return -1;
    for (int i = a; i < b; i++) {
        const point_t *p = &self->points[i];
        fprintf(file, "%.1f %.3f %.3f\n", p->offered, p->p50, p->p99);
        chart->offered[1] =
            p->offered > chart->offered[1] ? p->offered : chart->offered[1];
        chart->rate[1] = p->p99 > chart->rate[1] ? p->p99 : chart->rate[1];
    }
    return outfile_close(file, self->out, chart->data, 0, err);
}

int plot_latency_at_charts(const rundir_t *run, const char *out,
                           plot_charts_t *charts, errbuf_t *err)
{
    reader_t self = {.out = out, .into = charts};
    errbuf_t none;
    //  no latency.csv, or one without latency_at's columns: no chart
    int rc = rundir_rows(&self.in, run, &columns_latency, s_columns, C_COUNT,
                         &none) > 0
                 ? 0
                 : 1;
    while (rc == 0 && rundir_next(&self.in))
        rc = s_row(&self, err);
    if (rc == 0)
        rc = plot_chart_runs(self.points, self.n, sizeof *self.points,
                             s_by_chart, s_chart, &self, err);
    free(self.points);
    plot_names_free(&self.charts);
    return rc < 0 ? -1 : 0;
}
