/*  trial_starve: did the machine, not the pipeline, set a trial's
    figures?  (How, in trial_starve.c.)  The readings at the window's
    edges (each thread's run-queue wait, each host's steal: made where
    the threads run, trial_threads.c) are kept in a state of their own;
    what they mean (each thread's wait, each host's steal, each row's
    starved) is a function of the readings, the thread rows and the
    window's links.
*/
#ifndef HOPBENCH_TRIAL_STARVE_H
#define HOPBENCH_TRIAL_STARVE_H

#include "machine/threads.h"
#include "trial/trial_window.h"

//  One reading at a window's edge: each thread row's run-queue wait
//  (-1 -1 where it could not be read), the stolen and all CPU ticks of
//  each instance's host (-1 -1 likewise), and when the edge's readings
//  began and ended (the controller's clock: another host's are its
//  question's round trip)
typedef struct {
    threads_wait_t *wait; //  a reading per thread row, room of them: a
    int room;             //  fleet's rows are every host's threads
    int64_t steal[PIPELINE_MAX_INSTANCES], ticks[PIPELINE_MAX_INSTANCES];
    double from, to;
    bool refused; //  a host could not tell (an older agent): said once
} trial_waits_t;

typedef struct {
    trial_waits_t edge[2]; //  as the window opened, and as it closed
    //  each instance's host's share of the window stolen, -1 unknown
    double steal_pct[PIPELINE_MAX_INSTANCES];
} trial_starve_t;

//  Room in each edge's readings for n thread rows; -1: out of memory
int trial_starve_room(trial_starve_t *self, int n);
void trial_starve_free(trial_starve_t *self);

//  Both edges read, the window 'seconds' long: each thread row's wait_pct
//  and preempted (trial_starve_waits), each instance's steal_pct
void trial_starve_close(trial_starve_t *self, const pipeline_t *pl,
                        thread_row_t *threads, int n, double seconds);

//  Each thread row's share of the window spent waiting for a CPU, and its
//  preemptions, from its readings at the edges (-1 where either is
//  unknown, or the thread is not the one read first).  A share of the
//  time from before the opening's first reading to after the closing's
//  last where that is longer than the window (they bracket it: a share
//  of the window alone could pass 100 %)
void trial_starve_waits(thread_row_t *threads, int n, const trial_waits_t *open,
                        const trial_waits_t *close, double seconds);
//  The share of the ticks between two readings of /proc/stat stolen, -1
//  unknown
double trial_starve_steal(int64_t steal0, int64_t ticks0, int64_t steal1,
                          int64_t ticks1);
//  Each row's from_wait_pct, to_wait_pct, steal_pct (the most of its
//  ends' hosts', from steal_pct per instance; -1 if one is unknown),
//  starved and note (starved: who waited, and the busy threads of its
//  host that may share its CPUs; unknown: whose waits are), from the
//  thread rows; the trial's starved: 1 if a row is, else -1 if a row is
//  unknown, else 0
int trial_starve_rows(const trial_window_t *w, const thread_row_t *threads,
                      int nthreads, const double *steal_pct, link_row_t *rows,
                      int nrows);

int trial_starve_test(bool verbose);

#endif
