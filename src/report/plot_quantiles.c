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

#include "report/plot_read.h"

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
    int chart; //  plot_read's: "topology\tcombo", a sizing's "topology\t\tsize"
    unsigned size;
    int row;   //  in latency.csv
    int label; //  a sizing's: its block's name, in plot_read's names
               //  ("candidate=1 criterion=proof")
} point_t;

//  The reader's own: the quantiles' columns; latency_at's, or -1; and
//  whether the file is a sizing's (its "all" rows, per candidate)
typedef struct {
    int col[S_NQ], at;
    bool sizing;
} own_t;

static int s_start(plot_read_t *self, const rundir_t *run, errbuf_t *err)
{
    (void)run, (void)err;
    own_t *own = self->own;
    for (int q = 0; q < S_NQ; q++)
        own->col[q] = rundir_column(self->in.file, s_quantiles[q].column);
    own->at = rundir_column(self->in.file, "latency_at");
    own->sizing = rundir_column(self->in.file, "sweep_criterion") >= 0;
    return 0;
}

//  Is the row one a curve is drawn from?
static bool s_taken(const plot_read_t *self, const char *repeat)
{
    const rundir_file_t *file = self->in.file;
    const own_t *own = self->own;
    if (strcmp(rundir_text(&self->in, C_HOP), "e2e") ||
        *rundir_cell(file, self->in.row, own->at))
        return false;
    if (strcmp(repeat, "all") == 0)
        return true;
    if (own->sizing || strcmp(repeat, "1"))
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

static int s_row(plot_read_t *self, errbuf_t *err)
{
    const own_t *own = self->own;
    char combo[PLOT_NAME], size_text[32];
    double size;
    if (!s_taken(self, rundir_text(&self->in, C_REPEAT)))
        return 0;
    if (rundir_number(&self->in, C_SIZE, &size, err))
        return -1;
    point_t p = {.size = (unsigned)size, .row = self->in.row};
    if (own->sizing) { //  a chart per size, a block per candidate
        snprintf(size_text, sizeof size_text, "%.0f", size);
        rundir_combo(&self->in, true, combo, sizeof combo);
        p.chart = plot_read_chart(self, PLOT_NO_COMBO, size_text);
        p.label = plot_names_index(&self->names, combo);
    } else
        p.chart = plot_read_chart(self, PLOT_NAMES, "");
    if (p.chart < 0 || p.label < 0)
        return err_set(err, "out of memory");
    return plot_read_add(self, &p, err);
}

//  A chart's points by size, then in the file's order
static int s_by_size(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    int c = (x->size > y->size) - (x->size < y->size);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

//  The chart's names and files: a run's "proxy (transport=ipc)", a
//  sizing's "proxy at 1024 B" (the size is the chart's)
static void s_describe(const plot_read_t *self, const plot_key_t *key,
                       plot_chart_t *chart, char *head, size_t len)
{
    bool sizing = ((const own_t *)self->own)->sizing;
    char safe[PLOT_NAME];
    if (sizing) {
        chart->size = (unsigned)strtoul(key->rest, NULL, 10);
        snprintf(chart->name, sizeof chart->name, "%.200s at %u B", key->topo,
                 chart->size);
    } else
        snprintf(chart->name, sizeof chart->name, "%s", key->title);
    snprintf(chart->what, sizeof chart->what, "%s",
             sizing ? "each candidate's windows at the target merged, "
                      "per criterion: a line each"
                    : "the repeats of a size merged; a line per size");
    plot_safe_name(safe, sizeof safe, chart->name);
    plot_read_files(chart, safe, "quantiles", "latency-quantiles", "");
    snprintf(head, len,
             "end-to-end latency quantiles, a block per size\n"
             "# nines us quantile");
}

//  One size's curve into the chart's file (a sizing's: one candidate's
//  and criterion's)
static void s_curve(const plot_read_t *self, FILE *file, plot_chart_t *chart,
                    const point_t *p)
{
    const own_t *own = self->own;
    char label[PLOT_NAME];
    if (own->sizing)
        snprintf(label, sizeof label, "%s", self->names.v[p->label]);
    else
        snprintf(label, sizeof label, "%u B", p->size);
    fprintf(file, "%s# %s\n", chart->series.n ? "\n\n" : "", label);
    plot_names_add(&chart->series, label);
    for (int q = 0; q < S_NQ; q++) {
        const char *text = rundir_cell(self->in.file, p->row, own->col[q]);
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

//  Points [a, b): a curve each
static int s_write(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                   int b, errbuf_t *err)
{
    (void)err;
    for (int i = a; i < b; i++)
        s_curve(self, file, chart, &((const point_t *)self->points)[i]);
    return 0;
}

const plot_reader_t plot_quantiles_reader = PLOT_READER(
    &columns_latency, s_columns, PLOT_QUANTILES, point_t, s_row, s_by_size,
    s_describe, s_write, .own = sizeof(own_t), .start = s_start);
