/*  plot_chart: the chart list and the data files; see plot_chart.h.

    Works on a sorted copy of the table's rows, so that a topology and
    combination (a panel), a link within it, and a size within that are
    each one run of consecutive rows; s_end finds where a run stops.
*/
#include "report/plot_chart.h"

#include "base/grow.h"
#include "base/outfile.h"

#include "report/report.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const plot_table_t *table;
    const char *dir;
    plot_charts_t *charts;
    plot_row_t *rows; //  sorted copy
    int nrows;
} writer_t;

//  What a run of rows shares
typedef enum { SAME_PANEL, SAME_LINK, SAME_LINK_SIZE, SAME_SIZE } same_t;

static bool s_same(const plot_row_t *a, const plot_row_t *b, same_t same)
{
    if (a->topo != b->topo || a->combo != b->combo)
        return false;
    if (same == SAME_SIZE)
        return a->size == b->size;
    if (same == SAME_PANEL)
        return true;
    return a->link == b->link && (same == SAME_LINK || a->size == b->size);
}

static int s_end(const plot_row_t *rows, int n, int i, same_t same)
{
    int j = i + 1;
    while (j < n && s_same(&rows[i], &rows[j], same))
        j++;
    return j;
}

//  ---------------------------------------------------------------------
//  Files and names

void plot_safe_name(char *out, size_t len, const char *text)
{
    size_t i = 0;
    for (; *text && i + 1 < len; text++) {
        int c = (unsigned char)*text;
        out[i++] = isalnum(c) || strchr(".+-", c) ? (char)c
                   : c == '='                     ? '-'
                                                  : '_';
    }
    out[i] = 0;
}

FILE *plot_chart_data(const char *dir, const plot_chart_t *chart, errbuf_t *err,
                      const char *format, ...)
{
    FILE *file = outfile_create(dir, chart->data, err);
    if (!file)
        return NULL;
    va_list args;
    va_start(args, format);
    fprintf(file, "# hopbench plot data: %s, ", chart->name);
    vfprintf(file, format, args);
    fputc('\n', file);
    va_end(args);
    return file;
}

int plot_chart_block(FILE *file, plot_chart_t *chart, const char *name,
                     errbuf_t *err)
{
    fprintf(file, "%s# %s\n", chart->series.n ? "\n\n" : "", name);
    return plot_names_add(&chart->series, name) < 0
               ? err_set(err, "out of memory")
               : 0;
}

//  ---------------------------------------------------------------------
//  Charts

plot_chart_t *plot_charts_add(plot_charts_t *charts, plot_kind_t kind,
                              errbuf_t *err)
{
    if (grow(&charts->v, &charts->cap, charts->n + 1, sizeof *charts->v)) {
        err_set(err, "out of memory");
        return NULL;
    }
    plot_chart_t *chart = &charts->v[charts->n++];
    memset(chart, 0, sizeof *chart);
    chart->kind = kind;
    return chart;
}

static plot_chart_t *s_chart(writer_t *self, plot_kind_t kind, errbuf_t *err)
{
    return plot_charts_add(self->charts, kind, err);
}

static int s_compare_size(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

//  The distinct sizes of n rows, ascending
static int s_sizes(plot_chart_t *chart, const plot_row_t *rows, int n,
                   errbuf_t *err)
{
    chart->sizes = malloc((size_t)n * sizeof *chart->sizes);
    if (!chart->sizes)
        return err_set(err, "out of memory");
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < chart->nsizes && chart->sizes[k] != rows[i].size)
            k++;
        if (k == chart->nsizes)
            chart->sizes[chart->nsizes++] = rows[i].size;
    }
    qsort(chart->sizes, (size_t)chart->nsizes, sizeof *chart->sizes,
          s_compare_size);
    return 0;
}

