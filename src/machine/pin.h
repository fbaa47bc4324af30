/*  pin: put the calling thread where its place says, and read back where
    its memory lands.

    CPU affinity with pthread_setaffinity_np, memory with a strict bind to
    the place's node (set_mempolicy through libnuma), so that every page
    the thread touches from then on, libzmq's message buffers included,
    comes from that node.  Threads the pinned thread creates (libzmq's I/O
    threads) inherit its memory policy.  Pages touched before are not
    moved: a malloc arena that glibc hands over from a thread that has
    ended, or that this thread used before it was pinned, keeps its pages
    where they are.  pin_node_of is how a stage checks (threads.csv
    mem_node; trial warns when it differs from the plan).

    What a stage writes on every message is made so that it is on the
    stage's node whoever touches it: pin_memory_new maps fresh pages,
    binds them to the node (mbind) and zeroes them.  pin_stack moves the
    pages of the calling thread's stack that its creator touched (glibc
    writes the thread descriptor there, or hands over a cached stack) to
    its node, and pin_heap does the same for the malloc arena the thread
    inherits from a thread that has ended (a sweep's last combination, on
    another node): libzmq's message buffers come from it.  pin_pages counts a range's pages by node (move_pages), for
    memory.csv.  The controller's threads are placed with pin_thread too;
    czmq's context threads, which it does not create itself, are moved by
    thread id (pin_czmq_threads; their memory policy stays their
    creator's).
*/
#ifndef HOPBENCH_PIN_H
#define HOPBENCH_PIN_H

#include <stddef.h>
#include <sys/types.h>

#include "base/errbuf.h"
#include "machine/placement.h"

#define PIN_NODES 8 //  distinct nodes a page count tells apart

//  A range's pages by node: plain data, so it can sit in shared memory
typedef struct {
    int pages;   //  in the range
    int present; //  of them, in memory (the rest never touched)
    int nnodes;
    struct {
        int node, pages;
    } by_node[PIN_NODES]; //  present pages, by node (the rest: other)
    int other;            //  present pages on nodes past PIN_NODES
} pin_pages_t;

//  Pin the calling thread; a place with node -1 and no CPUs does nothing
int pin_thread(const place_t *place, errbuf_t *err);
//  The calling thread back to every CPU in 'allowed' and the default
//  memory policy (the controller, between sweep combinations)
int pin_release(const cpuset_t *allowed, errbuf_t *err);
//  This process's libzmq threads that have no name prefix (czmq's
//  context) onto cpus
int pin_czmq_threads(const cpuset_t *cpus, errbuf_t *err);
//  The same for every thread of this process whose name starts with
//  prefix ("hbl:": the links to agents, crew/agent_link.h)
int pin_threads_named(const char *prefix, const cpuset_t *cpus,
                      errbuf_t *err);
//  Node of the page holding addr (move_pages), -1 if unknown
int pin_node_of(const void *addr);

//  Zeroed memory of fresh pages, bound to node (-1: not bound); NULL
//  when there is none.  Free with pin_memory_free and the same size
void *pin_memory_new(size_t size, int node);
void pin_memory_free(void *memory, size_t size);
//  Move the calling thread's stack to node, and keep it there (all its
//  pages where this process has CAP_SYS_NICE: MPOL_MF_MOVE_ALL)
int pin_stack(int node);
//  The malloc arena glibc hands the calling thread (often one a thread
//  that has ended used, its pages maybe on another node) moved to node,
//  and kept there: the writable mappings of its heap (glibc aligns a
//  non-main arena's heap to 64 MiB), not the main thread's [heap].  0, or
//  -1 when nothing could be moved
int pin_heap(int node);
//  The calling thread's stack (what pthread_getattr_np says)
int pin_stack_range(void **addr, size_t *len);
//  Count the pages of [addr, addr + len) by node
void pin_pages(const void *addr, size_t len, pin_pages_t *out);
//  Present pages of a count on 'node'
int pin_pages_on(const pin_pages_t *pages, int node);
//  "0:9 1:1" (node:pages, ascending; "" when none is present)
void pin_pages_format(const pin_pages_t *pages, char *buf, size_t len);

#endif
