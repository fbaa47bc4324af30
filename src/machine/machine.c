/*  machine: the NUMA machine hopbench plans for.

    Design: one plain struct (machine.h), filled either from the live
    machine or from a ZPL description, then indexed the same way (s_index:
    every CPU's node, the set of all CPUs), so placement never knows which
    one it got.

    Live: libnuma gives the nodes, their CPUs and distances; sysfs gives SMT
    siblings (cpuN/topology/thread_siblings_list); /proc/cpuinfo the model.
    Nodes without CPUs (memory-only, e.g. CXL) are left out: no stage can
    run on them.  Without NUMA support the machine is one node 0.

    Described: numa/README.md documents the format.  Every value is checked
    and every error says "path:line: message"; nothing is guessed.

    CPU lists typed by users are parsed by libnuma for the live machine
    (numactl's own syntax and checks) and by cpuset_parse for a described
    one: libnuma checks CPUs against the machine it runs on, so it could
    not parse "42" for a 56-CPU box described on a 2-CPU laptop.
*/
#include "machine/machine.h"

#include "base/check.h"
#include "config/zpl.h"

#include <ctype.h>
#include <errno.h>
#include <numa.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOCAL_DISTANCE 10   //  Linux: a node's distance to itself
#define REMOTE_DEFAULT 20   //  Linux's default when there is no SLIT
#define MAX_DISTANCE   254  //  255 means "unreachable" in ACPI's SLIT
#define MAX_NODE_ID    1023 //  Linux's largest MAX_NUMNODES
#define SYSFS_CPU      "/sys/devices/system/cpu"

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
static void s_copy(char *dst, size_t size, const char *src)
{
    size_t len = strnlen(src, size - 1);
    memcpy(dst, src, len);
    dst[len] = 0;
}

//  Every CPU number a cpuset can hold: the universe for lists read from
//  sysfs and descriptions, which say themselves which CPUs exist
static void s_every_cpu(cpuset_t *set)
{
    cpuset_clear(set);
    for (int cpu = 0; cpu < CPUSET_MAX; cpu++)
        cpuset_add(set, cpu);
}

static machine_t *s_new(errbuf_t *err)
{
    machine_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "machine: out of memory");
        return NULL;
    }
    for (int cpu = 0; cpu < CPUSET_MAX; cpu++)
        self->core[cpu] = self->node_index[cpu] = -1;
    s_copy(self->model, sizeof self->model, "unknown");
    return self;
}

//  Once the nodes are filled: each CPU's node index, and all CPUs
static void s_index(machine_t *self)
{
    cpuset_clear(&self->cpus);
    for (int i = 0; i < self->nnodes; i++) {
        const cpuset_t *cpus = &self->nodes[i].cpus;
        cpuset_union(&self->cpus, cpus);
        for (int cpu = cpuset_next(cpus, -1); cpu >= 0;
             cpu = cpuset_next(cpus, cpu))
            self->node_index[cpu] = (short)i;
    }
}

void machine_destroy(machine_t **self_p)
{
    if (*self_p) {
        free(*self_p);
        *self_p = NULL;
    }
}

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
    s_every_cpu(&every);
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
        s_copy(self->model, sizeof self->model, colon);
        break;
    }
    fclose(file);
}

machine_t *machine_new_live(errbuf_t *err)
{
    machine_t *self = s_new(err);
    if (!self)
        return NULL;
    bool numa = numa_available() >= 0;
    s_copy(self->name, sizeof self->name, "this machine");
    s_copy(self->source, sizeof self->source,
           numa ? "libnuma" : "libnuma (NUMA not available: one node)");
    if (numa ? s_live_nodes(self, err) : s_live_flat(self, err)) {
        machine_destroy(&self);
        return NULL;
    }
    s_index(self);
    s_live_cores(self);
    s_live_model(self);
    return self;
}

//  ---------------------------------------------------------------------
//  A described machine (numa/README.md)

