/*  pipeline: expand a topology into instances, contexts, hops and places.
    See pipeline.h for the rules.
*/
#include "pipeline/pipeline.h"

#include "base/check.h"
#include "machine/io_cpus.h"
#include "pipeline/links.h"
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
            return topology_key_error(
                topo, LEVEL_STAGE, s, KEY_COUNT, err,
                "stage '%s' makes %d stage instances, more than %d "
                "(LIMIT_INSTANCES, docs/LIMITS.md)",
                topo->stages[s].name, self->n + params.count,
                PIPELINE_MAX_INSTANCES);
        }
        for (int i = 0; i < params.count; i++) {
            instance_t *inst = &self->inst[self->n];
            inst->id = self->n++;
            inst->stage = s;
            inst->instance = i;
            inst->role = topo->stages[s].role;
            inst->origin =
                pattern_is_source(inst->role) ? self->norigins++ : -1;
            inst->params = params;
            topology_instance_host(&params, i, inst->host, sizeof inst->host);
            if (params.count == 1)
                snprintf(inst->name, sizeof inst->name, "%s",
                         topo->stages[s].name);
            else
                snprintf(inst->name, sizeof inst->name, "%s.%d",
                         topo->stages[s].name, i + 1);
        }
    }
    self->nstages = topo->nstages;
    self->nhops = topo->nhops;
    return 0;
}

//  Which end of each hop binds, and how many endpoints it has
static int s_hops(pipeline_t *self, const topology_t *topo, errbuf_t *err)
{
    for (int h = 0; h < topo->nhops; h++) {
        hop_plan_t *hop = &self->hops[h];
        topology_hop_params(topo, h, &hop->params);
        hop->up = topology_hop_up(topo, h);
        hop->down = topology_hop_down(topo, h);
        bool up_proxy = topo->stages[hop->up].role == ROLE_PROXY;
        bool down_proxy = topo->stages[hop->down].role == ROLE_PROXY;
        int ups = self->count[hop->up], downs = self->count[hop->down];
        hop->upstream_binds = up_proxy || (!down_proxy && ups <= downs);
        hop->nendpoints = hop->upstream_binds ? ups : downs;
        if (hop->nendpoints > PIPELINE_MAX_BINDERS) //  LIMIT_ORIGINS: never
            return err_set(err, "hop %d: %d endpoints, more than %d "
                                "(LIMIT_BINDERS, docs/LIMITS.md)",
                           h + 1, hop->nendpoints, PIPELINE_MAX_BINDERS);
        if (*hop->params.endpoint && hop->nendpoints > 1) {
            return topology_key_error(topo, LEVEL_HOP, h, KEY_ENDPOINT, err,
                                      "hop %d names one endpoint, but %d "
                                      "instances would bind it",
                                      h + 1, hop->nendpoints);
        }
    }
    return 0;
}

//  curve on a tcp hop: a server keypair (the binding end) and one for its
//  clients, made now, for this run only
static int s_keys(pipeline_t *self, errbuf_t *err)
{
    for (int h = 0; h < self->nhops; h++) {
        hop_plan_t *hop = &self->hops[h];
        if (!hop->params.curve || hop->params.transport != TRANSPORT_TCP)
            continue;
        if (!zmq_has("curve"))
            return topology_key_error(self->topo, LEVEL_HOP, h, KEY_CURVE, err,
                                      "hop %d: curve = true, but this libzmq "
                                      "has no CURVE",
                                      h + 1);
        if (zmq_curve_keypair(hop->server_public, hop->server_secret) ||
            zmq_curve_keypair(hop->client_public, hop->client_secret))
            return err_set(err, "hop %d: zmq_curve_keypair: %s", h + 1,
                           zmq_strerror(zmq_errno()));
    }
    return 0;
}

//  Stages joined by inproc hops share a context (one per group of them,
//  however the group branches); the group's first instance owns it.
//  Other instances each own one.  group[s]: the lowest stage of s's group
static void s_inproc_groups(const pipeline_t *self, int *group)
{
    for (int s = 0; s < self->nstages; s++)
        group[s] = s;
    for (bool changed = true; changed;) {
        changed = false;
        for (int h = 0; h < self->nhops; h++) {
            const hop_plan_t *hop = &self->hops[h];
            int low = group[hop->up] < group[hop->down] ? group[hop->up]
                                                         : group[hop->down];
            if (hop->params.transport != TRANSPORT_INPROC ||
                (group[hop->up] == low && group[hop->down] == low))
                continue;
            group[hop->up] = group[hop->down] = low;
            changed = true;
        }
    }
}

