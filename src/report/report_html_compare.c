/*  report_html_compare: the comparison of several runs, as `hopbench
    compare` makes it (compare_read, compare_match), on the page.

        other B against base A          notes: different topologies, ...
        size hop from -> to metric base ± other ± delta interval significance
        geomean per metric
        the delta charts (compare --plot's, as SVG)
        each other run's msgs/s against size overlaid on the base's

    The cells are those of compare's view of each row (compare_print.c),
    the very strings compare's table prints, so the page and the terminal
    agree; a row that is not
    significant is marked '~' there and styled quieter here (class ns).
    Rows of one side only are listed after, as compare lists them.
*/
#include "report/compare_internal.h"
#include "report/html.h"
#include "report/plot.h"
#include "report/report_html_internal.h"

#include <stdlib.h>
#include <string.h>

static void s_cell(FILE *out, const char *text, bool number)
{
    fputs(number ? "<td class=\"n\">" : "<td>", out);
    html_text(out, text);
    fputs("</td>", out);
}

//  A matched row: its block, then the cells of compare's view of it
static void s_row(FILE *out, const comparison_t *c, const compare_row_t *row)
{
    const series_t *s = row->a;
    char block[3 * COMPARE_LONG], text[COLUMN_CELL];
    compare_record_t record;
    column_ctx_t ctx;
    compare_record_ctx(c, row, &record, &ctx);
    snprintf(block, sizeof block, "%s (%s%s%s) %s", s->topology, s->pattern,
             s->mode[0] ? ", " : "", s->mode, s->sweep);
    fprintf(out, "<tr class=\"delta %s\">", row->significant ? "sig" : "ns");
    s_cell(out, block, false);
    column_view_t calls[COLUMNS_VIEW_MAX + 1];
    for (const column_view_t *cell = compare_view(row, calls); cell->heading;
         cell++) {
        columns_view_cell(cell, &ctx, text, sizeof text);
        s_cell(out, text, cell->width > 0);
    }
    fputs("</tr>\n", out);
}

static void s_only(FILE *out, const comparison_t *c)
{
    for (int i = 0; i < c->nrows; i++) {
        const compare_row_t *row = &c->rows[i];
        if (row->a && row->b)
            continue;
        const series_t *s = row->a ? row->a : row->b;
        char text[4 * COMPARE_LONG], link[2 * COMPARE_LONG + 8] = "";
        if (s->from[0]) //  a latency row of end to end names no link
            snprintf(link, sizeof link, " %s -> %s", s->from, s->to);
        snprintf(text, sizeof text, "only in %s: %s, size %u, hop %s%s, %s",
                 row->a ? "base" : "other", s->topology, s->size, s->hop, link,
                 s->metric);
        html_elem(out, "p", NULL, text);
    }
}

static void s_table(FILE *out, const comparison_t *c)
{
    char text[2 * COMPARE_LONG + 64];
    snprintf(text, sizeof text, "other %s against base %s", c->other->label,
             c->base->label);
    html_elem(out, "h3", NULL, text);
    for (const char *p = c->notes; *p;) {
        size_t len = strcspn(p, "\n");
        snprintf(text, sizeof text, "note: %.*s", (int)len, p);
        html_elem(out, "p", "warn", text);
        p += len + (p[len] == '\n');
    }
    snprintf(text, sizeof text, "interval (%.0f%%)", 100 * (1 - c->alpha));
    fputs("<table class=\"sort compare\">\n<thead><tr><th>block</th><th>size"
          "</th><th>hop</th><th>from -&gt; to</th><th>metric</th><th>base"
          "</th><th>±</th><th>other</th><th>±</th><th>delta</th><th>",
          out);
    html_text(out, text);
    fputs("</th><th>significance</th></tr></thead>\n<tbody>\n", out);
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].a && c->rows[i].b)
            s_row(out, c, &c->rows[i]);
    fputs("</tbody>\n</table>\n", out);
    s_only(out, c);
    for (int g = 0; g < c->ngeomean; g++) {
        const compare_geomean_t *m = &c->geomean[g];
        char va[32], vb[32];
        snprintf(text, sizeof text,
                 "geomean %s over %d rows: base %s, other %s, delta %+.1f%%",
                 m->metric, m->n, compare_value(m->metric, m->a, va, sizeof va),
                 compare_value(m->metric, m->b, vb, sizeof vb), 100 * m->delta);
        html_elem(out, "p", NULL, text);
    }
}

