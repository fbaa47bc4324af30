/*  cpuset: a fixed-size set of CPU numbers, and its numactl list syntax.

    Plain value type (no allocation) so plans and machines can hold many.
    cpuset_format writes the list syntax numactl and /proc use ("0-13,28-41").
    cpuset_parse reads that syntax for CPUs of a *described* machine, which
    libnuma's parser cannot do (it checks against the live machine's CPUs);
    machine_parse_cpus picks the right parser.
*/
#ifndef HOPBENCH_CPUSET_H
#define HOPBENCH_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "base/limits.h"

#define CPUSET_MAX LIMIT_CPUS

typedef struct {
    uint64_t bits[CPUSET_MAX / 64];
} cpuset_t;

void cpuset_clear(cpuset_t *set);
void cpuset_add(cpuset_t *set, int cpu);
bool cpuset_has(const cpuset_t *set, int cpu);
int cpuset_count(const cpuset_t *set);
bool cpuset_empty(const cpuset_t *set);
bool cpuset_subset(const cpuset_t *inner, const cpuset_t *outer);
void cpuset_union(cpuset_t *into, const cpuset_t *other);
//  First CPU after 'after' (pass -1 for the first), or -1 when none is left
int cpuset_next(const cpuset_t *set, int after);
//  "0-3,8" (an empty set gives ""); returns the length written
int cpuset_format(const cpuset_t *set, char *buf, size_t len);
//  Parse "0-3,8" / "all" / "!0-1" against the CPUs in 'universe'
int cpuset_parse(const char *text, const cpuset_t *universe, cpuset_t *out,
                 errbuf_t *err);

int cpuset_test(bool verbose);

#endif
