/*  assemble: a request made into what runs.  The one place that turns a
    topology's text, the --set assignments, a --sweep, placement = all
    and the hosts a topology names into topologies, a study, a fleet and
    a machine, for run, plan and check alike (and the commands to come
    that take a topology).  It prints each error once, where it is found,
    and gives back the exit status; it runs nothing.
*/
#ifndef HOPBENCH_ASSEMBLE_H
#define HOPBENCH_ASSEMBLE_H

#include <stdbool.h>

#include "config/sweep.h"
#include "config/topology.h"
#include "crew/fleet.h"
#include "machine/machine.h"
#include "report/report_placements.h"
#include "run/request.h"

//  Loaded from the file's text, --set applied in order, validated (warn:
//  a topology-level --set that a stage overrides); NULL after printing why
topology_t *assemble_topology(const run_request_t *req, const char *text,
                              bool warn);
//  --machine FILE, or this machine; NULL after printing why
machine_t *assemble_machine(const run_request_t *req);
//  One topology per combination of the sweep, every one valid, or none:
//  the count, or -1 after printing why
int assemble_combinations(const run_request_t *req, const char *text,
                          const sweep_t *sweep, topology_t **topos);
//  The hosts the topologies' stages name (host = NAME), each through its
//  agent; *fleet stays NULL when none is named.  The exit status of a
//  failure (printed), or 0
int assemble_fleet(const run_request_t *req, topology_t *const *topos, int n,
                   fleet_t **fleet);
//  The same for candidates that may each not fit (size): a topology whose
//  hosts the hosts file lacks (or their certificates) gets the reason in
//  unfit[c] (n of them; "" when it fits) and no agent; the others' hosts
//  make the fleet
int assemble_fleet_fitting(const run_request_t *req, topology_t *const *topos,
                           int n, errbuf_t *unfit, fleet_t **fleet);
//  placement = all: the study, made a sweep of nodes (when sweep is not
//  NULL); 1 when there is none (another placement), 0 when there is, -1
//  after saying why not.  The study keeps its topology (study->topo)
int assemble_study(const run_request_t *req, const char *text,
                   const machine_t *machine, placements_t *study,
                   sweep_t *sweep);
//  placement = all studies this machine: not with stages on other hosts.
//  The exit status (printed), or 0
int assemble_study_here(int studied, const fleet_t *fleet);

#endif