static void s_contexts(pipeline_t *self)
{
    int group[TOPO_MAX_STAGES], made[TOPO_MAX_STAGES], members[TOPO_MAX_STAGES];
    s_inproc_groups(self, group);
    for (int s = 0; s < self->nstages; s++)
        made[s] = -1, members[s] = 0;
    for (int s = 0; s < self->nstages; s++)
        members[group[s]]++;
    for (int id = 0; id < self->n; id++) {
        instance_t *inst = &self->inst[id];
        int g = group[inst->stage];
        bool joined = members[g] > 1;
        if (joined && made[g] >= 0) {
            inst->ctx = made[g];
            continue;
        }
        context_plan_t *ctx = &self->ctx[self->nctx];
        ctx->owner = inst->id;
        ctx->io_threads = inst->params.io_threads;
        ctx->prefix = 1;
        for (int k = 0; k < self->nctx; k++)
            ctx->prefix +=
                !strcmp(self->inst[self->ctx[k].owner].host, inst->host);
        inst->ctx = self->nctx++;
        if (joined)
            made[g] = inst->ctx;
    }
}

//  A stage's own io_cpus on a stage whose context another stage owns (an
//  inproc hop joins them) would move nothing: refused, naming the owner.
//  The owner's value, or the topology's (config.cfg writes every stage's
//  keys), is not its own
static bool s_own_io_cpus(const pipeline_t *self, int i, int owner)
{
    const char *value = self->inst[i].params.io_cpus;
    return self->topo->stages[self->inst[i].stage].params.set[KEY_IO_CPUS] &&
           strcmp(value, self->inst[owner].params.io_cpus) != 0 &&
           strcmp(value, self->topo->params.io_cpus) != 0;
}

static int s_check_io_cpus(const pipeline_t *self, errbuf_t *err)
{
    for (int i = 0; i < self->n; i++) {
        const instance_t *inst = &self->inst[i];
        int owner = self->ctx[inst->ctx].owner;
        if (owner == i || !s_own_io_cpus(self, i, owner))
            continue;
        return topology_key_error(
            self->topo, LEVEL_STAGE, inst->stage, KEY_IO_CPUS, err,
            "%s: io_cpus: its libzmq context is %s's (an inproc hop joins "
            "them): give io_cpus to %s",
            inst->name, self->inst[owner].name, self->inst[owner].name);
    }
    return 0;
}

//  LIMIT_THREADS: the read-back of a machine's threads (here, or an
//  agent's on its host) takes at most that many: the roster's threads of
//  each machine, counted apart (hopbench's own on the controller's).
//  Each instance is counted once, into its host's sum (kept at the
//  host's first instance): counting every earlier instance again for
//  each made a plan of 128 instances cubic
static int s_check_threads(const pipeline_t *self, errbuf_t *err)
{
    int sum[PIPELINE_MAX_INSTANCES];
    for (int i = 0; i < self->n; i++) {
        const char *host = self->inst[i].host;
        int first = pipeline_host_first(self, i);
        if (first == i)
            sum[i] = host[0] ? 0 : roster_count(self, -1);
        int threads = sum[first] += roster_count(self, i);
        if (threads <= LIMIT_THREADS)
            continue;
        return topology_key_error(
            self->topo, LEVEL_STAGE, self->inst[i].stage, KEY_IO_THREADS, err,
            "%s: the pipeline would start more than %d threads on %s%s "
            "(stage threads, libzmq's I/O and reaper threads; "
            "LIMIT_THREADS, docs/LIMITS.md): fewer io_threads or instances "
            "there",
            self->inst[i].name, LIMIT_THREADS, host[0] ? "host " : "",
            host[0] ? host : "this machine");
    }
    return 0;
}

