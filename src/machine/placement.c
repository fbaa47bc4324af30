/*  placement: decide where every stage thread and its libzmq I/O threads
    run, before anything runs.

    Design: passes over the requests, always in pipeline order.
    1. Requests that name cpus get exactly those, first, so that nobody
       else lands on them or on their physical cores.
    2. Every other instance gets a node: its own 'node', else the policy's
       (none: not pinned).
    3. Demand is checked per node against free cores (and, with siblings
       allowed, free CPUs) before anything is handed out, so a plan the
       machine cannot honour fails with one line saying what is missing.
    4. CPUs are handed out: the lowest free physical core's first CPU; once
       the node's free cores are gone, its lowest unused CPU (an SMT sibling
       of a used core).  Same input, same plan.
    5. smt_shared marks every instance whose physical core another instance
       also uses.
    Only the CPUs the process may use (machine_t.allowed) count as free;
    a stage's own cpus outside them are refused, naming them.  The
    controller is placed after the stages (placement_controller), so it
    can take what they left.
    Pure: no libnuma, no I/O; the machine may well be a description.
*/
#include "machine/placement.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const machine_t *machine;
    placement_policy_t policy;
    bool allow_siblings;
    const char *at; //  where the policy was asked for, "" if nowhere
    const place_request_t *requests;
    int n;
    place_t *out;
    errbuf_t *err;
    int nstages;                //  highest stage + 1
    cpuset_t used;              //  CPUs handed out so far
    bool core_used[CPUSET_MAX]; //  physical cores with a used CPU
    bool crowded[MACHINE_MAX_NODES]; //  all: its stages share its CPUs
} plan_t;

static const char *s_policy_name(placement_policy_t policy)
{
    static const char *const names[] = {"none", "compact", "spread", "split",
                                        "all"};
    return policy >= PLACEMENT_NONE && policy <= PLACEMENT_ALL ? names[policy]
                                                               : "placement";
}

static const char *s_name(const place_request_t *request)
{
    return request->name ? request->name : "(unnamed stage)";
}

//  A message's prefix: where something was asked for
static const char *s_at(const char *at)
{
    return at ? at : "";
}

static bool s_has_cpus(const place_request_t *request)
{
    return request->cpus && *request->cpus;
}

//  "node 0" / "nodes 0-1": the machine's node ids, for messages
static void s_node_list(const machine_t *machine, char *buf, size_t len)
{
    cpuset_t ids;
    char list[256];
    cpuset_clear(&ids);
    for (int i = 0; i < machine->nnodes; i++)
        cpuset_add(&ids, machine->nodes[i].id);
    cpuset_format(&ids, list, sizeof list);
    snprintf(buf, len, "node%s %s", machine->nnodes == 1 ? "" : "s", list);
}

static void s_take(plan_t *self, place_t *place, int cpu)
{
    const machine_t *machine = self->machine;
    cpuset_add(&place->cpus, cpu);
    cpuset_add(&self->used, cpu);
    if (machine->core[cpu] >= 0)
        self->core_used[machine->core[cpu]] = true;
}

static bool s_core_free(const plan_t *self, int cpu)
{
    int core = self->machine->core[cpu];
    return core >= 0 ? !self->core_used[core] : !cpuset_has(&self->used, cpu);
}

//  A node's CPUs that this process may use
static void s_node_allowed(const machine_t *machine, int index, cpuset_t *out)
{
    cpuset_clear(out);
    const cpuset_t *cpus = &machine->nodes[index].cpus;
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0; cpu = cpuset_next(cpus, cpu))
        if (cpuset_has(&machine->allowed, cpu))
            cpuset_add(out, cpu);
}

int placement_outside(const machine_t *machine, const cpuset_t *cpus,
                      const char *at, const char *name, const char *key,
                      const char *value, errbuf_t *err)
{
    cpuset_t outside;
    cpuset_clear(&outside);
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0; cpu = cpuset_next(cpus, cpu))
        if (!cpuset_has(&machine->allowed, cpu))
            cpuset_add(&outside, cpu);
    if (cpuset_empty(&outside))
        return 0;
    char list[256], allowed[256];
    cpuset_format(&outside, list, sizeof list);
    cpuset_format(&machine->allowed, allowed, sizeof allowed);
    bool one = cpuset_count(&outside) == 1;
    return err_set(err,
                   "%s%s: %s '%s': CPU%s %s %s outside this process's CPU "
                   "set %s (sched_getaffinity: a taskset or a cgroup's "
                   "cpuset.cpus.effective narrows it)",
                   s_at(at), name, key, value, one ? "" : "s", list,
                   one ? "is" : "are", allowed);
}

static int s_outside(const machine_t *machine, const place_request_t *request,
                     const cpuset_t *cpus, errbuf_t *err)
{
    return placement_outside(machine, cpus, request->at_cpus, s_name(request),
                             "cpus", request->cpus, err);
}

