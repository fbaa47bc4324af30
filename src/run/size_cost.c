/*  size_cost: a candidate's cost, planned and measured, the order
    candidates are tried in, and the Pareto front; see size_cost.h.
*/
#include "run/size_cost.h"

#include "base/check.h"
#include "machine/cpuset.h"
#include "machine/machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const size_cost_units[] = {"cores", "hosts", "yours"};

//  The CPUs a broker's cpus = reserves for it (0: none asked for)
static double s_reserved(const instance_t *inst)
{
    return inst->params.cpus[0] ? cpuset_count(&inst->place.cpus) : 0;
}

//  The cost = of the host instance id runs on, 0 when it has none
static double s_host_cost(const pipeline_t *pl, const fleet_t *fleet, int id)
{
    const char *name = pipeline_host(pl, id);
    for (int h = 0; name[0] && h < fleet_size(fleet); h++)
        if (strcmp(fleet_name(fleet, h), name) == 0)
            return fleet_host(fleet, h)->cost;
    return 0;
}

//  The CPUs the load generators may run on: those they are pinned to,
//  or every CPU of the plan where one is not
static double s_generators(const pipeline_t *pl)
{
    cpuset_t all;
    cpuset_clear(&all);
    for (int id = 0; id < pl->n; id++) {
        const place_t *at = &pl->inst[id].place;
        if (pl->inst[id].role == ROLE_PROXY)
            continue;
        if (cpuset_empty(&at->cpus))
            return cpuset_count(&pl->allowed);
        for (int c = cpuset_next(&at->cpus, -1); c >= 0;
             c = cpuset_next(&at->cpus, c))
            cpuset_add(&all, c);
    }
    return cpuset_count(&all);
}

//  The unit of a candidate's brokers: all with a host's cost, all with
//  their own, or none with either; -1 when they mix (err names two)
static int s_unit(const pipeline_t *pl, const fleet_t *fleet, errbuf_t *err)
{
    int kind[3] = {-1, -1, -1}; //  an instance of each unit
    for (int id = 0; id < pl->n; id++) {
        if (pl->inst[id].role != ROLE_PROXY)
            continue;
        int unit = s_host_cost(pl, fleet, id) > 0 ? COST_HOSTS
                   : pl->inst[id].params.cost > 0 ? COST_YOURS
                                                  : COST_CORES;
        kind[unit] = kind[unit] < 0 ? id : kind[unit];
    }
    int units = (kind[0] >= 0) + (kind[1] >= 0) + (kind[2] >= 0);
    if (units > 1) {
        int a = kind[0] >= 0 ? kind[0] : kind[1];
        int b = kind[2] >= 0 ? kind[2] : kind[1];
        return err_set(err,
                       "its brokers' cost is in two units: %s in %s, %s in "
                       "%s (give every broker's host a cost =, or every "
                       "broker its own, or none)",
                       pl->inst[a].name, size_cost_units[a == kind[0] ? 0 : 1],
                       pl->inst[b].name, size_cost_units[b == kind[2] ? 2 : 1]);
    }
    return kind[1] >= 0 ? COST_HOSTS : kind[2] >= 0 ? COST_YOURS : COST_CORES;
}

//  hosts: each host that carries a broker, once
static double s_hosts(const pipeline_t *pl, const fleet_t *fleet)
{
    double cost = 0;
    for (int id = 0; id < pl->n; id++) {
        bool first = pl->inst[id].role == ROLE_PROXY;
        for (int j = 0; j < id && first; j++)
            first = pl->inst[j].role != ROLE_PROXY ||
                    strcmp(pipeline_host(pl, j), pipeline_host(pl, id));
        cost += first ? s_host_cost(pl, fleet, id) : 0;
    }
    return cost;
}

//  cores: the CPUs one host gives its brokers, where they are all on one
//  (this one: the plan's CPUs), else 0
static double s_cap(const pipeline_t *pl)
{
    for (int id = 0; id < pl->n; id++)
        if (pl->inst[id].role == ROLE_PROXY && pipeline_host(pl, id)[0])
            return 0;
    return cpuset_count(&pl->allowed);
}

int size_cost_plan(const pipeline_t *pl, const fleet_t *fleet, size_cost_t *out,
                   errbuf_t *err)
{
    memset(out, 0, sizeof *out);
    int unit = s_unit(pl, fleet, err);
    if (unit < 0)
        return -1;
    out->unit = (cost_unit_t)unit;
    out->generators = s_generators(pl);
    out->cap = unit == COST_CORES ? s_cap(pl) : 0;
    for (int id = 0; id < pl->n; id++) {
        const instance_t *inst = &pl->inst[id];
        if (inst->role != ROLE_PROXY)
            continue;
        out->reserved += s_reserved(inst);
        out->planned +=
            unit == COST_YOURS ? inst->params.cost : fmax(1, s_reserved(inst));
    }
    if (unit == COST_HOSTS)
        out->planned = s_hosts(pl, fleet);
    if (out->cap > 0)
        out->planned = fmin(out->planned, out->cap);
    return 0;
}

double size_cost_measured(const pipeline_t *pl, const size_cost_t *plan,
                          const double *busy)
{
    if (plan->unit != COST_CORES)
        return plan->planned;
    double cores = 0;
    for (int id = 0; id < pl->n; id++)
        if (pl->inst[id].role == ROLE_PROXY)
            cores +=
                fmax(fmax(1, ceil(busy[id] - 1e-6)), s_reserved(&pl->inst[id]));
    return plan->cap > 0 ? fmin(cores, plan->cap) : cores;
}

