/*  plot_read: a chart reader's walk over its results file; see
    plot_read.h.

    The points are one array of the reader's struct, known here only by
    its size and that each begins with its chart's index: sorted by
    chart, then by the reader's order, the points of a chart are one run,
    and each run is a chart.
*/
#define _GNU_SOURCE //  qsort_r

#include "report/plot_read.h"

#include "base/grow.h"
#include "base/outfile.h"

#include <stdlib.h>
#include <string.h>

int plot_read_add(plot_read_t *self, const void *point, errbuf_t *err)
{
    size_t size = self->reader->size;
    if (grow(&self->points, &self->cap, self->n + 1, size))
        return err_set(err, "out of memory");
    memcpy((char *)self->points + (size_t)self->n++ * size, point, size);
    return 0;
}

int plot_read_chart(plot_read_t *self, plot_combo_t how, const char *rest)
{
    char key[PLOT_NAME], combo[PLOT_NAME] = "";
    if (how != PLOT_NO_COMBO)
        rundir_combo(&self->in, how == PLOT_NAMES, combo, sizeof combo);
    snprintf(key, sizeof key, "%.80s\t%.100s%s%.60s", rundir_text(&self->in, 0),
             combo, *rest ? "\t" : "", rest);
    int known = self->charts.n;
    int index = plot_names_index(&self->charts, key);
    if (index < known)
        return index;
    double *found =
        index < 0 ? NULL
                  : realloc(self->found, (size_t)(index + 1) * sizeof *found);
    if (!found)
        return -1;
    self->found = found;
    found[index] = 0;
    return index;
}

void plot_read_files(plot_chart_t *chart, const char *stem, const char *data,
                     const char *png, const char *tail)
{
    snprintf(chart->data, sizeof chart->data, "plot-%s-%.180s%.40s.dat", data,
             stem, tail);
    snprintf(chart->png, sizeof chart->png, "%.180s-%s%.40s.png", stem, png,
             tail);
}

//  Chart i's key, split
static void s_key(const plot_read_t *self, int chart, plot_key_t *key)
{
    char *part[3] = {key->topo, key->combo, key->rest};
    const char *p = self->charts.v[chart];
    for (int i = 0; i < 3; i++) {
        size_t n = i < 2 ? strcspn(p, "\t") : strlen(p);
        snprintf(part[i], PLOT_NAME, "%.*s", (int)n, p);
        p += n + (p[n] == '\t');
    }
    bool combo = *key->combo;
    snprintf(key->title, sizeof key->title, "%.120s%s%.120s%s", key->topo,
             combo ? " (" : "", key->combo, combo ? ")" : "");
    char safe[2][PLOT_NAME];
    plot_safe_name(safe[0], sizeof safe[0], key->topo);
    plot_safe_name(safe[1], sizeof safe[1], key->combo);
    snprintf(key->stem, sizeof key->stem, "%.100s%s%.100s", safe[0],
             combo ? "-" : "", safe[1]);
    key->index = chart;
}

//  Point i's k-th int: 0 its chart, 1 its series where it has one
static int s_int(const plot_read_t *self, int i, int k)
{
    int value;
    memcpy(&value,
           (const char *)self->points + (size_t)i * self->reader->size +
               (size_t)k * sizeof value,
           sizeof value);
    return value;
}

int plot_read_lines(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                    int b,
                    void (*line)(plot_read_t *self, plot_chart_t *chart,
                                 FILE *file, const void *point,
                                 const void *prev),
                    errbuf_t *err)
{
    size_t size = self->reader->size;
    for (int i = a; i < b; i++) {
        int series = s_int(self, i, 1);
        bool first = i == a || series != s_int(self, i - 1, 1);
        if (first && plot_chart_block(file, chart, self->names.v[series], err))
            return -1;
        const char *point = (const char *)self->points + (size_t)i * size;
        line(self, chart, file, point, first ? NULL : point - size);
    }
    return 0;
}

//  ---------------------------------------------------------------------
//  The walk

//  Chart index, of points [a, b): its names, and its data file
static int s_chart(plot_read_t *self, plot_chart_t *chart, int index, int a,
                   int b, errbuf_t *err)
{
    plot_key_t key;
    char head[PLOT_NAME];
    s_key(self, index, &key);
    self->reader->describe(self, &key, chart, head, sizeof head);
    FILE *file = plot_chart_data(self->out, chart, err, "%s", head);
    if (!file)
        return -1;
    int rc = self->reader->write(self, chart, file, a, b, err);
    return outfile_close(file, self->out, chart->data, rc, err);
}

//  By chart, then in the reader's order within one
static int s_by_chart(const void *a, const void *b, void *reader)
{
    int x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    if (x != y)
        return x < y ? -1 : 1;
    return ((const plot_reader_t *)reader)->order(a, b);
}

//  A chart for each run of points of one chart
static int s_charts(plot_read_t *self, plot_charts_t *charts, errbuf_t *err)
{
    if (self->n > 0) //  no rows: no array (qsort wants one)
        qsort_r(self->points, (size_t)self->n, self->reader->size, s_by_chart,
                (void *)self->reader);
    for (int a = 0, b; a < self->n; a = b) {
        int index = s_int(self, a, 0);
        for (b = a + 1; b < self->n && s_int(self, b, 0) == index;)
            b++;
        plot_chart_t *chart = plot_charts_add(charts, self->reader->kind, err);
        if (!chart)
            return -1;
        chart->found = self->found[index];
        if (s_chart(self, chart, index, a, b, err))
            return -1;
    }
    return 0;
}

int plot_read_charts(const plot_reader_t *reader, const rundir_t *run,
                     const char *out, plot_charts_t *charts, errbuf_t *err)
{
    plot_read_t self = {.reader = reader, .out = out};
    if (reader->own && !(self.own = calloc(1, reader->own)))
        return err_set(err, "out of memory");
    errbuf_t none;
    int rc = rundir_rows(&self.in, run, reader->table, reader->columns,
                         reader->ncolumns, reader->optional ? &none : err);
    if (rc < 0 && reader->optional)
        rc = 0;
    if (rc > 0 && reader->start)
        rc = reader->start(&self, run, err) ? -1 : 1;
    while (rc > 0 && rundir_next(&self.in))
        rc = reader->row(&self, err) ? -1 : 1;
    if (rc > 0)
        rc = s_charts(&self, charts, err);
    if (self.own && reader->stop)
        reader->stop(&self);
    free(self.own);
    free(self.points);
    free(self.found);
    plot_names_free(&self.charts);
    plot_names_free(&self.names);
    return rc < 0 ? -1 : 0;
}
