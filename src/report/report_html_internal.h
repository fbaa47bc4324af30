/*  report_html_internal: what the report_html_*.c files share.

    A page is written into a memory stream, then to its file in one go;
    the charts are drawn in a scratch directory (plot_prepare's data
    files, the script, gnuplot's SVGs) that is removed after.
*/
#ifndef HOPBENCH_REPORT_HTML_INTERNAL_H
#define HOPBENCH_REPORT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "report/rundir.h"

#define REPORT_HTML_PATH 1024

typedef struct {
    const rundir_t *run;            //  the results directory, read
    char scratch[REPORT_HTML_PATH]; //  charts are drawn here
    int charts;                     //  charts inlined so far (their ids)
    char ids[16]; //  before its sections' ids: "", "run2-" for a second
} report_page_t;

//  report_html_run.c: every section of one run
int report_html_run(FILE *out, report_page_t *page, errbuf_t *err);

//  report_html_summary.c: the answer, first on a run's page
void report_html_summary(FILE *out, const report_page_t *page);

//  report_html_topology.c: the topology (config.cfg) drawn, each
//  combination's of a sweep, with a table of their settings
void report_html_topology(FILE *out, const report_page_t *page);

//  report_html_results.c: results.csv, a table per size
int report_html_results(FILE *out, const report_page_t *page, errbuf_t *err);

//  report_html_charts.c: a run's charts (plot's, as SVG), in a section
int report_html_charts(FILE *out, report_page_t *page, errbuf_t *err);
//  An SVG file into the page, its ids made unique by the chart's number
int report_html_svg(FILE *out, const char *path, int number, errbuf_t *err);

//  report_html_compare.c: the comparison of runs[1..] with runs[0] (read
//  from dirs[]): the exit status, as compare's (1: nothing matched)
int report_html_compare(FILE *out, rundir_t *const *runs,
                        const char *const *dirs, int n, const char *scratch,
                        errbuf_t *err);

#endif