//  Each instance's request, and where its node and cpus came from; the
//  controller's last
typedef struct {
    place_request_t requests[PIPELINE_MAX_INSTANCES + 1];
    char at_node[PIPELINE_MAX_INSTANCES + 1][300];
    char at_cpus[PIPELINE_MAX_INSTANCES + 1][300];
    char at_io_cpus[PIPELINE_MAX_INSTANCES][300];
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
    topology_where(self->topo, LEVEL_STAGE, inst->stage, KEY_IO_CPUS,
                   r->at_io_cpus[i], sizeof r->at_io_cpus[i]);
    const shape_t *shape = &self->topo->shape;
    r->requests[i] = (place_request_t){.name = inst->name,
                                       .stage = shape->tier[inst->stage],
                                       .distance = shape->distance[inst->stage],
                                       .node = node,
                                       .cpus = inst->params.cpus,
                                       .at_node = r->at_node[i],
                                       .at_cpus = r->at_cpus[i],
                                       .io_cpus = inst->params.io_cpus,
                                       .at_io_cpus = r->at_io_cpus[i]};
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
    r->requests[c] = (place_request_t){.name = "controller",
                                       .stage = -1,
                                       .node = own->node,
                                       .cpus = own->cpus,
                                       .at_node = r->at_node[c],
                                       .at_cpus = r->at_cpus[c]};
}

//  Is instance i among the stages of 'host' (NULL: of every host)?
static bool s_on(const pipeline_t *self, int i, const char *host)
{
    return !host || strcmp(self->inst[i].host, host) == 0;
}

//  The instances of one host, planned on its machine, and the host's
//  housekeeping CPU among them: hopbench's own threads' on the
//  controller's host (its controller keys), a stage process's main and
//  czmq threads on another (the same choice its agent's stage makes).
//  home: the host this process runs on (machines[0])
static int s_place_host(pipeline_t *self, const pipeline_machine_t *where,
                        bool home, requests_t *r, place_t *places,
                        errbuf_t *err)
{
    static const place_request_t anywhere = {
        .name = "controller", .stage = -1, .node = -1, .cpus = ""};
    int ids[PIPELINE_MAX_INSTANCES], n = 0;
    place_request_t requests[PIPELINE_MAX_INSTANCES] = {{0}};
    for (int i = 0; i < self->n; i++)
        if (s_on(self, i, where->host)) {
            requests[n] = r->requests[i];
            ids[n++] = i;
        }
    place_options_t options = {self->params.placement, self->params.siblings,
                               r->at};
    const char *host = where->host ? where->host : "";
    errbuf_t why;
    housekeeping_t hk;
    int rc = placement_plan(where->machine, &options, requests, n, places, &why);
    if (rc == 0)
        rc = io_cpus_place(where->machine, requests, n, places, &why);
    if (rc == 0)
        rc = placement_controller(where->machine,
                                  host[0] ? &anywhere : &r->requests[self->n],
                                  requests, places, n, &hk, &why);
    if (rc)
        return host[0] ? err_set(err, "host %s: %s", host, why.msg)
                       : err_set(err, "%s", why.msg);
    for (int k = 0; k < n; k++) {
        self->inst[ids[k]].place = places[k];
        self->inst[ids[k]].home = hk.place;
    }
    if (home) {
        self->controller = hk;
        self->allowed = where->machine->allowed;
    }
    return 0;
}

//  The machine host's stages are planned on, NULL: they are not
static const pipeline_machine_t *s_machine_of(const pipeline_machine_t *machines,
                                              int n, const char *host)
{
    for (int m = 0; m < n; m++)
        if (!machines[m].host || strcmp(machines[m].host, host) == 0)
            return &machines[m];
    return NULL;
}

