/*  plot_latency_at: latency.csv's latency_at rows as latency-load curves;
    see plot_latency_at.h.  The file is read by column name; a file
    without the latency_at column has no such chart.  Data files:

        offered p50_us p99_us
*/
#include "report/plot_latency_at.h"

#include "report/plot_read.h"

#include <stdlib.h>
#include <string.h>

enum { C_TOPO, C_SIZE, C_HOP, C_P50, C_P99, C_AT, C_FOUND, C_RATIO, C_COUNT };
static const char *const s_columns[C_COUNT] = {
    "topology", "size",       "hop",           "p50_us",
    "p99_us",   "latency_at", "found_per_sec", "found_loss_ratio"};

typedef struct {
    int chart; //  plot_read's: "topology\tcombo\tsize\tratio"
    double offered, p50, p99;
} point_t;

//  A chart's points by the rate offered
static int s_by_offered(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    return (x->offered > y->offered) - (x->offered < y->offered);
}

static int s_row(plot_read_t *self, errbuf_t *err)
{
    point_t p;
    double at, found;
    char rest[PLOT_NAME];
    if (!rundir_text(&self->in, C_AT)[0] ||
        strcmp(rundir_text(&self->in, C_HOP), "e2e"))
        return 0;
    if (rundir_number(&self->in, C_AT, &at, err) ||
        rundir_number(&self->in, C_FOUND, &found, err) ||
        rundir_number(&self->in, C_P50, &p.p50, err) ||
        rundir_number(&self->in, C_P99, &p.p99, err))
        return -1;
    snprintf(rest, sizeof rest, "%.20s\t%.20s", rundir_text(&self->in, C_SIZE),
             rundir_text(&self->in, C_RATIO));
    if ((p.chart = plot_read_chart(self, PLOT_VALUES, rest)) < 0)
        return err_set(err, "out of memory");
    self->found[p.chart] = found;
    p.offered = at * found;
    return plot_read_add(self, &p, err);
}

//  The chart's names and files, from its key "topology\tcombo\tsize\t
//  ratio"
static void s_describe(const plot_read_t *self, const plot_key_t *key,
                       plot_chart_t *chart, char *head, size_t len)
{
    (void)self;
    char safe[PLOT_NAME], tail[48];
    chart->size = (unsigned)strtoul(key->rest, NULL, 10);
    const char *ratio = strchr(key->rest, '\t');
    snprintf(chart->name, sizeof chart->name, "%.200s, loss ratio %.20s",
             key->title, ratio ? ratio + 1 : "0");
    snprintf(chart->what, sizeof chart->what, "%s", key->title);
    plot_safe_name(safe, sizeof safe, chart->what);
    snprintf(tail, sizeof tail, "-%uB-%d", chart->size, key->index);
    plot_read_files(chart, safe, "latency-load", "latency-load", tail);
    snprintf(head, len,
             "latency against load at %u bytes\n# offered p50_us p99_us",
             chart->size);
}

//  Points [a, b), by the rate offered
static int s_write(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                   int b, errbuf_t *err)
{
    (void)err;
    const point_t *points = self->points;
    for (int i = a; i < b; i++) {
        const point_t *p = &points[i];
        fprintf(file, "%.1f %.3f %.3f\n", p->offered, p->p50, p->p99);
        chart->offered[1] =
            p->offered > chart->offered[1] ? p->offered : chart->offered[1];
        chart->rate[1] = p->p99 > chart->rate[1] ? p->p99 : chart->rate[1];
    }
    return 0;
}

//  No latency.csv, or one without latency_at's columns (optional): no
//  chart
const plot_reader_t plot_latency_at_reader =
    PLOT_READER(&columns_latency, s_columns, PLOT_LATLOAD, point_t, s_row,
                s_by_offered, s_describe, s_write, .optional = true);
