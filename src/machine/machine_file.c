/*  machine_file: a described machine (numa/README.md).

    Design: a ZPL description (read with zpl, so every error says
    "path:line: message") fills the plain struct of machine.h; every value
    is checked and nothing is guessed.  Then machine_index indexes it as
    machine_live.c indexes the live machine, so placement never knows which
    kind it got.  A described machine's CPU lists are parsed against the
    description, not against the CPUs this process sees (machine.c).
*/
#include "machine/machine_internal.h"

#include "base/check.h"
#include "config/zpl.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DISTANCE 254  //  255 means "unreachable" in ACPI's SLIT
#define MAX_NODE_ID  LIMIT_NODE_ID //  Linux's largest MAX_NUMNODES

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
#define s_at(self, node, ...)                                                  \
    zpl_error((self)->zpl, (node), (self)->err, __VA_ARGS__)

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
    machine_copy(machine->name, sizeof machine->name, name);
    zconfig_t *model = zconfig_locate(section, "model");
    if (model && strlen(zconfig_value(model)) >= sizeof machine->model)
        return s_at(self, model, "model longer than %zu characters",
                    sizeof machine->model - 1);
    if (model)
        machine_copy(machine->model, sizeof machine->model,
                     zconfig_value(model));
    self->smt = zconfig_locate(section, "smt_offset");
    return 0;
}

//  The node's 'cpus': a plain list, no CPU already in an earlier node
static int s_read_cpus(desc_t *self, zconfig_t *line, machine_node_t *node)
{
    const char *text = zconfig_value(line);
    errbuf_t why;
    cpuset_t every;
    machine_every_cpu(&every);
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
    machine_index(self->machine);
    return s_read_cores(self);
}

machine_t *machine_new_text(const char *path, const char *text, errbuf_t *err)
{
    zpl_t *zpl = text ? zpl_load_text(path, text, err) : zpl_load(path, err);
    if (!zpl)
        return NULL;
    machine_t *self = machine_alloc(err);
    desc_t desc = {.zpl = zpl, .machine = self, .err = err};
    if (self && s_read(&desc) == 0) {
        machine_copy(self->source, sizeof self->source, path);
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
//  The other way: a machine as a description

//  smt_offset N if every core is CPUs c and c + N (0: one CPU per core);
//  -1 when the cores are not that regular
static int s_smt_offset(const machine_t *self)
{
    int offset = -1;
    bool single = true;
    for (int cpu = cpuset_next(&self->cpus, -1); cpu >= 0;
         cpu = cpuset_next(&self->cpus, cpu)) {
        cpuset_t siblings;
        machine_siblings(self, cpu, &siblings);
        int first = cpuset_next(&siblings, -1);
        int second = cpuset_next(&siblings, first);
        if (second < 0)
            continue;
        single = false;
        if (cpuset_next(&siblings, second) >= 0 ||
            (offset >= 0 && second - first != offset))
            return -1;
        offset = second - first;
    }
    return single ? 0 : offset;
}

//  Text inside double quotes: no quote of its own
static void s_quoted(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *p = text; *p; p++)
        fputc(*p == '"' ? '\'' : *p, out);
    fputc('"', out);
}

int machine_describe(const machine_t *self, const char *name, FILE *out)
{
    int offset = s_smt_offset(self);
    fputs("machine = ", out);
    s_quoted(out, name);
    fputs("\n    model = ", out);
    s_quoted(out, self->model);
    fprintf(out, "\n    smt_offset = %d\n", offset > 0 ? offset : 0);
    for (int n = 0; n < self->nnodes; n++) {
        char cpus[4096];
        cpuset_format(&self->nodes[n].cpus, cpus, sizeof cpus);
        fprintf(out, "node = %d\n    cpus = %s\n    distances = ",
                self->nodes[n].id, cpus);
        for (int m = 0; m < self->nnodes; m++)
            fprintf(out, "%s%d", m ? "," : "", self->nodes[n].distance[m]);
        fputc('\n', out);
    }
    return offset >= 0 ? 0 : -1;
}

//  ---------------------------------------------------------------------
//  Selftest

static bool s_same(const cpuset_t *a, const cpuset_t *b)
{
    return cpuset_subset(a, b) && cpuset_subset(b, a);
}

//  A description written back reads as the same machine
static int s_test_describe(const char *path)
{
    errbuf_t err;
    machine_t *a = machine_new_file(path, &err), *b = NULL;
    CHECK(a);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out && machine_describe(a, "again", out) == 0);
    fclose(out);
    CHECK((b = machine_new_text("again", text, &err)));
    CHECK(streq(b->name, "again") && streq(b->model, a->model));
    CHECK(b->nnodes == a->nnodes && s_same(&a->cpus, &b->cpus));
    for (int cpu = 0; cpu < CPUSET_MAX; cpu++) {
        cpuset_t x, y;
        machine_siblings(a, cpu, &x);
        machine_siblings(b, cpu, &y);
        CHECK(s_same(&x, &y));
    }
    for (int n = 0; n < a->nnodes; n++)
        CHECK(memcmp(a->nodes[n].distance, b->nodes[n].distance,
                     sizeof a->nodes[n].distance) == 0);
    free(text);
    machine_destroy(&a);
    machine_destroy(&b);
    return 0;
}

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
    errbuf_t err = {0};
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
//  Bad descriptions say where and what
//  ---------------------------------------------------------------------
//  Selftest: the questions of machine.c, asked of described machines

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

int machine_file_test(bool verbose)
{
    CHECK(s_test_xeon(verbose) == 0);
    CHECK(s_test_others() == 0);
    CHECK(s_test_describe("numa/xeon-e5-2680v4-2s.cfg") == 0);
    CHECK(s_test_describe("numa/vm-2x4-smt.cfg") == 0);
    CHECK(s_test_describe("numa/vm-2x2.cfg") == 0);
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