//  Another chart of the same data (MB/s beside msgs/s)
static int s_copy(writer_t *self, int index, plot_kind_t kind, const char *png,
                  errbuf_t *err)
{
    plot_chart_t *copy = s_chart(self, kind, err);
    if (!copy)
        return -1;
    const plot_chart_t *from = &self->charts->v[index];
    *copy = *from;
    copy->kind = kind;
    snprintf(copy->png, sizeof copy->png, "%.240s", png);
    memset(&copy->series, 0, sizeof copy->series);
    copy->sizes = malloc((size_t)from->nsizes * sizeof *copy->sizes);
    if (!copy->sizes)
        return err_set(err, "out of memory");
    memcpy(copy->sizes, from->sizes,
           (size_t)from->nsizes * sizeof *from->sizes);
    for (int i = 0; i < from->series.n; i++)
        if (plot_names_add(&copy->series, from->series.v[i]) < 0)
            return err_set(err, "out of memory");
    return 0;
}

//  ---------------------------------------------------------------------
//  Data

static void s_point_line(FILE *file, const plot_point_t *p)
{
    double loss = p->sent > 0 ? 100 * p->lost / p->sent : 0;
    fprintf(file, "%u %.1f %.1f %.1f %.3f %.3f %.3f %.0f %.0f %.2f %d %d\n",
            p->size, p->rate[0], p->rate[1], p->rate[2], p->mbps[0], p->mbps[1],
            p->mbps[2], p->sent, p->lost, loss, p->n, p->starved);
}

//  What the chart draws so far: most rows per point, lowest and highest
//  values (the ends of the error bars)
static void s_extent(plot_chart_t *chart, const plot_point_t *point)
{
    bool first = chart->repeats == 0;
    if (point->n > chart->repeats)
        chart->repeats = point->n;
    chart->starved |= point->starved > 0;
    if (first || point->rate[1] < chart->rate[0])
        chart->rate[0] = point->rate[1];
    if (first || point->rate[2] > chart->rate[1])
        chart->rate[1] = point->rate[2];
    if (first || point->mbps[1] < chart->mbps[0])
        chart->mbps[0] = point->mbps[1];
    if (first || point->mbps[2] > chart->mbps[1])
        chart->mbps[1] = point->mbps[2];
}

//  One data block: a point per run of rows in [a, b) that share `same`
static int s_block(const plot_row_t *rows, int a, int b, same_t same,
                   plot_chart_t *chart, FILE *file, errbuf_t *err)
{
    for (int i = a; i < b;) {
        int j = s_end(rows, b, i, same);
        plot_point_t point;
        if (plot_point(rows + i, j - i, &point, err))
            return -1;
        s_point_line(file, &point);
        s_extent(chart, &point);
        i = j;
    }
    return 0;
}

//  msgs/s and MB/s against size: a block per link of the panel [a, b)
static int s_sizes_data(writer_t *self, plot_chart_t *chart, int a, int b,
                        errbuf_t *err)
{
    FILE *file = plot_chart_data(self->dir, chart, err,
                                 "one block per link\n# %s", PLOT_COLUMNS);
    if (!file)
        return -1;
    int rc = 0;
    for (int i = a; i < b && rc == 0;) {
        int j = s_end(self->rows, b, i, SAME_LINK);
        const char *link = self->table->links.v[self->rows[i].link];
        fprintf(file, "%s# %s\n", i > a ? "\n\n" : "", link);
        if (plot_names_add(&chart->series, link) < 0)
            rc = err_set(err, "out of memory");
        if (rc == 0)
            rc = s_block(self->rows, i, j, SAME_LINK_SIZE, chart, file, err);
        i = j;
    }
    return outfile_close(file, self->dir, chart->data, rc, err);
}

static int s_bar(const plot_row_t *rows, int a, int b, int x, FILE *file,
                 errbuf_t *err)
{
    plot_point_t p;
    if (plot_point(rows + a, b - a, &p, err))
        return -1;
    double loss = p.sent > 0 ? 100 * p.lost / p.sent : 0;
    char rate[32];
    report_short(p.rate[0], rate, sizeof rate);
    fprintf(file, "%d %.1f %.1f %.1f %.2f \"%s/s\" \"%.1f%%\"\n", x, p.rate[0],
            p.rate[1], p.rate[2], loss, rate, loss);
    return p.n;
}

