/*  plot_timeline: each link's rate over the window, from timeline.csv.

        STEM-timeline-SIZEB.png   msgs/s against seconds into the window,
                                  a line per hop and repeat

    One chart per topology, sweep combination and size: a hop that sags
    or stalls for a while, a repeat unlike the others, show as dips that
    a window's one figure averages away.
*/
#ifndef HOPBENCH_PLOT_TIMELINE_H
#define HOPBENCH_PLOT_TIMELINE_H

#include "report/plot_read.h"

//  timeline.csv's reader (plot_read_charts); none without timeline.csv
extern const plot_reader_t plot_timeline_reader;

#endif
