/*  assignments: the distinct assignments of stages to nodes (see
    assignments.h).

    Design: first the group of renamings (node permutations that keep the
    distances, the nodes' shapes and the fixed stages' nodes), found by
    backtracking, at most ASSIGNMENTS_MAX_RENAMINGS of them.  Counting is
    Burnside's lemma over it.  Listing is a depth-first walk over the free
    stages' nodes that drops a prefix as soon as some renaming maps it to
    a smaller one: what is left at full depth is each class's smallest
    member, in lexicographic order.
*/
#include "machine/assignments.h"

#include "base/check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const machine_t *machine;
    const assign_request_t *request;
    int nnodes;
    uint8_t *perms; //  nperms x nnodes: node index -> node index
    int nperms;
    bool fixed_node[MACHINE_MAX_NODES]; //  some fixed stage is on it
    int fixed[LIMIT_STAGES];            //  each stage's node index, -1
    int free[LIMIT_STAGES];             //  the free stages, in order
    int nfree;
    errbuf_t *err;
} group_t;

//  A node's shape: the CPUs this process may use, and their cores
static void s_shape(const machine_t *machine, int index, int *cpus,
                    int *cores)
{
    cpuset_t mine, seen;
    cpuset_clear(&seen);
    const cpuset_t *all = &machine->nodes[index].cpus;
    cpuset_clear(&mine);
    for (int cpu = cpuset_next(all, -1); cpu >= 0; cpu = cpuset_next(all, cpu))
        if (cpuset_has(&machine->allowed, cpu)) {
            cpuset_add(&mine, cpu);
            if (machine->core[cpu] >= 0)
                cpuset_add(&seen, machine->core[cpu]);
        }
    *cpus = cpuset_count(&mine);
    *cores = cpuset_count(&seen);
}

static bool s_alike(const group_t *g, int a, int b)
{
    int cpus_a, cores_a, cpus_b, cores_b;
    s_shape(g->machine, a, &cpus_a, &cores_a);
    s_shape(g->machine, b, &cpus_b, &cores_b);
    return cpus_a == cpus_b && cores_a == cores_b;
}

//  Can node p go to q, given where the nodes before p went?
static bool s_fits(const group_t *g, const uint8_t *perm, int p, int q)
{
    const machine_node_t *nodes = g->machine->nodes;
    if ((g->fixed_node[p] || g->fixed_node[q]) && p != q)
        return false;
    if (!s_alike(g, p, q) || nodes[p].distance[p] != nodes[q].distance[q])
        return false;
    for (int r = 0; r < p; r++)
        if (nodes[p].distance[r] != nodes[q].distance[perm[r]] ||
            nodes[r].distance[p] != nodes[perm[r]].distance[q])
            return false;
    return true;
}

static int s_renamings(group_t *g, uint8_t *perm, bool *used, int p)
{
    if (p == g->nnodes) {
        if (g->nperms == ASSIGNMENTS_MAX_RENAMINGS)
            return err_set(g->err,
                           "%s has more than %d renamings of its nodes "
                           "that change nothing: give some stages a node "
                           "of their own",
                           g->machine->name, ASSIGNMENTS_MAX_RENAMINGS);
        memcpy(g->perms + (size_t)g->nperms++ * (size_t)g->nnodes, perm,
               (size_t)g->nnodes);
        return 0;
    }
    for (int q = 0; q < g->nnodes; q++) {
        if (used[q] || !s_fits(g, perm, p, q))
            continue;
        perm[p] = (uint8_t)q;
        used[q] = true;
        int rc = s_renamings(g, perm, used, p + 1);
        used[q] = false;
        if (rc)
            return -1;
    }
    return 0;
}

static void s_group_free(group_t *g)
{
    free(g->perms);
    g->perms = NULL;
}