//  The delta charts, as compare --plot draws them, in SVG
static int s_charts(FILE *out, const comparison_t *cmps, int n,
                    const char *scratch, errbuf_t *err)
{
    plot_charts_t charts = {0};
    errbuf_t why;
    int rc = compare_plot_charts(cmps, n, scratch, &charts, err);
    if (rc == 0 && charts.n > 0) {
        plot_charts_as_svg(&charts);
        rc = plot_script_write(scratch, &charts, PLOT_TERM_SVG, err);
        if (rc == 0 && plot_draw(scratch, &charts, NULL, &why)) {
            html_elem(out, "p", "warn", why.msg);
            charts.n = 0;
        }
    }
    for (int i = 0; rc == 0 && i < charts.n; i++) {
        char path[2 * REPORT_HTML_PATH];
        snprintf(path, sizeof path, "%s/%s", scratch, charts.v[i].png);
        fputs("<figure class=\"chart\">\n", out);
        rc = report_html_svg(out, path, 9000 + i, err);
        fputs("<figcaption>", out);
        html_text(out, charts.v[i].name);
        fputs(": each link's delta of msgs/s against size, with its "
              "interval (compare --plot)</figcaption>\n</figure>\n",
              out);
    }
    plot_charts_free(&charts);
    return rc;
}

//  charts: only its sweep charts (the last hop, a line per combination)
static void s_keep_sweeps(plot_charts_t *charts)
{
    int kept = 0;
    for (int i = 0; i < charts->n; i++) {
        plot_chart_t *chart = &charts->v[i];
        if (chart->kind == PLOT_SWEEP) {
            charts->v[kept++] = *chart;
            continue;
        }
        plot_names_free(&chart->series);
        plot_names_free(&chart->ticks);
        free(chart->sizes);
    }
    charts->n = kept;
}

//  Base and other's msgs/s against size on one chart: the last hop of
//  each topology, a line per run (and per combination of a sweep)
static int s_overlay(FILE *out, const rundir_t *base, const rundir_t *other,
                     const char *scratch, int number, errbuf_t *err)
{
    plot_table_t *a = plot_table_read(base, err), *b = NULL;
    plot_charts_t charts = {0};
    errbuf_t why;
    int rc = a && (b = plot_table_read(other, err)) ? 0 : -1;
    if (rc == 0 && plot_table_overlay(a, "base", b, "other"))
        rc = err_set(err, "out of memory");
    if (rc == 0)
        rc = plot_charts_write(a, scratch, &charts, err);
    s_keep_sweeps(&charts);
    plot_charts_as_svg(&charts);
    if (rc == 0 && charts.n > 0 &&
        (rc = plot_script_write(scratch, &charts, PLOT_TERM_SVG, err)) == 0 &&
        plot_draw(scratch, &charts, NULL, &why)) {
        html_elem(out, "p", "warn", why.msg);
        charts.n = 0;
    }
    for (int i = 0; rc == 0 && i < charts.n; i++) {
        char path[2 * REPORT_HTML_PATH], text[2 * COMPARE_LONG + 200];
        snprintf(path, sizeof path, "%s/%s", scratch, charts.v[i].png);
        fputs("<figure class=\"chart\">\n", out);
        rc = report_html_svg(out, path, number + i, err);
        snprintf(text, sizeof text,
                 "%s: msgs/s against size, base (%s) and other (%s) overlaid, "
                 "from each one's results.csv",
                 charts.v[i].name, rundir_dir(base), rundir_dir(other));
        fputs("<figcaption>", out);
        html_text(out, text);
        fputs("</figcaption>\n</figure>\n", out);
    }
    plot_charts_free(&charts);
    plot_table_destroy(&a);
    plot_table_destroy(&b);
    return rc;
}