//  A request's own cpus: parsed, on one node, allowed; *node is theirs
static int s_explicit_cpus(const machine_t *machine,
                           const place_request_t *request, cpuset_t *cpus,
                           int *node, errbuf_t *err)
{
    errbuf_t why;
    const char *at = s_at(request->at_cpus);
    if (machine_parse_cpus(machine, request->cpus, cpus, &why))
        return err_set(err, "%s%s: %s", at, s_name(request), why.msg);
    *node = machine_node_of_cpu(machine, cpuset_next(cpus, -1));
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0; cpu = cpuset_next(cpus, cpu))
        if (machine_node_of_cpu(machine, cpu) != *node)
            return err_set(err,
                           "%s%s: cpus '%s' span nodes %d and %d "
                           "(a stage's CPUs must share one node)",
                           at, s_name(request), request->cpus, *node,
                           machine_node_of_cpu(machine, cpu));
    if (request->node >= 0 && request->node != *node)
        return err_set(err,
                       "%s%s: cpus '%s' are on node %d, but it "
                       "asks for node %d",
                       at, s_name(request), request->cpus, *node,
                       request->node);
    return s_outside(machine, request, cpus, err);
}

//  Pass 1: a request that names its CPUs gets exactly those
static int s_place_explicit(plan_t *self, int i)
{
    const place_request_t *request = &self->requests[i];
    const machine_t *machine = self->machine;
    place_t *place = &self->out[i];
    cpuset_t cpus;
    int node;
    if (s_explicit_cpus(machine, request, &cpus, &node, self->err))
        return -1;
    for (int cpu = cpuset_next(&cpus, -1); cpu >= 0;
         cpu = cpuset_next(&cpus, cpu))
        s_take(self, place, cpu);
    place->node = node;
    s_node_allowed(machine, machine_node_index(machine, node),
                   &place->io_cpus);
    return 0;
}

static int s_needs_two_nodes(plan_t *self)
{
    char nodes[300];
    s_node_list(self->machine, nodes, sizeof nodes);
    return err_set(self->err, "%s%s needs 2 NUMA nodes; %s has %d (%s)",
                   self->at, s_policy_name(self->policy), self->machine->name,
                   self->machine->nnodes, nodes);
}

//  Pass 2: the node index an instance goes to; -1: not pinned
static int s_target(plan_t *self, int i, int *index)
{
    const place_request_t *request = &self->requests[i];
    const machine_t *machine = self->machine;
    char nodes[300];
    *index = -1;
    if (request->node >= 0) {
        *index = machine_node_index(machine, request->node);
        s_node_list(machine, nodes, sizeof nodes);
        return *index >= 0 ? 0
                           : err_set(self->err,
                                     "%s%s: node %d does not exist "
                                     "(%s has %s)",
                                     s_at(request->at_node), s_name(request),
                                     request->node, machine->name, nodes);
    }
    if (self->policy == PLACEMENT_NONE)
        return 0;
    if (self->policy == PLACEMENT_ALL)
        return err_set(self->err,
                       "%sall: %s has no node of its own (placement = all is "
                       "a study: hopbench run and plan give every stage its "
                       "node through nodes, one assignment at a time)",
                       self->at, s_name(request));
    if (self->policy == PLACEMENT_COMPACT)
        *index = 0;
    else if (machine->nnodes < 2)
        return s_needs_two_nodes(self);
    else if (self->policy == PLACEMENT_SPREAD)
        *index = request->distance % machine->nnodes;
    else if (self->policy == PLACEMENT_SPLIT)
        *index = request->stage < (self->nstages + 1) / 2 ? 0 : 1;
    else
        return err_set(self->err, "placement: unknown policy %d",
                       (int)self->policy);
    return 0;
}

//  Free cores and free CPUs of a node, now, among the allowed ones; a
//  core counts at its first allowed CPU, found for every core in one pass
//  (per CPU, its siblings' scan made a 1,024-CPU machine's plan quadratic)
static void s_free(const plan_t *self, int index, int *cores, int *cpus)
{
    const machine_t *machine = self->machine;
    short first[CPUSET_MAX + 1]; //  by core + 1 (0: the CPUs of none)
    for (int core = 0; core <= CPUSET_MAX; core++)
        first[core] = -1;
    for (int cpu = cpuset_next(&machine->cpus, -1); cpu >= 0;
         cpu = cpuset_next(&machine->cpus, cpu))
        if (cpuset_has(&machine->allowed, cpu) &&
            first[machine->core[cpu] + 1] < 0)
            first[machine->core[cpu] + 1] = (short)cpu;
    cpuset_t node;
    s_node_allowed(machine, index, &node);
    *cores = *cpus = 0;
    for (int cpu = cpuset_next(&node, -1); cpu >= 0;
         cpu = cpuset_next(&node, cpu)) {
        bool known = cpuset_has(&machine->cpus, cpu);
        if ((!known || first[machine->core[cpu] + 1] == cpu) &&
            s_core_free(self, cpu))
            *cores += 1;
        if (!cpuset_has(&self->used, cpu))
            *cpus += 1;
    }
}

