/*  fuzz_shape: libFuzzer target that builds big topologies from few bytes.

    fuzz_topology mutates text, so it rarely writes a file of more than a
    few stages; this target reads its input as choices instead and writes
    the file itself: the pattern, how many proxies (up to 165, past
    LIMIT_STAGES), each stage's role (now and then the wrong one), count
    (up to 65, past LIMIT_COUNT) and keys, each hop's transport as its
    value, as a key below it or not at all, its endpoint, hwm and curve,
    keys nested deeper than ZPL allows, up to 8 --set assignments and up
    to 3 --sweep keys with up to 40 values.  One input in four is a tree
    instead: publisher branches into a core that names them with from,
    the core into regional edges that name it, each with subscribers;
    now and then a from names no stage, the stage itself (a cycle), a
    publisher that already reaches it (a diamond), or a stage twice.  Values come from tables of
    good and bad ones (limits, user text such as 1e9, endpoints without a
    port).  Choices past the input's end are 0, so a short input is a
    small, valid pipeline and every byte more makes it bigger or odder.

    Then it goes as `hopbench check` and a sweep take it: load, --set,
    validate, plan on this machine and the described Xeon, and for each
    sweep combination (at most 32) the same on a copy.  Properties, beyond
    the sanitizers: the effective config loads back the same
    (fuzz_check_saved), and every error found after loading says where
    (fuzz_check_where).
*/
#include "fuzz.h"
#include "config/sweep.h"
#include "pipeline/pipeline.h"

#include <stdlib.h>
#include <string.h>

#define MAX_COMBOS 32

typedef struct {
    const uint8_t *data;
    size_t size, at;
    FILE *out; //  the topology being written
    char sets[8][128];
    int nsets;
    char sweeps[3][1024];
    const char *sweep_specs[3];
    int nsweeps;
} builder_t;

static unsigned s_byte(builder_t *self)
{
    return self->at < self->size ? self->data[self->at++] : 0;
}

static unsigned s_pick(builder_t *self, unsigned n)
{
    return s_byte(self) % n;
}

#define PICK(self, table) table[s_pick(self, sizeof table / sizeof *table)]

//  Values worth trying for each key, good ones first (choice 0)
static const struct {
    const char *key;
    const char *values[12];
} s_values[] = {
    {"sizes", {"64", "8..131072", "8,64,4096", "300000000", "1e9", "16e3",
               "8..64M", "8,8", "64K..1M", "4", "0..-5"}},
    {"messages", {"1000", "0", "1e6", "1000000000000", "99999999999999999999"}},
    {"duration", {"0.2", "1e-1", "0", "3600", "nan"}},
    {"repeat", {"1", "3", "1000", "1001", "0"}},
    {"rate", {"0", "1000", "1e9", "-1"}},
    {"pattern", {"pubsub", "pushpull", "reqrep", "connect", "x"}},
    {"placement", {"none", "compact", "spread", "split", "x"}},
    {"nodrop", {"false", "true", "maybe"}},
    {"zerocopy", {"false", "true"}},
    {"hwm", {"1000", "1", "2", "0", "1e3", "1000000000", "-1"}},
    {"io_threads", {"1", "2", "8", "64", "65"}},
    {"engine", {"steerable", "forwarder", "zproxy", "x"}},
    {"count", {"1", "2", "4", "16", "64", "65", "0"}},
    {"node", {"-1", "0", "1", "99", "1023", "1024"}},
    {"cpus", {"0", "0-1", "0-", "abc", "5", "!0", "all", "0-55", "1023",
              "1024", "0-3,8"}},
    {"process", {"thread", "own"}},
    {"netns", {"z1", "z2", "z3", "far", "toolongazone", "a b"}},
    {"transport", {"ipc", "tcp", "inproc", "tpc"}},
    {"endpoint", {"", "tcp://127.0.0.1:5555", "tcp://127.0.0.1:99999",
                  "tcp://192.0.2.1", "tcp://*:5556", "ipc:///tmp/hb-fuzz.ipc",
                  "ipc://*", "inproc://fuzz", "tcp://[::1]:5557"}},
    {"curve", {"false", "true"}},
    {"bogus", {"1"}},
};