static int s_group(group_t *g, const machine_t *machine,
                   const assign_request_t *request, errbuf_t *err)
{
    *g = (group_t){.machine = machine,
                   .request = request,
                   .nnodes = machine->nnodes,
                   .err = err};
    for (int s = 0; s < request->nstages; s++) {
        int id = request->fixed[s];
        g->fixed[s] = id >= 0 ? machine_node_index(machine, id) : -1;
        if (id >= 0 && g->fixed[s] < 0)
            return err_set(err, "stage %d asks for node %d, which %s has not",
                           s + 1, id, machine->name);
        if (id >= 0)
            g->fixed_node[g->fixed[s]] = true;
        else
            g->free[g->nfree++] = s;
    }
    g->perms = malloc((size_t)ASSIGNMENTS_MAX_RENAMINGS * (size_t)g->nnodes);
    if (!g->perms)
        return err_set(err, "assignments: out of memory");
    uint8_t perm[MACHINE_MAX_NODES];
    bool used[MACHINE_MAX_NODES] = {false};
    if (s_renamings(g, perm, used, 0)) {
        s_group_free(g);
        return -1;
    }
    return 0;
}

int assignments_count(const machine_t *machine, const assign_request_t *request,
                      assign_count_t *out, errbuf_t *err)
{
    group_t g;
    if (s_group(&g, machine, request, err))
        return -1;
    double sum = 0;
    for (int p = 0; p < g.nperms; p++) {
        int fixed_points = 0;
        for (int i = 0; i < g.nnodes; i++)
            fixed_points += g.perms[(size_t)p * (size_t)g.nnodes + i] == i;
        sum += pow(fixed_points, g.nfree);
    }
    *out = (assign_count_t){.count = round(sum / g.nperms),
                            .total = pow(g.nnodes, g.nfree),
                            .renamings = g.nperms,
                            .free = g.nfree};
    s_group_free(&g);
    return 0;
}

//  Does some renaming map v[0..depth] to something smaller?
static bool s_smaller_image(const group_t *g, const int *v, int depth)
{
    for (int p = 1; p < g->nperms; p++) { //  0 is the identity
        const uint8_t *perm = g->perms + (size_t)p * (size_t)g->nnodes;
        for (int d = 0; d <= depth; d++) {
            if (perm[v[d]] != v[d]) {
                if (perm[v[d]] < v[d])
                    return true;
                break;
            }
        }
    }
    return false;
}

typedef struct {
    const group_t *g;
    int max, n;
    int *nodes;
    int v[LIMIT_STAGES]; //  node index of each free stage, so far
} walk_t;

static void s_emit(walk_t *walk)
{
    const group_t *g = walk->g;
    int nstages = g->request->nstages;
    int *out = walk->nodes + (size_t)walk->n++ * (size_t)nstages;
    for (int s = 0; s < nstages; s++)
        out[s] = g->fixed[s] >= 0 ? g->request->fixed[s] : -1;
    for (int d = 0; d < g->nfree; d++)
        out[g->free[d]] = g->machine->nodes[walk->v[d]].id;
}

static void s_walk(walk_t *walk, int depth)
{
    const group_t *g = walk->g;
    if (depth == g->nfree) {
        if (walk->n < walk->max)
            s_emit(walk);
        return;
    }
    for (int q = 0; q < g->nnodes && walk->n < walk->max; q++) {
        walk->v[depth] = q;
        if (!s_smaller_image(g, walk->v, depth))
            s_walk(walk, depth + 1);
    }
}

int assignments_list(const machine_t *machine, const assign_request_t *request,
                     int max, int *nodes, errbuf_t *err)
{
    group_t g;
    if (s_group(&g, machine, request, err))
        return -1;
    walk_t walk = {.g = &g, .max = max, .nodes = nodes};
    s_walk(&walk, 0);
    s_group_free(&g);
    return walk.n;
}

