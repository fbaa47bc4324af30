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
*/
#ifndef HOPBENCH_PIN_H
#define HOPBENCH_PIN_H

#include "base/errbuf.h"
#include "machine/placement.h"

//  Pin the calling thread; a place with node -1 and no CPUs does nothing
int pin_thread(const place_t *place, errbuf_t *err);
//  Node of the page holding addr (move_pages), -1 if unknown
int pin_node_of(const void *addr);

#endif
