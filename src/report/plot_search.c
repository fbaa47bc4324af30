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

#include "base/csv.h"
#include "base/number.h"

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
    COLUMN_TOPOLOGY, COLUMN_SIZE, COLUMN_OFFERED,  COLUMN_HOP,
    COLUMN_FROM,     COLUMN_TO,   COLUMN_RECEIVED_RATE, COLUMN_LOSS_RATIO,
    COLUMN_PASS,     COLUMN_PHASE};

typedef struct {
    int chart, link; //  indexes into the reader's names
    double offered, received, lost_pct;
    int pass;
} point_t;

typedef struct {
    const char *path;
    csv_t *csv;
    int col[C_COUNT];
    int sweep[64], nsweep; //  sweep_ columns
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology\tcombo\tsize"
    plot_names_t links;  //  "hop 1 pub->broker"
    double *found;       //  per chart: the confirmed rate, 0
} reader_t;

static int s_header(reader_t *self, errbuf_t *err)
{
    for (int c = 0; c < C_COUNT; c++)
        self->col[c] = -1;
    for (int i = 0; i < csv_count(self->csv); i++) {
        const char *name = csv_field(self->csv, i);
        for (int c = 0; c < C_COUNT; c++)
            if (strcmp(name, s_columns[c]) == 0)
                self->col[c] = i;
        if (strncmp(name, COLUMN_SWEEP_PREFIX, 6) == 0 &&
            self->nsweep < (int)(sizeof self->sweep / sizeof self->sweep[0]))
            self->sweep[self->nsweep++] = i;
    }
    for (int c = 0; c < C_COUNT; c++)
        if (self->col[c] < 0)
            return err_set(err, "%s:1: no column %s", self->path, s_columns[c]);
    return 0;
}

static const char *s_field(const reader_t *self, int c)
{
    int i = self->col[c];
    return i < csv_count(self->csv) ? csv_field(self->csv, i) : "";
}

static int s_number(reader_t *self, int c, double *out, errbuf_t *err)
{
    const char *text = s_field(self, c);
    if (number_parse(text, out))
        return err_set(err, "%s:%d: %s '%s' is not a number", self->path,
                       csv_line(self->csv), s_columns[c], text);
    return 0;
}

//  The row's chart: topology, its sweep values, size
static int s_chart_of(reader_t *self)
{
    char key[PLOT_NAME] = "";
    size_t used =
        (size_t)snprintf(key, sizeof key, "%s\t", s_field(self, C_TOPO));
    for (int s = 0; s < self->nsweep && used < sizeof key; s++)
        used += (size_t)snprintf(key + used, sizeof key - used, "%s%s",
                                 s ? " " : "",
                                 csv_field(self->csv, self->sweep[s]));
    if (used < sizeof key)
        snprintf(key + used, sizeof key - used, "\t%s", s_field(self, C_SIZE));
    for (int i = 0; i < self->charts.n; i++)
        if (strcmp(self->charts.v[i], key) == 0)
            return i;
    int index = plot_names_add(&self->charts, key);
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
    for (int i = 0; i < self->links.n; i++)
        if (strcmp(self->links.v[i], name) == 0)
            return i;
    return plot_names_add(&self->links, name);
}

static int s_row(reader_t *self, errbuf_t *err)
{
    if (self->n == self->cap) {
        int cap = self->cap ? self->cap * 2 : 64;
        point_t *v = realloc(self->points, (size_t)cap * sizeof *v);
        if (!v)
            return err_set(err, "out of memory");
        self->points = v;
        self->cap = cap;
    }
    point_t *p = &self->points[self->n];
    double loss;
    if (s_number(self, C_OFFERED, &p->offered, err) ||
        s_number(self, C_RECEIVED, &p->received, err) ||
        s_number(self, C_LOSS, &loss, err))
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

static int s_read(reader_t *self, FILE *file, errbuf_t *err)
{
    if (!(self->csv = csv_new(file, self->path)))
        return err_set(err, "out of memory");
    int rc = csv_next(self->csv, err);
    if (rc == 0)
        return err_set(err, "%s: empty", self->path);
    if (rc < 0 || s_header(self, err))
        return -1;
    while ((rc = csv_next(self->csv, err)) > 0)
        if (s_row(self, err))
            return -1;
    return rc;
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
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, chart->data);
    FILE *file = fopen(path, "w");
    if (!file)
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    fprintf(file,
            "# hopbench plot data: %s, search at %u bytes\n"
            "# offered received_per_sec lost_pct pass\n",
            chart->name, chart->size);
    int rc = 0;
    for (int i = a; i < b && rc == 0; i++) {
        const point_t *p = &self->points[i];
        if (i == a || p->link != self->points[i - 1].link) {
            fprintf(file, "%s# %s\n", i == a ? "" : "\n\n",
                    self->links.v[p->link]);
            if (plot_names_add(&chart->series, self->links.v[p->link]) < 0)
                rc = err_set(err, "out of memory");
        }
        fprintf(file, "%.1f %.1f %.4f %d\n", p->offered, p->received,
                p->lost_pct, p->pass);
        double lo = chart->offered[0], hi = chart->offered[1];
        chart->offered[0] = lo == 0 || p->offered < lo ? p->offered : lo;
        chart->offered[1] = p->offered > hi ? p->offered : hi;
        lo = chart->rate[0], hi = chart->rate[1];
        chart->rate[0] = lo == 0 || p->received < lo ? p->received : lo;
        chart->rate[1] = p->received > hi ? p->received : hi;
    }
    bool failed = ferror(file) != 0;
    failed |= fclose(file) != 0;
    return rc ? rc : failed ? err_set(err, "cannot write %s", path) : 0;
}

static int s_charts(const char *dir, reader_t *self, plot_charts_t *charts,
                    errbuf_t *err)
{
    if (self->n > 0) //  no rows: no array (qsort wants one)
        qsort(self->points, (size_t)self->n, sizeof *self->points,
              s_by_offered);
    for (int a = 0; a < self->n;) {
        int b = a;
        while (b < self->n && self->points[b].chart == self->points[a].chart)
            b++;
        plot_chart_t *chart = plot_charts_add(charts, PLOT_KNEE, err);
        if (!chart)
            return -1;
        int index = self->points[a].chart;
        s_describe(chart, self->charts.v[index], self->found[index]);
        if (s_write(dir, chart, self, a, b, err))
            return -1;
        a = b;
    }
    return 0;
}

int plot_search_charts(const char *dir, const char *out, plot_charts_t *charts,
                        errbuf_t *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/search.csv", dir);
    FILE *file = fopen(path, "r");
    if (!file)
        return errno == ENOENT
                   ? 0
                   : err_set(err, "cannot read %s: %s", path, strerror(errno));
    reader_t self = {.path = path};
    int rc = s_read(&self, file, err) || s_charts(out, &self, charts, err);
    csv_destroy(&self.csv);
    fclose(file);
    free(self.points);
    free(self.found);
    plot_names_free(&self.charts);
    plot_names_free(&self.links);
    return rc ? -1 : 0;
}
