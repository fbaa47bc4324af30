/*  pin: CPU affinity and node-local memory for the calling thread.

    Nothing here allocates: a thread's first malloc sets up its glibc
    arena, and whatever that touches before the bind stays on the node the
    thread happened to run on.  So the masks live on the stack, and memory
    is bound before the thread moves.
*/
#define _GNU_SOURCE
#include "machine/pin.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define PIN_MAX_NODES (LIMIT_NODE_ID + 1) //  node ids a description may use
#define LONG_BITS     (8 * (int)sizeof(unsigned long))

_Static_assert(CPUSET_MAX <= CPU_SETSIZE, "a cpuset_t fits a cpu_set_t");

static int s_pin_cpus(const cpuset_t *cpus, errbuf_t *err)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0;
         cpu = cpuset_next(cpus, cpu))
        CPU_SET(cpu, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
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
    if (node >= PIN_MAX_NODES)
        return err_set(err, "binding memory to node %d: beyond node %d", node,
                       PIN_MAX_NODES - 1);
    unsigned long nodes[PIN_MAX_NODES / LONG_BITS] = {0};
    nodes[node / LONG_BITS] |= 1UL << (node % LONG_BITS);
    //  maxnode counts one more than the mask's bits, as libnuma passes it
    if (set_mempolicy(MPOL_BIND, nodes, PIN_MAX_NODES + 1))
        return err_set(err, "binding memory to node %d: %s", node,
                       strerror(errno));
    return 0;
}

int pin_thread(const place_t *place, errbuf_t *err)
{
    if (place->node >= 0 && s_bind_memory(place->node, err))
        return -1;
    if (!cpuset_empty(&place->cpus) && s_pin_cpus(&place->cpus, err))
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