//  Pass 3: can node 'index' give 'demand' threads a core (or a CPU)?
//  'at': where the demand was asked for
static int s_check_node(plan_t *self, int index, int demand, const char *at)
{
    int cores, cpus;
    s_free(self, index, &cores, &cpus);
    if (demand <= cores || (self->allow_siblings && demand <= cpus))
        return 0;
    const machine_node_t *node = &self->machine->nodes[index];
    cpuset_t usable;
    s_node_allowed(self->machine, index, &usable);
    int taken = cpuset_count(&usable) - cpus;
    char why[400] = "";
    if (taken)
        snprintf(why, sizeof why, " free (%d CPU%s taken by explicit cpus)",
                 taken, taken == 1 ? "" : "s");
    if (!cpuset_subset(&node->cpus, &self->machine->allowed)) {
        char list[256];
        cpuset_format(&usable, list, sizeof list);
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used,
                 " that this process may use (its CPU set has %s of the "
                 "node's)",
                 *list ? list : "none");
    }
    const char *policy = self->policy == PLACEMENT_NONE
                             ? "node requests"
                             : s_policy_name(self->policy);
    const char *s = demand == 1 ? "" : "s", *verb = demand == 1 ? "s" : "";
    if (demand <= cpus)
        return err_set(self->err,
                       "%s%s: %d stage thread%s need%s %d core%s on node %d, "
                       "it has %d%s (allow SMT siblings with siblings = true, "
                       "or use placement = none)",
                       at, policy, demand, s, verb, demand, s, node->id, cores,
                       why);
    return err_set(self->err,
                   "%s%s: %d stage thread%s need%s %d CPU%s on node %d, it has "
                   "%d%s (use placement = none, or give stages their own node "
                   "or cpus)",
                   at, policy, demand, s, verb, demand, s, node->id, cpus, why);
}

//  The demand on each node; without a policy it comes from the requests'
//  own nodes, and the first of them is where a shortage was asked for
static int s_check_demand(plan_t *self)
{
    int demand[MACHINE_MAX_NODES] = {0};
    const char *at[MACHINE_MAX_NODES] = {NULL};
    for (int i = 0; i < self->n; i++) {
        if (self->out[i].node < 0 || !cpuset_empty(&self->out[i].cpus))
            continue;
        int index = machine_node_index(self->machine, self->out[i].node);
        if (demand[index]++ == 0)
            at[index] = self->requests[i].at_node;
    }
    for (int index = 0; index < self->machine->nnodes; index++) {
        const char *where =
            self->policy == PLACEMENT_NONE ? s_at(at[index]) : self->at;
        if (!demand[index] || !s_check_node(self, index, demand[index], where))
            continue;
        cpuset_t usable;
        s_node_allowed(self->machine, index, &usable);
        if (self->policy != PLACEMENT_ALL || cpuset_empty(&usable))
            return -1;
        self->crowded[index] = true; //  all: they share the node's CPUs
        self->err->msg[0] = 0;
    }
    return 0;
}

//  placement = all, a node with too few CPUs: each of its stages may use
//  every allowed CPU of it
static void s_crowd(plan_t *self, int i)
{
    place_t *place = &self->out[i];
    int index = machine_node_index(self->machine, place->node);
    s_node_allowed(self->machine, index, &place->cpus);
    place->io_cpus = place->cpus;
    place->crowded = true;
    cpuset_union(&self->used, &place->cpus);
}

//  Pass 4: the lowest free core's first CPU, else the lowest unused CPU
static int s_allocate(plan_t *self, int i)
{
    const machine_t *machine = self->machine;
    place_t *place = &self->out[i];
    int index = machine_node_index(machine, place->node);
    cpuset_t node;
    s_node_allowed(machine, index, &node);
    int pick = -1;
    for (int cpu = cpuset_next(&node, -1); cpu >= 0 && pick < 0;
         cpu = cpuset_next(&node, cpu))
        if (s_core_free(self, cpu))
            pick = cpu;
    for (int cpu = cpuset_next(&node, -1); cpu >= 0 && pick < 0;
         cpu = cpuset_next(&node, cpu))
        if (self->allow_siblings && !cpuset_has(&self->used, cpu))
            pick = cpu;
    if (pick < 0) //  s_check_demand makes this unreachable
        return err_set(self->err, "%s: no CPU left on node %d",
                       s_name(&self->requests[i]), place->node);
    s_take(self, place, pick);
    place->io_cpus = node;
    return 0;
}

