/*  fuzz_machine: libFuzzer target for machine descriptions (numa/ files).

    The input is a description, as `hopbench machine --machine FILE` reads
    it (machine_new_text, the in-memory twin of machine_new_file).  A
    machine that loads is then used as hopbench uses one: printed, asked
    about its CPUs, and planned on: a fixed pipeline under every placement
    policy, plus one whose stages name their own CPUs and node (SMT
    siblings allowed or not: the input's length is odd or even).

    Property, beyond the sanitizers: what placement relies on holds for
    every CPU (in its node's list, on a core), and nodes come
    in ascending id order with distance 10 to themselves.
*/
#include "fuzz.h"
#include "pipeline/pipeline.h"
#include "config/topology.h"

#include <stdlib.h>
#include <string.h>

static const char *s_topologies[] = {
    "topology = chain\n"
    "publisher = pub\n    count = 2\n"
    "hop\nproxy = p1\nhop = inproc\nproxy = p2\nhop = ipc\n"
    "subscriber = sub\n    count = 3\n",
    "topology = asks\n"
    "publisher = pub\n    cpus = 1-2\n"
    "hop\nproxy = p1\n    node = 1\n"
    "hop\nsubscriber = sub\n    cpus = !0-1\n",
};
#define TOPOLOGIES (sizeof s_topologies / sizeof s_topologies[0])

static void s_check(const machine_t *m, const char *input)
{
    for (int i = 0; i < m->nnodes; i++)
        if (m->nodes[i].distance[i] != 10 ||
            (i > 0 && m->nodes[i].id <= m->nodes[i - 1].id))
            fuzz_fail(input, "node %d: distance or order", m->nodes[i].id);
    for (int cpu = cpuset_next(&m->cpus, -1); cpu >= 0;
         cpu = cpuset_next(&m->cpus, cpu)) {
        int node = machine_node_of_cpu(m, cpu);
        if (node < 0 || m->core[cpu] < 0 ||
            !cpuset_has(&m->nodes[machine_node_index(m, node)].cpus, cpu))
            fuzz_fail(input, "CPU %d: node %d, core %d", cpu, node,
                      m->core[cpu]);
    }
}

//  Every policy for each fixed topology
static void s_plan(const machine_t *m, bool siblings)
{
    static topology_t *topos[TOPOLOGIES];
    for (size_t t = 0; t < TOPOLOGIES; t++) {
        errbuf_t err;
        if (!topos[t] &&
            !(topos[t] = topology_load_text("fuzz.cfg", s_topologies[t], &err)))
            fuzz_fail(s_topologies[t], "fixed topology: %s", err.msg);
        for (int policy = 0; params_placement_names[policy]; policy++) {
            topos[t]->params.placement = policy;
            topos[t]->params.siblings = siblings;
            pipeline_t *pl = pipeline_new(topos[t], m, &err);
            pipeline_destroy(&pl);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return -1;
    errbuf_t err = {0};
    machine_t *m = machine_new_text("fuzz.cfg", text, &err);
    if (!m)
        fuzz_check_refusal(text, "fuzz.cfg", err.msg);
    if (m) {
        s_check(m, text);
        machine_print(m, fuzz_null());
        cpuset_t cpus;
        machine_parse_cpus(m, "0-3,8", &cpus, &err);
        s_plan(m, size % 2); //  one bit of the input: siblings or not
    }
    machine_destroy(&m);
    free(text);
    return 0;
}
