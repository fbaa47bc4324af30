/*  pin: CPU affinity and node-local memory for the calling thread.

    pin_thread calls no malloc: a thread's first malloc sets up its glibc
    arena, and whatever that touches before the bind stays on the node the
    thread happened to run on.  So the masks live on the stack, memory is
    bound before the thread moves, and the memory a stage writes per
    message comes from mmap, never from an arena some other thread's
    pages may be in.  pin_heap is the first malloc, once the bind is set.
*/
#define _GNU_SOURCE
#include "machine/pin.h"

#include "machine/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

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

//  A node mask with one node; false when node is past the mask
static bool s_mask(int node, unsigned long *nodes)
{
    memset(nodes, 0, PIN_MAX_NODES / 8);
    if (node < 0 || node >= PIN_MAX_NODES)
        return false;
    nodes[node / LONG_BITS] |= 1UL << (node % LONG_BITS);
    return true;
}

static int s_bind_memory(int node, errbuf_t *err)
{
    if (numa_available() < 0)
        return 0; //  no NUMA support: memory is all one node anyway
    unsigned long nodes[PIN_MAX_NODES / LONG_BITS];
    if (!s_mask(node, nodes))
        return err_set(err, "binding memory to node %d: beyond node %d", node,
                       PIN_MAX_NODES - 1);
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

int pin_release(const cpuset_t *allowed, errbuf_t *err)
{
    if (numa_available() >= 0 && set_mempolicy(MPOL_DEFAULT, NULL, 0))
        return err_set(err, "memory policy back to default: %s",
                       strerror(errno));
    return s_pin_cpus(allowed, err);
}

int pin_threads_named(const char *prefix, const cpuset_t *cpus,
                      errbuf_t *err)
{
    task_t tasks[THREADS_MAX];
    int n = threads_scan(getpid(), tasks, THREADS_MAX);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0; cpu = cpuset_next(cpus, cpu))
        CPU_SET(cpu, &set);
    for (int t = 0; t < n; t++)
        if (strncmp(tasks[t].name, prefix, strlen(prefix)) == 0 &&
            sched_setaffinity(tasks[t].tid, sizeof set, &set))
            return err_set(err, "pinning thread %s (%d): %s", tasks[t].name,
                           (int)tasks[t].tid, strerror(errno));
    return 0;
}

int pin_czmq_threads(const cpuset_t *cpus, errbuf_t *err)
{
    return pin_threads_named("ZMQbg/", cpus, err);
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

//  ---------------------------------------------------------------------
//  Memory a stage writes, and where its pages are

static size_t s_page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static size_t s_round(size_t size)
{
    return (size + s_page() - 1) & ~(s_page() - 1);
}

void *pin_memory_new(size_t size, int node)
{
    size_t len = s_round(size);
    void *memory = mmap(NULL, len, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return NULL;
    unsigned long nodes[PIN_MAX_NODES / LONG_BITS];
    if (numa_available() >= 0 && s_mask(node, nodes))
        mbind(memory, len, MPOL_BIND, nodes, PIN_MAX_NODES + 1, 0);
    memset(memory, 0, len); //  touched here, first
    return memory;
}

void pin_memory_free(void *memory, size_t size)
{
    if (memory)
        munmap(memory, s_round(size));
}

//  Bind a range to node and move its pages there.  MPOL_MF_MOVE skips a
//  page it thinks shared, as it thinks of a transparent huge page that is
//  mapped in pieces (glibc gives a reused stack back in pieces): where
//  this process may (CAP_SYS_NICE), all of them move
static int s_move(void *start, size_t len, const unsigned long *nodes)
{
    if (mbind(start, len, MPOL_BIND, nodes, PIN_MAX_NODES + 1,
              MPOL_MF_MOVE_ALL) == 0)
        return 0;
    return mbind(start, len, MPOL_BIND, nodes, PIN_MAX_NODES + 1,
                 MPOL_MF_MOVE);
}

int pin_stack_range(void **addr, size_t *len)
{
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr))
        return -1;
    int rc = pthread_attr_getstack(&attr, addr, len);
    pthread_attr_destroy(&attr);
    return rc ? -1 : 0;
}

