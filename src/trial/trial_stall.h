/*  trial_stall: each link's stalls in a trial's window, and which rows
    stalled (the rules are in trial_stall.c).  A module with its own
    state, fed explicitly: told of every read of a stage's counters that
    took long (when it began and ended, inside the window or not),
    opened on the window's first edge, polled with every snapshot the
    controller takes while the window is open, then read into the rows.
    Every stretch it reports lies within the window: a read is counted
    for the part of it that does.  It reads no stage and no clock.
*/
#ifndef HOPBENCH_TRIAL_STALL_H
#define HOPBENCH_TRIAL_STALL_H

#include "trial/trial_window.h"

#define TRIAL_STALL_READS 16 //  long reads kept, the longest

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
    //  the longest reads of a stage's counters (a stall's length or
    //  more), when each began and ended
    struct {
        int stage;
        double from, to;
    } reads[TRIAL_STALL_READS];
    int nreads;
    bool closed;  //  the window's end is known: reads begun after it go
    double until; //  ...that end
} trial_stall_t;

//  A read of stage i's counters from 'from' to 'to' (seconds, the
//  window's clock: a steerable proxy answers between messages, so a long
//  read is a stage that forwarded nothing); any read, in the window or
//  not: only a stall's length or more is kept
void trial_stall_read(trial_stall_t *self, int i, double from, double to);
//  The window opens: w's links, from its first edge (w->s0)
void trial_stall_open(trial_stall_t *self, const trial_window_t *w);
//  A poll while the window is open (and its last edge): every link's
//  count at now
void trial_stall_poll(trial_stall_t *self, const snapshot_t *now);
//  The window closed at t (its last edge): the reads begun after it
//  (the edge's own, the drain's) are not the window's
void trial_stall_close(trial_stall_t *self, double t);
//  After the drain (w->last, and the rows' rates, expected and sockets
//  made): each row's slowest stretch and stalled; how many rows stalled.
//  rate: a paced source's messages per second, 0 flat out
int trial_stall_rows(const trial_stall_t *self, const trial_window_t *w,
                     double rate, link_row_t *rows, int nrows);

int trial_stall_test(bool verbose);

#endif
