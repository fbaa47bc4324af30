/*  machine: the NUMA machine hopbench plans for; the part both kinds share.

    Design: one plain struct (machine.h), filled either from the live
    machine (machine_live.c: libnuma, sysfs) or from a ZPL description
    (machine_file.c, numa/README.md), then indexed the same way
    (machine_index: every CPU's node, the set of all CPUs), so placement
    never knows which one it got.  This file holds what does not depend on
    where the machine came from: the questions placement asks, CPU lists
    typed by users, and what `hopbench machine` prints.

    CPU lists typed by users are parsed by libnuma for the live machine
    (numactl's own syntax and checks) and by cpuset_parse for a described
    one: libnuma checks CPUs against the machine it runs on, so it could
    not parse "42" for a 56-CPU box described on a 2-CPU laptop.
*/
#include "machine/machine_internal.h"


#include <ctype.h>
#include <errno.h>
#include <numa.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//  ---------------------------------------------------------------------
//  libnuma's warnings
//
//  libnuma reports parse errors by calling numa_warn() and numa_error(),
//  which it defines as weak symbols so that applications can replace them;
//  its own versions print to stderr, and only once per kind of warning.
//  We replace both so that the text becomes part of our one error message.
//  This is hopbench's one mutable global: libnuma calls back without any
//  context argument, so the capture cannot live in a struct we pass down.
//  It is thread-local so that two threads parsing at once cannot mix
//  their messages.  Outside a capture the text goes to stderr as before.

static __thread bool s_numa_capturing;
static __thread char s_numa_msg[256];

static void s_numa_report(const char *text)
{
    if (!s_numa_capturing)
        fprintf(stderr, "libnuma: %s\n", text);
    else if (s_numa_msg[0] == 0) //  the first one is the cause
        snprintf(s_numa_msg, sizeof s_numa_msg, "%s", text);
}

void numa_warn(int num, char *fmt, ...)
{
    (void)num;
    int saved = errno;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    text[strcspn(text, "\n")] = 0;
    s_numa_report(text);
    errno = saved;
}

void numa_error(char *where)
{
    int saved = errno;
    char text[256];
    snprintf(text, sizeof text, "%s: %s", where, strerror(saved));
    s_numa_report(text);
    errno = saved;
}

//  ---------------------------------------------------------------------
//  Common to both kinds of machine

//  Copy a string, cut to fit
void machine_copy(char *dst, size_t size, const char *src)
{
    size_t len = strnlen(src, size - 1);
    memcpy(dst, src, len);
    dst[len] = 0;
}

//  Every CPU number a cpuset can hold: the universe for lists read from
//  sysfs and descriptions, which say themselves which CPUs exist
void machine_every_cpu(cpuset_t *set)
{
    cpuset_clear(set);
    for (int cpu = 0; cpu < CPUSET_MAX; cpu++)
        cpuset_add(set, cpu);
}

machine_t *machine_alloc(errbuf_t *err)
{
    machine_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "machine: out of memory");
        return NULL;
    }
    for (int cpu = 0; cpu < CPUSET_MAX; cpu++)
        self->core[cpu] = self->node_index[cpu] = -1;
    machine_copy(self->model, sizeof self->model, "unknown");
    return self;
}

//  Once the nodes are filled: each CPU's node index, and all CPUs (all of
//  them allowed until machine_restrict says otherwise)
void machine_index(machine_t *self)
{
    cpuset_clear(&self->cpus);
    for (int i = 0; i < self->nnodes; i++) {
        const cpuset_t *cpus = &self->nodes[i].cpus;
        cpuset_union(&self->cpus, cpus);
        for (int cpu = cpuset_next(cpus, -1); cpu >= 0;
             cpu = cpuset_next(cpus, cpu))
            self->node_index[cpu] = (short)i;
    }
    self->allowed = self->cpus;
}

void machine_restrict(machine_t *self, const cpuset_t *cpus)
{
    cpuset_clear(&self->allowed);
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0; cpu = cpuset_next(cpus, cpu))
        if (cpuset_has(&self->cpus, cpu))
            cpuset_add(&self->allowed, cpu);
}

bool machine_all_allowed(const machine_t *self)
{
    return cpuset_subset(&self->cpus, &self->allowed);
}

void machine_destroy(machine_t **self_p)
{
    if (*self_p) {
        free(*self_p);
        *self_p = NULL;
    }
}
//  ---------------------------------------------------------------------
//  Questions

int machine_node_index(const machine_t *self, int id)
{
    for (int i = 0; i < self->nnodes; i++)
        if (self->nodes[i].id == id)
            return i;
    return -1;
}

