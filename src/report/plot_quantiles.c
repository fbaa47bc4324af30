/*  plot_quantiles: latency.csv's end-to-end quantiles as curves; see
    plot_quantiles.h.  A chart per topology and combination, its data file
    a block per size:

        nines us label          (nines: -log10(1 - q); p50 is 0.30)

    The rows taken are hop "e2e" of repeat "all", else of repeat "1" (a
    size of one repeat writes no "all" row); latency_at's rows (at a
    fraction of a found rate) are another chart's.  A sizing's (its file
    has sweep_criterion) are its "all" rows, each criterion's windows at
    the target merged: a chart per topology and size, a block per
    candidate and criterion (p99, proof), in the file's order.
*/
#include "report/plot_quantiles.h"

#include "base/grow.h"
#include "base/outfile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C_TOPO, C_SIZE, C_REPEAT, C_HOP, C_COUNT };
static const char *const s_columns[C_COUNT] = {"topology", "size", "repeat",
                                               "hop"};

//  The quantiles drawn: their column, the q they are, their label
static const struct {
    const char *column;
    double q;
    const char *label;
} s_quantiles[] = {{"p50_us", 0.5, "p50"},
                   {"p90_us", 0.9, "p90"},
                   {"p99_us", 0.99, "p99"},
                   {"p999_us", 0.999, "p99.9"},
                   {"p9999_us", 0.9999, "p99.99"}};
#define S_NQ (int)(sizeof s_quantiles / sizeof s_quantiles[0])

typedef struct {
    int chart;
    unsigned size;
    int row;   //  in latency.csv
    int label; //  a sizing's: its block's name ("candidate=1 criterion=proof")
} point_t;

typedef struct {
    rundir_rows_t in;
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology\tcombo"
    const char *out;
    plot_charts_t *into;
    int col[S_NQ], at; //  the quantiles' columns; latency_at's, or -1
    bool sizing;       //  a sizing's file: its "all" rows, per candidate
    plot_names_t labels;
} reader_t;

//  Is the row one a curve is drawn from?
static bool s_taken(const reader_t *self, const char *repeat)
{
    const rundir_file_t *file = self->in.file;
    if (strcmp(rundir_text(&self->in, C_HOP), "e2e") ||
        *rundir_cell(file, self->in.row, self->at))
        return false;
    if (strcmp(repeat, "all") == 0)
        return true;
    if (self->sizing || strcmp(repeat, "1"))
        return false;
    //  repeat 1: only when its size has no "all" row
    for (int r = 0; r < rundir_nrows(file); r++)
        if (strcmp(rundir_cell(file, r, self->in.col[C_REPEAT]), "all") == 0 &&
            strcmp(rundir_cell(file, r, self->in.col[C_SIZE]),
                   rundir_text(&self->in, C_SIZE)) == 0 &&
            strcmp(rundir_cell(file, r, self->in.col[C_TOPO]),
                   rundir_text(&self->in, C_TOPO)) == 0)
            return false;
    return true;
}

static int s_row(reader_t *self, errbuf_t *err)
{
    char key[PLOT_NAME], combo[PLOT_NAME];
    double size;
    if (!s_taken(self, rundir_text(&self->in, C_REPEAT)))
        return 0;
    if (rundir_number(&self->in, C_SIZE, &size, err))
        return -1;
    rundir_combo(&self->in, true, combo, sizeof combo);
    if (self->sizing)
        snprintf(key, sizeof key, "%.100s\t\t%.0f",
                 rundir_text(&self->in, C_TOPO), size);
    else
        snprintf(key, sizeof key, "%.100s\t%.140s",
                 rundir_text(&self->in, C_TOPO), combo);
    int chart = plot_names_index(&self->charts, key);
    int label = self->sizing ? plot_names_index(&self->labels, combo) : 0;
    if (chart < 0 || label < 0 ||
        grow(&self->points, &self->cap, self->n + 1, sizeof *self->points))
        return err_set(err, "out of memory");
    self->points[self->n++] =
        (point_t){chart, (unsigned)size, self->in.row, label};
    return 0;
}