//  The physical cores a set of CPUs touches, as a set of core ids
static void s_cores_of(const machine_t *machine, const cpuset_t *cpus,
                       cpuset_t *cores)
{
    cpuset_clear(cores);
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0;
         cpu = cpuset_next(cpus, cpu))
        cpuset_add(cores, machine->core[cpu]);
}

//  Pass 5: who shares a physical core with another stage thread
static void s_mark_shared(plan_t *self)
{
    short users[CPUSET_MAX] = {0};
    cpuset_t cores;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < self->n; i++) {
            place_t *place = &self->out[i];
            s_cores_of(self->machine, &place->cpus, &cores);
            for (int core = cpuset_next(&cores, -1); core >= 0;
                 core = cpuset_next(&cores, core))
                if (pass == 0)
                    users[core]++;
                else if (users[core] > 1)
                    place->smt_shared = true;
        }
}

//  Nobody placed yet; stages checked and counted
static int s_start(plan_t *self)
{
    if (self->n < 0)
        return err_set(self->err, "placement: %d stage instances", self->n);
    for (int i = 0; i < self->n; i++) {
        const place_request_t *request = &self->requests[i];
        if (request->stage < 0)
            return err_set(self->err, "%s: stage position %d is negative",
                           s_name(request), request->stage);
        if (request->stage >= self->nstages)
            self->nstages = request->stage + 1;
        place_t *place = &self->out[i];
        place->node = -1;
        place->smt_shared = place->crowded = false;
        cpuset_clear(&place->cpus);
        cpuset_clear(&place->io_cpus);
    }
    return 0;
}

int placement_plan(const machine_t *machine, const place_options_t *options,
                   const place_request_t *requests, int n, place_t *out,
                   errbuf_t *err)
{
    placement_policy_t policy = options->policy;
    plan_t plan = {.machine = machine,
                   .policy = policy,
                   .allow_siblings = options->allow_siblings,
                   .at = s_at(options->at),
                   .requests = requests,
                   .n = n,
                   .out = out,
                   .err = err};
    plan_t *self = &plan;
    int rc = s_start(self);
    for (int i = 0; i < n && rc == 0; i++)
        if (s_has_cpus(&requests[i]))
            rc = s_place_explicit(self, i);
    for (int i = 0, index; i < n && rc == 0; i++)
        if (!s_has_cpus(&requests[i]) && (rc = s_target(self, i, &index)) == 0)
            out[i].node = index >= 0 ? machine->nodes[index].id : -1;
    if (rc == 0)
        rc = s_check_demand(self);
    for (int i = 0; i < n && rc == 0; i++)
        if (out[i].node >= 0 && cpuset_empty(&out[i].cpus) &&
            self->crowded[machine_node_index(machine, out[i].node)])
            s_crowd(self, i);
        else if (out[i].node >= 0 && cpuset_empty(&out[i].cpus))
            rc = s_allocate(self, i);
    if (rc == 0)
        s_mark_shared(self);
    return rc;
}

//  ---------------------------------------------------------------------
//  The controller: one housekeeping CPU

//  What the stages took: their CPUs, and the cores those CPUs are on
static void s_stage_cpus(const machine_t *machine, const place_t *stages,
                         int n, cpuset_t *cpus, cpuset_t *cores)
{
    cpuset_clear(cpus);
    for (int i = 0; i < n; i++)
        cpuset_union(cpus, &stages[i].cpus);
    s_cores_of(machine, cpus, cores);
}

//  Lower is better: a free core (0) before a CPU whose sibling runs a
//  stage (2), the first node (0) before the others (1)
static int s_housekeeping_rank(const machine_t *machine, const cpuset_t *cores,
                               int cpu)
{
    return (cpuset_has(cores, machine->core[cpu]) ? 2 : 0) +
           (machine->node_index[cpu] == 0 ? 0 : 1);
}

//  The best CPU no stage uses among 'candidates', -1 when all are used
static int s_free_cpu(const machine_t *machine, const cpuset_t *candidates,
                      const place_t *stages, int n)
{
    cpuset_t used, cores;
    s_stage_cpus(machine, stages, n, &used, &cores);
    int best = -1, best_rank = 99;
    for (int cpu = cpuset_next(candidates, -1); cpu >= 0;
         cpu = cpuset_next(candidates, cpu)) {
        int rank = s_housekeeping_rank(machine, &cores, cpu);
        if (!cpuset_has(&used, cpu) && rank < best_rank)
            best = cpu, best_rank = rank;
    }
    return best;
}

//  No CPU is free: the first CPU of the most upstream instance among
//  'candidates' (stage 0 is a publisher: the least work per message)
static int s_shared_cpu(const place_request_t *requests, const place_t *stages,
                        int n, const cpuset_t *candidates, int *shares)
{
    *shares = -1;
    for (int i = 0; i < n; i++) {
        int cpu = cpuset_next(&stages[i].cpus, -1);
        if (cpu >= 0 && cpuset_has(candidates, cpu) &&
            (*shares < 0 || requests[i].stage < requests[*shares].stage))
            *shares = i;
    }
    return *shares < 0 ? -1 : cpuset_next(&stages[*shares].cpus, -1);
}

