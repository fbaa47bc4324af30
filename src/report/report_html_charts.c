/*  report_html_charts: a run's charts on the page, drawn by gnuplot's
    svg terminal from plot's own chart definitions (plot_prepare), so
    the page and `hopbench plot`'s PNGs are the same charts.

    gnuplot writes each chart to the scratch directory; its text is
    copied into the page from "<svg" on (the XML prologue and doctype
    do not belong inside HTML), and every id in it, with the references
    to them, gets the chart's number in front: gnuplot names its clip
    paths and point symbols alike in every file, and one page holds many.
    Without gnuplot the section says so and the rest of the page stands.
*/
#include "report/html.h"
#include "report/plot.h"
#include "report/report_html_internal.h"

#include <stdlib.h>
#include <string.h>

//  The text of a file, NUL-terminated; NULL when it cannot be read
static char *s_read(const char *path, size_t *len)
{
    FILE *file = fopen(path, "r");
    char *text = NULL;
    *len = 0;
    if (file && fseek(file, 0, SEEK_END) == 0) {
        long size = ftell(file);
        rewind(file);
        text = size >= 0 ? malloc((size_t)size + 1) : NULL;
        if (text)
            text[ *len = fread(text, 1, (size_t)size, file)] = 0;
    }
    if (file)
        fclose(file);
    return text;
}

//  Where in p an id or a reference to one starts, and how long its lead
//  is ("id=\"", "url(#", "href=\"#"): 0 when none starts at p
static size_t s_id_lead(const char *p)
{
    static const char *const leads[] = {"id=\"", "id='", "url(#", "href=\"#",
                                        "href='#"};
    for (size_t i = 0; i < sizeof leads / sizeof leads[0]; i++)
        if (strncmp(p, leads[i], strlen(leads[i])) == 0)
            return strlen(leads[i]);
    return 0;
}

//  Has the id at p (up to its closing quote) stood earlier in the chart?
//  gnuplot repeats its plot groups' ids ("gnuplot_plot_4") across a
//  multiplot's panels; nothing refers to those, and a page wants each once
static bool s_seen(const char *start, const char *p)
{
    size_t n = strcspn(p, "\"'");
    for (const char *q = start; (q = strstr(q, "id=")) && q + 4 < p; q++)
        if ((q[3] == '"' || q[3] == '\'') && strncmp(q + 4, p, n) == 0 &&
            (q[4 + n] == '"' || q[4 + n] == '\''))
            return true;
    return false;
}

int report_html_svg(FILE *out, const char *path, int number, errbuf_t *err)
{
    size_t len;
    char *text = s_read(path, &len);
    char *p = text ? strstr(text, "<svg") : NULL;
    if (!p) {
        free(text);
        return err_set(err, "gnuplot wrote no SVG in %s", path);
    }
    const char *start = p;
    int again = 0;
    for (; *p; p++) {
        size_t lead = s_id_lead(p);
        //  "xlink:href" and "href" alike; a space or quote before "id"
        bool word = p == text || strchr(" \t\n:", p[-1]);
        if (lead && (word || p[0] == 'u')) {
            fwrite(p, 1, lead, out);
            p += lead;
            size_t n = strcspn(p, "\"')");
            if (p[-lead] == 'i' && s_seen(start, p))
                fprintf(out, "c%d_%.*s_%d", number, (int)n, p, ++again);
            else
                fprintf(out, "c%d_%.*s", number, (int)n, p);
            p += n - 1;
        } else
            fputc(*p, out);
    }
    free(text);
    return 0;
}

static const char *s_source(const plot_chart_t *chart)
{
    return chart->kind == PLOT_KNEE       ? "search.csv"
           : chart->kind == PLOT_SYSCALLS ? "syscalls.csv"
           : chart->kind == PLOT_SIZING   ? "sizing.csv"
           : chart->kind == PLOT_TIMELINE ? "timeline.csv"
           : chart->kind == PLOT_LATLOAD || chart->kind == PLOT_QUANTILES
               ? "latency.csv"
               : "results.csv";
}

//  "results.csv, search.csv": the files the charts are drawn from
static void s_sources(const plot_charts_t *charts, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < charts->n && used < len; i++) {
        const char *file = s_source(&charts->v[i]);
        if (!strstr(out, file))
            used += (size_t)snprintf(out + used, len - used, "%s%s",
                                     used ? ", " : "", file);
    }
}

static int s_figure(FILE *out, report_page_t *page, const plot_chart_t *chart,
                    errbuf_t *err)
{
    char path[2 * REPORT_HTML_PATH];
    snprintf(path, sizeof path, "%s/%s", page->scratch, chart->png);
    fputs("<figure class=\"chart\">\n", out);
    if (report_html_svg(out, path, page->charts++, err))
        return -1;
    fputs("<figcaption>", out);
    html_text(out, chart->name);
    fputs(": from <code>", out);
    html_text(out, s_source(chart));
    fputs("</code> (the same chart as <code>hopbench plot</code>'s ", out);
    char png[PLOT_NAME];
    snprintf(png, sizeof png, "%s", chart->png);
    size_t n = strlen(png);
    if (n > 4)
        memcpy(png + n - 4, ".png", 4);
    html_text(out, png);
    fputs(")</figcaption>\n</figure>\n", out);
    return 0;
}

int report_html_charts(FILE *out, report_page_t *page, errbuf_t *err)
{
    plot_charts_t charts = {0};
    char sources[200];
    errbuf_t why;
    if (!plot_have_gnuplot()) {
        html_section_begin_as(out, page->ids, "charts", "Charts", NULL);
        html_elem(out, "p", "warn",
                  "Charts need gnuplot, which is not on PATH: install the "
                  "Debian package gnuplot-nox and make the page again.");
        html_section_end(out);
        return 0;
    }
    int rc =
        plot_prepare(page->run, page->scratch, PLOT_TERM_SVG, &charts, err);
    s_sources(&charts, sources, sizeof sources);
    html_section_begin_as(out, page->ids, "charts", "Charts",
                          sources[0] ? sources : NULL);
    if (rc == 0 && charts.n == 0)
        fputs("<p>No charts: one size, one point a line; the tables say "
              "it.</p>\n",
              out);
    else if (rc == 0 && plot_draw(page->scratch, &charts, NULL, &why) != 0) {
        fputs("<p class=\"warn\">No charts: gnuplot failed: ", out);
        html_text(out, why.msg);
        fputs("</p>\n", out);
    } else
        for (int i = 0; rc == 0 && i < charts.n; i++)
            rc = s_figure(out, page, &charts.v[i], err);
    html_section_end(out);
    plot_charts_free(&charts);
    return rc;
}