//  Each host's instances on its own machine, in the order hosts first
//  appear; the home host (machines[0]) also places hopbench's own threads
static int s_place(pipeline_t *self, const pipeline_machine_t *machines,
                   int nmachines, errbuf_t *err)
{
    requests_t *r = calloc(1, sizeof *r);
    place_t *places = calloc(PIPELINE_MAX_INSTANCES, sizeof *places);
    if (!r || !places) {
        free(r);
        free(places);
        return err_set(err, "%s: out of memory", self->topo->path);
    }
    int rc = topology_nodes(self->topo, r->nodes, err);
    for (int i = 0; i < self->n && rc == 0; i++) {
        self->inst[i].place = (place_t){.node = -1};
        s_request(self, r, i);
    }
    s_controller_request(self, r);
    topology_where(self->topo, LEVEL_TOPOLOGY, 0, KEY_PLACEMENT, r->at,
                   sizeof r->at);
    bool home_done = false;
    for (int i = 0; i < self->n && rc == 0; i++) {
        const char *host = self->inst[i].host;
        int first = pipeline_host_first(self, i);
        const pipeline_machine_t *where =
            s_machine_of(machines, nmachines, host);
        if (first != i || !where)
            continue; //  planned with its host's first instance, or not here
        bool home = where == &machines[0];
        rc = s_place_host(self, where, home, r, places, err);
        home_done |= home;
        if (!where->host)
            break; //  one machine for every host: all planned at once
    }
    //  a home with no stage of its own still places hopbench's threads
    if (rc == 0 && !home_done && nmachines > 0 &&
        placement_controller(machines[0].machine, &r->requests[self->n],
                             r->requests, places, 0, &self->controller, err))
        rc = -1;
    if (rc == 0 && !home_done && nmachines > 0)
        self->allowed = machines[0].machine->allowed;
    free(r);
    free(places);
    return rc;
}

pipeline_t *pipeline_new_on(const topology_t *topo,
                            const pipeline_machine_t *machines, int n,
                            errbuf_t *err)
{
    pipeline_t *self = calloc(1, sizeof *self);
    if (self)
        self->hops = calloc((size_t)topo->nhops + 1, sizeof *self->hops);
    if (!self || !self->hops) {
        pipeline_destroy(&self);
        err_set(err, "%s: out of memory", topo->path);
        return NULL;
    }
    self->topo = topo;
    self->params = topo->params;
    if (s_expand(self, topo, err) || s_hops(self, topo, err) ||
        s_keys(self, err) || (s_contexts(self), s_check_threads(self, err)) ||
        links_check(self, err) || s_check_io_cpus(self, err) ||
        s_place(self, machines, n, err))
        pipeline_destroy(&self);
    return self;
}

pipeline_t *pipeline_new(const topology_t *topo, const machine_t *machine,
                         errbuf_t *err)
{
    pipeline_machine_t every = {NULL, machine};
    return pipeline_new_on(topo, &every, 1, err);
}

void pipeline_set_hosts(pipeline_t *self, const pipeline_host_t *hosts, int n)
{
    self->hosts = hosts;
    self->nhosts = n;
}

void pipeline_destroy(pipeline_t **self_p)
{
    if (*self_p) {
        free((*self_p)->hops);
        free(*self_p);
        *self_p = NULL;
    }
}

//  A proxy binds at most one endpoint per hop it has, a stage of several
//  instances one per instance and hop; a tree's hops are fewer than its
//  stages, and the instances of the stages that bind several (publishers
//  and subscribers joined directly) at most twice its instances
#define PIPELINE_MAX_PORTS (LIMIT_STAGES + 2 * PIPELINE_MAX_INSTANCES)

//  Free tcp ports here: all probes stay open until all are chosen, so the
//  kernel cannot hand out the same port twice.  Free on every address, so
//  free on the one a hop binds
static int s_free_ports(int *ports, int n, errbuf_t *err)
{
    int fds[PIPELINE_MAX_PORTS], rc = 0, opened = 0;
    for (; opened < n && rc == 0; opened++) {
        struct sockaddr_in addr = {.sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_ANY)};
        socklen_t len = sizeof addr;
        fds[opened] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[opened] < 0 ||
            bind(fds[opened], (struct sockaddr *)&addr, sizeof addr) ||
            getsockname(fds[opened], (struct sockaddr *)&addr, &len))
            rc = err_set(err, "finding a free tcp port: %s", strerror(errno));
        ports[opened] = ntohs(addr.sin_port);
    }
    for (int i = 0; i < opened; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return rc;
}

//  The host called name among the run's, NULL if none
static const pipeline_host_t *s_run_host(const pipeline_t *self,
                                         const char *name)
{
    for (int i = 0; i < self->nhosts; i++)
        if (strcmp(self->hosts[i].name, name) == 0)
            return &self->hosts[i];
    return NULL;
}

