/*  plot_search: search.csv as knee charts; see plot_search.h.

    search.csv is read by column name (report_search.c writes it); a chart
    gathers the rows of one topology, sweep combination and size, and its
    data file has one block per link, each sorted by the rate offered:

        offered received_per_sec lost_pct pass

    The file is outside input: a malformed one is an error naming the file
    and line, never a crash.
*/
#include "report/plot_search.h"

#include "base/grow.h"
#include "base/outfile.h"
#include "report/columns.h"
#include "report/rundir.h"

#include <errno.h>
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
    int chart, link; //  indexes into the reader's names
    double offered, received, lost_pct;
    int pass;
} point_t;

typedef struct {
    rundir_rows_t in;
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology\tcombo\tsize"
    plot_names_t links;  //  "hop 1 pub->broker"
    double *found;       //  per chart: the confirmed rate, 0
    const char *out;     //  the charts' data files go there
    plot_charts_t *into; //  and the charts into this list
} reader_t;

static const char *s_field(const reader_t *self, int c)
{
    return rundir_text(&self->in, c);
}

//  The row's chart: topology, its sweep values, size
static int s_chart_of(reader_t *self)
{
    char key[PLOT_NAME], combo[PLOT_NAME];
    rundir_combo(&self->in, false, combo, sizeof combo);
    snprintf(key, sizeof key, "%.80s\t%.100s\t%.20s", s_field(self, C_TOPO),
             combo, s_field(self, C_SIZE));
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

static int s_link_of(reader_t *self)
{
    char name[PLOT_NAME];
    snprintf(name, sizeof name, "hop %s %.100s->%.100s", s_field(self, C_HOP),
             s_field(self, C_FROM), s_field(self, C_TO));
    return plot_names_index(&self->links, name);
}

static int s_row(reader_t *self, errbuf_t *err)
{
    if (grow(&self->points, &self->cap, self->n + 1, sizeof *self->points))
        return err_set(err, "out of memory");
    point_t *p = &self->points[self->n];
    double loss;
    if (rundir_number(&self->in, C_OFFERED, &p->offered, err) ||
        rundir_number(&self->in, C_RECEIVED, &p->received, err) ||
        rundir_number(&self->in, C_LOSS, &loss, err))
        return -1;
    p->lost_pct = 100 * loss;
    p->pass = strcmp(s_field(self, C_PASS), "1") == 0;
    if ((p->chart = s_chart_of(self)) < 0 || (p->link = s_link_of(self)) < 0)
        return err_set(err, "out of memory");
    if (p->pass && strcmp(s_field(self, C_PHASE), "confirm") == 0)
        self->found[p->chart] = p->offered;
    self->n++;
    return 0;
}

static int s_by_offered(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    if (x->chart != y->chart)
        return x->chart < y->chart ? -1 : 1;
    if (x->link != y->link)
        return x->link < y->link ? -1 : 1;
    return x->offered < y->offered ? -1 : x->offered > y->offered;
}

//  The chart's name and files, from its key "topology\tcombo\tsize"
static void s_describe(plot_chart_t *chart, const char *key, double found)
{
    char topo[PLOT_NAME], combo[PLOT_NAME], safe[2][PLOT_NAME];
    const char *tab1 = strchr(key, '\t');
    const char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    if (!tab2)
        tab1 = tab2 = key + strlen(key); //  cannot happen: s_chart_of
    snprintf(topo, sizeof topo, "%.*s", (int)(tab1 - key), key);
    snprintf(combo, sizeof combo, "%.*s", (int)(tab2 - tab1 - (tab2 > tab1)),
             tab1 + (tab2 > tab1));
    chart->size = (unsigned)strtoul(*tab2 ? tab2 + 1 : "0", NULL, 10);
    chart->found = found;
    snprintf(chart->name, sizeof chart->name, "%.100s%s%.100s%s", topo,
             *combo ? " (" : "", combo, *combo ? ")" : "");
    plot_safe_name(safe[0], sizeof safe[0], topo);
    plot_safe_name(safe[1], sizeof safe[1], combo);
    snprintf(chart->data, sizeof chart->data,
             "plot-search-%.100s%s%.100s-%uB.dat", safe[0], *combo ? "-" : "",
             safe[1], chart->size);
    snprintf(chart->png, sizeof chart->png, "%.100s%s%.100s-search-%uB.png",
             safe[0], *combo ? "-" : "", safe[1], chart->size);
}

//  Points [a, b) of one chart into its data file, one block per link
static int s_write(const char *dir, plot_chart_t *chart, const reader_t *self,
                   int a, int b, errbuf_t *err)
{
    FILE *file = plot_chart_data(dir, chart, err,
                                 "search at %u bytes\n"
                                 "# offered received_per_sec lost_pct pass",
                                 chart->size);
    if (!file)
        return -1;
    int rc = 0;
    for (int i = a; i < b && rc == 0; i++) {
        const point_t *p = &self->points[i];
        if (i == a || p->link != self->points[i - 1].link)
            rc = plot_chart_block(file, chart, self->links.v[p->link], err);
        fprintf(file, "%.1f %.1f %.4f %d\n", p->offered, p->received,
                p->lost_pct, p->pass);
        double lo = chart->offered[0], hi = chart->offered[1];
        chart->offered[0] = lo == 0 || p->offered < lo ? p->offered : lo;
        chart->offered[1] = p->offered > hi ? p->offered : hi;
        lo = chart->rate[0], hi = chart->rate[1];
        chart->rate[0] = lo == 0 || p->received < lo ? p->received : lo;
        chart->rate[1] = p->received > hi ? p->received : hi;
    }
    return outfile_close(file, dir, chart->data, rc, err);
}

static int s_chart(void *ctx, int a, int b, errbuf_t *err)
{
    reader_t *self = ctx;
    plot_chart_t *chart = plot_charts_add(self->into, PLOT_KNEE, err);
    if (!chart)
        return -1;
    int index = self->points[a].chart;
    s_describe(chart, self->charts.v[index], self->found[index]);
    return s_write(self->out, chart, self, a, b, err);
}

int plot_search_charts(const rundir_t *run, const char *out,
                       plot_charts_t *charts, errbuf_t *err)
{
    reader_t self = {.out = out, .into = charts};
    int rc =
        rundir_rows(&self.in, run, &columns_search, s_columns, C_COUNT, err);
    while (rc > 0 && rundir_next(&self.in))
        rc = s_row(&self, err) ? -1 : 1;
    if (rc > 0)
        rc = plot_chart_runs(self.points, self.n, sizeof *self.points,
                             s_by_offered, s_chart, &self, err);
    free(self.points);
    free(self.found);
    plot_names_free(&self.charts);
    plot_names_free(&self.links);
    return rc < 0 ? -1 : 0;
}