typedef struct {
    zpl_t *zpl;
    machine_t *machine;
    errbuf_t *err;
    zconfig_t *smt;                        //  the smt_offset line or NULL
    zconfig_t *node_at[MACHINE_MAX_NODES]; //  each node's line
} desc_t;

//  Error at a node's line: "path:line: message"
static int __attribute__((format(printf, 3, 4)))
s_at(desc_t *self, zconfig_t *node, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return err_set(self->err, "%s:%d: %s", zpl_path(self->zpl),
                   zpl_line(self->zpl, node), text);
}

//  A whole decimal number in min..max
static int s_number(desc_t *self, zconfig_t *node, const char *text,
                    const char *what, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    bool digits = isdigit((unsigned char)text[text[0] == '-']);
    if (!digits || *end || errno)
        return s_at(self, node, "%s '%s' is not a number", what, text);
    if (value < min || value > max)
        return s_at(self, node, "%s %ld is out of range (%ld..%ld)", what,
                    value, min, max);
    *out = value;
    return 0;
}

//  Children of 'section' must be among 'keys' (NULL-terminated), each at
//  most once, each without children of its own
static int s_check_keys(desc_t *self, zconfig_t *section, const char *what,
                        const char *const *keys)
{
    char known[128] = "";
    for (size_t i = 0; keys[i]; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                 i ? ", " : "", keys[i]);
    for (zconfig_t *key = zconfig_child(section); key;
         key = zconfig_next(key)) {
        const char *name = zconfig_name(key);
        size_t i = 0;
        while (keys[i] && strcmp(keys[i], name))
            i++;
        if (!keys[i])
            return s_at(self, key, "unknown key '%s' in %s (%s)", name, what,
                        known);
        zconfig_t *first = zconfig_locate(section, name);
        if (first != key)
            return s_at(self, key, "'%s' given twice (first at line %d)", name,
                        zpl_line(self->zpl, first));
        if (zconfig_child(key))
            return s_at(self, zconfig_child(key), "'%s' takes no indented keys",
                        name);
    }
    return 0;
}

static int s_read_machine(desc_t *self, zconfig_t *section)
{
    static const char *const keys[] = {"model", "smt_offset", NULL};
    machine_t *machine = self->machine;
    if (s_check_keys(self, section, "machine", keys))
        return -1;
    const char *name = zconfig_value(section);
    if (*name == 0)
        return s_at(self, section, "machine needs a name (machine = NAME)");
    if (strlen(name) >= sizeof machine->name)
        return s_at(self, section, "machine name longer than %zu characters",
                    sizeof machine->name - 1);
    s_copy(machine->name, sizeof machine->name, name);
    zconfig_t *model = zconfig_locate(section, "model");
    if (model && strlen(zconfig_value(model)) >= sizeof machine->model)
        return s_at(self, model, "model longer than %zu characters",
                    sizeof machine->model - 1);
    if (model)
        s_copy(machine->model, sizeof machine->model, zconfig_value(model));
    self->smt = zconfig_locate(section, "smt_offset");
    return 0;
}

//  The node's 'cpus': a plain list, no CPU already in an earlier node
static int s_read_cpus(desc_t *self, zconfig_t *line, machine_node_t *node)
{
    const char *text = zconfig_value(line);
    errbuf_t why;
    cpuset_t every;
    s_every_cpu(&every);
    if (*text == '!' || strcmp(text, "all") == 0)
        return s_at(self, line, "cpus '%s': name the CPUs (e.g. 0-13,28-41)",
                    text);
    if (cpuset_parse(text, &every, &node->cpus, &why))
        return s_at(self, line, "%s", why.msg);
    machine_t *machine = self->machine;
    for (int i = 0; i < machine->nnodes; i++) {
        const machine_node_t *other = &machine->nodes[i];
        for (int cpu = cpuset_next(&node->cpus, -1); cpu >= 0;
             cpu = cpuset_next(&node->cpus, cpu))
            if (cpuset_has(&other->cpus, cpu))
                return s_at(self, line,
                            "CPU %d is already in node %d (line "
                            "%d)",
                            cpu, other->id,
                            zpl_line(self->zpl, self->node_at[i]));
    }
    return 0;
}