//  ---------------------------------------------------------------------
//  The summary: what differs between the runs, and what changed

//  The next line of text at *p (its end: '\n' or NUL), *p moved past it
static const char *s_line(const char **p, int *len)
{
    const char *line = *p;
    *len = (int)strcspn(line, "\n");
    *p += *len + (line[*len] == '\n');
    return line;
}

//  The settings of config.cfg that differ, line by line: the effective
//  configuration lists every key of every stage and hop in one order, so
//  two runs of one topology differ only in values
static void s_settings(FILE *out, const rundir_t *base, const rundir_t *other)
{
    const char *a = rundir_config(base), *b = rundir_config(other);
    char stage[128] = "", text[512];
    int shown = 0, hops = 0;
    if (!a || !b) {
        fputs("<li>(a sizing run: its candidates are compared below)</li>\n",
              out);
        return;
    }
    while (*a && *b && shown < 20) {
        int la, lb;
        const char *x = s_line(&a, &la), *y = s_line(&b, &lb);
        if (*x != ' ' && *x != '#') { //  a stage, a hop, the topology
            hops += strncmp(x, "hop", 3) == 0;
            if (strncmp(x, "hop", 3) == 0)
                snprintf(stage, sizeof stage, "hop %d", hops);
            else
                snprintf(stage, sizeof stage, "%.*s", la < 100 ? la : 100, x);
        }
        if (la == lb && strncmp(x, y, (size_t)la) == 0)
            continue;
        int ia = (int)strspn(x, " "), ib = (int)strspn(y, " ");
        snprintf(text, sizeof text, "%s: %.*s (base), %.*s (other)", stage,
                 la - ia < 200 ? la - ia : 200, x + ia,
                 lb - ib < 200 ? lb - ib : 200, y + ib);
        html_elem(out, "li", NULL, text);
        shown++;
    }
    if (shown == 0 && !*a && !*b)
        fputs("<li>none: the same configuration (the runs differ in when and "
              "where they ran)</li>\n",
              out);
    else if (*a || *b)
        fputs("<li>(their configurations differ in shape: see each run's "
              "topology below)</li>\n",
              out);
}

//  The rows that changed beyond the noise: compare's significant ones
static void s_changes(FILE *out, const comparison_t *c)
{
    char text[COLUMN_CELL];
    int shown = 0;
    for (int i = 0; i < c->nrows; i++) {
        const compare_row_t *row = &c->rows[i];
        if (!row->a || !row->b || !row->significant)
            continue;
        compare_record_t record;
        column_ctx_t ctx;
        column_view_t calls[COLUMNS_VIEW_MAX + 1];
        compare_record_ctx(c, row, &record, &ctx);
        fprintf(out, "<li class=\"change\" data-size=\"%u\" data-hop=\"",
                row->a->size);
        html_text(out, row->a->hop);
        fputs("\" data-metric=\"", out);
        html_text(out, row->a->metric);
        fprintf(out, "\" data-delta=\"%.6f\">", row->delta);
        for (const column_view_t *cell = compare_view(row, calls);
             cell->heading; cell++) {
            columns_view_cell(cell, &ctx, text, sizeof text);
            if (*text) {
                html_text(out, text);
                fputc(' ', out);
            }
        }
        fputs("</li>\n", out);
        shown++;
    }
    if (shown == 0)
        fprintf(out,
                "<li>none: no row differs by more than the noise at alpha "
                "%g (~ in the table; with few repeats a difference cannot "
                "be significant at all)</li>\n",
                c->alpha);
}