//  Who else is on the controller's CPUs, and on their cores
static void s_neighbours(const machine_t *machine, const place_t *stages,
                         int n, housekeeping_t *out)
{
    cpuset_t used, cores, mine;
    s_stage_cpus(machine, stages, n, &used, &cores);
    s_cores_of(machine, &out->place.cpus, &mine);
    out->shares = -1;
    out->sibling = false;
    for (int i = 0; i < n && out->shares < 0; i++)
        for (int cpu = cpuset_next(&stages[i].cpus, -1); cpu >= 0;
             cpu = cpuset_next(&stages[i].cpus, cpu))
            if (cpuset_has(&out->place.cpus, cpu))
                out->shares = i;
    for (int core = cpuset_next(&mine, -1); core >= 0;
         core = cpuset_next(&mine, core))
        out->sibling |= cpuset_has(&cores, core);
}

static bool s_any_pinned(const place_t *stages, int n)
{
    for (int i = 0; i < n; i++)
        if (stages[i].node >= 0)
            return true;
    return false;
}

//  Where to look for the controller's CPU: its node's allowed CPUs, or
//  every allowed CPU
static int s_candidates(const machine_t *machine,
                        const place_request_t *request, cpuset_t *out,
                        errbuf_t *err)
{
    if (request->node < 0) {
        *out = machine->allowed;
        return 0;
    }
    int index = machine_node_index(machine, request->node);
    char nodes[300];
    s_node_list(machine, nodes, sizeof nodes);
    if (index < 0)
        return err_set(err, "%s%s: node %d does not exist (%s has %s)",
                       s_at(request->at_node), s_name(request), request->node,
                       machine->name, nodes);
    s_node_allowed(machine, index, out);
    if (cpuset_empty(out))
        return err_set(err,
                       "%s%s: node %d has no CPU this process may use (its "
                       "CPU set: sched_getaffinity)",
                       s_at(request->at_node), s_name(request), request->node);
    return 0;
}

int placement_controller(const machine_t *machine,
                         const place_request_t *request,
                         const place_request_t *requests,
                         const place_t *stages, int n, housekeeping_t *out,
                         errbuf_t *err)
{
    *out = (housekeeping_t){.place.node = -1, .shares = -1};
    place_t *place = &out->place;
    cpuset_clear(&place->cpus);
    cpuset_clear(&place->io_cpus);
    int node;
    if (s_has_cpus(request)) {
        if (s_explicit_cpus(machine, request, &place->cpus, &node, err))
            return -1;
    } else if (request->node < 0 && !s_any_pinned(stages, n))
        return 0; //  nothing pinned, nothing asked: nor is the controller
    else {
        cpuset_t candidates;
        if (s_candidates(machine, request, &candidates, err))
            return -1;
        int cpu = s_free_cpu(machine, &candidates, stages, n), shares;
        if (cpu < 0)
            cpu = s_shared_cpu(requests, stages, n, &candidates, &shares);
        if (cpu < 0) //  nothing free, no stage on them: unreachable
            cpu = cpuset_next(&candidates, -1);
        cpuset_add(&place->cpus, cpu);
        node = machine_node_of_cpu(machine, cpu);
    }
    place->node = node;
    place->io_cpus = place->cpus;
    s_neighbours(machine, stages, n, out);
    return 0;
}

//  ---------------------------------------------------------------------
//  Selftest

//  placement_plan with the options of a message-less test
static int s_plan(const machine_t *machine, placement_policy_t policy,
                  bool allow_siblings, const place_request_t *requests, int n,
                  place_t *out, errbuf_t *err)
{
    place_options_t options = {policy, allow_siblings, NULL};
    return placement_plan(machine, &options, requests, n, out, err);
}

//  A chain of n stages, one instance each: pub, p1, p2, ..., sub
static void s_chain(place_request_t *requests, int n)
{
    static const char *const names[] = {"pub", "p1", "p2", "p3", "p4", "p5"};
    for (int i = 0; i < n; i++)
        requests[i] = (place_request_t){.name = i == n - 1 ? "sub" : names[i % 6],
                                        .stage = i,
                                        .distance = i,
                                        .node = -1};
}

static int s_cpu(const place_t *place)
{
    return cpuset_count(&place->cpus) == 1 ? cpuset_next(&place->cpus, -1) : -2;
}