//  One bar per link of the panel [a, b) at chart->size
static int s_bars_data(writer_t *self, plot_chart_t *chart, int a, int b,
                       errbuf_t *err)
{
    FILE *file =
        plot_chart_data(self->dir, chart, err, "every link at %u bytes\n# %s",
                        chart->size, PLOT_BAR_COLUMNS);
    if (!file)
        return -1;
    int rc = 0;
    for (int i = a; i < b && rc >= 0;) {
        int j = s_end(self->rows, b, i, SAME_LINK), k = i;
        while (k < j && self->rows[k].size != chart->size)
            k++;
        if (k < j) {
            int link = self->rows[k].link;
            rc = s_bar(self->rows, k, s_end(self->rows, j, k, SAME_LINK_SIZE),
                       chart->series.n, file, err);
            if (rc > chart->repeats)
                chart->repeats = rc;
            if (rc >= 0 &&
                plot_names_add(&chart->series, self->table->ticks.v[link]) < 0)
                rc = err_set(err, "out of memory");
        }
        i = j;
    }
    return outfile_close(file, self->dir, chart->data, rc < 0 ? -1 : 0, err);
}

//  1024 bytes when measured (the broker-sizing question), else the largest
static unsigned s_bar_size(const plot_chart_t *chart)
{
    for (int i = 0; i < chart->nsizes; i++)
        if (chart->sizes[i] == 1024)
            return 1024;
    return chart->sizes[chart->nsizes - 1];
}

//  The panel's file stem, "proxy" or "proxy-transport-ipc", unique
static void s_stem(const writer_t *self, const plot_row_t *row, char *stem,
                   size_t len)
{
    char topo[64], combo[128], data[PLOT_NAME + 16];
    plot_safe_name(topo, sizeof topo, self->table->topos.v[row->topo]);
    plot_safe_name(combo, sizeof combo, self->table->combos.v[row->combo]);
    snprintf(stem, len, "%s%s%s", topo, *combo ? "-" : "", combo);
    snprintf(data, sizeof data, "plot-%s.dat", stem);
    for (int i = 0; i < self->charts->n; i++)
        if (strcmp(self->charts->v[i].data, data) == 0) {
            snprintf(stem, len, "%s-%s-%d", topo, combo, row->combo + 1);
            break;
        }
}

//  The panel [a, b): msgs/s, MB/s and bars
static int s_panel(writer_t *self, int a, int b, errbuf_t *err)
{
    const plot_row_t *row = &self->rows[a];
    const char *combo = self->table->combos.v[row->combo];
    char stem[PLOT_NAME], name[PLOT_NAME], png[PLOT_NAME + 32];
    s_stem(self, row, stem, sizeof stem);
    snprintf(name, sizeof name, "%.120s%s%.120s%s",
             self->table->topos.v[row->topo], *combo ? " (" : "", combo,
             *combo ? ")" : "");
    plot_chart_t *chart = s_chart(self, PLOT_RATE, err);
    if (!chart)
        return -1;
    int index = self->charts->n - 1;
    snprintf(chart->name, sizeof chart->name, "%s", name);
    snprintf(chart->data, sizeof chart->data, "plot-%.200s.dat", stem);
    snprintf(chart->png, sizeof chart->png, "%.200s-rate-vs-size.png", stem);
    if (s_sizes(chart, self->rows + a, b - a, err) ||
        s_sizes_data(self, chart, a, b, err))
        return -1;
    unsigned size = s_bar_size(chart);
    snprintf(png, sizeof png, "%.200s-mbps-vs-size.png", stem);
    if (chart->nsizes == 1) //  one point a line: the bars and the table say it
        plot_charts_drop(self->charts);
    else if (s_copy(self, index, PLOT_MBPS, png, err))
        return -1;
    if (!(chart = s_chart(self, PLOT_HOPS, err)))
        return -1;
    chart->size = size;
    chart->expected = self->table->expected;
    snprintf(chart->name, sizeof chart->name, "%s", name);
    snprintf(chart->data, sizeof chart->data, "plot-%.200s-hops-at-%uB.dat",
             stem, size);
    snprintf(chart->png, sizeof chart->png, "%.200s-hops-at-%uB.png", stem,
             size);
    return s_bars_data(self, chart, a, b, err);
}

//  ---------------------------------------------------------------------
//  Sweeps: the last hop of a topology, one line per combination

