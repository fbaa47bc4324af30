/*  trial_starve: did the machine, not the pipeline, set a trial's
    figures?  (How, in trial_starve.c.)  The readings at the window's
    edges are kept in a state of their own; what they mean (each
    thread's wait, the steal, each row's starved) is a function of the
    readings, the thread rows and the window's links.
*/
#ifndef HOPBENCH_TRIAL_STARVE_H
#define HOPBENCH_TRIAL_STARVE_H

#include "machine/threads.h"
#include "trial/trial_window.h"

typedef struct {
    //  each thread row's wait as the window opened, and as it closed
    threads_wait_t open[THREADS_MAX], close[THREADS_MAX];
    int64_t steal0, ticks0; //  /proc/stat's as the window opened
    double steal_pct;       //  the share of the window stolen, -1 unknown
    double t0;              //  when the opening's readings began
} trial_starve_t;

//  As the window opens (its threads read back): every thread row's wait
//  (a local thread's; -1 for another host's), and this host's steal
void trial_starve_open(trial_starve_t *self, thread_row_t *threads, int n);
//  As it closes, 'seconds' long: each thread row's wait_pct and
//  preempted (trial_starve_waits), and steal_pct.  A wait is a share of
//  the time between the two readings (they bracket the window: a share
//  of the window alone could pass 100 %)
void trial_starve_close(trial_starve_t *self, thread_row_t *threads, int n,
                        double seconds);

//  What the readings mean.  Each thread row's share of the window spent
//  waiting for a CPU, and its preemptions, from its readings at the
//  edges (-1 where either is unknown, or the thread is not the one read
//  first)
void trial_starve_waits(thread_row_t *threads, int n,
                        const threads_wait_t *open, const threads_wait_t *close,
                        double seconds);
//  The share of the ticks between two readings of /proc/stat stolen, -1
//  unknown
double trial_starve_steal(int64_t steal0, int64_t ticks0, int64_t steal1,
                          int64_t ticks1);
//  Each row's from_wait_pct, to_wait_pct, steal_pct, starved and note,
//  from the thread rows; the trial's starved: 1 if a row is, else -1 if
//  a row is unknown, else 0
int trial_starve_rows(const trial_window_t *w, const thread_row_t *threads,
                      int nthreads, double steal_pct, link_row_t *rows,
                      int nrows);

int trial_starve_test(bool verbose);

#endif
