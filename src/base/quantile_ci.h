/*  quantile_ci: a percentile with its confidence interval, from the
    windows of one measurement (sectioning).

        histogram_t windows[k];      //  one per window, k >= 2
        quantile_ci_t p99;
        quantile_ci(windows, k, 99, 0.95, &p99);
        //  p99.estimate, [p99.low, p99.high]

    The latencies of one measurement are not independent: a queue that
    grows holds many messages up together, so an interval made as if
    each sample were its own (order statistics of all of them) is too
    narrow.  Cut into k windows, each long against the time such a queue
    lasts, the windows' percentiles are nearly independent; their spread
    says how far the percentile of the whole can be off.  The estimate is
    the percentile of all the windows together (its bias shrinks with
    every sample, where a mean of the windows' percentiles keeps each
    window's); the interval is the estimate +- t(k-1) s / sqrt k, s the
    windows' percentiles' standard deviation (Asmussen & Glynn,
    "sectioning").  quantile_ci_test draws windows from known
    distributions, independent and autocorrelated, and checks that the
    interval covers the true percentile as often as its confidence says.
*/
#ifndef HOPBENCH_QUANTILE_CI_H
#define HOPBENCH_QUANTILE_CI_H

#include <stdbool.h>

#include "base/histogram.h"

typedef struct {
    double estimate;   //  the percentile of every window's samples, ns
    double low, high;  //  the interval at 'confidence', ns
    double confidence; //  asked for
    int windows;       //  k, the windows that had samples
    long samples;      //  in all of them
} quantile_ci_t;

//  The percentile pct (0 < pct < 100) of the k windows' samples, with
//  its interval; windows without samples are left out.  -1 when fewer
//  than 2 windows have samples, or out of memory
int quantile_ci(const histogram_t *windows, int k, double pct,
                double confidence, quantile_ci_t *out);

//  Student's t: the two-sided quantile t(df) that leaves (1 - confidence)
//  / 2 in each tail (df >= 1)
double quantile_t(int df, double confidence);

int quantile_ci_test(bool verbose);

#endif
