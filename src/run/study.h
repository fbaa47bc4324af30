/*  study: placement = all made into runs.  Every distinct assignment of
    the topology's stages to the machine's nodes (machine/assignments.h:
    stages with their own node or cpus stay where they are, assignments
    that differ only by renaming nodes that are alike count once) becomes
    one value of a sweep of the topology's `nodes` key ("0+0+1").

    Every assignment's plan is made here, before anything runs: those the
    machine cannot honour (a node without enough CPUs for its stages) are
    left out and said why; a study with none left, or with more than
    max_placements assignments, is refused (exit 2), with the count.
*/
#ifndef HOPBENCH_STUDY_H
#define HOPBENCH_STUDY_H

#include "base/errbuf.h"
#include "config/sweep.h"
#include "config/topology.h"
#include "machine/machine.h"
#include "report/report_placements.h"

//  The study of topo (after --set) on machine; out is zeroed first
int study_plan(const topology_t *topo, const machine_t *machine,
               placements_t *out, errbuf_t *err);
//  Its assignments as the last key of a sweep (nodes=...)
int study_sweep(const placements_t *study, sweep_t *sweep, errbuf_t *err);

#endif