static int s_read_node(desc_t *self, zconfig_t *section)
{
    static const char *const keys[] = {"cpus", "distances", NULL};
    machine_t *machine = self->machine;
    long id;
    if (s_check_keys(self, section, "node", keys) ||
        s_number(self, section, zconfig_value(section), "node id", 0,
                 MAX_NODE_ID, &id))
        return -1;
    for (int i = 0; i < machine->nnodes; i++)
        if (machine->nodes[i].id == id)
            return s_at(self, section, "node %ld again (first at line %d)", id,
                        zpl_line(self->zpl, self->node_at[i]));
    int last = machine->nnodes - 1;
    if (last >= 0 && id < machine->nodes[last].id)
        return s_at(self, section,
                    "node %ld after node %d: list the nodes "
                    "in ascending order",
                    id, machine->nodes[last].id);
    if (machine->nnodes == MACHINE_MAX_NODES)
        return s_at(self, section, "more than %d nodes", MACHINE_MAX_NODES);
    zconfig_t *cpus = zconfig_locate(section, "cpus");
    if (!cpus)
        return s_at(self, section,
                    "node %ld has no 'cpus' (e.g. cpus = "
                    "0-13,28-41)",
                    id);
    machine_node_t *node = &machine->nodes[machine->nnodes];
    if (s_read_cpus(self, cpus, node))
        return -1;
    node->id = (int)id;
    self->node_at[machine->nnodes++] = section;
    return 0;
}

//  One distance of a "10,21" list: text[0..len), to node index 'to'
static int s_read_distance(desc_t *self, zconfig_t *line, int index, int to,
                           const char *text, int len)
{
    machine_t *machine = self->machine;
    char item[32];
    while (len > 0 && *text == ' ')
        text++, len--;
    while (len > 0 && text[len - 1] == ' ')
        len--;
    snprintf(item, sizeof item, "%.*s", len, text);
    long d;
    if (s_number(self, line, item, "distance", 0, 255, &d))
        return -1;
    int from_id = machine->nodes[index].id, to_id = machine->nodes[to].id;
    if (to == index && d != LOCAL_DISTANCE)
        return s_at(self, line,
                    "distance from node %d to itself is %ld; "
                    "it must be %d",
                    from_id, d, LOCAL_DISTANCE);
    if (to != index && (d <= LOCAL_DISTANCE || d > MAX_DISTANCE))
        return s_at(self, line,
                    "distance from node %d to node %d is %ld; "
                    "remote distances are %d..%d",
                    from_id, to_id, d, LOCAL_DISTANCE + 1, MAX_DISTANCE);
    machine->nodes[index].distance[to] = (int)d;
    return 0;
}

//  A node's 'distances': one per node, in node order
static int s_read_distances(desc_t *self, int index)
{
    machine_t *machine = self->machine;
    zconfig_t *section = self->node_at[index];
    zconfig_t *line = zconfig_locate(section, "distances");
    if (!line)
        return s_at(self, section,
                    "node %d has no 'distances' (%d numbers: "
                    "to each node, in node order)",
                    machine->nodes[index].id, machine->nnodes);
    const char *text = zconfig_value(line);
    int count = 1;
    for (const char *p = text; *p; p++)
        count += *p == ',';
    if (count != machine->nnodes)
        return s_at(self, line,
                    "%d distances for %d node%s (one per node, "
                    "in node order)",
                    count, machine->nnodes, machine->nnodes == 1 ? "" : "s");
    for (int to = 0; to < count; to++) {
        int len = (int)strcspn(text, ",");
        if (s_read_distance(self, line, index, to, text, len))
            return -1;
        text += len + (text[len] == ',');
    }
    return 0;
}

