/*  compare_plot: `hopbench compare --plot`, a chart per comparison and
    block (topology, mode, other swept keys) of each link's delta of
    msgs/s against message size, with the delta's interval as error bars.

        compareK-TOPOLOGY[-SWEEP]-delta-vs-size.png   and its .dat

    K numbers the comparisons (1: the second side against the first).
    The conventions are the plot module's: data files gnuplot and people
    read (one block per link: size delta_pct low_pct high_pct), one
    plot.gp written by plot_script (kind PLOT_DELTA), gnuplot run by
    plot_draw, everything in one directory.
*/
#include "report/compare_internal.h"

#include "report/plot.h"
#include "report/plot_script.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool s_drawn(const compare_row_t *row)
{
    return row->a && row->b && strcmp(row->a->metric, "msgs/s") == 0;
}

static bool s_same_block(const series_t *a, const series_t *b)
{
    return strcmp(a->topology, b->topology) == 0 &&
           strcmp(a->pattern, b->pattern) == 0 &&
           strcmp(a->mode, b->mode) == 0 && strcmp(a->sweep, b->sweep) == 0;
}

static void s_link_name(const series_t *s, char *buf, size_t len)
{
    snprintf(buf, len, "hop %s %s->%s (%s)", s->hop, s->from, s->to,
             s->transport);
}

static int s_add_size(plot_chart_t *chart, unsigned size, int most)
{
    for (int i = 0; i < chart->nsizes; i++)
        if (chart->sizes[i] == size)
            return 0;
    if (chart->nsizes == most)
        return -1;
    int i = chart->nsizes++;
    while (i > 0 && chart->sizes[i - 1] > size) {
        chart->sizes[i] = chart->sizes[i - 1];
        i--;
    }
    chart->sizes[i] = size;
    return 0;
}

//  The rows of one block [from, to): its links, sizes and y range
static int s_chart(plot_chart_t *chart, const comparison_t *c, int from, int to,
                   errbuf_t *err)
{
    chart->kind = PLOT_DELTA;
    chart->repeats = 2; //  error bars: lines nudged apart
    chart->rate[0] = chart->rate[1] = 0;
    if (!(chart->sizes = malloc((size_t)(to - from) * sizeof *chart->sizes)))
        return err_set(err, "out of memory");
    for (int r = from; r < to; r++) {
        const compare_row_t *row = &c->rows[r];
        if (!s_drawn(row))
            continue;
        char name[PLOT_NAME];
        s_link_name(row->a, name, sizeof name);
        bool known = false;
        for (int i = 0; i < chart->series.n; i++)
            known |= strcmp(chart->series.v[i], name) == 0;
        if ((!known && plot_names_add(&chart->series, name) < 0) ||
            s_add_size(chart, row->a->size, to - from))
            return err_set(err, "out of memory");
        double lo = row->has_shift ? row->shift.low : row->delta;
        double hi = row->has_shift ? row->shift.high : row->delta;
        chart->rate[0] = fmin(chart->rate[0], 100 * fmin(lo, row->delta));
        chart->rate[1] = fmax(chart->rate[1], 100 * fmax(hi, row->delta));
    }
    return 0;
}

//  One block of the data file per link, its rows by size
static int s_data(const plot_chart_t *chart, const comparison_t *c, int from,
                  int to, const char *dir, errbuf_t *err)
{
    char path[COMPARE_LONG + PLOT_NAME];
    snprintf(path, sizeof path, "%s/%s", dir, chart->data);
    FILE *out = fopen(path, "w");
    if (!out)
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    fprintf(out, "# %s\n# size delta_pct low_pct high_pct\n", chart->name);
    for (int i = 0; i < chart->series.n; i++) {
        fprintf(out, "%s# %s\n", i ? "\n\n" : "", chart->series.v[i]);
        for (int k = 0; k < chart->nsizes; k++)
            for (int r = from; r < to; r++) {
                const compare_row_t *row = &c->rows[r];
                char name[PLOT_NAME];
                if (!s_drawn(row) || row->a->size != chart->sizes[k])
                    continue;
                s_link_name(row->a, name, sizeof name);
                if (strcmp(name, chart->series.v[i]))
                    continue;
                double lo = row->has_shift ? row->shift.low : row->delta;
                double hi = row->has_shift ? row->shift.high : row->delta;
                fprintf(out, "%u %.4f %.4f %.4f\n", row->a->size,
                        100 * row->delta, 100 * lo, 100 * hi);
            }
    }
    bool failed = ferror(out) != 0;
    failed |= fclose(out) != 0;
    return failed ? err_set(err, "cannot write %s", path) : 0;
}

static void s_names(plot_chart_t *chart, const comparison_t *c, int k,
                    const series_t *s)
{
    char stem[PLOT_NAME], safe[PLOT_NAME];
    snprintf(stem, sizeof stem, "%.60s%s%.180s", s->topology,
             s->sweep[0] ? "-" : "", s->sweep);
    plot_safe_name(safe, sizeof safe, stem);
    snprintf(chart->data, sizeof chart->data, "compare%d-%.200s.dat", k, safe);
    snprintf(chart->png, sizeof chart->png,
             "compare%d-%.200s-delta-vs-size.png", k, safe);
    snprintf(chart->name, sizeof chart->name,
             "%.40s (%.20s%s%.20s)%s%.60s: %.50s vs %.50s", s->topology,
             s->pattern, s->mode[0] ? ", " : "", s->mode,
             s->sweep[0] ? " " : "", s->sweep, c->other->label, c->base->label);
    snprintf(chart->what, sizeof chart->what,
             "delta of each hop's median msgs/s; bars: its %.0f%% interval "
             "(Hodges-Lehmann); a bar across 0 is not significant",
             100 * (1 - c->alpha));
}

//  Every block of comparison c with a drawn row becomes a chart
static int s_comparison(plot_charts_t *charts, const comparison_t *c, int k,
                        const char *dir, errbuf_t *err)
{
    for (int from = 0; from < c->nrows;) {
        const compare_row_t *first = &c->rows[from];
        int to = from + 1;
        while (to < c->nrows && first->a && c->rows[to].a &&
               s_same_block(first->a, c->rows[to].a))
            to++;
        bool any = false;
        for (int r = from; r < to; r++)
            any |= s_drawn(&c->rows[r]);
        if (any) {
            plot_chart_t *chart = plot_charts_add(charts, PLOT_DELTA, err);
            if (!chart)
                return -1;
            s_names(chart, c, k, first->a);
            if (s_chart(chart, c, from, to, err) ||
                s_data(chart, c, from, to, dir, err))
                return -1;
        }
        from = to;
    }
    return 0;
}

int compare_plot_charts(const comparison_t *cmps, int n, const char *dir,
                        plot_charts_t *charts, errbuf_t *err)
{
    int rc = 0;
    for (int c = 0; c < n && rc == 0; c++)
        rc = s_comparison(charts, &cmps[c], c + 1, dir, err);
    return rc;
}

int compare_plot(const comparison_t *cmps, int n, const char *dir,
                 FILE *listing, errbuf_t *err)
{
    plot_charts_t charts = {0};
    int rc = compare_plot_charts(cmps, n, dir, &charts, err);
    if (rc == 0 && charts.n == 0)
        rc = err_set(err, "no matched msgs/s rows to draw");
    int status = rc ? 2
                 : plot_script_write(dir, &charts, PLOT_TERM_PNG, err)
                     ? 2
                     : plot_draw(dir, &charts, listing, err);
    plot_charts_free(&charts);
    return status;
}
