/*  size_cost: a candidate's cost from its plan, the order candidates are
    tried in, and the Pareto front; see size_cost.h.
*/
#include "run/size_cost.h"

#include "base/check.h"
#include "machine/cpuset.h"
#include "pipeline/roster.h"

#include <stdlib.h>
#include <string.h>

//  CPUs the threads of one instance occupy: its pinned CPUs, one per
//  unpinned thread
static double s_cpus(const roster_entry_t *list, int n, int owner)
{
    cpuset_t all;
    int unpinned = 0;
    memset(&all, 0, sizeof all);
    for (int i = 0; i < n; i++) {
        if (list[i].owner != owner)
            continue;
        if (cpuset_count(&list[i].cpus) == 0)
            unpinned++;
        for (int c = cpuset_next(&list[i].cpus, -1); c >= 0;
             c = cpuset_next(&list[i].cpus, c))
            cpuset_add(&all, c);
    }
    return cpuset_count(&all) + unpinned;
}

//  The fleet's index of the host instance id runs on when it has a cost,
//  else -1
static int s_costed_host(const pipeline_t *pl, const fleet_t *fleet, int id)
{
    const char *name = pipeline_host(pl, id);
    for (int h = 0; name[0] && h < fleet_size(fleet); h++)
        if (strcmp(fleet_name(fleet, h), name) == 0)
            return fleet_host(fleet, h)->cost > 0 ? h : -1;
    return -1;
}

void size_cost_plan(const pipeline_t *pl, const fleet_t *fleet,
                    size_cost_t *out)
{
    enum { MAX = 4096 };
    roster_entry_t *list = calloc(MAX, sizeof *list);
    int n = list ? roster_list(pl, list, MAX) : 0;
    bool counted[HOSTS_MAX] = {false};
    memset(out, 0, sizeof *out);
    double user = 0;
    for (int id = 0; id < pl->n; id++) {
        const instance_t *inst = &pl->inst[id];
        double cpus = s_cpus(list, n < MAX ? n : MAX, id);
        int host = s_costed_host(pl, fleet, id);
        if (inst->role == ROLE_PROXY)
            out->brokers += cpus;
        else
            out->generators += cpus;
        if (host >= 0) { //  the host stands for its stages, once
            if (!counted[host])
                user += fleet_host(fleet, host)->cost;
            counted[host] = out->user = true;
        } else if (inst->params.cost > 0)
            out->user = true, user += inst->params.cost;
        else if (inst->role == ROLE_PROXY)
            user += cpus;
    }
    out->cost = out->user ? user : out->brokers;
    free(list);
}

static const size_cost_t *s_sorting;

static int s_cheaper(const void *a, const void *b)
{
    const size_cost_t *x = &s_sorting[*(const int *)a],
                      *y = &s_sorting[*(const int *)b];
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    if (x->generators != y->generators)
        return x->generators < y->generators ? -1 : 1;
    return *(const int *)a - *(const int *)b; //  stable: given order
}

void size_cost_order(const size_cost_t *costs, int n, int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    s_sorting = costs; //  qsort has no context argument
    qsort(order, (size_t)n, sizeof *order, s_cheaper);
    s_sorting = NULL;
}

void size_cost_pareto(const double *cost, const double *rate, int n,
                      bool *front)
{
    for (int i = 0; i < n; i++) {
        front[i] = rate[i] > 0;
        for (int j = 0; j < n && front[i]; j++)
            if (j != i && cost[j] <= cost[i] && rate[j] >= rate[i] &&
                (cost[j] < cost[i] || rate[j] > rate[i]))
                front[i] = false;
    }
}

int size_cost_test(bool verbose)
{
    (void)verbose;
    size_cost_t c[4] = {{.cost = 4, .generators = 2},
                        {.cost = 2, .generators = 3},
                        {.cost = 2, .generators = 1},
                        {.cost = 8, .generators = 0}};
    int order[4];
    size_cost_order(c, 4, order);
    CHECK(order[0] == 2 && order[1] == 1 && order[2] == 0 && order[3] == 3);
    double cost[5] = {1, 2, 2, 3, 4}, rate[5] = {100, 150, 120, 150, 0};
    bool front[5];
    size_cost_pareto(cost, rate, 5, front);
    CHECK(front[0] && front[1] && !front[2] && !front[3] && !front[4]);
    return 0;
}
