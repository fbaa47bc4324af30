/*  pipeline: expand a topology into instances, contexts, hops and places.
    See pipeline.h for the rules.
*/
#include "pipeline/pipeline.h"

#include "base/check.h"
#include "pipeline/roster.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zmq.h>

static int s_expand(pipeline_t *self, const topology_t *topo, errbuf_t *err)
{
    for (int s = 0; s < topo->nstages; s++) {
        params_t params;
        topology_stage_params(topo, s, &params);
        self->first[s] = self->n;
        self->count[s] = params.count;
        if (self->n + params.count > PIPELINE_MAX_INSTANCES) {
            char where[300];
            topology_where(topo, LEVEL_STAGE, s, KEY_COUNT, where,
                           sizeof where);
            return err_set(err,
                           "%sstage '%s' makes %d stage instances, more "
                           "than %d (LIMIT_INSTANCES, docs/LIMITS.md)",
                           where, topo->stages[s].name, self->n + params.count,
                           PIPELINE_MAX_INSTANCES);
        }
        for (int i = 0; i < params.count; i++) {
            instance_t *inst = &self->inst[self->n];
            inst->id = self->n++;
            inst->stage = s;
            inst->instance = i;
            inst->role = topo->stages[s].role;
            inst->params = params;
            if (params.count == 1)
                snprintf(inst->name, sizeof inst->name, "%s",
                         topo->stages[s].name);
            else
                snprintf(inst->name, sizeof inst->name, "%s.%d",
                         topo->stages[s].name, i + 1);
        }
    }
    self->nstages = topo->nstages;
    return 0;
}

//  Which end of each hop binds, and how many endpoints it has
static int s_hops(pipeline_t *self, const topology_t *topo, errbuf_t *err)
{
    for (int h = 0; h < topo->nstages - 1; h++) {
        hop_plan_t *hop = &self->hops[h];
        topology_hop_params(topo, h, &hop->params);
        bool up_proxy = topo->stages[h].role == ROLE_PROXY;
        bool down_proxy = topo->stages[h + 1].role == ROLE_PROXY;
        int ups = self->count[h], downs = self->count[h + 1];
        hop->upstream_binds = up_proxy || (!down_proxy && ups <= downs);
        hop->nendpoints = hop->upstream_binds ? ups : downs;
        if (*hop->params.endpoint && hop->nendpoints > 1) {
            char where[300];
            topology_where(topo, LEVEL_HOP, h, KEY_ENDPOINT, where,
                           sizeof where);
            return err_set(err,
                           "%shop %d names one endpoint, but %d instances "
                           "would bind it",
                           where, h + 1, hop->nendpoints);
        }
    }
    return 0;
}

//  curve on a tcp hop: a server keypair (the binding end) and one for its
//  clients, made now, for this run only
static int s_keys(pipeline_t *self, errbuf_t *err)
{
    for (int h = 0; h < self->nstages - 1; h++) {
        hop_plan_t *hop = &self->hops[h];
        if (!hop->params.curve || hop->params.transport != TRANSPORT_TCP)
            continue;
        char where[300];
        topology_where(self->topo, LEVEL_HOP, h, KEY_CURVE, where,
                       sizeof where);
        if (!zmq_has("curve"))
            return err_set(err,
                           "%shop %d: curve = true, but this libzmq has no "
                           "CURVE",
                           where, h + 1);
        if (zmq_curve_keypair(hop->server_public, hop->server_secret) ||
            zmq_curve_keypair(hop->client_public, hop->client_secret))
            return err_set(err, "hop %d: zmq_curve_keypair: %s", h + 1,
                           zmq_strerror(zmq_errno()));
    }
    return 0;
}

//  Stages joined by inproc hops share a context; the group's first
//  instance owns it.  Other instances each own one.
static void s_contexts(pipeline_t *self)
{
    int group = -1;
    for (int s = 0; s < self->nstages; s++) {
        bool joined_prev =
            s > 0 && self->hops[s - 1].params.transport == TRANSPORT_INPROC;
        bool joined_next = s < self->nstages - 1 &&
                           self->hops[s].params.transport == TRANSPORT_INPROC;
        for (int i = 0; i < self->count[s]; i++) {
            instance_t *inst = &self->inst[self->first[s] + i];
            if (joined_prev || (joined_next && i > 0)) {
                inst->ctx = group;
                continue;
            }
            context_plan_t *ctx = &self->ctx[self->nctx];
            ctx->owner = inst->id;
            ctx->io_threads = inst->params.io_threads;
            ctx->prefix = self->nctx + 1;
            inst->ctx = self->nctx++;
            group = inst->ctx;
        }
    }
}