//  The rows of topology topo on its last hop, sorted by combination and
//  size; NULL when out of memory
static plot_row_t *s_last_hop(const writer_t *self, int topo, int *n)
{
    int last = 0;
    for (int i = 0; i < self->nrows; i++)
        if (self->rows[i].topo == topo && self->rows[i].hop > last)
            last = self->rows[i].hop;
    plot_row_t *rows = malloc((size_t)self->nrows * sizeof *rows);
    *n = 0;
    for (int i = 0; rows && i < self->nrows; i++)
        if (self->rows[i].topo == topo && self->rows[i].hop == last)
            rows[(*n)++] = self->rows[i];
    if (rows)
        plot_rows_sort(rows, *n, false);
    return rows;
}

//  "the last hop (hop 2 broker->sub), one line per transport"; a fan-out
//  hop is a median over its links.  rows: one topology's last hop, sorted
static void s_sweep_what(const writer_t *self, const plot_row_t *rows, int n,
                         char *out, size_t len)
{
    int links = 0;
    for (int i = 0; i < n && rows[i].combo == rows[0].combo; i++) {
        int k = 0;
        while (k < i && rows[k].link != rows[i].link)
            k++;
        links += k == i;
    }
    char hop[PLOT_NAME];
    snprintf(hop, sizeof hop, "%s", self->table->ticks.v[rows[0].link]);
    hop[strcspn(hop, "\n")] = ' ';
    hop[strcspn(hop, "\n")] = 0; //  "hop 2 broker->sub", no transport
    if (links > 1)
        snprintf(hop, sizeof hop, "hop %d, median over its %d links",
                 rows[0].hop, links);
    snprintf(out, len, "the last hop (%.100s), one line per %.100s", hop,
             self->table->sweep);
}

static int s_sweep_data(writer_t *self, plot_chart_t *chart,
                        const plot_row_t *rows, int n, errbuf_t *err)
{
    FILE *file = plot_chart_data(self->dir, chart, err,
                                 "%s, one block per combination\n# %s",
                                 chart->what, PLOT_COLUMNS);
    if (!file)
        return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0;) {
        int j = s_end(rows, n, i, SAME_PANEL);
        const char *combo = self->table->combos.v[rows[i].combo];
        fprintf(file, "%s# %s\n", i ? "\n\n" : "", combo);
        if (plot_names_add(&chart->series, combo) < 0)
            rc = err_set(err, "out of memory");
        if (rc == 0)
            rc = s_block(rows, i, j, SAME_SIZE, chart, file, err);
        i = j;
    }
    return outfile_close(file, self->dir, chart->data, rc, err);
}

//  The swept keys for a file name: "hwm, my key" -> "hwm-my_key"
static void s_keys(char *out, size_t len, const char *sweep)
{
    char joined[PLOT_NAME];
    size_t n = 0;
    for (const char *p = sweep; *p && n + 1 < sizeof joined; p++)
        if (!(*p == ' ' && p > sweep && p[-1] == ','))
            joined[n++] = *p == ',' ? '-' : *p;
    joined[n] = 0;
    plot_safe_name(out, len, joined);
}

static int s_sweep(writer_t *self, int topo, errbuf_t *err)
{
    int n;
    plot_row_t *rows = s_last_hop(self, topo, &n);
    if (!rows)
        return err_set(err, "out of memory");
    plot_chart_t *chart = s_chart(self, PLOT_SWEEP, err);
    if (!chart) {
        free(rows);
        return -1;
    }
    char name[64], keys[128];
    plot_safe_name(name, sizeof name, self->table->topos.v[topo]);
    s_keys(keys, sizeof keys, self->table->sweep);
    snprintf(chart->name, sizeof chart->name, "%s", self->table->topos.v[topo]);
    s_sweep_what(self, rows, n, chart->what, sizeof chart->what);
    snprintf(chart->data, sizeof chart->data, "plot-%s-sweep.dat", name);
    snprintf(chart->png, sizeof chart->png, "%s-sweep-%s-rate-vs-size.png",
             name, keys);
    int rc = s_sizes(chart, rows, n, err);
    if (rc == 0)
        rc = s_sweep_data(self, chart, rows, n, err);
    free(rows);
    return rc;
}

