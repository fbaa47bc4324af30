/*  plot_timeline: each link's rate over the window, from timeline.csv.

        STEM-timeline-SIZEB.png   msgs/s against seconds into the window,
                                  a line per hop and repeat

    One chart per topology, sweep combination and size: a hop that sags
    or stalls for a while, a repeat unlike the others, show as dips that
    a window's one figure averages away.
*/
#ifndef HOPBENCH_PLOT_TIMELINE_H
#define HOPBENCH_PLOT_TIMELINE_H

#include "base/errbuf.h"
#include "report/plot_chart.h"
#include "report/rundir.h"

//  The run's timeline charts, their data files into out, listed in
//  charts (none without timeline.csv): 0, or -1 and err
int plot_timeline_charts(const rundir_t *run, const char *out,
                         plot_charts_t *charts, errbuf_t *err);

#endif
