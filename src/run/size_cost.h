/*  size_cost: what a candidate deployment costs, and which candidates are
    worth it.

    By default the CPUs its pinned threads occupy as `plan` places them:
    the brokers' (proxies: their main and I/O threads) are the cost, the
    load generators' (publishers, subscribers) are shown apart; an
    unpinned thread counts one CPU.  A stage with `cost = N` costs N per
    instance instead (a host, a VM, money: the user's unit); a host of
    --hosts with `cost = N` costs N once, however many of the candidate's
    stages run on it, and stands for them.  Measured busy cores (ns per
    message x rate) are added by the caller, after.
*/
#ifndef HOPBENCH_SIZE_COST_H
#define HOPBENCH_SIZE_COST_H

#include <stdbool.h>

#include "crew/fleet.h"
#include "pipeline/pipeline.h"

typedef struct {
    double brokers;    //  CPUs the brokers' threads occupy
    double generators; //  ...and the publishers' and subscribers'
    double cost;       //  brokers, or the stages' and hosts' cost = N
    bool user;         //  a stage's or a host's cost = N made it
} size_cost_t;

//  fleet: the hosts (their cost = N), or NULL
void size_cost_plan(const pipeline_t *pl, const fleet_t *fleet,
                    size_cost_t *out);

//  order[]: indexes 0..n-1 cheapest first (cost, then generators)
void size_cost_order(const size_cost_t *costs, int n, int *order);

//  front[i]: no other point costs no more and carries at least as much,
//  one of them strictly (points with rate <= 0 are never on it)
void size_cost_pareto(const double *cost, const double *rate, int n,
                      bool *front);

int size_cost_test(bool verbose);

#endif