//  The host of endpoint e of hop h's binding instance, and a host of the
//  other end (one that is not the controller's, if any is not)
static void s_hop_hosts(const pipeline_t *self, int h, int e,
                        const char **binder, const char **other)
{
    const hop_plan_t *hop = &self->hops[h];
    int b = hop->upstream_binds ? hop->up : hop->down;
    int o = hop->upstream_binds ? hop->down : hop->up;
    *binder = self->inst[self->first[b] + e].host;
    *other = self->inst[self->first[o]].host;
    for (int i = 0; i < self->count[o] && !(*other)[0]; i++)
        *other = self->inst[self->first[o] + i].host;
}

//  Where endpoint e of hop h binds (tcp, no endpoint given): its address,
//  and which of the run's hosts finds its port (-1: this one)
static int s_tcp_bind(const pipeline_t *self, int h, int e,
                      const char **address, int *finder, errbuf_t *err)
{
    const hop_plan_t *hop = &self->hops[h];
    const char *binder, *other;
    s_hop_hosts(self, h, e, &binder, &other);
    const pipeline_host_t *at = s_run_host(self, binder[0] ? binder : other);
    *finder = -1;
    if (!binder[0] && !other[0]) //  across zones: the binding end's link
        *address = !hop->crosses         ? "127.0.0.1"
                   : hop->upstream_binds ? hop->address[0]
                                         : hop->address[1];
    else if (!at)
        return err_set(err, "hop %d: host '%s' is not one of the run's", h + 1,
                       binder[0] ? binder : other);
    else if (binder[0]) {
        *address = at->address;
        *finder = (int)(at - self->hosts);
    } else
        *address = at->peer;
    return 0;
}

static bool s_needs_port(const hop_plan_t *hop)
{
    return hop->params.transport == TRANSPORT_TCP && !*hop->params.endpoint;
}

//  Ports for every tcp endpoint that the topology does not name:
//  ports[h][e], each found by the host that binds it
static int s_find_ports(const pipeline_t *self,
                        int (*ports)[PIPELINE_MAX_BINDERS], errbuf_t *err)
{
    size_t hosts = (size_t)self->nhosts + 1;
    int *found = calloc(hosts * PIPELINE_MAX_PORTS, sizeof *found);
    int *wanted = calloc(hosts, sizeof *wanted);
    int *taken = calloc(hosts, sizeof *taken);
    const char *address;
    int finder,
        rc = found && wanted && taken ? 0 : err_set(err, "out of memory");
    for (int h = 0; h < self->nhops && rc == 0; h++)
        for (int e = 0; s_needs_port(&self->hops[h]) &&
                        e < self->hops[h].nendpoints && rc == 0;
             e++)
            if ((rc = s_tcp_bind(self, h, e, &address, &finder, err)) == 0)
                wanted[finder + 1]++;
    for (int f = 0; f <= self->nhosts && rc == 0; f++) {
        int *into = found + f * PIPELINE_MAX_PORTS;
        const pipeline_host_t *host = f ? &self->hosts[f - 1] : NULL;
        if (wanted[f] && !host)
            rc = s_free_ports(into, wanted[f], err);
        else if (wanted[f])
            rc = host->ports(host->arg, host->address, wanted[f], into, err);
    }
    for (int h = 0; h < self->nhops && rc == 0; h++)
        for (int e = 0;
             s_needs_port(&self->hops[h]) && e < self->hops[h].nendpoints;
             e++) {
            s_tcp_bind(self, h, e, &address, &finder, err);
            ports[h][e] =
                found[(finder + 1) * PIPELINE_MAX_PORTS + taken[finder + 1]++];
        }
    free(found);
    free(wanted);
    free(taken);
    return rc;
}