//  ---------------------------------------------------------------------
//  What a run of the pipeline takes from the system.  Threads: the
//  roster's (roster.h).  Files, measured with libzmq 4.3.4 and czmq
//  4.2.1: hopbench's own (the controller, czmq's context), and per
//  instance its sockets; per context its reaper and I/O threads' mailbox
//  and poller; per tcp or ipc endpoint a listener, per connection a file
//  at each end; a stage in its own process adds that process's czmq
//  context.

#define BASE_FILES 32

//  Files instance i adds (with the context it owns, if any)
static int s_instance_files(const pipeline_t *self, int i)
{
    const instance_t *inst = &self->inst[i];
    int files = 6 + (inst->params.process == PROCESS_OWN ? 20 : 0);
    if (self->ctx[inst->ctx].owner == i)
        files += 3 + 2 * inst->params.io_threads;
    return files;
}

//  LIMIT_THREADS: threads.csv and the CPU accounting read back every
//  thread of a run, at most that many: the roster's
static int s_check_threads(const pipeline_t *self, errbuf_t *err)
{
    int threads = roster_count(self, -1);
    for (int i = 0; i < self->n; i++) {
        threads += roster_count(self, i);
        if (threads <= LIMIT_THREADS)
            continue;
        char where[300];
        topology_where(self->topo, LEVEL_STAGE, self->inst[i].stage,
                       KEY_IO_THREADS, where, sizeof where);
        return err_set(err,
                       "%s%s: the pipeline would start more than %d "
                       "threads (stage threads, libzmq's I/O and reaper "
                       "threads; LIMIT_THREADS, docs/LIMITS.md): fewer "
                       "io_threads or instances",
                       where, self->inst[i].name, LIMIT_THREADS);
    }
    return 0;
}

int pipeline_files(const pipeline_t *self)
{
    int total = BASE_FILES;
    for (int i = 0; i < self->n; i++)
        total += s_instance_files(self, i);
    for (int h = 0; h < self->nstages - 1; h++) {
        const hop_plan_t *hop = &self->hops[h];
        if (hop->params.transport == TRANSPORT_INPROC)
            continue;
        int others = self->count[hop->upstream_binds ? h + 1 : h];
        total += hop->nendpoints * (1 + 2 * others);
    }
    return total;
}

//  Each instance's request, and where its node and cpus came from; the
//  controller's last
typedef struct {
    place_request_t requests[PIPELINE_MAX_INSTANCES + 1];
    char at_node[PIPELINE_MAX_INSTANCES + 1][300];
    char at_cpus[PIPELINE_MAX_INSTANCES + 1][300];
    char at[300];
    int nodes[TOPO_MAX_STAGES]; //  the topology's nodes key, per stage
} requests_t;

//  A stage's own node, else what the topology's nodes key gives it
static void s_request(pipeline_t *self, requests_t *r, int i)
{
    const instance_t *inst = &self->inst[i];
    int node = inst->params.node;
    bool own = (self->topo->stages[inst->stage].params.set[KEY_NODE] &&
                node >= 0) ||
               r->nodes[inst->stage] < 0;
    if (own)
        topology_where(self->topo, LEVEL_STAGE, inst->stage, KEY_NODE,
                       r->at_node[i], sizeof r->at_node[i]);
    else {
        node = r->nodes[inst->stage];
        topology_where(self->topo, LEVEL_TOPOLOGY, 0, KEY_NODES, r->at_node[i],
                       sizeof r->at_node[i]);
    }
    topology_where(self->topo, LEVEL_STAGE, inst->stage, KEY_CPUS,
                   r->at_cpus[i], sizeof r->at_cpus[i]);
    r->requests[i] = (place_request_t){inst->name,    inst->stage,
                                       node,          inst->params.cpus,
                                       r->at_node[i], r->at_cpus[i]};
}