//  ---------------------------------------------------------------------
//  One swept key of numbers: the last hop against its value, a line per
//  size, the values evenly spaced in their order (0, 100, 10000, ...)

//  The combinations of rows (one key's "KEY=V"), by value, into order;
//  how many, or 0 when a value is not a number
static int s_values(const writer_t *self, const plot_row_t *rows, int n,
                    int *order, double *value)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < m && order[k] != rows[i].combo)
            k++;
        if (k < m)
            continue;
        const char *eq = strchr(self->table->combos.v[rows[i].combo], '=');
        char *end;
        double v = eq ? strtod(eq + 1, &end) : 0;
        if (!eq || end == eq + 1 || *end)
            return 0;
        for (k = m++; k > 0 && value[k - 1] > v; k--) //  insertion, by value
            order[k] = order[k - 1], value[k] = value[k - 1];
        order[k] = rows[i].combo, value[k] = v;
    }
    return m;
}

//  A block per size: a point per value, at its place x
static int s_value_data(writer_t *self, plot_chart_t *chart,
                        const plot_row_t *rows, int n, const int *order, int m,
                        errbuf_t *err)
{
    FILE *file = plot_chart_data(
        self->dir, chart, err,
        "%s, one block per size\n# %s (size: the place of the value)",
        chart->what, PLOT_COLUMNS);
    if (!file)
        return -1;
    int rc = 0;
    for (int s = 0; s < chart->nsizes && rc == 0; s++) {
        char label[32];
        snprintf(label, sizeof label, "%u B", chart->sizes[s]);
        fprintf(file, "%s# %s\n", s ? "\n\n" : "", label);
        if (plot_names_add(&chart->series, label) < 0)
            rc = err_set(err, "out of memory");
        for (int x = 0; x < m && rc == 0; x++) {
            int i = 0;
            while (i < n && (rows[i].combo != order[x] ||
                             rows[i].size != chart->sizes[s]))
                i++;
            int j = i < n ? s_end(rows, n, i, SAME_SIZE) : i;
            plot_point_t point;
            if (i == n)
                continue; //  not measured at this size
            rc = plot_point(rows + i, j - i, &point, err);
            point.size = (unsigned)x;
            if (rc == 0) {
                s_point_line(file, &point);
                s_extent(chart, &point);
            }
        }
    }
    return outfile_close(file, self->dir, chart->data, rc, err);
}

//  The rows a value chart draws: the last hop's; for PLOT_COST its
//  sender's CPU per message and connection in place of the rate, and only
//  the rows that know it
static plot_row_t *s_value_rows(const writer_t *self, int topo,
                                plot_kind_t kind, int *n)
{
    plot_row_t *rows = s_last_hop(self, topo, n);
    int kept = 0;
    for (int i = 0; rows && kind == PLOT_COST && i < *n; i++)
        if (rows[i].cpu_ns > 0) {
            rows[kept] = rows[i];
            rows[kept].rate = rows[i].cpu_ns;
            rows[kept++].mbps = 0;
        }
    if (rows && kind == PLOT_COST)
        *n = kept;
    return rows;
}

//  The chart's titles and files: "proxy-rate-vs-sockets.png",
//  "proxy-cpu-vs-sockets.png"
static void s_value_names(writer_t *self, plot_chart_t *chart, int topo,
                          const plot_row_t *rows, int n)
{
    const char *key = self->table->sweep,
               *stem = chart->kind == PLOT_COST ? "cpu" : "rate";
    char name[64], safe[128], what[PLOT_NAME];
    plot_safe_name(name, sizeof name, self->table->topos.v[topo]);
    plot_safe_name(safe, sizeof safe, key);
    snprintf(chart->name, sizeof chart->name, "%s", self->table->topos.v[topo]);
    snprintf(chart->key, sizeof chart->key, "%s", key);
    s_sweep_what(self, rows, n, what, sizeof what);
    what[strcspn(what, ",")] = 0; //  "the last hop (...)"
    if (chart->kind == PLOT_COST)
        snprintf(chart->what, sizeof chart->what,
                 "%.120s: its sender's CPU per message delivered against "
                 "%.60s, one line per size",
                 what, key);
    else
        snprintf(chart->what, sizeof chart->what,
                 "%.120s against %.60s, one line per size", what, key);
    snprintf(chart->data, sizeof chart->data, "plot-%s-%s-vs-%s.dat", name,
             stem, safe);
    snprintf(chart->png, sizeof chart->png, "%s-%s-vs-%s.png", name, stem,
             safe);
}

