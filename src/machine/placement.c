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
} plan_t;

static const char *s_policy_name(placement_policy_t policy)
{
    static const char *const names[] = {"none", "compact", "spread", "split"};
    return policy >= PLACEMENT_NONE && policy <= PLACEMENT_SPLIT ? names[policy]
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

//  Pass 1: a request that names its CPUs gets exactly those
static int s_place_explicit(plan_t *self, int i)
{
    const place_request_t *request = &self->requests[i];
    const machine_t *machine = self->machine;
    place_t *place = &self->out[i];
    cpuset_t cpus;
    errbuf_t why;
    const char *at = s_at(request->at_cpus);
    if (machine_parse_cpus(machine, request->cpus, &cpus, &why))
        return err_set(self->err, "%s%s: %s", at, s_name(request), why.msg);
    int node = machine_node_of_cpu(machine, cpuset_next(&cpus, -1));
    for (int cpu = cpuset_next(&cpus, -1); cpu >= 0;
         cpu = cpuset_next(&cpus, cpu))
        if (machine_node_of_cpu(machine, cpu) != node)
            return err_set(self->err,
                           "%s%s: cpus '%s' span nodes %d and %d "
                           "(a stage's CPUs must share one node)",
                           at, s_name(request), request->cpus, node,
                           machine_node_of_cpu(machine, cpu));
    if (request->node >= 0 && request->node != node)
        return err_set(self->err,
                       "%s%s: cpus '%s' are on node %d, but it "
                       "asks for node %d",
                       at, s_name(request), request->cpus, node, request->node);
    for (int cpu = cpuset_next(&cpus, -1); cpu >= 0;
         cpu = cpuset_next(&cpus, cpu))
        s_take(self, place, cpu);
    place->node = node;
    place->io_cpus = machine->nodes[machine_node_index(machine, node)].cpus;
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
    if (self->policy == PLACEMENT_COMPACT)
        *index = 0;
    else if (machine->nnodes < 2)
        return s_needs_two_nodes(self);
    else if (self->policy == PLACEMENT_SPREAD)
        *index = request->stage % machine->nnodes;
    else if (self->policy == PLACEMENT_SPLIT)
        *index = request->stage < (self->nstages + 1) / 2 ? 0 : 1;
    else
        return err_set(self->err, "placement: unknown policy %d",
                       (int)self->policy);
    return 0;
}

//  Free cores and free CPUs of a node, now
static void s_free(const plan_t *self, int index, int *cores, int *cpus)
{
    const machine_t *machine = self->machine;
    const cpuset_t *node = &machine->nodes[index].cpus;
    *cores = *cpus = 0;
    for (int cpu = cpuset_next(node, -1); cpu >= 0;
         cpu = cpuset_next(node, cpu)) {
        cpuset_t siblings;
        machine_siblings(machine, cpu, &siblings);
        if (cpuset_next(&siblings, -1) == cpu && s_core_free(self, cpu))
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
    int taken = cpuset_count(&node->cpus) - cpus;
    char why[96] = "";
    if (taken)
        snprintf(why, sizeof why, " free (%d CPU%s taken by explicit cpus)",
                 taken, taken == 1 ? "" : "s");
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
        if (demand[index] && s_check_node(self, index, demand[index], where))
            return -1;
    }
    return 0;
}

//  Pass 4: the lowest free core's first CPU, else the lowest unused CPU
static int s_allocate(plan_t *self, int i)
{
    const machine_t *machine = self->machine;
    place_t *place = &self->out[i];
    int index = machine_node_index(machine, place->node);
    const cpuset_t *node = &machine->nodes[index].cpus;
    int pick = -1;
    for (int cpu = cpuset_next(node, -1); cpu >= 0 && pick < 0;
         cpu = cpuset_next(node, cpu))
        if (s_core_free(self, cpu))
            pick = cpu;
    for (int cpu = cpuset_next(node, -1); cpu >= 0 && pick < 0;
         cpu = cpuset_next(node, cpu))
        if (self->allow_siblings && !cpuset_has(&self->used, cpu))
            pick = cpu;
    if (pick < 0) //  s_check_demand makes this unreachable
        return err_set(self->err, "%s: no CPU left on node %d",
                       s_name(&self->requests[i]), place->node);
    s_take(self, place, pick);
    place->io_cpus = *node;
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
        place->smt_shared = false;
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
        if (out[i].node >= 0 && cpuset_empty(&out[i].cpus))
            rc = s_allocate(self, i);
    if (rc == 0)
        s_mark_shared(self);
    return rc;
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
        requests[i] = (place_request_t){
            .name = i == n - 1 ? "sub" : names[i % 6], .stage = i, .node = -1};
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