//  The controller's request: its own node and cpus, if it has them
static void s_controller_request(pipeline_t *self, requests_t *r)
{
    int c = self->n;
    const params_t *own = &self->topo->controller;
    topology_where(self->topo, LEVEL_CONTROLLER, 0, KEY_NODE, r->at_node[c],
                   sizeof r->at_node[c]);
    topology_where(self->topo, LEVEL_CONTROLLER, 0, KEY_CPUS, r->at_cpus[c],
                   sizeof r->at_cpus[c]);
    r->requests[c] = (place_request_t){"controller",  -1,
                                       own->node,     own->cpus,
                                       r->at_node[c], r->at_cpus[c]};
}

static int s_place(pipeline_t *self, const machine_t *machine, errbuf_t *err)
{
    requests_t *r = calloc(1, sizeof *r);
    place_t *places = calloc(PIPELINE_MAX_INSTANCES, sizeof *places);
    if (!r || !places) {
        free(r);
        free(places);
        return err_set(err, "%s: out of memory", self->topo->path);
    }
    int rc = topology_nodes(self->topo, r->nodes, err);
    for (int i = 0; i < self->n && rc == 0; i++)
        s_request(self, r, i);
    s_controller_request(self, r);
    topology_where(self->topo, LEVEL_TOPOLOGY, 0, KEY_PLACEMENT, r->at,
                   sizeof r->at);
    place_options_t options = {self->params.placement, self->params.siblings,
                               r->at};
    if (rc == 0)
        rc = placement_plan(machine, &options, r->requests, self->n, places,
                            err);
    if (rc == 0)
        rc = placement_controller(machine, &r->requests[self->n], r->requests,
                                  places, self->n, &self->controller, err);
    for (int i = 0; i < self->n && rc == 0; i++)
        self->inst[i].place = places[i];
    self->allowed = machine->allowed;
    free(r);
    free(places);
    return rc;
}

pipeline_t *pipeline_new(const topology_t *topo, const machine_t *machine,
                         errbuf_t *err)
{
    pipeline_t *self = calloc(1, sizeof *self);
    if (self)
        self->hops = calloc((size_t)topo->nstages, sizeof *self->hops);
    if (!self || !self->hops) {
        pipeline_destroy(&self);
        err_set(err, "%s: out of memory", topo->path);
        return NULL;
    }
    self->topo = topo;
    self->params = topo->params;
    if (s_expand(self, topo, err) || s_hops(self, topo, err) ||
        s_keys(self, err) || (s_contexts(self), s_check_threads(self, err)) ||
        s_place(self, machine, err))
        pipeline_destroy(&self);
    return self;
}

void pipeline_destroy(pipeline_t **self_p)
{
    if (*self_p) {
        free((*self_p)->hops);
        free(*self_p);
        *self_p = NULL;
    }
}

//  Each instance binds at most its two hops (a proxy), once each: a
//  pipeline binds at most twice as many endpoints as it has instances
#define PIPELINE_MAX_PORTS (2 * PIPELINE_MAX_INSTANCES)

