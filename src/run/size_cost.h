/*  size_cost: what a candidate deployment costs, and which candidates are
    worth it.

    The cost is what the deployment takes where it will run, the same
    whether its threads are pinned or not, in one of three units:

        cores   each broker (proxy instance): its busy cores at rate x
                (1 + headroom), rounded up, or the CPUs its `cpus =`
                reserves, whichever is larger; summed over the brokers,
                and never more than the CPUs their host gives them
        hosts   where the --hosts file gives its hosts `cost = N`: the
                cost of each host that carries a broker, once
        yours   where the brokers have `cost = N` themselves (a VM, a
                licence): their sum

    Load generators (publishers, subscribers) and hopbench's own threads
    are never in it; the CPUs the generators may run on are shown apart.
    Before a candidate is measured its cost is planned (each broker one
    core, or the CPUs it reserves; the hosts' or brokers' own cost): the
    order candidates are tried in.  A measured cost is never below the
    planned one, so once one meets at cost C a candidate planned above C
    cannot beat it.
*/
#ifndef HOPBENCH_SIZE_COST_H
#define HOPBENCH_SIZE_COST_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "crew/fleet.h"
#include "pipeline/pipeline.h"

typedef enum { COST_CORES, COST_HOSTS, COST_YOURS } cost_unit_t;

extern const char *const size_cost_units[];

typedef struct {
    cost_unit_t unit;
    double planned;    //  before measuring
    double reserved;   //  CPUs the brokers' cpus = reserve
    double generators; //  CPUs the load generators may run on
    double cap;        //  cores: the most its brokers' host gives them
                       //  (0: no cap, brokers on several hosts)
} size_cost_t;

//  A candidate's planned cost; -1 when its brokers mix units (err)
int size_cost_plan(const pipeline_t *pl, const fleet_t *fleet, size_cost_t *out,
                   errbuf_t *err);
//  ...and its measured cost from each instance's busy cores
double size_cost_measured(const pipeline_t *pl, const size_cost_t *plan,
                          const double *busy);

//  order[]: indexes 0..n-1 cheapest first (planned cost, then
//  generators, then the order given)
void size_cost_order(const size_cost_t *costs, int n, int *order);

//  front[i]: no other point costs no more and carries at least as much,
//  one of them strictly (points with rate <= 0 are never on it)
void size_cost_pareto(const double *cost, const double *rate, int n,
                      bool *front);

int size_cost_test(bool verbose);

#endif
