/*  trial_fixture: what the trial analyses' selftests share: a pipeline
    from a topology's text (planned on numa/vm-2x2.cfg) and a window made
    by hand over it, each instance with a shared block of its own (room
    for its sockets' counts), all zero.  A test then writes the counters
    it means, calls an analysis, and checks what it made.
*/
#ifndef HOPBENCH_TRIAL_FIXTURE_H
#define HOPBENCH_TRIAL_FIXTURE_H

#include "config/topology.h"
#include "machine/machine.h"
#include "trial/trial_window.h"

typedef struct {
    topology_t *topo;
    machine_t *machine;
    pipeline_t *pl;
    trial_window_t *w;                              //  w->pl = pl, its links
    stage_shared_t *shared[PIPELINE_MAX_INSTANCES]; //  w->shared, writable
    link_row_t *rows;                               //  w->nlinks of them
} trial_fixture_t;

//  -1 when the text is not a valid topology, or out of memory
int trial_fixture_new(trial_fixture_t *self, const char *text);
void trial_fixture_destroy(trial_fixture_t *self);
//  The link from instance 'from' to 'to' (from -1: a summed row), -1 if
//  none
int trial_fixture_link(const trial_fixture_t *self, int from, int to);

#endif