//  kind PLOT_VALUE: the last hop's msgs/s against the swept key's value;
//  PLOT_COST: its sender's CPU per delivered message (a broker's cost of
//  one more connection, for a sweep over sockets)
static int s_value(writer_t *self, int topo, plot_kind_t kind, errbuf_t *err)
{
    int n, m = 0, rc = 0;
    if (strchr(self->table->sweep, ','))
        return 0; //  one key only
    plot_row_t *rows = s_value_rows(self, topo, kind, &n);
    int *order =
        rows ? malloc(((size_t)self->nrows + 1) * sizeof *order) : NULL;
    double *value =
        order ? malloc(((size_t)self->nrows + 1) * sizeof *value) : NULL;
    if (!value)
        rc = err_set(err, "out of memory");
    plot_chart_t *chart = NULL;
    if (rc == 0 && n > 0 && (m = s_values(self, rows, n, order, value)) > 1 &&
        (chart = s_chart(self, kind, err)) == NULL)
        rc = -1;
    if (chart) {
        s_value_names(self, chart, topo, rows, n);
        for (int x = 0; x < m && rc == 0; x++)
            if (plot_names_add(&chart->ticks,
                               strchr(self->table->combos.v[order[x]], '=') +
                                   1) < 0)
                rc = err_set(err, "out of memory");
        if (rc == 0)
            rc = s_sizes(chart, rows, n, err);
        if (rc == 0)
            rc = s_value_data(self, chart, rows, n, order, m, err);
    }
    free(rows);
    free(order);
    free(value);
    return rc;
}

//  ---------------------------------------------------------------------

int plot_charts_write(const plot_table_t *table, const char *dir,
                      plot_charts_t *charts, errbuf_t *err)
{
    writer_t self = {table, dir, charts, NULL, table->nrows};
    self.rows = malloc((size_t)table->nrows * sizeof *self.rows);
    if (!self.rows)
        return err_set(err, "out of memory");
    memcpy(self.rows, table->rows, (size_t)table->nrows * sizeof *self.rows);
    plot_rows_sort(self.rows, self.nrows, true);
    int rc = 0;
    for (int i = 0; i < self.nrows && rc == 0;) {
        int j = s_end(self.rows, self.nrows, i, SAME_PANEL);
        rc = s_panel(&self, i, j, err);
        i = j;
    }
    for (int t = 0; *table->sweep && t < table->topos.n && rc == 0; t++)
        rc = s_sweep(&self, t, err);
    for (int t = 0; *table->sweep && t < table->topos.n && rc == 0; t++)
        rc = s_value(&self, t, PLOT_VALUE, err);
    for (int t = 0; *table->sweep && t < table->topos.n && rc == 0; t++)
        rc = s_value(&self, t, PLOT_COST, err);
    free(self.rows);
    return rc;
}

void plot_charts_drop(plot_charts_t *charts)
{
    plot_chart_t *chart = &charts->v[--charts->n];
    plot_names_free(&chart->series);
    plot_names_free(&chart->ticks);
    free(chart->sizes);
}

void plot_charts_free(plot_charts_t *charts)
{
    for (int i = 0; i < charts->n; i++) {
        plot_names_free(&charts->v[i].series);
        plot_names_free(&charts->v[i].ticks);
        free(charts->v[i].sizes);
    }
    free(charts->v);
    memset(charts, 0, sizeof *charts);
}

void plot_charts_as_svg(plot_charts_t *charts)
{
    for (int i = 0; i < charts->n; i++) {
        char *png = charts->v[i].png;
        size_t n = strlen(png);
        if (n > 4 && strcmp(png + n - 4, ".png") == 0)
            memcpy(png + n - 4, ".svg", 4);
    }
}
