/*  summary: what the repeats of one size add up to, per link and per
    latency distribution: each figure's median over the repeats, and for
    the rate (and the p50 and p99 latencies) the median's confidence
    interval from order statistics (base/stats.h).

    These are the `repeat = median` rows of results.csv and latency.csv,
    the table's "median +-x %", and what --precision judges: a link is
    precise when its interval reached the confidence and its spread,
    max(median - ci_low, ci_high - median) / median, is at most the
    precision.  Made from trial results only; reports print it.
*/
#ifndef HOPBENCH_SUMMARY_H
#define HOPBENCH_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/stats.h"
#include "trial/results.h"

//  Repeats from which a size has median rows and intervals
#define SUMMARY_MIN_REPEATS 3

typedef struct {
    int hop;
    char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
    char from_host[RESULTS_NAME_MAX], to_host[RESULTS_NAME_MAX];
    char transport[RESULTS_TRANSPORT_MAX];
    //  medians over the repeats: each figure of LINK_MEDIANS (results.h),
    //  -1 for an optional one a repeat did not know; and what is computed
    //  from a row (lost = expected - received)
#define SUMMARY_MEDIAN(field, flags) double field;
    LINK_MEDIANS(SUMMARY_MEDIAN)
#undef SUMMARY_MEDIAN
    double lost, rate, mbps, sent_rate;
    int sockets; //  at its receiving end
    //  the first repeat's, when every repeat agrees; else "-1"
    char from_cpu[RESULTS_WHERE_MAX], to_cpu[RESULTS_WHERE_MAX];
    char from_node[RESULTS_WHERE_MAX], to_node[RESULTS_WHERE_MAX];
    int hwm_bound;               //  in most repeats
    double bound_rate;           //  the first repeat's (flood)
    uint64_t sent_all, lost_all; //  added up over the repeats
    uint64_t expected_all;       //  ...and what lost_all is a share of
    double rate_min, rate_max;
    stats_ci_t ci; //  of the rate
    double spread; //  max(rate - ci.low, ci.high - rate) / rate
    int precise;   //  -1: no precision asked; 1 within it; 0 not
    //  Starvation: the most over the repeats (-1: unknown in one); the
    //  repeats starved (-1: none, but one unknown) and the note of the
    //  one that waited most
    double from_wait_pct, to_wait_pct, steal_pct;
    int starved;
    char starved_note[400];
    int stalled; //  repeats whose window stalled on this link, twice
} link_summary_t;

typedef struct {
    char hop[8]; //  "e2e", or the hop it ends at
    int n;       //  repeats that had it
    uint64_t samples;
    double mean, p50, p90, p99, p999, p9999, max; //  us, medians
    stats_ci_t p50_ci, p99_ci;
} latency_summary_t;

typedef struct {
    uint32_t size;
    int n; //  repeats
    double confidence, precision;
    int nlinks;
    link_summary_t *links;
    int nlatency;
    latency_summary_t *latency;
    bool precise; //  precision asked, and every link within it
} summary_t;

//  Sum up n >= 1 trials of one size (their links in the same order);
//  -1 when out of memory.  precision 0: not asked
int summary_make(summary_t *self, const trial_result_t *trials, int n,
                 double confidence, double precision);
void summary_free(summary_t *self);
//  The fewest repeats whose interval reaches confidence (6 at 0.95)
int summary_repeats_needed(double confidence);

int summary_test(bool verbose);

#endif