static const char *s_value(builder_t *self, const char *key)
{
    for (size_t k = 0; k < sizeof s_values / sizeof *s_values; k++)
        if (strcmp(s_values[k].key, key) == 0) {
            int n = 0;
            while (n < 12 && s_values[k].values[n])
                n++;
            return s_values[k].values[s_pick(self, (unsigned)n)];
        }
    return "1";
}

//  Keys for each place, a few from elsewhere (refused at their line)
static const char *const s_top_keys[] = {
    "sizes",     "messages", "duration", "repeat", "rate",
    "placement", "nodrop",   "hwm",      "engine", "transport",
    "zerocopy",  "curve",    "count",    "bogus"};
static const char *const s_stage_keys[] = {"io_threads", "node",   "cpus",
                                           "process",    "netns",  "engine",
                                           "count",      "endpoint"};
static const char *const s_hop_keys[] = {"hwm", "endpoint", "curve",
                                         "transport", "node"};

//  0..3 keys below a line, "    key = value"; now and then nested deeper
static void s_keys(builder_t *self, const char *const *keys, unsigned nkeys)
{
    unsigned n = s_pick(self, 4);
    for (unsigned i = 0; i < n; i++) {
        const char *key = keys[s_pick(self, nkeys)];
        fprintf(self->out, "    %s = \"%s\"\n", key, s_value(self, key));
    }
    if (s_pick(self, 16) == 15) //  nesting, up to 40 levels
        for (unsigned depth = 2, deep = 2 + s_pick(self, 40); depth <= deep;
             depth++)
            fprintf(self->out, "%*sx = 1\n", (int)depth * 4, "");
}

static void s_hop(builder_t *self)
{
    static const char *const transports[] = {"ipc", "tcp", "inproc"};
    switch (s_pick(self, 3)) {
    case 0:
        fprintf(self->out, "hop\n");
        break;
    case 1:
        fprintf(self->out, "hop = %s\n", PICK(self, transports));
        break;
    default:
        fprintf(self->out, "hop\n    transport = %s\n", PICK(self, transports));
    }
    s_keys(self, s_hop_keys, sizeof s_hop_keys / sizeof *s_hop_keys);
}

static void s_stage(builder_t *self, const char *role, int index, bool ends)
{
    static const char *const roles[] = {"publisher", "subscriber", "proxy",
                                        "pusher",    "puller",     "replier"};
    if (s_pick(self, 32) == 31)
        role = PICK(self, roles);
    fprintf(self->out, "%s = s%d\n", role, index);
    if (ends && s_pick(self, 2))
        fprintf(self->out, "    count = %s\n", s_value(self, "count"));
    s_keys(self, s_stage_keys, sizeof s_stage_keys / sizeof *s_stage_keys);
}

//  The topology: its keys, then source, proxies and sink with hops
static void s_topology(builder_t *self)
{
    static const struct {
        const char *pattern, *source, *sink;
    } patterns[] = {{"pubsub", "publisher", "subscriber"},
                    {"pushpull", "pusher", "puller"},
                    {"reqrep", "requester", "replier"},
                    {"connect", "publisher", "subscriber"}};
    unsigned p = s_pick(self, 4), n = s_byte(self);
    int proxies = n < 200 ? (int)(n % 12) : (int)(n - 200) * 3;
    fprintf(self->out, "# built by fuzz_shape\ntopology = t\n");
    fprintf(self->out, "    pattern = %s\n    sizes = 64\n", patterns[p].pattern);
    s_keys(self, s_top_keys, sizeof s_top_keys / sizeof *s_top_keys);
    s_stage(self, patterns[p].source, 0, true);
    for (int i = 1; i <= proxies; i++) {
        s_hop(self);
        s_stage(self, "proxy", i, false);
    }
    s_hop(self);
    s_stage(self, patterns[p].sink, proxies + 1, true);
}