static int s_test_spread(const machine_t *xeon)
{
    int rc;
    place_request_t chain[5];
    place_t out[5];
    errbuf_t err;
    s_chain(chain, 5);
    rc = s_plan(xeon, PLACEMENT_SPREAD, false, chain, 5, out, &err);
    CHECK(rc == 0);
    cpuset_t cores;
    cpuset_clear(&cores);
    for (int i = 0; i < 5; i++) {
        CHECK(out[i].node == i % 2 && !out[i].smt_shared);
        CHECK(i == 0 || out[i].node != out[i - 1].node);
        CHECK(s_cpu(&out[i]) >= 0);
        CHECK(machine_node_of_cpu(xeon, s_cpu(&out[i])) == out[i].node);
        CHECK(!cpuset_has(&cores, xeon->core[s_cpu(&out[i])]));
        cpuset_add(&cores, xeon->core[s_cpu(&out[i])]);
        CHECK(memcmp(&out[i].io_cpus, &xeon->nodes[out[i].node].cpus,
                     sizeof(cpuset_t)) == 0);
    }
    //  Deterministic: ascending, first core first
    CHECK(s_cpu(&out[0]) == 0 && s_cpu(&out[1]) == 14);
    CHECK(s_cpu(&out[2]) == 1 && s_cpu(&out[3]) == 15 && s_cpu(&out[4]) == 2);
    return 0;
}

static int s_test_compact(const machine_t *xeon)
{
    int rc;
    place_request_t many[30];
    place_t out[30];
    errbuf_t err;
    for (int i = 0; i < 30; i++)
        many[i] = (place_request_t){
            .name = "sub", .stage = i == 0 ? 0 : 1, .node = -1};
    //  20 threads on node 0's 14 cores: 6 share a core with a sibling
    rc = s_plan(xeon, PLACEMENT_COMPACT, true, many, 20, out, &err);
    CHECK(rc == 0);
    for (int i = 0; i < 14; i++)
        CHECK(s_cpu(&out[i]) == i && out[i].node == 0);
    for (int i = 14; i < 20; i++)
        CHECK(s_cpu(&out[i]) == i + 14 && out[i].smt_shared);
    CHECK(out[0].smt_shared && out[5].smt_shared && !out[6].smt_shared);
    rc = s_plan(xeon, PLACEMENT_COMPACT, false, many, 20, out, &err);
    CHECK(rc == -1);
    CHECK(strcmp(err.msg, "compact: 20 stage threads need 20 cores on node "
                          "0, it has 14 (allow SMT siblings with siblings = "
                          "true, or use placement = none)") == 0);
    //  30 is more than node 0's 28 CPUs, siblings or not
    rc = s_plan(xeon, PLACEMENT_COMPACT, true, many, 30, out, &err);
    CHECK(rc == -1);
    CHECK(strstr(err.msg, "compact: 30 stage threads need 30 CPUs on node 0, "
                          "it has 28"));
    //  14 fit without siblings
    rc = s_plan(xeon, PLACEMENT_COMPACT, false, many, 14, out, &err);
    CHECK(rc == 0);
    CHECK(s_cpu(&out[13]) == 13 && !out[13].smt_shared);
    return 0;
}

static int s_test_split(const machine_t *xeon, const machine_t *gold)
{
    int rc;
    place_request_t chain[5];
    place_t out[5];
    errbuf_t err;
    s_chain(chain, 3);
    rc = s_plan(xeon, PLACEMENT_SPLIT, false, chain, 3, out, &err);
    CHECK(rc == 0);
    CHECK(out[0].node == 0 && out[1].node == 0 && out[2].node == 1);
    CHECK(s_cpu(&out[0]) == 0 && s_cpu(&out[1]) == 1 && s_cpu(&out[2]) == 14);
    //  Fan-out: sub.1..sub.3 share stage 2, and node 1, on their own cores
    s_chain(chain, 5);
    chain[3].stage = chain[4].stage = 2;
    rc = s_plan(xeon, PLACEMENT_SPLIT, false, chain, 5, out, &err);
    CHECK(rc == 0);
    CHECK(out[2].node == 1 && out[3].node == 1 && out[4].node == 1);
    CHECK(s_cpu(&out[3]) == 15 && s_cpu(&out[4]) == 16);

    rc = s_plan(gold, PLACEMENT_SPREAD, true, chain, 3, out, &err);
    CHECK(rc == -1);
    CHECK(strcmp(err.msg, "spread needs 2 NUMA nodes; xeon-gold-6130-1s has "
                          "1 (node 0)") == 0);
    rc = s_plan(gold, PLACEMENT_SPLIT, true, chain, 3, out, &err);
    CHECK(rc == -1);
    CHECK(strstr(err.msg, "split needs 2 NUMA nodes"));
    //  none: nobody pinned
    rc = s_plan(gold, PLACEMENT_NONE, false, chain, 3, out, &err);
    CHECK(rc == 0);
    for (int i = 0; i < 3; i++)
        CHECK(out[i].node == -1 && cpuset_empty(&out[i].cpus) &&
              cpuset_empty(&out[i].io_cpus));
    return 0;
}