//  Endpoint e of hop h, whose ports are chosen
static void s_endpoint(const pipeline_t *self, int h, int e, int port,
                       const char *ipc_dir, int trial, char *ep)
{
    const hop_plan_t *hop = &self->hops[h];
    const char *binder, *other, *address;
    int finder;
    s_hop_hosts(self, h, e, &binder, &other);
    const pipeline_host_t *at = s_run_host(self, binder);
    if (*hop->params.endpoint)
        snprintf(ep, PIPELINE_ENDPOINT_MAX, "%s", hop->params.endpoint);
    else if (hop->params.transport == TRANSPORT_TCP &&
             s_tcp_bind(self, h, e, &address, &finder, NULL) == 0)
        snprintf(ep, PIPELINE_ENDPOINT_MAX, "tcp://%s:%d", address, port);
    else if (hop->params.transport == TRANSPORT_IPC)
        snprintf(ep, PIPELINE_ENDPOINT_MAX, "ipc://%s/hop%d-%d.ipc",
                 binder[0] && at ? at->ipc_dir : ipc_dir, h + 1, e + 1);
    else
        snprintf(ep, PIPELINE_ENDPOINT_MAX, "inproc://hopbench-%d-hop%d-%d",
                 trial, h + 1, e + 1);
}

int pipeline_resolve(pipeline_t *self, const char *ipc_dir, int trial,
                     errbuf_t *err)
{
    int(*ports)[PIPELINE_MAX_BINDERS] =
        calloc((size_t)self->nhops + 1, sizeof *ports);
    if (!ports)
        return err_set(err, "out of memory");
    int rc = s_find_ports(self, ports, err);
    for (int h = 0; h < self->nhops && rc == 0; h++)
        for (int e = 0; e < self->hops[h].nendpoints; e++)
            s_endpoint(self, h, e, ports[h][e], ipc_dir, trial,
                       self->hops[h].endpoint[e]);
    free(ports);
    return rc;
}

//  A host's free ports, as an agent would find them
static int s_test_ports(void *arg, const char *address, int n, int *ports,
                        errbuf_t *err)
{
    (void)err;
    int *next = arg;
    for (int i = 0; i < n; i++)
        ports[i] = (*next)++;
    return strcmp(address, "10.0.0.2") == 0 ? 0 : -1;
}

int pipeline_fixture_new(pipeline_fixture_t *self, const char *text,
                         errbuf_t *err)
{
    memset(self, 0, sizeof *self);
    self->topo = topology_load_text("t.cfg", text, err);
    if (self->topo && topology_validate(self->topo, err) == 0 &&
        (self->machine = machine_new_live(err)))
        self->pl = pipeline_new(self->topo, self->machine, err);
    return self->pl ? 0 : -1;
}

void pipeline_fixture_free(pipeline_fixture_t *self)
{
    pipeline_destroy(&self->pl);
    machine_destroy(&self->machine);
    topology_destroy(&self->topo);
}

