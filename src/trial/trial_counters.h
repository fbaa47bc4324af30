/*  trial_counters: what a trial's counters mean, after the drain: its
    rows, its latency, and the check that its losses add up (how, in
    trial_counters.c).  Functions of the window (trial_window.h), the
    topics and the result's thread rows; they read no stage.
*/
#ifndef HOPBENCH_TRIAL_COUNTERS_H
#define HOPBENCH_TRIAL_COUNTERS_H

#include "base/errbuf.h"
#include "trial/trial_topics.h"
#include "trial/trial_window.h"

//  A row per link into result->links (room for w->nlinks): its ends and
//  where they ran (the result's threads), its counts over the trial and
//  the window, CPU per message, expected and selectivity, seq_lost; and
//  the sources' rate and what each origin published
void trial_counters_rows(const trial_window_t *w, trial_topics_t *topics,
                         trial_result_t *result);
//  Flood: which rows the HWM's bound set (after the starved columns)
void trial_counters_hwm(const trial_window_t *w, double tsc_hz,
                        trial_result_t *result);
//  What a sink's sequence numbers prove it lost, over all its origins;
//  -1 for an instance that is not a sink
int64_t trial_counters_seq_lost(const trial_window_t *w, trial_topics_t *topics,
                                int sink);
//  The rows against the sinks' sequence numbers: -1 (err) on a count that
//  cannot be true, a sink's misordered messages, or another trial's
//  messages on a pipeline that was not 'continuing' (result->late counts
//  them)
int trial_counters_verify(const trial_window_t *w, trial_topics_t *topics,
                          bool continuing, trial_result_t *result,
                          errbuf_t *err);
//  The sinks' (or requesters') histograms merged as "e2e", and each proxy
//  that reads every header as the hop it ends; streams only when 'timed'
void trial_counters_latency(const trial_window_t *w, bool timed,
                            trial_result_t *result);

int trial_counters_test(bool verbose);

#endif