//  "from = a,b" for a stage, with its link keys below it now and then;
//  names[] the regular upstreams, plus a wrong one at times
static void s_from(builder_t *self, const char *const *names, int n)
{
    static const char *const wrong[] = {"nosuch", "core", "s0", "e0-0"};
    fprintf(self->out, "    from = ");
    for (int i = 0; i < n; i++)
        fprintf(self->out, "%s%s", i ? "," : "", names[i]);
    if (s_pick(self, 8) == 7)
        fprintf(self->out, ",%s", PICK(self, wrong));
    fprintf(self->out, "\n");
    for (unsigned k = 0, keys = s_pick(self, 3); k < keys; k++) {
        const char *key = s_hop_keys[s_pick(
            self, sizeof s_hop_keys / sizeof *s_hop_keys)];
        fprintf(self->out, "        %s = \"%s\"\n", key, s_value(self, key));
    }
}

//  A tree: branches s0.. (a publisher, then 0 to 2 proxies) into a core,
//  the core into regions r0.. of subscribers, or into one subscriber
static void s_tree(builder_t *self)
{
    char names[64][16];
    const char *ends[64];
    int branches = 1 + (int)s_pick(self, 6), regions = (int)s_pick(self, 5);
    fprintf(self->out, "# built by fuzz_shape, a tree\ntopology = t\n"
                       "    sizes = 64\n");
    s_keys(self, s_top_keys, sizeof s_top_keys / sizeof *s_top_keys);
    for (int b = 0; b < branches; b++) {
        snprintf(names[b], sizeof names[b], "s%d", b);
        s_stage(self, "publisher", b, true);
        for (int p = 0, n = (int)s_pick(self, 3); p < n; p++) {
            s_hop(self);
            snprintf(names[b], sizeof names[b], "e%d-%d", b, p);
            fprintf(self->out, "proxy = %s\n", names[b]);
        }
        ends[b] = names[b];
    }
    fprintf(self->out, "proxy = core\n");
    s_from(self, ends, branches);
    for (int r = 0; r < regions; r++) {
        static const char *const core[] = {"core"};
        fprintf(self->out, "proxy = r%d\n", r);
        s_from(self, core, 1);
        s_hop(self);
        s_stage(self, "subscriber", 100 + r, true);
    }
    if (regions == 0) {
        s_hop(self);
        s_stage(self, "subscriber", 100, true);
    }
}

//  "KEY=VALUE", "sN.KEY=VALUE", "hopN.KEY=VALUE" or "UP:DOWN.KEY=VALUE"
static void s_assignment(builder_t *self, char *buf, size_t len,
                         const char *value)
{
    static const char *const keys[] = {"hwm",  "transport", "count",
                                       "cpus", "endpoint",  "engine",
                                       "node", "placement", "sizes"};
    const char *key = PICK(self, keys);
    unsigned where = s_pick(self, 4), index = s_byte(self);
    char target[32] = "";
    if (where == 1)
        snprintf(target, sizeof target, "s%u.", index % 140);
    else if (where == 2)
        snprintf(target, sizeof target, "hop%u.", index % 140);
    else if (where == 3)
        snprintf(target, sizeof target, "core:r%u.", index % 6);
    snprintf(buf, len, "%s%s=%s", target, key,
             value ? value : s_value(self, key));
}

