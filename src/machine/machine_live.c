/*  machine_live: the machine this process runs on.

    Design: libnuma gives the nodes, their CPUs and distances; sysfs gives
    SMT siblings (cpuN/topology/thread_siblings_list); /proc/cpuinfo the
    model; sched_getaffinity the CPUs this process may use (a taskset or a
    cgroup's cpuset.cpus.effective narrows it; read once, before hopbench
    pins any thread of its own).  Nodes without CPUs (memory-only, e.g. CXL) are left out: no
    stage can run on them.  Without NUMA support the machine is one node 0.
    It fills the plain struct of machine.h and indexes it with
    machine_index, as machine_file.c does, so placement never knows which
    kind it got.  It must not parse what users type (machine.c does).
*/
#define _GNU_SOURCE
#include "machine/machine_internal.h"

#include "base/check.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REMOTE_DEFAULT 20 //  Linux's default when there is no SLIT
#define SYSFS_CPU      "/sys/devices/system/cpu"

//  ---------------------------------------------------------------------
//  The live machine

//  First line of a small sysfs or proc file, without its newline
static int s_read_line(const char *path, char *buf, size_t len)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    char *got = fgets(buf, (int)len, file);
    fclose(file);
    if (!got)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

//  A CPU list file ("0-3,8"); -1 if it is missing or unreadable
static int s_read_cpulist(const char *path, cpuset_t *out)
{
    char text[4096];
    cpuset_t every;
    machine_every_cpu(&every);
    if (s_read_line(path, text, sizeof text))
        return -1;
    return cpuset_parse(text, &every, out, NULL);
}

//  One libnuma node into nodes[]; memory-only nodes are skipped
static int s_live_node(machine_t *self, int id, struct bitmask *mask,
                       errbuf_t *err)
{
    if (numa_node_to_cpus(id, mask) < 0)
        return err_set(err, "numa_node_to_cpus (%d): %s", id, strerror(errno));
    cpuset_t cpus;
    cpuset_clear(&cpus);
    for (unsigned long cpu = 0; cpu < mask->size; cpu++) {
        if (!numa_bitmask_isbitset(mask, (unsigned)cpu))
            continue;
        if (cpu >= CPUSET_MAX)
            return err_set(err,
                           "node %d: CPU %lu is beyond hopbench's "
                           "limit of %d CPUs",
                           id, cpu, CPUSET_MAX);
        cpuset_add(&cpus, (int)cpu);
    }
    if (cpuset_empty(&cpus))
        return 0;
    if (self->nnodes == MACHINE_MAX_NODES)
        return err_set(err,
                       "this machine has more than %d NUMA nodes with "
                       "CPUs, hopbench's limit",
                       MACHINE_MAX_NODES);
    self->nodes[self->nnodes].id = id;
    self->nodes[self->nnodes++].cpus = cpus;
    return 0;
}

static int s_live_nodes(machine_t *self, errbuf_t *err)
{
    struct bitmask *mask = numa_allocate_cpumask();
    int rc = 0;
    for (int id = 0; id <= numa_max_node() && rc == 0; id++)
        if (numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)id))
            rc = s_live_node(self, id, mask, err);
    numa_bitmask_free(mask);
    if (rc == 0 && self->nnodes == 0)
        rc = err_set(err, "libnuma reports no NUMA node with CPUs");
    for (int i = 0; i < self->nnodes && rc == 0; i++)
        for (int j = 0; j < self->nnodes; j++) {
            int d = numa_distance(self->nodes[i].id, self->nodes[j].id);
            //  0: the kernel has no distance table; use its defaults
            self->nodes[i].distance[j] = d > 0    ? d
                                         : i == j ? LOCAL_DISTANCE
                                                  : REMOTE_DEFAULT;
        }
    return rc;
}

//  Without NUMA support: one node 0 holding every online CPU
static int s_live_flat(machine_t *self, errbuf_t *err)
{
    machine_node_t *node = &self->nodes[0];
    if (s_read_cpulist(SYSFS_CPU "/online", &node->cpus)) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        cpuset_clear(&node->cpus);
        for (long cpu = 0; cpu < online && cpu < CPUSET_MAX; cpu++)
            cpuset_add(&node->cpus, (int)cpu);
    }
    if (cpuset_empty(&node->cpus))
        return err_set(err, "cannot tell which CPUs are online (%s)",
                       SYSFS_CPU "/online");
    node->id = 0;
    node->distance[0] = LOCAL_DISTANCE;
    self->nnodes = 1;
    return 0;
}

