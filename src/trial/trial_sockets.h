/*  trial_sockets: subscribers of several SUB sockets (sockets = N) in a
    trial: each socket's count at the window's edges, then each row's
    slowest and fastest socket and a row per socket (sockets.csv); the
    rule is in trial_sockets.c.  A module with its own state (the counts
    at the edges, made before the trial: nothing is allocated there), fed
    each edge's counts and, after the drain, the window and what each
    such instance's sequence numbers prove it lost.
*/
#ifndef HOPBENCH_TRIAL_SOCKETS_H
#define HOPBENCH_TRIAL_SOCKETS_H

#include "trial/trial_window.h"

typedef struct {
    long nsockets;                        //  of every such instance
    long first[PIPELINE_MAX_INSTANCES];   //  instance i's first among them
    uint64_t *count[2];                   //  each one's, at each edge
    double at[2][PIPELINE_MAX_INSTANCES]; //  when instance i's were read
} trial_sockets_t;

//  The room for pl's sockets (none when no instance has several): -1
//  when out of memory
int trial_sockets_new(trial_sockets_t *self, const pipeline_t *pl);
void trial_sockets_destroy(trial_sockets_t *self);
//  At edge 0 (the window's start) or 1 (its end), instance i's sockets'
//  counts as its block holds them (nothing for an instance of one)...
void trial_sockets_edge(trial_sockets_t *self, const pipeline_t *pl, int i,
                        int edge, const stage_shared_t *shared);
//  ...and the instant they were true (the middle of the pass over them;
//  a remote stage's: its counts' own)
void trial_sockets_at(trial_sockets_t *self, int i, int edge, double at);
//  After the rows (their rates and expected) are made: each row's
//  sockets and slowest and fastest socket's rate; and into 'out' (room
//  for nsockets) a row per socket of each instance of several, from
//  w's blocks and proven[i], what instance i's sequence numbers prove it
//  lost (trial_counters_seq_lost); how many
int trial_sockets_rows(const trial_sockets_t *self, const trial_window_t *w,
                       const int64_t *proven, link_row_t *rows, int nrows,
                       socket_row_t *out);

int trial_sockets_test(bool verbose);

#endif