int machine_node_of_cpu(const machine_t *self, int cpu)
{
    if (cpu < 0 || cpu >= CPUSET_MAX || self->node_index[cpu] < 0)
        return -1;
    return self->nodes[self->node_index[cpu]].id;
}

void machine_siblings(const machine_t *self, int cpu, cpuset_t *out)
{
    cpuset_clear(out);
    if (!cpuset_has(&self->cpus, cpu))
        return;
    for (int other = cpuset_next(&self->cpus, -1); other >= 0;
         other = cpuset_next(&self->cpus, other))
        if (self->core[other] == self->core[cpu])
            cpuset_add(out, other);
}

//  ---------------------------------------------------------------------
//  CPU lists typed by users

static int s_no_such_cpu(const machine_t *self, const char *text, long cpu,
                         errbuf_t *err)
{
    char list[4096];
    cpuset_format(&self->cpus, list, sizeof list);
    return err_set(err, "cpus '%s': CPU %ld does not exist on %s (CPUs %s)",
                   text, cpu, self->name, list);
}

//  One decimal CPU number of a list, for s_lint: -1 none, -2 leading zero
static long s_lint_number(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    if (**p == '0' && isdigit((unsigned char)(*p)[1]))
        return -2;
    char *end;
    long cpu = strtol(*p, &end, 10);
    *p = end;
    return cpu;
}

//  numactl's list grammar ("0-3,8", "!0-3", "+0-1", "all"), checked before
//  libnuma sees the text: its parser reads "010" as octal 8, "0x10" as 16,
//  "5-2" as just 5 and "0--1" as CPU ULONG_MAX, none of which a user means
static int s_lint(const char *text, errbuf_t *err)
{
    const char *p = text + (*text == '!');
    p += *p == '+';
    if (strcmp(p, "all") == 0)
        return 0;
    while (true) {
        const char *at = p;
        long first = s_lint_number(&p), last = first;
        if (first >= 0 && *p == '-')
            at = ++p, last = s_lint_number(&p);
        if (first == -2 || last == -2)
            return err_set(err, "cpus '%s': leading zero at '%s'", text, at);
        if (first < 0 || last < 0)
            return err_set(err, "cpus '%s': expected a CPU number at '%s'",
                           text, at);
        if (last < first)
            return err_set(err, "cpus '%s': range %ld-%ld runs backwards", text,
                           first, last);
        if (*p == 0)
            return 0;
        if (*p++ != ',')
            return err_set(err, "cpus '%s': unexpected '%c'", text, p[-1]);
    }
}

static int s_parse_live(const machine_t *self, const char *text, cpuset_t *out,
                        errbuf_t *err)
{
    if (*text == 0)
        return err_set(err, "cpus '': empty CPU list");
    if (s_lint(text, err))
        return -1;
    s_numa_msg[0] = 0;
    s_numa_capturing = true;
    struct bitmask *mask = numa_parse_cpustring_all(text);
    s_numa_capturing = false;
    //  "cpu argument 5-7 is out of range": the list's first unknown CPU
    const char *arg = "cpu argument ";
    if (!mask && strncmp(s_numa_msg, arg, strlen(arg)) == 0)
        return s_no_such_cpu(self, text,
                             strtol(s_numa_msg + strlen(arg), NULL, 10), err);
    if (!mask && s_numa_msg[0])
        return err_set(err, "cpus '%s': %s", text, s_numa_msg);
    if (!mask)
        return err_set(err, "cpus '%s': not a CPU list (e.g. 0-3,8)", text);
    int beyond = -1;
    for (unsigned long cpu = 0; cpu < mask->size; cpu++) {
        if (!numa_bitmask_isbitset(mask, (unsigned)cpu))
            continue;
        if (cpu >= CPUSET_MAX) {
            beyond = (int)cpu;
            break;
        }
        cpuset_add(out, (int)cpu);
    }
    numa_bitmask_free(mask);
    return beyond < 0 ? 0 : s_no_such_cpu(self, text, beyond, err);
}

static int s_parse_described(const machine_t *self, const char *text,
                             cpuset_t *out, errbuf_t *err)
{
    errbuf_t why;
    if (cpuset_parse(text, &self->cpus, out, &why) == 0)
        return 0;
    //  Parse again against every CPU number, to name the missing one
    cpuset_t every;
    machine_every_cpu(&every);
    if (cpuset_parse(text + (*text == '!'), &every, out, NULL) == 0)
        return 0;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "cpu list '%s': ", text);
    const char *reason = why.msg;
    if (strncmp(reason, prefix, strlen(prefix)) == 0)
        reason += strlen(prefix);
    return err_set(err, "cpus '%s': %s", text, reason);
}

