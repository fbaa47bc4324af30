/*  report_html: `hopbench report DIR [DIR...] [-o FILE]`, one HTML page
    of a run, or of several compared, that reads offline.

        DIR/metadata.json config.cfg threads.csv memory.csv results.csv
            search.csv syscalls.csv sockets.csv latency.csv sizing.csv
                --report_html_run-->     machine, tree, placement, per-hop
                                         tables with their flags, warnings
                --plot_prepare (svg)-->  gnuplot --> charts inlined
        A B ... --report_html_compare--> compare's view, charts overlaid

    The page holds everything it shows: styles inline, charts as inline
    SVG drawn by gnuplot from plot's own chart definitions, one small
    script to sort tables.  Figures are the CSV's text as written, so the
    page and the file agree digit for digit.  The file is written beside
    its final name and renamed into place: never half a page.
*/
#ifndef HOPBENCH_REPORT_HTML_H
#define HOPBENCH_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "base/errbuf.h"

//  Write the page of dirs[0..n-1] to out_path (NULL: DIR/report.html for
//  one directory, results/<UTC>-compare/report.html for several); the
//  path written into written.  The exit status: 0 done (a chart gnuplot
//  could not draw is said on the page); 1 the page is written, but of the
//  runs compared one matched nothing of the first (err, as compare says
//  it); 2 a directory that is not a results directory, a file in it that
//  is not what hopbench writes, or an unwritable output (err): no page
int report_html_write(const char *const *dirs, int n, const char *out_path,
                      char *written, size_t len, errbuf_t *err);

//  run --report: DIR/report.html of what the run finished; its path, or
//  why there is none, on note
void report_html_after_run(const char *dir, FILE *note);

#endif
