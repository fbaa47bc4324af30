/*  pin: CPU affinity and node-local memory for the calling thread.  */
#define _GNU_SOURCE
#include "pin.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static int s_pin_cpus(const cpuset_t *cpus, errbuf_t *err)
{
    cpu_set_t *set = CPU_ALLOC(CPUSET_MAX);
    size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
    CPU_ZERO_S(size, set);
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0;
         cpu = cpuset_next(cpus, cpu))
        CPU_SET_S(cpu, size, set);
    int rc = pthread_setaffinity_np(pthread_self(), size, set);
    CPU_FREE(set);
    if (rc) {
        char text[256];
        cpuset_format(cpus, text, sizeof text);
        return err_set(err, "pinning to CPUs %s: %s", text, strerror(rc));
    }
    return 0;
}

static int s_bind_memory(int node, errbuf_t *err)
{
    if (numa_available() < 0)
        return 0; //  no NUMA support: memory is all one node anyway
    struct bitmask *nodes = numa_allocate_nodemask();
    numa_bitmask_setbit(nodes, (unsigned)node);
    errno = 0;
    int rc = set_mempolicy(MPOL_BIND, nodes->maskp, nodes->size + 1);
    numa_free_nodemask(nodes);
    if (rc)
        return err_set(err, "binding memory to node %d: %s", node,
                       strerror(errno));
    return 0;
}

int pin_thread(const place_t *place, errbuf_t *err)
{
    if (!cpuset_empty(&place->cpus) && s_pin_cpus(&place->cpus, err))
        return -1;
    if (place->node >= 0 && s_bind_memory(place->node, err))
        return -1;
    return 0;
}

int pin_node_of(const void *addr)
{
    long page = sysconf(_SC_PAGESIZE);
    void *pages[1] = {(void *)((uintptr_t)addr & ~(uintptr_t)(page - 1))};
    int status[1] = {-1};
    if (move_pages(0, 1, pages, NULL, status, 0) != 0 || status[0] < 0)
        return -1;
    return status[0];
}
