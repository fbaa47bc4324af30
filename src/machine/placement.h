/*  placement: decide where every stage thread and its libzmq I/O threads
    run, before anything runs.

    Pure: a machine and a list of stage instances in, places out.  Policies
    (DESIGN "NUMA"): none (no pinning), compact (all stages on the first
    node, one physical core each, SMT siblings last), spread (adjacent
    stages on different nodes), split (the first half of the stages on the
    first node, the rest on the second: one crossing).  A stage that names
    its own node or cpus wins over the policy.  A plan the machine cannot
    honour is an error saying what is missing.
*/
#ifndef HOPBENCH_PLACEMENT_H
#define HOPBENCH_PLACEMENT_H

#include <stdbool.h>

#include "machine/cpuset.h"
#include "base/errbuf.h"
#include "machine/machine.h"

typedef enum {
    PLACEMENT_NONE,
    PLACEMENT_COMPACT,
    PLACEMENT_SPREAD,
    PLACEMENT_SPLIT
} placement_policy_t;

//  The policy, and where it was asked for: messages about it start with
//  'at' ("t.cfg:3: "), or with nothing when it is NULL
typedef struct {
    placement_policy_t policy;
    bool allow_siblings; //  stage threads may share a core's SMT siblings
    const char *at;
} place_options_t;

//  One stage instance ("sub.2") to place
typedef struct {
    const char *name; //  instance name, for messages
    int stage;        //  its stage's position in the pipeline (0 = first)
    int node;         //  node it asks for, -1: the policy decides
    const char *cpus; //  CPUs it asks for (numactl list), NULL or "": policy
    const char *at_node, *at_cpus; //  where node and cpus were asked for,
                                   //  as place_options_t.at
} place_request_t;

//  Where it goes
typedef struct {
    int node;         //  -1: not pinned
    cpuset_t cpus;    //  the stage thread's CPUs; empty: not pinned
    cpuset_t io_cpus; //  its libzmq I/O threads' CPUs (its node's CPUs)
    bool smt_shared;  //  shares a physical core with another stage thread
} place_t;

//  Fill out[0..n-1]; 0, or -1 with a one-line reason in err
int placement_plan(const machine_t *machine, const place_options_t *options,
                   const place_request_t *requests, int n, place_t *out,
                   errbuf_t *err);

int placement_test(bool verbose);

#endif