int machine_parse_cpus(const machine_t *self, const char *text, cpuset_t *out,
                       errbuf_t *err)
{
    cpuset_clear(out);
    if (self->described ? s_parse_described(self, text, out, err)
                        : s_parse_live(self, text, out, err))
        return -1;
    for (int cpu = cpuset_next(out, -1); cpu >= 0; cpu = cpuset_next(out, cpu))
        if (!cpuset_has(&self->cpus, cpu))
            return s_no_such_cpu(self, text, cpu, err);
    if (cpuset_empty(out))
        return err_set(err, "cpus '%s': names no CPU", text);
    return 0;
}

//  ---------------------------------------------------------------------
//  What `hopbench machine` prints

//  "14 cores x 2 threads", or "3 cores x 1-2 threads" when they differ:
//  each core's CPUs counted in one pass (per CPU, its siblings' scan made
//  a 1,024-CPU machine's print quadratic)
static void s_describe_cores(const machine_t *self, const cpuset_t *cpus,
                             char *buf, size_t len)
{
    short threads[CPUSET_MAX + 1] = {0}, first[CPUSET_MAX + 1];
    for (int core = 0; core <= CPUSET_MAX; core++)
        first[core] = -1;
    for (int cpu = cpuset_next(&self->cpus, -1); cpu >= 0;
         cpu = cpuset_next(&self->cpus, cpu)) {
        int core = self->core[cpu] + 1; //  0: the CPUs of none
        threads[core]++;
        if (first[core] < 0)
            first[core] = (short)cpu;
    }
    int cores = 0, least = CPUSET_MAX, most = 0;
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0;
         cpu = cpuset_next(cpus, cpu)) {
        int core = cpuset_has(&self->cpus, cpu) ? self->core[cpu] + 1 : -1;
        if (core < 0 || first[core] != cpu)
            continue; //  not its core's first CPU
        cores++;
        least = threads[core] < least ? threads[core] : least;
        most = threads[core] > most ? threads[core] : most;
    }
    if (least == most)
        snprintf(buf, len, "%d core%s x %d thread%s", cores,
                 cores == 1 ? "" : "s", most, most == 1 ? "" : "s");
    else
        snprintf(buf, len, "%d cores x %d-%d threads", cores, least, most);
}

static void s_print_node(const machine_t *self, const machine_node_t *node,
                         FILE *out)
{
    char list[4096], cores[64], siblings_list[64] = "";
    cpuset_format(&node->cpus, list, sizeof list);
    s_describe_cores(self, &node->cpus, cores, sizeof cores);
    int first = cpuset_next(&node->cpus, -1);
    cpuset_t siblings;
    machine_siblings(self, first, &siblings);
    if (cpuset_count(&siblings) > 1) {
        char twins[48];
        cpuset_format(&siblings, twins, sizeof twins);
        snprintf(siblings_list, sizeof siblings_list, ", CPU %d's core: %s",
                 first, twins);
    }
    fprintf(out, "node %-3d  cpus %-16s %s%s\n", node->id, list, cores,
            siblings_list);
}

void machine_print(const machine_t *self, FILE *out)
{
    char list[4096], cores[64];
    cpuset_format(&self->cpus, list, sizeof list);
    s_describe_cores(self, &self->cpus, cores, sizeof cores);
    fprintf(out, "machine   %s (%s)\n", self->name, self->source);
    fprintf(out, "model     %s\n", self->model);
    fprintf(out, "cpus      %d (%s): %s, %d NUMA node%s\n",
            cpuset_count(&self->cpus), list, cores, self->nnodes,
            self->nnodes == 1 ? "" : "s");
    if (!machine_all_allowed(self)) {
        cpuset_format(&self->allowed, list, sizeof list);
        fprintf(out,
                "allowed   %s (this process's CPU set: sched_getaffinity, "
                "narrowed by taskset or a cgroup's cpuset)\n",
                list);
    }
    for (int i = 0; i < self->nnodes; i++)
        s_print_node(self, &self->nodes[i], out);
    fprintf(out, "node distances:\nnode ");
    for (int j = 0; j < self->nnodes; j++)
        fprintf(out, " %3d", self->nodes[j].id);
    for (int i = 0; i < self->nnodes; i++) {
        fprintf(out, "\n%3d: ", self->nodes[i].id);
        for (int j = 0; j < self->nnodes; j++)
            fprintf(out, " %3d", self->nodes[i].distance[j]);
    }
    fprintf(out, "\n");
}