//  A stage's own node or cpus win over the policy
static int s_test_requests(const machine_t *xeon)
{
    int rc;
    place_request_t chain[3];
    place_t out[3];
    errbuf_t err;
    s_chain(chain, 3);
    chain[2].node = 1;
    rc = s_plan(xeon, PLACEMENT_COMPACT, false, chain, 3, out, &err);
    CHECK(rc == 0);
    CHECK(out[0].node == 0 && out[2].node == 1 && s_cpu(&out[2]) == 14);
    rc = s_plan(xeon, PLACEMENT_NONE, false, chain, 3, out, &err);
    CHECK(rc == 0);
    CHECK(out[0].node == -1 && out[2].node == 1 && s_cpu(&out[2]) == 14);
    chain[2].node = 5;
    rc = s_plan(xeon, PLACEMENT_NONE, false, chain, 3, out, &err);
    CHECK(rc == -1);
    CHECK(strcmp(err.msg, "sub: node 5 does not exist (xeon-e5-2680v4-2s "
                          "has nodes 0-1)") == 0);
    //  Explicit CPUs are reserved first, their whole core with them
    chain[2] =
        (place_request_t){.name = "sub", .stage = 2, .node = -1, .cpus = "28"};
    rc = s_plan(xeon, PLACEMENT_COMPACT, false, chain, 3, out, &err);
    CHECK(rc == 0);
    CHECK(s_cpu(&out[2]) == 28 && out[2].node == 0);
    CHECK(s_cpu(&out[0]) == 1 && s_cpu(&out[1]) == 2 && !out[2].smt_shared);
    chain[1].cpus = "28";
    rc = s_plan(xeon, PLACEMENT_COMPACT, false, chain, 3, out, &err);
    CHECK(rc == 0);
    CHECK(out[1].smt_shared && out[2].smt_shared && !out[0].smt_shared);
    chain[2].cpus = "13-14";
    rc = s_plan(xeon, PLACEMENT_COMPACT, false, chain, 3, out, &err);
    CHECK(rc == -1);
    CHECK(strcmp(err.msg, "sub: cpus '13-14' span nodes 0 and 1 (a stage's "
                          "CPUs must share one node)") == 0);
    chain[2].cpus = "50-60";
    rc = s_plan(xeon, PLACEMENT_COMPACT, false, chain, 3, out, &err);
    CHECK(rc == -1);
    CHECK(strstr(err.msg, "sub: cpus '50-60': CPU 56 does not exist"));
    return 0;
}

//  The controller's CPU: one no stage uses, a free core's first, on the
//  first node first; none free: the most upstream stage's
static int s_test_controller(const machine_t *xeon, const machine_t *vm)
{
    place_request_t chain[5], home = {.name = "controller", .stage = -1,
                                      .node = -1};
    place_t out[5];
    housekeeping_t hk;
    errbuf_t err;
    s_chain(chain, 5);
    CHECK(s_plan(xeon, PLACEMENT_SPREAD, false, chain, 5, out, &err) == 0);
    CHECK(placement_controller(xeon, &home, chain, out, 5, &hk, &err) == 0);
    //  stages took 0, 1, 2 (node 0) and 14, 15: CPU 3 is a free core
    CHECK(s_cpu(&hk.place) == 3 && hk.place.node == 0 && hk.shares == -1);
    CHECK(!hk.sibling && cpuset_count(&hk.place.io_cpus) == 1);
    //  asked for node 1: its first free core
    home.node = 1;
    CHECK(placement_controller(xeon, &home, chain, out, 5, &hk, &err) == 0);
    CHECK(s_cpu(&hk.place) == 16 && hk.place.node == 1);
    //  its own cpus, even a stage's (then it says so)
    home = (place_request_t){.name = "controller", .stage = -1, .node = -1,
                             .cpus = "14"};
    CHECK(placement_controller(xeon, &home, chain, out, 5, &hk, &err) == 0);
    CHECK(s_cpu(&hk.place) == 14 && hk.shares == 1);
    home.cpus = "13-14";
    CHECK(placement_controller(xeon, &home, chain, out, 5, &hk, &err) == -1);
    CHECK(strstr(err.msg, "controller: cpus '13-14' span nodes 0 and 1"));
    //  nothing pinned: nor is the controller
    home = (place_request_t){.name = "controller", .stage = -1, .node = -1};
    CHECK(s_plan(xeon, PLACEMENT_NONE, false, chain, 5, out, &err) == 0);
    CHECK(placement_controller(xeon, &home, chain, out, 5, &hk, &err) == 0);
    CHECK(hk.place.node == -1 && cpuset_empty(&hk.place.cpus));
    //  vm-2x2, spread over 4 stages: every CPU taken; it shares pub's
    s_chain(chain, 4);
    CHECK(s_plan(vm, PLACEMENT_SPREAD, false, chain, 4, out, &err) == 0);
    CHECK(placement_controller(vm, &home, chain, out, 4, &hk, &err) == 0);
    CHECK(hk.shares == 0 && s_cpu(&hk.place) == 0);
    //  three stages: CPU 3 is left (on node 1)
    s_chain(chain, 3);
    CHECK(s_plan(vm, PLACEMENT_SPREAD, false, chain, 3, out, &err) == 0);
    CHECK(placement_controller(vm, &home, chain, out, 3, &hk, &err) == 0);
    CHECK(hk.shares == -1 && s_cpu(&hk.place) == 3 && hk.place.node == 1);
    return 0;
}