//  Stages on hosts: each host planned on its own machine, endpoints on
//  the binding host's address and ports, ipc in its directory
static int s_test_hosts(const machine_t *machine)
{
    errbuf_t err;
    topology_t *topo = topology_load_text(
        "t.cfg",
        "topology = t\n    placement = compact\n"
        "publisher = pub\nhop = tcp\n"
        "proxy = p\n    host = h2\nhop = ipc\nproxy = q\n    host = h2\n"
        "hop = tcp\nsubscriber = sub\n",
        &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    pipeline_machine_t only_h2 = {"h2", machine};
    pipeline_t *pl = pipeline_new_on(topo, &only_h2, 1, &err);
    CHECK(pl && pl->inst[0].place.node == -1 && pl->inst[3].place.node == -1);
    CHECK(pl->inst[1].place.node == 0 &&
          !cpuset_empty(&pl->inst[1].place.cpus));
    CHECK(strcmp(pipeline_host(pl, 2), "h2") == 0);
    int next = 6000;
    pipeline_host_t hosts[] = {
        {"h2", "10.0.0.2", "10.0.0.1", "/run/h2", s_test_ports, &next}};
    CHECK(pipeline_resolve(pl, "/tmp/x", 1, &err) == -1);
    CHECK(strstr(err.msg, "hop 1: host 'h2' is not one of the run's"));
    pipeline_set_hosts(pl, hosts, 1);
    CHECK(pipeline_resolve(pl, "/tmp/x", 1, &err) == 0);
    CHECK(strcmp(pl->hops[0].endpoint[0], "tcp://10.0.0.2:6000") == 0);
    CHECK(strcmp(pl->hops[1].endpoint[0], "ipc:///run/h2/hop2-1.ipc") == 0);
    CHECK(strcmp(pl->hops[2].endpoint[0], "tcp://10.0.0.2:6001") == 0);
    pipeline_destroy(&pl);
    topology_destroy(&topo);
    //  the publisher binds here, towards h2: at the address h2 sees
    topo = topology_load_text("t.cfg",
                              "topology = t\npublisher = pub\nhop = tcp\n"
                              "subscriber = sub\n    host = h2\n"
                              "    count = 2\n",
                              &err);
    CHECK(topo && (pl = pipeline_new(topo, machine, &err)));
    pipeline_set_hosts(pl, hosts, 1);
    CHECK(pipeline_resolve(pl, "/tmp/x", 1, &err) == 0);
    CHECK(strncmp(pl->hops[0].endpoint[0], "tcp://10.0.0.1:", 15) == 0);
    long one_host = pipeline_files(pl);
    pipeline_destroy(&pl);
    topology_destroy(&topo);
    //  the controller's files: a link more for a second host
    topo = topology_load_text("t.cfg",
                              "topology = t\npublisher = pub\nhop = tcp\n"
                              "subscriber = sub\n    host = h2..h3\n"
                              "    count = 2\n",
                              &err);
    CHECK(topo && (pl = pipeline_new(topo, machine, &err)));
    CHECK(pipeline_files(pl) == one_host + 6);
    pipeline_destroy(&pl);
    topology_destroy(&topo);
    return 0;
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

//  A tree: two branches into a core, the core into two subscribers
static int s_test_tree(const machine_t *machine)
{
    errbuf_t err;
    topology_t *topo = topology_load_text(
        "t.cfg",
        "topology = t\npublisher = west\n    count = 2\nhop = ipc\n"
        "proxy = edge-a\npublisher = east\nhop = inproc\nproxy = edge-b\n"
        "proxy = core\n    from = edge-a,edge-b\nhop = inproc\n"
        "subscriber = sub\n    count = 2\n",
        &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    pipeline_t *pl = pipeline_new(topo, machine, &err);
    CHECK(pl && pl->n == 8 && pl->nhops == 5 && pl->norigins == 3);
    CHECK(pl->inst[1].origin == 1 && pl->inst[3].origin == 2);
    CHECK(pl->inst[2].origin == -1 && pipeline_origin_instance(pl, 2) == 3);
    //  east and edge-b share a context; so do the core and its subscribers
    CHECK(pl->inst[3].ctx == pl->inst[4].ctx && pl->inst[2].ctx != pl->inst[4].ctx);
    CHECK(pl->inst[5].ctx == pl->inst[6].ctx && pl->inst[6].ctx == pl->inst[7].ctx);
    CHECK(pl->ctx[pl->inst[5].ctx].owner == 5 && pl->nctx == 5);
    //  the core takes two hops in, and its XSUB connects to both edges
    int in = pipeline_hop_in(pl, 5);
    CHECK(in == 2 && pipeline_next_hop_in(pl, 5, in) == 3);
    CHECK(pipeline_next_hop_in(pl, 5, 3) == -1 && pipeline_hop_out(pl, 5) == 4);
    CHECK(pl->hops[2].upstream_binds && pl->hops[3].upstream_binds);
    CHECK(pipeline_reaches(pl, 0, 7) && !pipeline_reaches(pl, 3, 2));
    CHECK(pipeline_is_source(pl, 3) && pipeline_is_sink(pl, 6));
    CHECK(pipeline_resolve(pl, "/tmp/x", 3, &err) == 0);
    CHECK(strcmp(pl->hops[0].endpoint[0], "ipc:///tmp/x/hop1-1.ipc") == 0);
    CHECK(strcmp(pl->hops[1].endpoint[0], "inproc://hopbench-3-hop2-1") == 0);
    CHECK(strncmp(pl->hops[3].endpoint[0], "tcp://127.0.0.1:", 16) == 0);
    pipeline_destroy(&pl);
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
    int rc = s_test_hosts(machine);
    if (rc == 0)
        rc = s_test_tree(machine);
    machine_destroy(&machine);
    return rc ? rc : s_test_roster();
}
