/*  machine: the NUMA machine hopbench plans for.

    Either the live machine (libnuma for nodes, CPUs and distances; sysfs
    for SMT siblings and the CPU model) or a description file in numa/
    (ZPL, see numa/README.md), so a 2-socket run can be planned on a
    laptop and tests can plan for boxes we do not have.  Nodes are kept in
    ascending id order; "index" below means the position in that order.

    'allowed' is what this process may use: for the live machine its CPU
    set when the machine was read (sched_getaffinity, which a taskset or a
    cgroup's cpuset.cpus.effective narrows), for a description every CPU.
    Placement hands out only allowed CPUs and refuses lists outside them.
*/
#ifndef HOPBENCH_MACHINE_H
#define HOPBENCH_MACHINE_H

#include <stdbool.h>
#include <stdio.h>

#include "machine/cpuset.h"
#include "base/errbuf.h"

#define MACHINE_MAX_NODES LIMIT_NODES

typedef struct {
    int id;                          //  node number as Linux numbers it
    cpuset_t cpus;                   //  its CPUs
    int distance[MACHINE_MAX_NODES]; //  to each node, by index
} machine_node_t;

typedef struct {
    char name[64];    //  "this machine" or the description's name
    char model[128];  //  CPU model
    char source[256]; //  "libnuma" or the description's path
    bool described;   //  from a file, not the live machine
    int nnodes;
    machine_node_t nodes[MACHINE_MAX_NODES];
    cpuset_t cpus;          //  every CPU
    cpuset_t allowed;       //  the CPUs this process may use (see above)
    short core[CPUSET_MAX]; //  physical core of each CPU (unique), -1: none
    short node_index[CPUSET_MAX]; //  index into nodes[] of each CPU, -1
} machine_t;

//  The machine this process runs on
machine_t *machine_new_live(errbuf_t *err);
//  A description; errors say "path:line: ..."
machine_t *machine_new_file(const char *path, errbuf_t *err);
//  Same, from text in memory (path is only used in messages and source)
machine_t *machine_new_text(const char *path, const char *text, errbuf_t *err);
void machine_destroy(machine_t **self_p);

//  Index of node 'id' in nodes[], -1 if there is no such node
int machine_node_index(const machine_t *self, int id);
//  Node id of a CPU, -1 if there is no such CPU
int machine_node_of_cpu(const machine_t *self, int cpu);
//  The CPUs that share cpu's physical core, cpu included
void machine_siblings(const machine_t *self, int cpu, cpuset_t *out);
//  Only these CPUs (and the machine's) are allowed from now on; a stage's
//  own process takes its controller's set this way
void machine_restrict(machine_t *self, const cpuset_t *cpus);
//  Does this process own the whole machine (allowed is every CPU)?
bool machine_all_allowed(const machine_t *self);
//  Parse a numactl CPU list ("0-3,8") naming CPUs of this machine: with
//  libnuma's parser for the live machine, cpuset_parse for a description
int machine_parse_cpus(const machine_t *self, const char *text, cpuset_t *out,
                       errbuf_t *err);
//  What `hopbench machine` prints: nodes, CPUs, cores/siblings, distances
void machine_print(const machine_t *self, FILE *out);
//  The machine as a description (numa/README.md) called 'name', which
//  machine_new_text reads back to the same nodes, cores and distances;
//  -1 if its SMT siblings are not one smt_offset apart (then written as
//  one CPU per core)
int machine_describe(const machine_t *self, const char *name, FILE *out);

//  The selftests: a described machine (and machine.c's questions asked
//  of described machines), and the live one
int machine_file_test(bool verbose);
int machine_live_test(bool verbose);

#endif
