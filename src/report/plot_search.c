/*  plot_search: search.csv as knee charts; see plot_search.h.

    search.csv is read by column name (report_search.c writes it); a chart
    gathers the rows of one topology, sweep combination and size, and its
    data file has one block per link, each sorted by the rate offered:

        offered received_per_sec lost_pct pass

    The file is outside input: a malformed one is an error naming the file
    and line, never a crash.
*/
#include "report/plot_search.h"

#include "report/columns.h"
#include "report/plot_read.h"

#include <stdlib.h>
#include <string.h>

//  The columns a knee needs
enum {
    C_TOPO,
    C_SIZE,
    C_OFFERED,
    C_HOP,
    C_FROM,
    C_TO,
    C_RECEIVED,
    C_LOSS,
    C_PASS,
    C_PHASE,
    C_COUNT
};
static const char *const s_columns[C_COUNT] = {
    COLUMN_TOPOLOGY, COLUMN_SIZE, COLUMN_OFFERED,       COLUMN_HOP,
    COLUMN_FROM,     COLUMN_TO,   COLUMN_RECEIVED_RATE, COLUMN_LOSS_RATIO,
    COLUMN_PASS,     COLUMN_PHASE};

typedef struct {
    int chart, link; //  plot_read's chart, and series: its names' link
    double offered, received, lost_pct;
    int pass;
} point_t;

static int s_row(plot_read_t *self, errbuf_t *err)
{
    point_t p;
    double loss;
    char link[PLOT_NAME];
    if (rundir_number(&self->in, C_OFFERED, &p.offered, err) ||
        rundir_number(&self->in, C_RECEIVED, &p.received, err) ||
        rundir_number(&self->in, C_LOSS, &loss, err))
        return -1;
    p.lost_pct = 100 * loss;
    p.pass = strcmp(rundir_text(&self->in, C_PASS), "1") == 0;
    snprintf(link, sizeof link, "hop %s %.100s->%.100s",
             rundir_text(&self->in, C_HOP), rundir_text(&self->in, C_FROM),
             rundir_text(&self->in, C_TO));
    p.chart =
        plot_read_chart(self, PLOT_VALUES, rundir_text(&self->in, C_SIZE));
    p.link = plot_names_index(&self->names, link);
    if (p.chart < 0 || p.link < 0)
        return err_set(err, "out of memory");
    if (p.pass && strcmp(rundir_text(&self->in, C_PHASE), "confirm") == 0)
        self->found[p.chart] = p.offered;
    return plot_read_add(self, &p, err);
}

//  A chart's points by link, then by the rate offered
static int s_by_offered(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    if (x->link != y->link)
        return x->link < y->link ? -1 : 1;
    return x->offered < y->offered ? -1 : x->offered > y->offered;
}

//  The chart's names and files, from its key "topology\tcombo\tsize"
static void s_describe(const plot_read_t *self, const plot_key_t *key,
                       plot_chart_t *chart, char *head, size_t len)
{
    (void)self;
    char tail[32];
    chart->size = (unsigned)strtoul(key->rest, NULL, 10);
    snprintf(chart->name, sizeof chart->name, "%s", key->title);
    snprintf(tail, sizeof tail, "-%uB", chart->size);
    plot_read_files(chart, key->stem, "search", "search", tail);
    snprintf(head, len,
             "search at %u bytes\n# offered received_per_sec lost_pct pass",
             chart->size);
}

//  A point's line, and the chart's extent so far
static void s_line(plot_read_t *self, plot_chart_t *chart, FILE *file,
                   const void *point, const void *prev)
{
    (void)self, (void)prev;
    const point_t *p = point;
    fprintf(file, "%.1f %.1f %.4f %d\n", p->offered, p->received, p->lost_pct,
            p->pass);
    double lo = chart->offered[0], hi = chart->offered[1];
    chart->offered[0] = lo == 0 || p->offered < lo ? p->offered : lo;
    chart->offered[1] = p->offered > hi ? p->offered : hi;
    lo = chart->rate[0], hi = chart->rate[1];
    chart->rate[0] = lo == 0 || p->received < lo ? p->received : lo;
    chart->rate[1] = p->received > hi ? p->received : hi;
}

//  Points [a, b), a block per link
static int s_write(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                   int b, errbuf_t *err)
{
    return plot_read_lines(self, chart, file, a, b, s_line, err);
}

const plot_reader_t plot_search_reader =
    PLOT_READER(&columns_search, s_columns, PLOT_KNEE, point_t, s_row,
                s_by_offered, s_describe, s_write);
