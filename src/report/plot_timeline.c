/*  plot_timeline: timeline.csv as rate-over-time charts; see
    plot_timeline.h.  A chart's data file has a block per hop and repeat,
    in the file's order:

        seconds msgs_per_sec
*/
#include "report/plot_timeline.h"

#include "base/grow.h"
#include "base/outfile.h"

#include <stdlib.h>
#include <string.h>

enum { C_TOPO, C_SIZE, C_REPEAT, C_HOP, C_FROM, C_TO, C_T, C_RATE, C_COUNT };
static const char *const s_columns[C_COUNT] = {
    "topology", "size", "repeat",  "hop",
    "from",     "to",   "seconds", "msgs_per_sec"};

typedef struct {
    int chart, line; //  the chart's key, the line's ("hop 1 r2")
    int row;         //  the row's index in the file: its order
    double t, rate;
} point_t;

typedef struct {
    rundir_rows_t in;
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology\tcombo\tsize"
    plot_names_t lines;  //  "hop 1 pub->broker, repeat 2"
    const char *out;
    plot_charts_t *into;
} reader_t;

static int s_row(reader_t *self, errbuf_t *err)
{
    char key[PLOT_NAME], combo[PLOT_NAME], line[PLOT_NAME];
    point_t p = {.row = self->in.row};
    if (rundir_number(&self->in, C_T, &p.t, err) ||
        rundir_number(&self->in, C_RATE, &p.rate, err))
        return -1;
    rundir_combo(&self->in, true, combo, sizeof combo);
    snprintf(key, sizeof key, "%.80s\t%.100s\t%.20s",
             rundir_text(&self->in, C_TOPO), combo,
             rundir_text(&self->in, C_SIZE));
    snprintf(line, sizeof line, "hop %.8s %.40s->%.40s, repeat %.8s",
             rundir_text(&self->in, C_HOP), rundir_text(&self->in, C_FROM),
             rundir_text(&self->in, C_TO), rundir_text(&self->in, C_REPEAT));
    p.chart = plot_names_index(&self->charts, key);
    p.line = plot_names_index(&self->lines, line);
    if (p.chart < 0 || p.line < 0 ||
        grow(&self->points, &self->cap, self->n + 1, sizeof *self->points))
        return err_set(err, "out of memory");
    self->points[self->n++] = p;
    return 0;
}

//  By chart, then line, then the file's order (time within a trial)
static int s_by_chart(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    int c = (x->chart > y->chart) - (x->chart < y->chart);
    c = c ? c : (x->line > y->line) - (x->line < y->line);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

//  The chart of points [a, b)
static int s_chart(void *ctx, int a, int b, errbuf_t *err)
{
    reader_t *self = ctx;
    plot_chart_t *chart = plot_charts_add(self->into, PLOT_TIMELINE, err);
    if (!chart)
        return -1;
    const char *key = self->charts.v[self->points[a].chart];
    int topo = (int)strcspn(key, "\t");
    const char *combo = key + topo + (key[topo] != 0);
    int clen = (int)strcspn(combo, "\t");
    chart->size =
        (unsigned)strtoul(combo + clen + (combo[clen] != 0), NULL, 10);
    char safe[PLOT_NAME];
    snprintf(chart->name, sizeof chart->name, "%.*s%s%.*s%s", topo, key,
             clen ? " (" : "", clen, combo, clen ? ")" : "");
    plot_safe_name(safe, sizeof safe, chart->name);
    snprintf(chart->data, sizeof chart->data, "plot-timeline-%.150s-%uB.dat",
             safe, chart->size);
    snprintf(chart->png, sizeof chart->png, "%.150s-timeline-%uB.png", safe,
             chart->size);
    FILE *file = plot_chart_data(self->out, chart, err,
                                 "rate over the window at %u bytes, a block "
                                 "per hop and repeat\n# seconds msgs_per_sec",
                                 chart->size);
    if (!file)
        return -1;
    int rc = 0;
    for (int i = a; i < b && rc == 0; i++) {
        const point_t *p = &self->points[i];
        if (i == a || p->line != self->points[i - 1].line)
            rc = plot_chart_block(file, chart, self->lines.v[p->line], err);
        fprintf(file, "%.3f %.1f\n", p->t, p->rate);
        chart->rate[1] = p->rate > chart->rate[1] ? p->rate : chart->rate[1];
        chart->offered[1] = p->t > chart->offered[1] ? p->t : chart->offered[1];
    }
    return outfile_close(file, self->out, chart->data, rc, err);
}

int plot_timeline_charts(const rundir_t *run, const char *out,
                         plot_charts_t *charts, errbuf_t *err)
{
    reader_t self = {.out = out, .into = charts};
    int rc =
        rundir_rows(&self.in, run, &columns_timeline, s_columns, C_COUNT, err);
    while (rc > 0 && rundir_next(&self.in))
        rc = s_row(&self, err) ? -1 : 1;
    if (rc > 0)
        rc = plot_chart_runs(self.points, self.n, sizeof *self.points,
                             s_by_chart, s_chart, &self, err);
    free(self.points);
    plot_names_free(&self.charts);
    plot_names_free(&self.lines);
    return rc < 0 ? -1 : 0;
}
