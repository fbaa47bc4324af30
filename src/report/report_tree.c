/*  report_tree: the graph of a topology as hopbench understood it, drawn
    sources first (check --verbose, and plan for a tree).

        pub (publisher)
        `-- hop 1 tcp --> core (proxy, steerable)
            |-- hop 2 tcp --> eu (proxy, steerable)
            |   `-- hop 5 ipc --> eu-sub x2 (subscriber)
            `-- hop 3 tcp --> us (proxy, steerable)
                `-- hop 6 ipc --> us-sub x2 (subscriber)

    Each publisher starts a tree of what it reaches, its links in number
    order.  A stage that several upstreams feed (a fan-in) is drawn in
    full under the first of them and named "(above)" under the others, so
    every link shows once.  Nothing here validates: the topology is.

        west x3 (publisher)
        `-- hop 1 ipc --> edge-west (proxy, forwarder)
            `-- hop 3 tcp --> core (proxy, steerable)
                `-- hop 5 tcp --> sub (subscriber)
        east x3 (publisher)
        `-- hop 2 ipc --> edge-east (proxy, steerable)
            `-- hop 4 tcp --> core (above)
*/
#include "report/report_tree.h"

#include <string.h>

#define TREE_INDENT_MAX (4 * LIMIT_STAGES + 1)

//  "core (proxy, steerable)", "sub x4 (subscriber)"
static void s_stage_words(const topology_t *topo, int s, char *buf, size_t len)
{
    params_t p;
    topology_stage_params(topo, s, &p);
    const topo_stage_t *stage = &topo->stages[s];
    char count[16] = "";
    if (p.count > 1)
        snprintf(count, sizeof count, " x%d", p.count);
    if (stage->role == ROLE_PROXY)
        snprintf(buf, len, "%s%s (proxy, %s)", stage->name, count,
                 engine_name(p.engine));
    else
        snprintf(buf, len, "%s%s (%s)", stage->name, count,
                 pattern_role_names[stage->role]);
}

//  The links out of stage s, below it; drawn[] marks stages drawn whole
static void s_below(FILE *out, const topology_t *topo, int s, char *indent,
                    bool *drawn)
{
    const shape_t *shape = &topo->shape;
    size_t depth = strlen(indent);
    for (int h = shape_next_out(shape, s, -1); h >= 0;) {
        int next = shape_next_out(shape, s, h);
        int down = topology_hop_down(topo, h);
        params_t hop;
        char words[2 * LIMIT_NAME + 64];
        topology_hop_params(topo, h, &hop);
        s_stage_words(topo, down, words, sizeof words);
        fprintf(out, "%s%s hop %d %s --> %s%s\n", indent,
                next >= 0 ? "|--" : "`--", h + 1,
                params_transport_names[hop.transport],
                drawn[down] ? topo->stages[down].name : words,
                drawn[down] ? " (above)" : "");
        if (!drawn[down] && depth + 4 < TREE_INDENT_MAX) {
            drawn[down] = true;
            snprintf(indent + depth, TREE_INDENT_MAX - depth, "%s",
                     next >= 0 ? "|   " : "    ");
            s_below(out, topo, down, indent, drawn);
            indent[depth] = 0;
        }
        h = next;
    }
}

void report_tree(FILE *out, const topology_t *topo)
{
    bool drawn[LIMIT_STAGES] = {false};
    char indent[TREE_INDENT_MAX] = "";
    fprintf(out, "%s: %d stages, %d hops, sources first\n", topo->name,
            topo->nstages, topo->nhops);
    for (int s = 0; s < topo->nstages; s++) {
        char words[2 * LIMIT_NAME + 64];
        if (shape_inputs(&topo->shape, s) > 0)
            continue; //  reached from a source
        s_stage_words(topo, s, words, sizeof words);
        fprintf(out, "%s\n", words);
        drawn[s] = true;
        s_below(out, topo, s, indent, drawn);
    }
}