//  Classes of nodes some renaming swaps, described
void assignments_alike(const machine_t *machine,
                       const assign_request_t *request, char *buf, size_t len)
{
    group_t g;
    errbuf_t err;
    int class[MACHINE_MAX_NODES];
    snprintf(buf, len, "no two nodes are alike");
    if (s_group(&g, machine, request, &err))
        return;
    for (int i = 0; i < g.nnodes; i++)
        class[i] = i;
    for (int p = 0; p < g.nperms; p++)
        for (int i = 0; i < g.nnodes; i++) {
            int j = g.perms[(size_t)p * (size_t)g.nnodes + i];
            int low = class[i] < class[j] ? class[i] : class[j];
            class[i] = class[j] = low;
        }
    s_group_free(&g);
    size_t used = 0;
    for (int c = 0; c < g.nnodes; c++) {
        cpuset_t ids;
        cpuset_clear(&ids);
        for (int i = 0; i < g.nnodes; i++)
            if (class[i] == c)
                cpuset_add(&ids, machine->nodes[i].id);
        if (cpuset_count(&ids) < 2 || used >= len)
            continue;
        char list[256];
        cpuset_format(&ids, list, sizeof list);
        used += (size_t)snprintf(buf + used, len - used, "%snodes %s are alike",
                                 used ? "; " : "", list);
    }
}

//  ---------------------------------------------------------------------
//  Selftest: studies on the machines of numa/

static int s_study(const machine_t *machine, int nstages, const int *fixed,
                   int *nodes, int max, double *count)
{
    assign_request_t request = {nstages, fixed};
    assign_count_t counted;
    errbuf_t err;
    if (assignments_count(machine, &request, &counted, &err))
        return -1;
    *count = counted.count;
    return assignments_list(machine, &request, max, nodes, &err);
}

int assignments_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    machine_t *vm = machine_new_file("numa/vm-2x2.cfg", &err);
    machine_t *xeon = machine_new_file("numa/xeon-e5-2680v4-2s.cfg", &err);
    machine_t *gold = machine_new_file("numa/xeon-gold-6130-1s.cfg", &err);
    CHECK(vm && xeon && gold);
    int nodes[64 * 5], free3[3] = {-1, -1, -1};
    double count;
    //  3 stages on 2 alike nodes: 000 001 010 011 (8 before renaming)
    CHECK(s_study(vm, 3, free3, nodes, 64, &count) == 4 && count == 4);
    int want[] = {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1};
    CHECK(memcmp(nodes, want, sizeof want) == 0);
    //  sub fixed on node 1: the others go anywhere, 4 assignments
    int fixed[3] = {-1, -1, 1};
    CHECK(s_study(vm, 3, fixed, nodes, 64, &count) == 4 && count == 4);
    CHECK(nodes[2] == 1 && nodes[3 * 3] == 1 && nodes[3 * 3 + 1] == 1);
    //  chain3 (5 stages) on the Xeon: 2^5 / 2
    int free5[5] = {-1, -1, -1, -1, -1};
    CHECK(s_study(xeon, 5, free5, nodes, 64, &count) == 16 && count == 16);
    CHECK(s_study(xeon, 5, free5, nodes, 3, &count) == 3);
    //  one node: one assignment
    CHECK(s_study(gold, 5, free5, nodes, 64, &count) == 1 && count == 1);
    CHECK(nodes[0] == 0 && nodes[4] == 0);
    char text[128];
    assign_request_t request = {3, free3};
    assignments_alike(xeon, &request, text, sizeof text);
    CHECK(strcmp(text, "nodes 0-1 are alike") == 0);
    assignments_alike(gold, &request, text, sizeof text);
    CHECK(strcmp(text, "no two nodes are alike") == 0);

    //  Three nodes, alike (numa-vm-run -n 3): 1 + 3 + 1 classes of 3
    //  stages (all on one, two on one node, all apart); 27 before renaming
    machine_t *three = machine_new_text(
        "three.cfg",
        "machine = three\nnode = 0\n    cpus = 0-1\n    distances = 10,20,20\n"
        "node = 1\n    cpus = 2-3\n    distances = 20,10,20\n"
        "node = 2\n    cpus = 4-5\n    distances = 20,20,10\n",
        &err);
    CHECK(three);
    CHECK(s_study(three, 3, free3, nodes, 64, &count) == 5 && count == 5);
    int want3[] = {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 2};
    CHECK(memcmp(nodes, want3, sizeof want3) == 0);
    machine_destroy(&three);
    machine_destroy(&vm);
    machine_destroy(&xeon);
    machine_destroy(&gold);
    return 0;
}