//  The CPUs sharing cpu's core, from sysfs; just cpu if sysfs is silent
static void s_live_siblings(int cpu, cpuset_t *out)
{
    static const char *const files[] = {"thread_siblings_list",
                                        "core_cpus_list"};
    char path[128];
    cpuset_clear(out);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, SYSFS_CPU "/cpu%d/topology/%s", cpu,
                 files[i]);
        if (s_read_cpulist(path, out) == 0)
            break;
    }
    cpuset_add(out, cpu);
}

//  Core ids in ascending order of each core's first CPU
static void s_live_cores(machine_t *self)
{
    short next = 0;
    for (int cpu = cpuset_next(&self->cpus, -1); cpu >= 0;
         cpu = cpuset_next(&self->cpus, cpu)) {
        if (self->core[cpu] >= 0)
            continue;
        cpuset_t siblings;
        s_live_siblings(cpu, &siblings);
        for (int s = cpuset_next(&siblings, -1); s >= 0;
             s = cpuset_next(&siblings, s))
            if (cpuset_has(&self->cpus, s) && self->core[s] < 0)
                self->core[s] = next;
        next++;
    }
}

//  What this process may run on (taskset, a cgroup's cpuset)
static void s_live_allowed(machine_t *self)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set))
        return; //  then every CPU, as machine_index left it
    cpuset_t cpus;
    cpuset_clear(&cpus);
    for (int cpu = 0; cpu < CPUSET_MAX && cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            cpuset_add(&cpus, cpu);
    machine_restrict(self, &cpus);
}

static void s_live_model(machine_t *self)
{
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (!file)
        return;
    char line[512];
    while (fgets(line, sizeof line, file)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon)
            continue;
        colon += 1 + strspn(colon + 1, " \t");
        colon[strcspn(colon, "\n")] = 0;
        machine_copy(self->model, sizeof self->model, colon);
        break;
    }
    fclose(file);
}

machine_t *machine_new_live(errbuf_t *err)
{
    machine_t *self = machine_alloc(err);
    if (!self)
        return NULL;
    bool numa = numa_available() >= 0;
    machine_copy(self->name, sizeof self->name, "this machine");
    machine_copy(self->source, sizeof self->source,
                 numa ? "libnuma" : "libnuma (NUMA not available: one node)");
    if (numa ? s_live_nodes(self, err) : s_live_flat(self, err)) {
        machine_destroy(&self);
        return NULL;
    }
    machine_index(self);
    s_live_cores(self);
    s_live_model(self);
    s_live_allowed(self);
    return self;
}

//  ---------------------------------------------------------------------
//  Selftest
int machine_live_test(bool verbose)
{
    errbuf_t err;
    cpuset_t set;
    machine_t *live = machine_new_live(&err);
    CHECK(live);
    CHECK(!live->described && live->nnodes >= 1);
    CHECK(cpuset_has(&live->cpus, 0) && machine_node_of_cpu(live, 0) >= 0);
    for (int cpu = cpuset_next(&live->cpus, -1); cpu >= 0;
         cpu = cpuset_next(&live->cpus, cpu))
        CHECK(live->core[cpu] >= 0 && live->node_index[cpu] >= 0);
    //  what this process may use: some of its CPUs, at least the one it is on
    CHECK(cpuset_subset(&live->allowed, &live->cpus));
    CHECK(cpuset_has(&live->allowed, sched_getcpu()));
    machine_siblings(live, 0, &set);
    CHECK(cpuset_has(&set, 0));
    CHECK(machine_parse_cpus(live, "0", &set, &err) == 0);
    CHECK(cpuset_count(&set) == 1 && cpuset_has(&set, 0));
    //  libnuma's warning is captured, not printed, and named in ours
    CHECK(machine_parse_cpus(live, "0-4096", &set, &err) == -1);
    CHECK(strstr(err.msg, "cpus '0-4096': CPU 4096 does not exist on this "
                          "machine (CPUs "));
    CHECK(machine_parse_cpus(live, "0-", &set, &err) == -1);
    CHECK(strcmp(err.msg, "cpus '0-': expected a CPU number at ''") == 0);
    CHECK(machine_parse_cpus(live, "0--1", &set, &err) == -1);
    CHECK(machine_parse_cpus(live, "010", &set, &err) == -1);
    CHECK(strstr(err.msg, "leading zero"));
    CHECK(machine_parse_cpus(live, "1-0", &set, &err) == -1);
    CHECK(strstr(err.msg, "runs backwards"));
    CHECK(machine_parse_cpus(live, "0x1", &set, &err) == -1);
    CHECK(machine_parse_cpus(live, "", &set, &err) == -1);
    if (verbose)
        machine_print(live, stdout);
    machine_destroy(&live);
    return 0;
}
