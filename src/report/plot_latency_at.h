/*  plot_latency_at: latency against load (latency_at), from latency.csv.

        STEM-latency-load-SIZEB.png   end-to-end p50 and p99 against the
                                      rate offered, the rate found marked

    One chart per topology, sweep combination, size and loss ratio whose
    rate latency_at measured at fractions of: the rows with a latency_at
    value and hop e2e, sorted by the rate offered (fraction x found).
*/
#ifndef HOPBENCH_PLOT_LATENCY_AT_H
#define HOPBENCH_PLOT_LATENCY_AT_H

#include "report/plot_read.h"

//  latency.csv's latency_at rows' reader (plot_read_charts); none
//  without such rows
extern const plot_reader_t plot_latency_at_reader;

#endif
