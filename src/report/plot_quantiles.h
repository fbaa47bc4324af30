/*  plot_quantiles: latency's quantiles, from latency.csv, where latency
    was measured.

        STEM-latency-quantiles.png   end to end, p50 p90 p99 p99.9 p99.99
                                     on a scale of nines, microseconds on
                                     a log scale, a line per size

    Of each size the repeats merged (latency.csv's repeat "all"), or its
    one repeat.  Lines that rise steeply to the right are a tail.
*/
#ifndef HOPBENCH_PLOT_QUANTILES_H
#define HOPBENCH_PLOT_QUANTILES_H

#include "base/errbuf.h"
#include "report/plot_chart.h"
#include "report/rundir.h"

//  The run's quantile charts (one per topology and sweep combination),
//  their data files into out, listed in charts: 0, or -1 and err
int plot_quantiles_charts(const rundir_t *run, const char *out,
                          plot_charts_t *charts, errbuf_t *err);

#endif
