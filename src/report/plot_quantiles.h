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

#include "report/plot_read.h"

//  latency.csv's quantiles' reader (plot_read_charts): a chart per
//  topology and sweep combination; none without latency.csv
extern const plot_reader_t plot_quantiles_reader;

#endif