//  Physical cores: with smt_offset N, CPU c and c+N are one core
static int s_read_cores(desc_t *self)
{
    machine_t *machine = self->machine;
    long offset = 0;
    if (self->smt && s_number(self, self->smt, zconfig_value(self->smt),
                              "smt_offset", 0, CPUSET_MAX - 1, &offset))
        return -1;
    short next = 0;
    for (int cpu = cpuset_next(&machine->cpus, -1); cpu >= 0;
         cpu = cpuset_next(&machine->cpus, cpu)) {
        if (machine->core[cpu] >= 0)
            continue;
        int twin = cpu + (int)offset, node = machine_node_of_cpu(machine, cpu);
        if (offset && !cpuset_has(&machine->cpus, twin))
            return s_at(self, self->smt,
                        "smt_offset = %ld pairs CPU %d with "
                        "CPU %d, which does not exist",
                        offset, cpu, twin);
        if (offset && machine_node_of_cpu(machine, twin) != node)
            return s_at(self, self->smt,
                        "smt_offset = %ld pairs CPU %d (node "
                        "%d) with CPU %d (node %d); siblings share a node",
                        offset, cpu, node, twin,
                        machine_node_of_cpu(machine, twin));
        machine->core[cpu] = machine->core[twin] = next++;
    }
    return 0;
}

static int s_read(desc_t *self)
{
    zconfig_t *first = zconfig_child(zpl_root(self->zpl));
    if (!first)
        return err_set(self->err,
                       "%s: empty (a description starts with "
                       "'machine = NAME')",
                       zpl_path(self->zpl));
    if (strcmp(zconfig_name(first), "machine"))
        return s_at(self, first, "expected 'machine = NAME' first, found '%s'",
                    zconfig_name(first));
    for (zconfig_t *item = first; item; item = zconfig_next(item)) {
        const char *name = zconfig_name(item);
        int rc =
            item == first         ? s_read_machine(self, item)
            : streq(name, "node") ? s_read_node(self, item)
            : streq(name, "machine")
                ? s_at(self, item, "a second 'machine' (one per file)")
                : s_at(self, item, "unknown key '%s' (machine, node)", name);
        if (rc)
            return -1;
    }
    if (self->machine->nnodes == 0)
        return s_at(self, first, "machine '%s' has no 'node = ID'",
                    self->machine->name);
    for (int i = 0; i < self->machine->nnodes; i++)
        if (s_read_distances(self, i))
            return -1;
    s_index(self->machine);
    return s_read_cores(self);
}

machine_t *machine_new_text(const char *path, const char *text, errbuf_t *err)
{
    zpl_t *zpl = text ? zpl_load_text(path, text, err) : zpl_load(path, err);
    if (!zpl)
        return NULL;
    machine_t *self = s_new(err);
    desc_t desc = {.zpl = zpl, .machine = self, .err = err};
    if (self && s_read(&desc) == 0) {
        s_copy(self->source, sizeof self->source, path);
        self->described = true;
    } else
        machine_destroy(&self);
    zpl_destroy(&zpl);
    return self;
}

