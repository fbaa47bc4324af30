/*  latency_at: latency against load, as FD.io CSIT measures it.  After a
    search has found its rates (each loss ratio's), one open-loop trial
    per fraction of latency_at, paced at that fraction of the rate found,
    search_trial long, timed: every message carries its intended send
    time, so the end-to-end latency includes the queueing a late
    publisher would have hidden (no coordinated omission).

    The trials run through the search's hooks (the caller resolves
    endpoints and shows progress); each finished one is handed to 'row'
    with its fraction, then freed here.  Nothing is judged: the figures
    are the point.
*/
#ifndef HOPBENCH_LATENCY_AT_H
#define HOPBENCH_LATENCY_AT_H

#include "trial/search.h"

//  One open-loop trial at 'fraction' of 'found' msgs/s (all publishers),
//  the rate found for loss ratio 'ratio'
typedef struct {
    double fraction, found, ratio;
    const trial_result_t *result;
} latency_at_t;

typedef void (*latency_at_fn)(void *ctx, const latency_at_t *at);

//  The trial spec of one point: per-publisher rate, timed, a window of
//  'seconds'
trial_spec_t latency_at_spec(const trial_spec_t *base, int publishers,
                             double offered, double seconds);

//  Every fraction of every ratio that found a rate; 0 when latency_at is
//  empty or nothing was found
int latency_at_run(const params_t *params, int publishers,
                   const trial_spec_t *base, const search_outcome_t *outcome,
                   const search_hooks_t *hooks, latency_at_fn row, void *ctx,
                   errbuf_t *err);

//  Trials latency_at_run may take for a search of these params
int latency_at_budget(const params_t *params);

int latency_at_test(bool verbose);

#endif