static void s_summary(FILE *out, rundir_t *const *runs,
                      const comparison_t *cmps, int n)
{
    html_section_begin(out, "compare-summary", "Summary", NULL);
    fputs("<div class=\"answer\">\n", out);
    for (int i = 0; i < n; i++) {
        char text[2 * COMPARE_LONG + 64];
        snprintf(text, sizeof text, "other %s against base %s",
                 cmps[i].other->label, cmps[i].base->label);
        html_elem(out, "p", NULL, text);
        fputs("<p><b>what differs</b> (config.cfg):</p>\n<ul>\n", out);
        s_settings(out, runs[0], runs[i + 1]);
        fputs("</ul>\n<p><b>what changed</b>, beyond the noise:</p>\n<ul>\n",
              out);
        s_changes(out, &cmps[i]);
        fputs("</ul>\n", out);
    }
    fputs("</div>\n", out);
    html_section_end(out);
}

//  Nothing matched in a pair: the exit status compare has, 1
static int s_matched(const comparison_t *cmps, int n, errbuf_t *err)
{
    for (int c = 0; c < n; c++) {
        bool any = false;
        for (int r = 0; r < cmps[c].nrows && !any; r++)
            any = cmps[c].rows[r].a && cmps[c].rows[r].b;
        if (!any) {
            err_set(err,
                    "nothing to compare: no row of %.200s matches one of "
                    "%.200s (by topology, pattern, mode, size, hop, from, to "
                    "and sweep)",
                    cmps[c].other->label, cmps[c].base->label);
            return 1;
        }
    }
    return 0;
}

//  The comparison of results runs: the exit status
static int s_results(FILE *out, rundir_t *const *runs, const char *const *dirs,
                     int n, const char *scratch, errbuf_t *err)
{
    compare_options_t options = {.dirs = dirs, .ndirs = n, .alpha = 0.05};
    side_t *sides = NULL;
    int nsides = 0, done = 0;
    int rc = compare_read(&options, runs, &sides, &nsides, err);
    comparison_t *cmps = rc == 0 ? calloc((size_t)nsides, sizeof *cmps) : NULL;
    if (rc == 0 && !cmps)
        rc = err_set(err, "out of memory");
    for (int i = 1; rc == 0 && i < nsides; i++, done++)
        rc = compare_match(&cmps[done], &sides[0], &sides[i], 0.05, false, err);
    if (rc == 0) {
        s_summary(out, runs, cmps, done);
        html_section_begin(out, "compare", "Comparison",
                           "results.csv, latency.csv of each directory "
                           "(as hopbench compare)");
        for (int i = 0; i < done; i++)
            s_table(out, &cmps[i]);
        fputs("<p>~: not significant at alpha 0.05 (Mann-Whitney U, "
              "two-sided); ±: each median's interval; interval: of other / "
              "base - 1 (Hodges-Lehmann); *: too few repeats for the "
              "interval's level; latency (p50_us, p99_us): + is slower.</p>\n",
              out);
        rc = s_charts(out, cmps, done, scratch, err);
        for (int i = 1; rc == 0 && i < n; i++)
            rc = s_overlay(out, runs[0], runs[i], scratch, 9500 + 50 * i, err);
        html_section_end(out);
    }
    int status = rc ? 2 : s_matched(cmps, done, err);
    for (int i = 0; i < done; i++)
        compare_free(&cmps[i]);
    free(cmps);
    compare_sides_free(sides, nsides);
    return status;
}

int report_html_compare(FILE *out, rundir_t *const *runs,
                        const char *const *dirs, int n, const char *scratch,
                        errbuf_t *err)
{
    for (int i = 1; i < n; i++)
        if (compare_is_sizing(runs[i]) != compare_is_sizing(runs[0]))
            return err_set(err,
                           "%s is a sizing run and %s is not: compare sizing "
                           "runs with sizing runs",
                           dirs[compare_is_sizing(runs[i]) ? i : 0],
                           dirs[compare_is_sizing(runs[i]) ? 0 : i]),
                   2;
    if (!compare_is_sizing(runs[0]))
        return s_results(out, runs, dirs, n, scratch, err);
    html_section_begin(out, "compare", "Comparison",
                       "sizing.csv of each directory (as hopbench compare)");
    int status = compare_sizing_html(out, runs, dirs, n, err);
    html_section_end(out);
    return status;
}
