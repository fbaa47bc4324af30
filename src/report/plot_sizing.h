/*  plot_sizing: a sizing run's candidates (hopbench size), from
    sizing.csv.

        STEM-sizing.png    cost against the rate each candidate carried
                           (confirmed at rate x (1 + headroom), else its
                           capacity flat out), one point type per verdict,
                           each point numbered, the target dashed

    The page shows it, and `hopbench size` draws it as sizing.png.
*/
#ifndef HOPBENCH_PLOT_SIZING_H
#define HOPBENCH_PLOT_SIZING_H

#include "base/errbuf.h"
#include "report/plot_chart.h"
#include "report/rundir.h"

//  The run's sizing chart, its data file into out, listed in charts (none
//  without sizing.csv): 0, or -1 and err
int plot_sizing_charts(const rundir_t *run, const char *out,
                       plot_charts_t *charts, errbuf_t *err);

#endif