machine_t *machine_new_file(const char *path, errbuf_t *err)
{
    return machine_new_text(path, NULL, err);
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
    s_every_cpu(&every);
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

//  "14 cores x 2 threads", or "3 cores x 1-2 threads" when they differ
static void s_describe_cores(const machine_t *self, const cpuset_t *cpus,
                             char *buf, size_t len)
{
    int cores = 0, least = CPUSET_MAX, most = 0;
    for (int cpu = cpuset_next(cpus, -1); cpu >= 0;
         cpu = cpuset_next(cpus, cpu)) {
        cpuset_t siblings;
        machine_siblings(self, cpu, &siblings);
        if (cpuset_next(&siblings, -1) != cpu)
            continue; //  not its core's first CPU
        int threads = cpuset_count(&siblings);
        cores++;
        least = threads < least ? threads : least;
        most = threads > most ? threads : most;
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

//  ---------------------------------------------------------------------
//  Selftest

//  Writes 'text' to a temporary file, loads it, expects "path:want"
static int s_expect_error(const char *text, const char *want)
{
    char path[] = "/tmp/hopbench-machine-XXXXXX.cfg", got[600];
    int fd = mkstemps(path, 4);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        fprintf(stderr, "machine: cannot write %s\n", path);
        return -1;
    }
    close(fd);
    errbuf_t err = {{0}};
    machine_t *machine = machine_new_file(path, &err);
    unlink(path);
    snprintf(got, sizeof got, "%s:%s", path, want);
    if (!machine && strncmp(err.msg, got, strlen(got)) == 0)
        return 0;
    fprintf(stderr, "machine: for %swant '%s', got '%s'\n", text, got,
            machine ? "(accepted)" : err.msg);
    machine_destroy(&machine);
    return -1;
}

static int s_test_xeon(bool verbose)
{
    errbuf_t err;
    cpuset_t set;
    char list[256];
    machine_t *xeon = machine_new_file("numa/xeon-e5-2680v4-2s.cfg", &err);
    CHECK(xeon);
    CHECK(xeon->described && xeon->nnodes == 2);
    CHECK(strcmp(xeon->name, "xeon-e5-2680v4-2s") == 0);
    CHECK(strstr(xeon->model, "E5-2680 v4"));
    CHECK(cpuset_count(&xeon->cpus) == 56);
    CHECK(cpuset_count(&xeon->nodes[0].cpus) == 28);
    machine_siblings(xeon, 3, &set);
    cpuset_format(&set, list, sizeof list);
    CHECK(strcmp(list, "3,31") == 0);
    machine_siblings(xeon, 56, &set);
    CHECK(cpuset_empty(&set));
    CHECK(machine_node_of_cpu(xeon, 42) == 1);
    CHECK(machine_node_of_cpu(xeon, 41) == 0);
    CHECK(machine_node_of_cpu(xeon, 56) == -1);
    CHECK(machine_node_of_cpu(xeon, -1) == -1);
    CHECK(machine_node_index(xeon, 1) == 1);
    CHECK(machine_node_index(xeon, 2) == -1);
    CHECK(xeon->nodes[0].distance[1] == 21 && xeon->nodes[1].distance[1] == 10);
    CHECK(xeon->core[3] == xeon->core[31] && xeon->core[3] != xeon->core[4]);

    //  CPU lists are checked against the described machine, not this one
    CHECK(machine_parse_cpus(xeon, "40-42", &set, &err) == 0);
    CHECK(cpuset_count(&set) == 3 && cpuset_has(&set, 42));
    CHECK(machine_parse_cpus(xeon, "!0-53", &set, &err) == 0);
    cpuset_format(&set, list, sizeof list);
    CHECK(strcmp(list, "54-55") == 0);
    CHECK(machine_parse_cpus(xeon, "50-60", &set, &err) == -1);
    CHECK(strcmp(err.msg, "cpus '50-60': CPU 56 does not exist on "
                          "xeon-e5-2680v4-2s (CPUs 0-55)") == 0);
    CHECK(machine_parse_cpus(xeon, "3-x", &set, &err) == -1);
    CHECK(strncmp(err.msg, "cpus '3-x': expected a CPU number", 33) == 0);

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    machine_print(xeon, out);
    fclose(out);
    if (verbose)
        printf("%s", text);
    CHECK(strstr(text, "node 1    cpus 14-27,42-55      14 cores x 2 threads"));
    CHECK(strstr(text, "  1:   21  10"));
    free(text);
    machine_destroy(&xeon);
    CHECK(xeon == NULL);
    return 0;
}

static int s_test_others(void)
{
    errbuf_t err;
    cpuset_t set;
    machine_t *gold = machine_new_file("numa/xeon-gold-6130-1s.cfg", &err);
    CHECK(gold && gold->nnodes == 1 && cpuset_count(&gold->cpus) == 32);
    machine_siblings(gold, 0, &set);
    CHECK(cpuset_count(&set) == 2 && cpuset_has(&set, 16));
    CHECK(strcmp(gold->model, "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz") == 0);
    machine_destroy(&gold);

    machine_t *vm = machine_new_file("numa/vm-2x2.cfg", &err);
    CHECK(vm && vm->nnodes == 2 && cpuset_count(&vm->cpus) == 4);
    machine_siblings(vm, 1, &set);
    CHECK(cpuset_count(&set) == 1 && cpuset_has(&set, 1));
    CHECK(machine_node_of_cpu(vm, 2) == 1 && vm->nodes[1].distance[0] == 20);
    machine_destroy(&vm);

    CHECK(machine_new_file("numa/no-such.cfg", &err) == NULL);
    CHECK(strstr(err.msg, "numa/no-such.cfg: No such file"));
    return 0;
}

//  Bad descriptions say where and what
static int s_test_errors(void)
{
    const char *node0 = "node = 0\n    cpus = 0-1\n    distances = 10\n";
    char text[512];
    CHECK(s_expect_error("", " empty") == 0);
    CHECK(s_expect_error(node0, "1: expected 'machine = NAME' first") == 0);
    CHECK(s_expect_error("machine = m\n", "1: machine 'm' has no") == 0);
    CHECK(s_expect_error("machine\n", "1: machine needs a name") == 0);
    snprintf(text, sizeof text, "machine = m\n    colour = red\n%s", node0);
    CHECK(s_expect_error(text, "2: unknown key 'colour' in machine") == 0);
    snprintf(text, sizeof text, "machine = m\n%ssocket = 1\n", node0);
    CHECK(s_expect_error(text, "5: unknown key 'socket'") == 0);
    snprintf(text, sizeof text, "machine = m\n%s%s", node0, node0);
    CHECK(s_expect_error(text, "5: node 0 again (first at line 2)") == 0);
    snprintf(text, sizeof text, "machine = m\nnode = x\n");
    CHECK(s_expect_error(text, "2: node id 'x' is not a number") == 0);
    snprintf(text, sizeof text, "machine = m\n    smt_offset = two\n%s", node0);
    CHECK(s_expect_error(text, "2: smt_offset 'two' is not a number") == 0);
    snprintf(text, sizeof text,
             "machine = m\n%snode = 1\n    cpus = 1-2\n"
             "    distances = 20,10\n",
             node0);
    CHECK(s_expect_error(text, "6: CPU 1 is already in node 0 (line 2)") == 0);
    CHECK(s_expect_error("machine = m\nnode = 0\n    cpus = 0-x\n",
                         "3: cpu list '0-x': expected a CPU number") == 0);
    CHECK(s_expect_error("machine = m\nnode = 0\n    cpus = 0\n"
                         "    distances = 10,20\n",
                         "4: 2 distances for 1 node") == 0);
    CHECK(s_expect_error("machine = m\nnode = 0\n    cpus = 0\n"
                         "    distances = 11\n",
                         "4: distance from node 0 to "
                         "itself is 11") == 0);
    CHECK(s_expect_error("machine = m\nnode = 0\n    cpus = 0\n"
                         "    distances = ten\n",
                         "4: distance 'ten' is not a number") == 0);
    CHECK(s_expect_error("machine = m\nnode = 0\n    cpus = 0\n",
                         "2: node 0 has no 'distances'") == 0);
    snprintf(text, sizeof text, "machine = m\n    smt_offset = 2\n%s", node0);
    CHECK(s_expect_error(text, "2: smt_offset = 2 pairs CPU 0 with CPU 2, "
                               "which does not exist") == 0);
    snprintf(text, sizeof text,
             "machine = m\n    smt_offset = 2\nnode = 0\n    cpus = 0-1\n"
             "    distances = 10,20\nnode = 1\n    cpus = 2-3\n"
             "    distances = 20,10\n");
    CHECK(s_expect_error(text, "2: smt_offset = 2 pairs CPU 0 (node 0) with "
                               "CPU 2 (node 1)") == 0);
    return 0;
}

static int s_test_live(bool verbose)
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

int machine_test(bool verbose)
{
    CHECK(s_test_xeon(verbose) == 0);
    CHECK(s_test_others() == 0);
    CHECK(s_test_errors() == 0);
    CHECK(s_test_live(verbose) == 0);
    return 0;
}
