/*  plot_latency_at: latency.csv's latency_at rows as latency-load curves;
    see plot_latency_at.h.  The file is read by column name; a file
    without the latency_at column has no such chart.  Data files:

        offered p50_us p99_us
*/
#include "report/plot_latency_at.h"

#include "base/csv.h"
#include "base/number.h"

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
    int col[C_COUNT], sweep[64], nsweep;
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology (combo)\tsize\tratio"
    double found[256];
} reader_t;

static int s_by_chart(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    if (x->chart != y->chart)
        return x->chart < y->chart ? -1 : 1;
    return x->offered < y->offered ? -1 : x->offered > y->offered;
}

static bool s_header(reader_t *self, const csv_t *csv)
{
    for (int c = 0; c < C_COUNT; c++)
        self->col[c] = -1;
    for (int i = 0; i < csv_count(csv); i++) {
        for (int c = 0; c < C_COUNT; c++)
            if (strcmp(csv_field(csv, i), s_columns[c]) == 0)
                self->col[c] = i;
        if (strncmp(csv_field(csv, i), "sweep_", 6) == 0 && self->nsweep < 64)
            self->sweep[self->nsweep++] = i;
    }
    for (int c = 0; c < C_COUNT; c++)
        if (self->col[c] < 0)
            return false;
    return true;
}

static const char *s_field(const reader_t *self, const csv_t *csv, int c)
{
    return self->col[c] < csv_count(csv) ? csv_field(csv, self->col[c]) : "";
}

//  The row's chart key, "topology (combo)\tsize\tratio"
static int s_chart_of(reader_t *self, const csv_t *csv)
{
    char key[PLOT_NAME];
    size_t used =
        (size_t)snprintf(key, sizeof key, "%s", s_field(self, csv, C_TOPO));
    for (int s = 0; s < self->nsweep && used < sizeof key; s++)
        used +=
            (size_t)snprintf(key + used, sizeof key - used, "%s%s",
                             s ? " " : " (", csv_field(csv, self->sweep[s]));
    if (used < sizeof key)
        snprintf(key + used, sizeof key - used, "%s\t%s\t%s",
                 self->nsweep ? ")" : "", s_field(self, csv, C_SIZE),
                 s_field(self, csv, C_RATIO));
    for (int i = 0; i < self->charts.n; i++)
        if (strcmp(self->charts.v[i], key) == 0)
            return i;
    return self->charts.n < 256 ? plot_names_add(&self->charts, key) : -1;
}

static int s_row(reader_t *self, const csv_t *csv, const char *path,
                 errbuf_t *err)
{
    double at, found, p50, p99;
    if (!s_field(self, csv, C_AT)[0] ||
        strcmp(s_field(self, csv, C_HOP), "e2e"))
        return 0;
    if (number_parse(s_field(self, csv, C_AT), &at) ||
        number_parse(s_field(self, csv, C_FOUND), &found) ||
        number_parse(s_field(self, csv, C_P50), &p50) ||
        number_parse(s_field(self, csv, C_P99), &p99))
        return err_set(err,
                       "%s:%d: a latency_at row with a field that is "
                       "not a number",
                       path, csv_line(csv));
    if (self->n == self->cap) {
        int cap = self->cap ? 2 * self->cap : 16;
        point_t *v = realloc(self->points, (size_t)cap * sizeof *v);
        if (!v)
            return err_set(err, "out of memory");
        self->points = v, self->cap = cap;
    }
    int chart = s_chart_of(self, csv);
    if (chart < 0)
        return err_set(err, "%s: too many latency_at charts", path);
    self->found[chart] = found;
    self->points[self->n++] = (point_t){chart, at * found, p50, p99};
    return 0;
}

//  The chart of points [a, b)
static int s_chart(const char *dir, reader_t *self, int a, int b,
                   plot_charts_t *charts, errbuf_t *err)
{
    plot_chart_t *chart = plot_charts_add(charts, PLOT_LATLOAD, err);
    if (!chart)
        return -1;
    const char *key = self->charts.v[self->points[a].chart];
    int name = (int)strcspn(key, "\t");
    chart->size = (unsigned)strtoul(key + name + 1, NULL, 10);
    chart->found = self->found[self->points[a].chart];
    const char *ratio = strchr(key + name + 1, '\t');
    char safe[PLOT_NAME], path[800];
    snprintf(chart->name, sizeof chart->name, "%.*s, loss ratio %s", name, key,
             ratio ? ratio + 1 : "0");
    snprintf(chart->what, sizeof chart->what, "%.*s", name, key);
    plot_safe_name(safe, sizeof safe, chart->what);
    snprintf(chart->data, sizeof chart->data,
             "plot-latency-load-%.100s-%uB-%d.dat", safe, chart->size,
             self->points[a].chart);
    snprintf(chart->png, sizeof chart->png, "%.100s-latency-load-%uB-%d.png",
             safe, chart->size, self->points[a].chart);
    snprintf(path, sizeof path, "%s/%s", dir, chart->data);
    FILE *file = fopen(path, "w");
    if (!file)
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    fprintf(file,
            "# hopbench plot data: %s, latency against load at %u "
            "bytes\n# offered p50_us p99_us\n",
            chart->name, chart->size);
    for (int i = a; i < b; i++) {
        const point_t *p = &self->points[i];
        fprintf(file, "%.1f %.3f %.3f\n", p->offered, p->p50, p->p99);
        chart->offered[1] =
            p->offered > chart->offered[1] ? p->offered : chart->offered[1];
        chart->rate[1] = p->p99 > chart->rate[1] ? p->p99 : chart->rate[1];
    }
    return fclose(file) ? err_set(err, "cannot write %s", path) : 0;
}

static int s_read(reader_t *self, FILE *file, const char *path, errbuf_t *err)
{
    csv_t *csv = csv_new(file, path);
    if (!csv)
        return err_set(err, "out of memory");
    int rc = csv_next(csv, err);
    if (rc > 0 && s_header(self, csv))
        while ((rc = csv_next(csv, err)) > 0 &&
               s_row(self, csv, path, err) == 0)
            ;
    csv_destroy(&csv);
    return rc < 0 || err->msg[0] ? -1 : 0;
}

int plot_latency_at_charts(const char *dir, const char *out,
                           plot_charts_t *charts, errbuf_t *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/latency.csv", dir);
    FILE *file = fopen(path, "r");
    if (!file)
        return errno == ENOENT
                   ? 0
                   : err_set(err, "cannot read %s: %s", path, strerror(errno));
    reader_t self = {0};
    err->msg[0] = 0;
    int rc = s_read(&self, file, path, err);
    fclose(file);
    if (self.n > 0)
        qsort(self.points, (size_t)self.n, sizeof *self.points, s_by_chart);
    for (int a = 0, b; rc == 0 && a < self.n; a = b) {
        for (b = a; b < self.n && self.points[b].chart == self.points[a].chart;)
            b++;
        rc = s_chart(out, &self, a, b, charts, err);
    }
    free(self.points);
    plot_names_free(&self.charts);
    return rc;
}
