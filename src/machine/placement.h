/*  placement: decide where every stage thread and its libzmq I/O threads
    run, before anything runs.

    Pure: a machine and a list of stage instances in, places out.  Policies
    (DESIGN "NUMA"): none (no pinning), compact (all stages on the first
    node, one physical core each, SMT siblings last), spread (adjacent
    stages on different nodes: in a tree, by their distance from its first
    stage, so that every link crosses), split (the first half of the
    stages' tiers on the first node, the rest on the second: every path
    from a publisher to a subscriber crosses once), all (every stage
    names its node: run/study.c gives each assignment its own run; a node
    given more stage threads than it has CPUs lets them share its CPUs,
    marked crowded, rather than refuse: the study is about nodes).  A
    stage that names its own node or cpus wins over the policy.  Only CPUs
    the process may use (machine_t.allowed) are handed out.  A plan the
    machine cannot honour is an error saying what is missing.

    The controller (hopbench's own threads, and in a stage's own process
    its main and libzmq threads) gets one housekeeping CPU once the stages
    are placed: placement_controller.
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
    PLACEMENT_SPLIT,
    PLACEMENT_ALL
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
    int stage;        //  its stage's tier: how far from the publishers
                      //  (0; in a chain its position, in a tree the
                      //  longest path to it from a publisher)
    int distance;     //  from the tree's first stage, directions aside:
                      //  adjacent stages differ by one (in a chain, its
                      //  position too)
    int node;         //  node it asks for, -1: the policy decides
    const char *cpus; //  CPUs it asks for (numactl list), NULL or "": policy
    const char *at_node, *at_cpus; //  where node and cpus were asked for,
                                   //  as place_options_t.at
    const char *io_cpus;    //  its I/O threads' CPUs (io_cpus.h), NULL or
                            //  "": its node's
    const char *at_io_cpus; //  where io_cpus was asked for
} place_request_t;

//  Where it goes
typedef struct {
    int node;         //  -1: not pinned
    cpuset_t cpus;    //  the stage thread's CPUs; empty: not pinned
    cpuset_t io_cpus; //  its libzmq I/O threads' CPUs (its node's CPUs,
                      //  unless io_cpus_place narrows them)
    bool smt_shared;  //  shares a physical core with another stage thread
    bool crowded;     //  placement = all: its node has fewer CPUs than
                      //  stage threads, so they share all of them
} place_t;

//  Fill out[0..n-1]; 0, or -1 with a one-line reason in err
int placement_plan(const machine_t *machine, const place_options_t *options,
                   const place_request_t *requests, int n, place_t *out,
                   errbuf_t *err);

//  Where the controller's threads go
typedef struct {
    place_t place; //  one CPU (or the CPUs asked for); node -1: not pinned
    int shares;    //  no CPU was free: the stage instance whose CPU it
                   //  shares, else -1
    bool sibling;  //  its CPU's core also runs a stage thread
} housekeeping_t;

//  Once stages[0..n-1] are placed (placement_plan): the controller's own
//  cpus or node if 'request' names them, else, when any stage is pinned,
//  a CPU no stage uses: a free core's first CPU on the first node, then on
//  the others, then a free CPU whose sibling runs a stage, first node
//  first.  None free: the CPU of the most upstream stage instance (a
//  publisher, which does least per message and waits on back-pressure).
//  Nothing pinned and nothing asked: not pinned either
int placement_controller(const machine_t *machine,
                         const place_request_t *request,
                         const place_request_t *requests,
                         const place_t *stages, int n, housekeeping_t *out,
                         errbuf_t *err);

//  0 when every CPU of cpus is one this process may use; else -1 and
//  "AT NAME: KEY 'VALUE': CPU 5 is outside this process's CPU set ..."
int placement_outside(const machine_t *machine, const cpuset_t *cpus,
                      const char *at, const char *name, const char *key,
                      const char *value, errbuf_t *err);

int placement_test(bool verbose);

#endif
