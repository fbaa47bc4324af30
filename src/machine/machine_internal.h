/*  machine_internal: what machine.c, machine_live.c and machine_file.c
    share to fill one machine_t.  Not for other modules.
*/
#ifndef HOPBENCH_MACHINE_INTERNAL_H
#define HOPBENCH_MACHINE_INTERNAL_H

#include "machine/machine.h"

#define LOCAL_DISTANCE 10 //  Linux: a node's distance to itself

//  A zeroed machine, every CPU without core or node, model "unknown"
machine_t *machine_alloc(errbuf_t *err);
//  Once the nodes are filled: each CPU's node index, and all CPUs
void machine_index(machine_t *self);
//  Copy a string, cut to fit
void machine_copy(char *dst, size_t size, const char *src);
//  Every CPU number a cpuset can hold: the universe for lists read from
//  sysfs and descriptions, which say themselves which CPUs exist
void machine_every_cpu(cpuset_t *set);

#endif
