/*  study: placement = all as a sweep of nodes (see study.h).

    Design: the stages that stay (their own node, their own cpus' node, or
    a node the topology's nodes key gives them) are the request; the
    assignments come from machine/assignments.c, each checked by planning
    the pipeline it makes, exactly as the run will (pipeline_new); what
    the plan says (crossings, the controller's CPU) is kept for the
    summary.
*/
#include "run/study.h"

#include <stdlib.h>
#include <string.h>

//  Where each stage must stay, -1: free
static int s_fixed(const topology_t *topo, const machine_t *machine,
                   int *fixed, errbuf_t *err)
{
    int nodes[TOPO_MAX_STAGES];
    if (topology_nodes(topo, nodes, err))
        return -1;
    for (int s = 0; s < topo->nstages; s++) {
        params_t p;
        topology_stage_params(topo, s, &p);
        fixed[s] = p.node >= 0 ? p.node : nodes[s];
        cpuset_t cpus;
        errbuf_t why;
        if (!p.cpus[0])
            continue;
        if (machine_parse_cpus(machine, p.cpus, &cpus, &why)) {
            return topology_key_error(topo, LEVEL_STAGE, s, KEY_CPUS, err,
                                      "%s: %s", topo->stages[s].name, why.msg);
        }
        fixed[s] = machine_node_of_cpu(machine, cpuset_next(&cpus, -1));
    }
    return 0;
}

//  "0+0+1"
static void s_value(const int *nodes, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int s = 0; s < n && used < len; s++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", s ? "+" : "",
                                 nodes[s]);
}

//  What the plan of one assignment says, for the summary
static void s_describe(placement_t *p, const pipeline_t *pl)
{
    p->crossings = 0;
    for (int h = 0; h < pl->nhops; h++) {
        int up = pl->inst[pl->first[pl->hops[h].up]].place.node;
        int down = pl->inst[pl->first[pl->hops[h].down]].place.node;
        p->crosses[h] = up != down;
        p->crossings += up != down;
    }
    const place_t *home = &pl->controller.place;
    cpuset_format(&home->cpus, p->controller_cpus, sizeof p->controller_cpus);
    p->controller_node = home->node;
    p->crowded = false;
    for (int i = 0; i < pl->n; i++)
        p->crowded |= pl->inst[i].place.crowded;
}

//  Plan one assignment as the run will: into the study, or refused
static void s_check(placements_t *out, const topology_t *topo,
                    const machine_t *machine, const char *value)
{
    char assignment[LIMIT_SWEEP_VALUE + 16];
    errbuf_t why = {.msg = "out of memory"};
    snprintf(assignment, sizeof assignment, "nodes=%s", value);
    topology_t *copy = topology_dup(topo);
    pipeline_t *pl = NULL;
    if (copy &&
        topology_set_as(copy, assignment, "--placement all", &why) == 0 &&
        topology_validate(copy, &why) == 0)
        pl = pipeline_new(copy, machine, &why);
    if (pl) {
        placement_t *p = &out->placement[out->n++];
        snprintf(p->nodes, sizeof p->nodes, "%s", value);
        s_describe(p, pl);
    } else {
        snprintf(out->refused[out->nrefused], sizeof out->refused[0], "%s",
                 value);
        snprintf(out->why[out->nrefused++], sizeof out->why[0], "%s",
                 why.msg);
    }
    pipeline_destroy(&pl);
    topology_destroy(&copy);
}

static void s_names(placements_t *out, const topology_t *topo)
{
    out->topo = topo;
    out->nstages = topo->nstages;
    out->nhops = topo->nhops;
    out->rate_mode = topo->params.rate > 0;
    for (int s = 0; s < topo->nstages; s++)
        snprintf(out->stage_names[s], sizeof out->stage_names[s], "%s",
                 topo->stages[s].name);
    for (int h = 0; h < topo->nhops; h++)
        snprintf(out->hop_names[h], sizeof out->hop_names[0], "%s -> %s",
                 topo->stages[topology_hop_up(topo, h)].name,
                 topo->stages[topology_hop_down(topo, h)].name);
}

//  Why a study has one assignment, when it has
static void s_note(placements_t *out, const machine_t *machine)
{
    if (out->counted.count != 1)
        return;
    if (machine->nnodes == 1)
        snprintf(out->note, sizeof out->note,
                 "%s has one NUMA node (node %d): every assignment puts "
                 "every stage on it, so there is one",
                 machine->name, machine->nodes[0].id);
    else
        snprintf(out->note, sizeof out->note,
                 "every stage has a node of its own (node or cpus): there "
                 "is one assignment");
}

static int s_enough(const placements_t *out, const topology_t *topo,
                    errbuf_t *err)
{
    char where[300];
    topology_where(topo, LEVEL_TOPOLOGY, 0, KEY_MAX_PLACEMENTS, where,
                   sizeof where);
    if (out->counted.count > topo->params.max_placements)
        return err_set(err,
                       "%splacement = all: %.0f distinct assignments of %d "
                       "stages to nodes (%.0f before renaming nodes that are "
                       "alike), more than max_placements = %d (give some "
                       "stages a node of their own, or raise max_placements, "
                       "at most %d)",
                       where, out->counted.count, topo->nstages,
                       out->counted.total, topo->params.max_placements,
                       PLACEMENTS_MAX);
    return 0;
}

int study_plan(const topology_t *topo, const machine_t *machine,
               placements_t *out, errbuf_t *err)
{
    memset(out, 0, sizeof *out);
    s_names(out, topo);
    int fixed[TOPO_MAX_STAGES];
    assign_request_t request = {topo->nstages, fixed};
    if (s_fixed(topo, machine, fixed, err) ||
        assignments_count(machine, &request, &out->counted, err) ||
        s_enough(out, topo, err))
        return -1;
    out->nnodes = machine->nnodes;
    assignments_alike(machine, &request, out->alike, sizeof out->alike);
    s_note(out, machine);
    int *nodes = calloc((size_t)PLACEMENTS_MAX * (size_t)topo->nstages,
                        sizeof *nodes);
    int n = nodes ? assignments_list(machine, &request, PLACEMENTS_MAX, nodes,
                                     err)
                  : err_set(err, "placement = all: out of memory");
    for (int a = 0; a < n; a++) {
        char value[LIMIT_SWEEP_VALUE + 1];
        s_value(nodes + (size_t)a * (size_t)topo->nstages, topo->nstages,
                value, sizeof value);
        s_check(out, topo, machine, value);
    }
    free(nodes);
    if (n >= 0 && out->n == 0)
        return err_set(err,
                       "placement = all: none of the %d assignments can run "
                       "on %s; nodes %s: %s",
                       n, machine->name, out->refused[0], out->why[0]);
    return n < 0 ? -1 : 0;
}

int study_sweep(const placements_t *study, sweep_t *sweep, errbuf_t *err)
{
    const char *values[PLACEMENTS_MAX];
    if (sweep_has(sweep, "nodes") || sweep_has(sweep, "placement"))
        return err_set(err, "placement = all sweeps nodes itself: sweep "
                            "neither nodes nor placement with it");
    for (int a = 0; a < study->n; a++)
        values[a] = study->placement[a].nodes;
    return sweep_add(sweep, "nodes", values, study->n, "--placement all", err);
}
