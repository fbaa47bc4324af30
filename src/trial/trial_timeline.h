/*  trial_timeline: each link's rate over a trial's window, from the
    snapshots the controller already takes while the window is open (one
    every TRIAL_POLL_MS); timeline.csv, and the report's rate over time.

    A module with its own state, fed explicitly as trial_stall is: opened
    on the window's first edge, polled with every snapshot, closed on its
    last, then read into the result.  It keeps at most TIMELINE_SAMPLES
    snapshots' counts: when full, every other one goes, so that a long
    window is covered whole at a coarser step.  It reads no stage and no
    clock.
*/
#ifndef HOPBENCH_TRIAL_TIMELINE_H
#define HOPBENCH_TRIAL_TIMELINE_H

#include "trial/trial_window.h"

#define TIMELINE_SAMPLES  64
#define TIMELINE_MIN_STEP 0.02 //  seconds: a shorter step joins the next

typedef struct {
    int nlinks, n;              //  links, and the samples kept
    double t[TIMELINE_SAMPLES]; //  when each was taken
    uint64_t *received;         //  [sample * nlinks + link]; NULL: none
} trial_timeline_t;

//  The window opens: w's links, from its first edge (w->s0)
void trial_timeline_open(trial_timeline_t *self, const trial_window_t *w);
//  A snapshot while the window is open, and its last edge
void trial_timeline_poll(trial_timeline_t *self, const snapshot_t *now);
//  Its rows into result (each link's msgs/s over each step, at the step's
//  end, seconds into the window); -1 when out of memory (none kept)
int trial_timeline_rows(const trial_timeline_t *self, trial_result_t *result);
void trial_timeline_free(trial_timeline_t *self);

int trial_timeline_test(bool verbose);

#endif
