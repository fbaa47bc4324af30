/*  run_internal: what run.c and run_search.c share: the run's plan (its
    combinations' pipelines, the one being measured) over its session,
    and the functions one calls in the other.  Private to src/run/run*.c.

    run.c owns the plan of combinations, sizes and repeats (or a search
    per size, run_search.c); everything around the trials (files,
    stages, retries, warnings, the end) is the session's (session.h).
*/
#ifndef HOPBENCH_RUN_INTERNAL_H
#define HOPBENCH_RUN_INTERNAL_H

#include "run/run.h"
#include "run/session.h"

typedef struct {
    topology_t *const *topos;
    int ntopos;
    const run_options_t *options;
    pipeline_t *pl[SWEEP_MAX_COMBOS];
    pipeline_t *current; //  the combination being measured
    session_t *session;
    int size_index;  //  of the size being measured
    int combination; //  ...and of its combination
} run_t;

//  run.c: a trial as the topology's keys say; a size's figures into the
//  study (placement = all)
trial_spec_t run_spec(const run_t *self, uint32_t size, int repeat);
void run_study_add(run_t *self, const trial_result_t *trials, int n,
                   const trial_result_t *merged);
//  The trials a size takes: per repeat (2 with a profile: its traced
//  twin), at most in one search (search_most_trials, and its twin), and
//  at most in all (its repeats or searches, latency_at's): progress's plan
int run_twins(const params_t *params);
int run_search_budget(const params_t *params);
int run_size_budget(const params_t *params);

//  run_search.c: mode = search
int run_search_size(run_t *self, int index, errbuf_t *err);

#endif
