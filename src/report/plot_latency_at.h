/*  plot_latency_at: latency against load (latency_at), from latency.csv.

        STEM-latency-load-SIZEB.png   end-to-end p50 and p99 against the
                                      rate offered, the rate found marked

    One chart per topology, sweep combination, size and loss ratio whose
    rate latency_at measured at fractions of: the rows with a latency_at
    value and hop e2e, sorted by the rate offered (fraction x found).
*/
#ifndef HOPBENCH_PLOT_LATENCY_AT_H
#define HOPBENCH_PLOT_LATENCY_AT_H

#include "base/errbuf.h"
#include "report/plot_chart.h"
#include "report/rundir.h"

//  When DIR/latency.csv has latency_at rows: their charts' data files into
//  out, the charts added.  0 (also without such rows), or -1 and err
int plot_latency_at_charts(const rundir_t *run, const char *out,
                           plot_charts_t *charts, errbuf_t *err);

#endif