int pin_stack(int node)
{
    void *addr;
    size_t len;
    unsigned long nodes[PIN_MAX_NODES / LONG_BITS];
    if (numa_available() < 0 || !s_mask(node, nodes) ||
        pin_stack_range(&addr, &len))
        return -1;
    uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(s_page() - 1);
    size_t span = s_round((uintptr_t)addr + len - start);
    return s_move((void *)start, span, nodes);
}

//  glibc's heaps of the arenas besides the main one: mappings aligned to
//  HEAP_MAX_SIZE (2 x DEFAULT_MMAP_THRESHOLD_MAX, 64 MiB on 64 bits), used
//  from their start as they grow
#define PIN_ARENA_HEAP ((uintptr_t)64 << 20)

//  Move the writable mappings of /proc/self/maps within [lo, hi); -1 when
//  one is the main arena's [heap] (not this thread's) or none was found
static int s_move_window(uintptr_t lo, uintptr_t hi, const unsigned long *nodes)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    int moved = 0, rc = 0;
    while (maps && rc == 0 && fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 ||
            start < lo || end > hi || perms[0] != 'r' || perms[1] != 'w')
            continue;
        if (strstr(line, "[heap]"))
            rc = -1;
        else if (s_move((void *)start, end - start, nodes) == 0)
            moved++;
    }
    if (maps)
        fclose(maps);
    return rc == 0 && moved ? 0 : -1;
}

int pin_heap(int node)
{
    unsigned long nodes[PIN_MAX_NODES / LONG_BITS];
    void *probe = malloc(64); //  attaches this thread to its arena
    uintptr_t heap = (uintptr_t)probe & ~(PIN_ARENA_HEAP - 1);
    int rc = probe && numa_available() >= 0 && s_mask(node, nodes)
                 ? s_move_window(heap, heap + PIN_ARENA_HEAP, nodes)
                 : -1;
    free(probe);
    return rc;
}

static void s_count_node(pin_pages_t *out, int node)
{
    out->present++;
    for (int i = 0; i < out->nnodes; i++)
        if (out->by_node[i].node == node) {
            out->by_node[i].pages++;
            return;
        }
    if (out->nnodes == PIN_NODES) {
        out->other++;
        return;
    }
    int i = out->nnodes++;
    while (i > 0 && out->by_node[i - 1].node > node) { //  ascending
        out->by_node[i] = out->by_node[i - 1];
        i--;
    }
    out->by_node[i].node = node;
    out->by_node[i].pages = 1;
}

#define PIN_BATCH 256 //  pages asked of move_pages at once

void pin_pages(const void *addr, size_t len, pin_pages_t *out)
{
    memset(out, 0, sizeof *out);
    uintptr_t first = (uintptr_t)addr & ~(uintptr_t)(s_page() - 1);
    uintptr_t end = (uintptr_t)addr + len;
    void *pages[PIN_BATCH];
    int status[PIN_BATCH];
    for (uintptr_t at = first; at < end;) {
        int n = 0;
        for (; n < PIN_BATCH && at < end; n++, at += s_page())
            pages[n] = (void *)at;
        out->pages += n;
        if (move_pages(0, (unsigned long)n, pages, NULL, status, 0) != 0)
            continue; //  no NUMA: nothing known about them
        for (int i = 0; i < n; i++)
            if (status[i] >= 0)
                s_count_node(out, status[i]);
    }
}

int pin_pages_on(const pin_pages_t *pages, int node)
{
    for (int i = 0; i < pages->nnodes; i++)
        if (pages->by_node[i].node == node)
            return pages->by_node[i].pages;
    return 0;
}

void pin_pages_format(const pin_pages_t *pages, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < pages->nnodes && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d:%d",
                                 i ? " " : "", pages->by_node[i].node,
                                 pages->by_node[i].pages);
    if (pages->other && used < len)
        snprintf(buf + used, len - used, "%sother:%d", used ? " " : "",
                 pages->other);
}
