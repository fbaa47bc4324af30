/*  plot: `hopbench plot RESULTS_DIR`, PNG charts of a results directory,
    drawn by gnuplot.

        results.csv --plot_data--> rows --plot_chart--> plot-*.dat, charts
                        --plot_script--> plot.gp --gnuplot--> *.png
        (search.csv: plot_search; syscalls.csv: plot_syscalls)

    Everything lands in the results directory beside results.csv: the data
    files, the script (rerun it by hand, or edit it), gnuplot's messages in
    plot.log, and the charts.  hopbench draws nothing itself.  gnuplot is
    found on PATH (Debian package gnuplot-nox) and gets a few minutes.
*/
#ifndef HOPBENCH_PLOT_H
#define HOPBENCH_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "report/plot_chart.h"
#include "report/rundir.h"
#include "report/plot_script.h"

//  Read DIR (rundir), write the charts, list their paths on listing
//  (NULL: quiet).  Returns the exit status: 0 done; 1 gnuplot is missing
//  or failed (the data files and script are written); 2 the directory or
//  a file of it is not what hopbench writes.
int plot_results(const char *dir, FILE *listing, errbuf_t *err);

//  The run's charts: their data files and the script for terminal term
//  written into out (the run's directory for plot; the HTML report's own
//  scratch directory), the charts listed in charts: 0, or -1 and err
int plot_prepare(const rundir_t *run, const char *out, plot_term_t term,
                 plot_charts_t *charts, errbuf_t *err);

//  Draw charts whose data files and DIR/plot.gp are written: run gnuplot
//  in dir, check every chart's file is there, list them on listing (NULL: quiet).
//  0, or 1 when gnuplot is missing or failed
int plot_draw(const char *dir, const plot_charts_t *charts, FILE *listing,
              errbuf_t *err);

//  Is there a gnuplot on PATH?
bool plot_have_gnuplot(void);

#endif