static void s_options(builder_t *self)
{
    self->nsets = (int)s_pick(self, 9);
    for (int i = 0; i < self->nsets; i++)
        s_assignment(self, self->sets[i], sizeof self->sets[i], NULL);
    self->nsweeps = (int)s_pick(self, 4);
    for (int k = 0; k < self->nsweeps; k++) {
        char *spec = self->sweeps[k];
        s_assignment(self, spec, sizeof self->sweeps[k], "1");
        spec[strlen(spec) - 1] = 0; //  "KEY=" and its values
        for (unsigned v = 0, n = 1 + s_pick(self, 40); v < n; v++) {
            const char *key = strchr(spec, '.') ? strchr(spec, '.') + 1 : spec;
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(key, "="), key);
            const char *value = s_value(self, name);
            snprintf(spec + strlen(spec), sizeof self->sweeps[k] - strlen(spec),
                     "%s%s", v ? "," : "", *value ? value : "x");
        }
        self->sweep_specs[k] = spec;
    }
}

//  Expand and place on both machines, as check and plan do
static void s_plan(const topology_t *topo, const char *input)
{
    const machine_t *machines[] = {fuzz_live(), fuzz_xeon()};
    for (size_t i = 0; i < sizeof machines / sizeof *machines; i++) {
        errbuf_t err;
        pipeline_t *pl = pipeline_new(topo, machines[i], &err);
        if (!pl)
            fuzz_check_where(input, topo->path, err.msg);
        pipeline_destroy(&pl);
    }
}

//  Every combination (at most MAX_COMBOS) on a copy, as run plans them
static void s_sweep(builder_t *self, const topology_t *topo, const char *input)
{
    sweep_t *sweep = calloc(1, sizeof *sweep);
    errbuf_t err;
    if (!sweep || sweep_parse(sweep, self->sweep_specs, self->nsweeps, "--sweep",
                               &err)) {
        free(sweep);
        return;
    }
    for (int c = 0; c < sweep_count(sweep) && c < MAX_COMBOS; c++) {
        topology_t *copy = topology_dup(topo);
        int rc = copy ? 0 : -1;
        for (int k = 0; k < sweep->nkeys && rc == 0; k++) {
            char assignment[256];
            sweep_assignment(sweep, c, k, assignment, sizeof assignment);
            rc = topology_set_as(copy, assignment, "--sweep", &err);
        }
        if (rc == 0 && topology_validate(copy, &err) == 0)
            s_plan(copy, input);
        else if (rc == 0)
            fuzz_check_where(input, copy->path, err.msg);
        topology_destroy(&copy);
    }
    free(sweep);
}

static void s_check(builder_t *self, const char *text)
{
    errbuf_t err = {0};
    topology_t *topo = topology_load_text("shape.cfg", text, &err);
    if (!topo)
        fuzz_check_refusal(text, "shape.cfg", err.msg);
    int rc = topo ? 0 : -1;
    for (int i = 0; i < self->nsets && rc == 0; i++)
        rc = topology_set(topo, self->sets[i], &err);
    if (rc == 0 && topology_validate(topo, &err) == 0) {
        s_plan(topo, text);
        fuzz_check_saved(topo, text);
        s_sweep(self, topo, text);
    } else if (rc == 0)
        fuzz_check_where(text, topo->path, err.msg);
    topology_destroy(&topo);
}

//  The options as comments, so that a broken property shows them, and
//  fuzz_topology and tests/50-fuzz-regressions.t replay the --set ones
static void s_note_options(builder_t *self)
{
    for (int i = 0; i < self->nsets; i++)
        fprintf(self->out, "#set %s\n", self->sets[i]);
    for (int k = 0; k < self->nsweeps; k++)
        fprintf(self->out, "#sweep %s\n", self->sweeps[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    builder_t self = {.data = data, .size = size};
    char *text = NULL;
    size_t len = 0;
    self.out = open_memstream(&text, &len);
    if (!self.out)
        return 0;
    if (s_pick(&self, 4) == 3)
        s_tree(&self);
    else
        s_topology(&self);
    s_options(&self);
    s_note_options(&self);
    fclose(self.out);
    s_check(&self, text);
    free(text);
    return 0;
}