static const size_cost_t *s_sorting;

static int s_cheaper(const void *a, const void *b)
{
    const size_cost_t *x = &s_sorting[*(const int *)a],
                      *y = &s_sorting[*(const int *)b];
    if (x->planned != y->planned)
        return x->planned < y->planned ? -1 : 1;
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
            if (j != i && rate[j] > 0 && cost[j] <= cost[i] &&
                rate[j] >= rate[i] && (cost[j] < cost[i] || rate[j] > rate[i]))
                front[i] = false;
    }
}

//  ------------------------------------------------------------------------
//  Selftest

//  A topology's pipeline planned on a described machine
static pipeline_t *s_plan(const char *text, const char *machine_file,
                          topology_t **topo, machine_t **machine)
{
    errbuf_t err;
    *topo = topology_load_text("t.cfg", text, &err);
    *machine = *topo ? machine_new_file(machine_file, &err) : NULL;
    if (!*machine || topology_validate(*topo, &err))
        return NULL;
    return pipeline_new(*topo, *machine, &err);
}

static void s_free(pipeline_t **pl, topology_t **topo, machine_t **machine)
{
    pipeline_destroy(pl);
    machine_destroy(machine);
    topology_destroy(topo);
}

//  One broker: a core however it is placed; its busy cores rounded up,
//  or the CPUs it reserves
static int s_test_proxy(const char *machine_file, const char *sets,
                        const char *broker)
{
    char text[512];
    snprintf(text, sizeof text,
             "topology = t\n    sizes = 64\n%spublisher = pub\nhop\n"
             "proxy = broker\n%shop\nsubscriber = sub\n",
             sets, broker);
    topology_t *topo;
    machine_t *machine;
    pipeline_t *pl = s_plan(text, machine_file, &topo, &machine);
    size_cost_t c;
    errbuf_t err;
    CHECK(pl && size_cost_plan(pl, NULL, &c, &err) == 0);
    double busy[PIPELINE_MAX_INSTANCES] = {0}, reserved = c.reserved;
    CHECK(c.unit == COST_CORES && c.planned == (reserved ? reserved : 1));
    busy[1] = 0.3; //  the broker is instance 1
    CHECK(size_cost_measured(pl, &c, busy) == (reserved ? reserved : 1));
    busy[1] = 2.4;
    CHECK(size_cost_measured(pl, &c, busy) == fmax(3, reserved));
    busy[0] = busy[2] = 9; //  the load generators never count
    CHECK(size_cost_measured(pl, &c, busy) == fmax(3, reserved));
    CHECK(c.generators >= 1 && c.generators <= cpuset_count(&pl->allowed));
    s_free(&pl, &topo, &machine);
    return 0;
}

int size_cost_test(bool verbose)
{
    (void)verbose;
    //  unpinned, pinned by the placement, and reserving two CPUs
    const char *xeon = "numa/xeon-e5-2680v4-2s.cfg";
    const char *compact = "    placement = compact\n";
    if (s_test_proxy(xeon, "", "") || s_test_proxy(xeon, compact, "") ||
        s_test_proxy(xeon, "", "    cpus = 0-1\n") ||
        s_test_proxy("numa/xeon-gold-6130-1s.cfg", compact, ""))
        return 1;
    //  four brokers of a tree on the Xeon: 4 planned, at most its 56
    //  CPUs however busy
    topology_t *topo;
    machine_t *machine;
    pipeline_t *pl =
        s_plan("topology = t\n    placement = compact\n"
               "publisher = pub\nhop\nproxy = core\n"
               "proxy = eu\n    from = core\nhop\nsubscriber = a\n"
               "proxy = us\n    from = core\nhop\nsubscriber = b\n"
               "proxy = ap\n    from = core\nhop\nsubscriber = c\n",
               xeon, &topo, &machine);
    size_cost_t c;
    errbuf_t err;
    CHECK(pl && size_cost_plan(pl, NULL, &c, &err) == 0 && c.planned == 4);
    double busy[PIPELINE_MAX_INSTANCES];
    for (int i = 0; i < PIPELINE_MAX_INSTANCES; i++)
        busy[i] = 30;
    CHECK(c.cap == 56 && size_cost_measured(pl, &c, busy) == 56);
    s_free(&pl, &topo, &machine);
    //  a broker's own cost beside another's cores: two units, refused
    pl = s_plan("topology = t\npublisher = pub\nhop\nproxy = a\n    cost = 3\n"
                "hop\nproxy = b\nhop\nsubscriber = s\n",
                xeon, &topo, &machine);
    CHECK(pl && size_cost_plan(pl, NULL, &c, &err) == -1 &&
          strstr(err.msg, "b in cores") && strstr(err.msg, "a in yours"));
    s_free(&pl, &topo, &machine);
    //  the order: planned cost, then the generators' CPUs, then as given
    size_cost_t o[4] = {{.planned = 4, .generators = 2},
                        {.planned = 2, .generators = 3},
                        {.planned = 2, .generators = 1},
                        {.planned = 8, .generators = 0}};
    int order[4];
    size_cost_order(o, 4, order);
    CHECK(order[0] == 2 && order[1] == 1 && order[2] == 0 && order[3] == 3);
    double cost[5] = {1, 2, 2, 3, 4}, rate[5] = {100, 150, 120, 150, 0};
    bool front[5];
    size_cost_pareto(cost, rate, 5, front);
    CHECK(front[0] && front[1] && !front[2] && !front[3] && !front[4]);
    return 0;
}