//  Free loopback ports: all probes stay open until all are chosen, so the
//  kernel cannot hand out the same port twice
static int s_free_ports(int *ports, int n, errbuf_t *err)
{
    int fds[PIPELINE_MAX_PORTS], rc = 0, opened = 0;
    for (; opened < n && rc == 0; opened++) {
        struct sockaddr_in addr = {.sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof addr;
        fds[opened] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[opened] < 0 ||
            bind(fds[opened], (struct sockaddr *)&addr, sizeof addr) ||
            getsockname(fds[opened], (struct sockaddr *)&addr, &len))
            rc = err_set(err, "finding a free tcp port on 127.0.0.1: %s",
                         strerror(errno));
        ports[opened] = ntohs(addr.sin_port);
    }
    for (int i = 0; i < opened; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return rc;
}

int pipeline_resolve(pipeline_t *self, const char *ipc_dir, int trial,
                     errbuf_t *err)
{
    int ports[PIPELINE_MAX_PORTS], nports = 0, used = 0;
    for (int h = 0; h < self->nstages - 1; h++)
        if (self->hops[h].params.transport == TRANSPORT_TCP &&
            !*self->hops[h].params.endpoint)
            nports += self->hops[h].nendpoints;
    if (nports && s_free_ports(ports, nports, err))
        return -1;
    for (int h = 0; h < self->nstages - 1; h++) {
        hop_plan_t *hop = &self->hops[h];
        for (int e = 0; e < hop->nendpoints; e++) {
            char *ep = hop->endpoint[e];
            if (*hop->params.endpoint)
                snprintf(ep, PIPELINE_ENDPOINT_MAX, "%s", hop->params.endpoint);
            else if (hop->params.transport == TRANSPORT_TCP)
                //  across zones: the binding end's link address
                snprintf(ep, PIPELINE_ENDPOINT_MAX, "tcp://%s:%d",
                         !hop->crosses         ? "127.0.0.1"
                         : hop->upstream_binds ? hop->address[0]
                                               : hop->address[1],
                         ports[used++]);
            else if (hop->params.transport == TRANSPORT_IPC)
                snprintf(ep, PIPELINE_ENDPOINT_MAX, "ipc://%s/hop%d-%d.ipc",
                         ipc_dir, h + 1, e + 1);
            else
                snprintf(ep, PIPELINE_ENDPOINT_MAX,
                         "inproc://hopbench-%d-hop%d-%d", trial, h + 1, e + 1);
        }
    }
    return 0;
}

bool pipeline_binds(const pipeline_t *self, int h, int id, int *endpoint)
{
    const instance_t *inst = &self->inst[id];
    const hop_plan_t *hop = &self->hops[h];
    int side = hop->upstream_binds ? h : h + 1;
    if (inst->stage != side)
        return false;
    *endpoint = inst->instance;
    return true;
}

int pipeline_hop_in(const pipeline_t *self, int id)
{
    return self->inst[id].stage > 0 ? self->inst[id].stage - 1 : -1;
}

int pipeline_hop_out(const pipeline_t *self, int id)
{
    return self->inst[id].stage < self->nstages - 1 ? self->inst[id].stage : -1;
}

bool pipeline_is_source(const pipeline_t *self, int id)
{
    return self->inst[id].stage == 0;
}

bool pipeline_is_sink(const pipeline_t *self, int id)
{
    return self->inst[id].stage == self->nstages - 1;
}

bool pipeline_sees_origins(const pipeline_t *self, int id)
{
    const instance_t *inst = &self->inst[id];
    if (self->params.pattern == PATTERN_CONNECT)
        return inst->role == ROLE_PROXY &&
               inst->params.engine == ENGINE_FORWARDER;
    return pipeline_is_sink(self, id) ||
           (inst->role == ROLE_PROXY &&
            inst->params.engine == ENGINE_FORWARDER);
}

bool pipeline_backpressure(const pipeline_t *self)
{
    return self->params.pattern == PATTERN_PUBSUB &&
           self->params.mode == MODE_CAPACITY;
}

//  The roster of a pipeline: what plan lists, check counts and the
//  thread limit holds, from one walk
static int s_roster_count(const char *text)
{
    errbuf_t err;
    topology_t *topo = topology_load_text("t.cfg", text, &err);
    machine_t *machine = machine_new_file("numa/vm-2x2.cfg", &err);
    pipeline_t *pl = topo && machine && topology_validate(topo, &err) == 0
                         ? pipeline_new(topo, machine, &err)
                         : NULL;
    int n = pl ? roster_list(pl, NULL, 0) : -1;
    int sum = pl ? roster_count(pl, -1) : 0;
    for (int i = 0; pl && i < pl->n; i++)
        sum += roster_count(pl, i);
    pipeline_destroy(&pl);
    machine_destroy(&machine);
    topology_destroy(&topo);
    return n == sum ? n : -2;
}

static int s_test_roster(void)
{
    //  pub: main io0 reaper; broker (zproxy): main zproxy, and czmq's
    //  context io0 reaper; sub.1, sub.2 as pub; the controller: main
    CHECK(s_roster_count("topology = t\n    mode = flood\npublisher = pub\n"
                         "hop\nproxy = broker\n    engine = zproxy\nhop\n"
                         "subscriber = sub\n    count = 2\n") == 14);
    //  broker in its own process: relay, process, and that process's
    //  czmq context is its I/O; the controller keeps its own
    CHECK(s_roster_count("topology = t\n    mode = flood\npublisher = pub\n"
                         "hop\nproxy = broker\n    engine = zproxy\n"
                         "    process = own\nhop\nsubscriber = sub\n") ==
          3 + 6 + 3 + 3);
    //  inproc: sub joins pub's context and brings only its thread
    CHECK(s_roster_count("topology = t\npublisher = pub\nhop = inproc\n"
                         "subscriber = sub\n") == 3 + 1 + 3);
    //  placed: the controller on the CPU the stages left (vm-2x2: 0-3)
    errbuf_t err;
    topology_t *topo = topology_load_text(
        "t.cfg", "topology = t\n    placement = split\npublisher = pub\n"
                 "hop\nproxy = p\nhop\nsubscriber = sub\n", &err);
    machine_t *machine = machine_new_file("numa/vm-2x2.cfg", &err);
    CHECK(topo && machine && topology_validate(topo, &err) == 0);
    pipeline_t *pl = pipeline_new(topo, machine, &err);
    CHECK(pl && pl->controller.shares == -1 && pl->controller.place.node == 1);
    CHECK(cpuset_has(&pl->controller.place.cpus, 3));
    roster_entry_t list[16];
    int n = roster_list(pl, list, 16);
    CHECK(n == 12 && list[9].owner == -1 && list[11].housekeeping);
    CHECK(strcmp(list[11].thread, "reaper") == 0);
    pipeline_destroy(&pl);
    machine_destroy(&machine);
    topology_destroy(&topo);
    return 0;
}

int pipeline_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    const char *text = "topology = t\n"
                       "publisher = pub\n    count = 2\n"
                       "hop = tcp\n"
                       "proxy = p\n"
                       "hop = inproc\n"
                       "subscriber = sub\n    count = 3\n";
    topology_t *topo = topology_load_text("t.cfg", text, &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    machine_t *machine = machine_new_live(&err);
    CHECK(machine);
    pipeline_t *pl = pipeline_new(topo, machine, &err);
    CHECK(pl);
    CHECK(pl->n == 6 && strcmp(pl->inst[0].name, "pub.1") == 0);
    CHECK(strcmp(pl->inst[2].name, "p") == 0);
    CHECK(strcmp(pl->inst[5].name, "sub.3") == 0);
    //  The proxy binds both hops; the subscribers share its context
    CHECK(!pl->hops[0].upstream_binds && pl->hops[0].nendpoints == 1);
    CHECK(pl->hops[1].upstream_binds && pl->hops[1].nendpoints == 1);
    CHECK(pl->nctx == 3 && pl->inst[5].ctx == pl->inst[2].ctx);
    CHECK(pl->ctx[pl->inst[2].ctx].owner == 2);
    CHECK(pipeline_resolve(pl, "/tmp/x", 7, &err) == 0);
    CHECK(strncmp(pl->hops[0].endpoint[0], "tcp://127.0.0.1:", 16) == 0);
    CHECK(strcmp(pl->hops[1].endpoint[0], "inproc://hopbench-7-hop2-1") == 0);
    int e;
    CHECK(pipeline_binds(pl, 0, 2, &e) && e == 0);
    CHECK(!pipeline_binds(pl, 0, 0, &e));
    CHECK(pipeline_hop_in(pl, 0) == -1 && pipeline_hop_out(pl, 0) == 0);
    CHECK(pipeline_hop_in(pl, 5) == 1 && pipeline_hop_out(pl, 5) == -1);
    pipeline_destroy(&pl);

    //  Fan-in over inproc: all publishers share one context
    CHECK(topology_set(topo, "hop1.transport=inproc", &err) == 0);
    CHECK((pl = pipeline_new(topo, machine, &err)));
    CHECK(pl->nctx == 1 && pl->inst[1].ctx == 0 && pl->inst[5].ctx == 0);
    pipeline_destroy(&pl);
    topology_destroy(&topo);

    //  Direct fan-out: the single publisher binds
    topo = topology_load_text("t.cfg",
                              "topology = t\npublisher = a\nhop = ipc\n"
                              "subscriber = b\n    count = 4\n",
                              &err);
    CHECK(topo && (pl = pipeline_new(topo, machine, &err)));
    CHECK(pl->hops[0].upstream_binds && pl->nctx == 5);
    CHECK(pipeline_resolve(pl, "/tmp/d", 1, &err) == 0);
    CHECK(strcmp(pl->hops[0].endpoint[0], "ipc:///tmp/d/hop1-1.ipc") == 0);
    pipeline_destroy(&pl);
    topology_destroy(&topo);
    machine_destroy(&machine);
    return s_test_roster();
}