static int s_by_chart(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    int c = (x->chart > y->chart) - (x->chart < y->chart);
    c = c ? c : (x->size > y->size) - (x->size < y->size);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

//  One size's curve into the chart's file
static void s_curve(reader_t *self, FILE *file, plot_chart_t *chart,
                    const point_t *p)
{
    char label[PLOT_NAME];
    if (self->sizing)
        snprintf(label, sizeof label, "%s", self->labels.v[p->label]);
    else
        snprintf(label, sizeof label, "%u B", p->size);
    fprintf(file, "%s# %s\n", chart->series.n ? "\n\n" : "", label);
    plot_names_add(&chart->series, label);
    for (int q = 0; q < S_NQ; q++) {
        const char *text = rundir_cell(self->in.file, p->row, self->col[q]);
        double us = atof(text);
        if (!*text || us <= 0)
            continue;
        fprintf(file, "%.4f %s %s\n", -log10(1 - s_quantiles[q].q), text,
                s_quantiles[q].label);
        chart->rate[0] =
            chart->rate[0] == 0 || us < chart->rate[0] ? us : chart->rate[0];
        chart->rate[1] = us > chart->rate[1] ? us : chart->rate[1];
    }
}

//  The chart of points [a, b)
static int s_chart(void *ctx, int a, int b, errbuf_t *err)
{
    reader_t *self = ctx;
    plot_chart_t *chart = plot_charts_add(self->into, PLOT_QUANTILES, err);
    if (!chart)
        return -1;
    const char *key = self->charts.v[self->points[a].chart];
    int topo = (int)strcspn(key, "\t");
    const char *combo = key[topo] ? key + topo + 1 : "";
    char safe[PLOT_NAME], stem[2 * PLOT_NAME];
    if (self->sizing) { //  "proxy at 1024 B": the size is the chart's
        chart->size = self->points[a].size;
        snprintf(chart->name, sizeof chart->name, "%.*s at %u B", topo, key,
                 chart->size);
    } else
        snprintf(chart->name, sizeof chart->name, "%.*s%s%.150s%s", topo, key,
                 *combo ? " (" : "", combo, *combo ? ")" : "");
    plot_safe_name(safe, sizeof safe, chart->name);
    snprintf(stem, sizeof stem, "%.200s", safe);
    snprintf(chart->what, sizeof chart->what, "%s",
             self->sizing ? "each candidate's windows at the target merged, "
                            "per criterion: a line each"
                          : "the repeats of a size merged; a line per size");
    snprintf(chart->data, sizeof chart->data, "plot-quantiles-%.200s.dat",
             stem);
    snprintf(chart->png, sizeof chart->png, "%.200s-latency-quantiles.png",
             stem);
    FILE *file =
        plot_chart_data(self->out, chart, err,
                        "end-to-end latency quantiles, a block per size\n"
                        "# nines us quantile");
    if (!file)
        return -1;
    for (int i = a; i < b; i++)
        s_curve(self, file, chart, &self->points[i]);
    return outfile_close(file, self->out, chart->data, 0, err);
}

int plot_quantiles_charts(const rundir_t *run, const char *out,
                          plot_charts_t *charts, errbuf_t *err)
{
    reader_t self = {.out = out, .into = charts};
    int rc =
        rundir_rows(&self.in, run, &columns_latency, s_columns, C_COUNT, err);
    if (rc <= 0)
        return rc;
    for (int q = 0; q < S_NQ; q++)
        self.col[q] = rundir_column(self.in.file, s_quantiles[q].column);
    self.at = rundir_column(self.in.file, "latency_at");
    self.sizing = rundir_column(self.in.file, "sweep_criterion") >= 0;
    rc = 0;
    while (rc == 0 && rundir_next(&self.in))
        rc = s_row(&self, err);
    if (rc == 0)
        rc = plot_chart_runs(self.points, self.n, sizeof *self.points,
                             s_by_chart, s_chart, &self, err);
    free(self.points);
    plot_names_free(&self.charts);
    plot_names_free(&self.labels);
    return rc;
}
