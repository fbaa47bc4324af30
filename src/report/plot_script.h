/*  plot_script: the gnuplot script that draws a chart list.

    One file, DIR/plot.gp, with paths relative to DIR, so it reruns by
    hand (cd DIR && gnuplot plot.gp) and can be edited to restyle a chart.
    For PNG it picks the pngcairo terminal when gnuplot has it, else png;
    for the HTML report (report_html_charts) the svg terminal, from the
    same chart definitions.  Every
    string from the data (topology, stage, sweep values) is quoted for
    gnuplot, and text is drawn "noenhanced", so names like pub_1 print as
    they are.  This module writes text only; plot runs gnuplot.
*/
#ifndef HOPBENCH_PLOT_SCRIPT_H
#define HOPBENCH_PLOT_SCRIPT_H

#include "report/plot_chart.h"

#define PLOT_SCRIPT "plot.gp"

typedef enum { PLOT_TERM_PNG, PLOT_TERM_SVG } plot_term_t;

int plot_script_write(const char *dir, const plot_charts_t *charts,
                      plot_term_t term, errbuf_t *err);

#endif
