/*  trial_stall: each link's stalls in a trial's window, and which rows
    stalled (the rules are in trial_stall.c).  A module with its own
    state, fed explicitly: opened on the window's first edge, polled with
    every snapshot the controller takes while the window is open (and
    how long each stage took to give its counters), then read into the
    rows.  It reads no stage and no clock.
*/
#ifndef HOPBENCH_TRIAL_STALL_H
#define HOPBENCH_TRIAL_STALL_H

#include "trial/trial_window.h"

typedef struct {
    int nlinks, n; //  the window's links and instances
    //  each link's current stretch (its start, its count then) and its
    //  slowest one so far
    double stretch_t[TRIAL_MAX_LINKS], slowest_rate[TRIAL_MAX_LINKS],
        slowest_seconds[TRIAL_MAX_LINKS];
    uint64_t stretch_count[TRIAL_MAX_LINKS];
    //  since when its count has stood still, that count, and the longest
    //  it stood still
    double same_t[TRIAL_MAX_LINKS], frozen[TRIAL_MAX_LINKS];
    uint64_t same_count[TRIAL_MAX_LINKS];
    double blocked[PIPELINE_MAX_INSTANCES]; //  the longest read, per stage
} trial_stall_t;

//  The window opens: w's links, from its first edge (w->s0)
void trial_stall_open(trial_stall_t *self, const trial_window_t *w);
//  A poll while the window is open (and its last edge): every link's
//  count at now, and how long each stage's last read of its counters
//  took (width[i], seconds: a steerable proxy answers between messages)
void trial_stall_poll(trial_stall_t *self, const snapshot_t *now,
                      const double *width);
//  After the drain (w->last, and the rows' rates, expected and sockets
//  made): each row's slowest stretch and stalled; how many rows stalled.
//  rate: a paced source's messages per second, 0 flat out
int trial_stall_rows(const trial_stall_t *self, const trial_window_t *w,
                     double rate, link_row_t *rows, int nrows);

int trial_stall_test(bool verbose);

#endif