//  Only the CPUs this process may use; placement = all crowds a node
static int s_test_allowed(machine_t *vm)
{
    place_request_t chain[3];
    place_t out[3];
    errbuf_t err;
    cpuset_t some;
    cpuset_clear(&some);
    cpuset_add(&some, 0);
    cpuset_add(&some, 2);
    cpuset_add(&some, 3);
    machine_restrict(vm, &some); //  as taskset -c 0,2,3 would
    s_chain(chain, 3);
    chain[2].cpus = "1";
    CHECK(s_plan(vm, PLACEMENT_NONE, false, chain, 3, out, &err) == -1);
    CHECK(strcmp(err.msg, "sub: cpus '1': CPU 1 is outside this process's "
                          "CPU set 0,2-3 (sched_getaffinity: a taskset or "
                          "a cgroup's cpuset.cpus.effective narrows it)") == 0);
    chain[2].cpus = NULL;
    //  split: pub and p on node 0, which has one CPU this process may use
    CHECK(s_plan(vm, PLACEMENT_SPLIT, false, chain, 3, out, &err) == -1);
    CHECK(strstr(err.msg, "need 2 CPUs on node 0, it has 1 that this process "
                          "may use (its CPU set has 0 of the node's)"));
    CHECK(s_plan(vm, PLACEMENT_SPREAD, false, chain, 3, out, &err) == -1);
    //  placement = all: both on node 0 share its one CPU, and say so
    chain[0].node = chain[1].node = 0;
    chain[2].node = 1;
    CHECK(s_plan(vm, PLACEMENT_ALL, false, chain, 3, out, &err) == 0);
    CHECK(out[0].crowded && out[1].crowded && !out[2].crowded);
    CHECK(s_cpu(&out[0]) == 0 && s_cpu(&out[1]) == 0 && s_cpu(&out[2]) == 2);
    CHECK(cpuset_count(&out[0].io_cpus) == 1);
    chain[0].node = -1;
    CHECK(s_plan(vm, PLACEMENT_ALL, false, chain, 3, out, &err) == -1);
    CHECK(strstr(err.msg, "all: pub has no node of its own"));
    machine_restrict(vm, &vm->cpus);
    return 0;
}

int placement_test(bool verbose)
{
    int rc;
    (void)verbose;
    errbuf_t err;
    machine_t *xeon = machine_new_file("numa/xeon-e5-2680v4-2s.cfg", &err);
    machine_t *gold = machine_new_file("numa/xeon-gold-6130-1s.cfg", &err);
    machine_t *vm = machine_new_file("numa/vm-2x2.cfg", &err);
    CHECK(xeon && gold && vm);
    CHECK(s_test_spread(xeon) == 0);
    CHECK(s_test_compact(xeon) == 0);
    CHECK(s_test_split(xeon, gold) == 0);
    CHECK(s_test_requests(xeon) == 0);
    CHECK(s_test_controller(xeon, vm) == 0);
    CHECK(s_test_allowed(vm) == 0);

    //  No SMT on the VM: the third stage on node 0 has no core left
    place_request_t chain[4];
    place_t out[4];
    s_chain(chain, 4);
    rc = s_plan(vm, PLACEMENT_SPREAD, false, chain, 4, out, &err);
    CHECK(rc == 0);
    CHECK(s_cpu(&out[0]) == 0 && s_cpu(&out[1]) == 2 && s_cpu(&out[3]) == 3);
    rc = s_plan(vm, PLACEMENT_COMPACT, true, chain, 3, out, &err);
    CHECK(rc == -1);
    CHECK(strstr(err.msg, "need 3 CPUs on node 0, it has 2"));
    chain[0].cpus = "0-1";
    chain[1].node = 0;
    rc = s_plan(vm, PLACEMENT_NONE, false, chain, 2, out, &err);
    CHECK(rc == -1);
    CHECK(strcmp(err.msg, "node requests: 1 stage thread needs 1 CPU on node "
                          "0, it has 0 free (2 CPUs taken by explicit cpus) "
                          "(use placement = none, or give stages their own "
                          "node or cpus)") == 0);
    machine_destroy(&xeon);
    machine_destroy(&gold);
    machine_destroy(&vm);
    return 0;
}
