/*  stage: the actor that runs one stage instance, and the helpers its
    roles share (sockets, bind/connect, context).  See stage.h for the
    command protocol.  Replies are one string: "OK", "DONE", or "ERR why".
*/
#define _GNU_SOURCE
#include "stages/stage.h"

#include "base/actor.h"
#include "base/interrupt.h"
#include "machine/pin.h"
#include "crew/stage_process.h"
#include "pipeline/zones.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static const stage_ops_t *s_ops(const instance_t *inst)
{
    switch (inst->role) {
    case ROLE_PUBLISHER:
    case ROLE_PUSHER:
        return &sender_ops;
    case ROLE_SUBSCRIBER:
        return inst->params.pattern == PATTERN_CONNECT ? &connector_ops
                                                       : &receiver_ops;
    case ROLE_PULLER:
        return &receiver_ops;
    case ROLE_REQUESTER:
        return &requester_ops;
    case ROLE_REPLIER:
        return &replier_ops;
    case ROLE_PROXY:
        return inst->params.engine == ENGINE_FORWARDER ? &proxy_forwarder_ops
               : inst->params.engine == ENGINE_ZPROXY  ? &proxy_zproxy_ops
                                                       : &proxy_ops;
    }
    return NULL;
}

//  Socket types by pattern: source, sink, proxy front, proxy back
static const int s_types[][4] = {
    [PATTERN_PUBSUB] = {ZMQ_XPUB, ZMQ_SUB, ZMQ_XSUB, ZMQ_XPUB},
    [PATTERN_PUSHPULL] = {ZMQ_PUSH, ZMQ_PULL, ZMQ_PULL, ZMQ_PUSH},
    [PATTERN_REQREP] = {ZMQ_REQ, ZMQ_REP, ZMQ_ROUTER, ZMQ_DEALER},
    [PATTERN_CONNECT] = {ZMQ_XPUB, ZMQ_SUB, ZMQ_XSUB, ZMQ_XPUB},
};

int stage_socket_type(const stage_t *self, bool back)
{
    const int *types = s_types[self->pl->params.pattern];
    if (self->inst->role == ROLE_PROXY)
        return types[back ? 3 : 2];
    return types[self->inst->stage == 0 ? 0 : 1];
}

uint64_t stage_received(const stage_t *self)
{
    if (!pipeline_sees_origins(self->pl, self->inst->id))
        return atomic_load(&self->shared->received);
    uint64_t sum = 0; //  receivers count only per origin (sequence.h)
    for (int o = 0; o < STAGE_MAX_ORIGINS; o++)
        sum += atomic_load_explicit(&self->shared->origins[o].received,
                                    memory_order_relaxed);
    return sum;
}

//  The owner of a context makes it: I/O threads, their name prefix, and
//  their CPUs (before the first socket, so libzmq applies them)
static int s_make_context(stage_t *self, errbuf_t *err)
{
    const context_plan_t *plan = &self->pl->ctx[self->inst->ctx];
    self->ctx = zmq_ctx_new();
    if (!self->ctx)
        return err_set(err, "zmq_ctx_new: %s", zmq_strerror(errno));
    int rc = zmq_ctx_set(self->ctx, ZMQ_IO_THREADS, plan->io_threads);
    rc |= zmq_ctx_set(self->ctx, ZMQ_THREAD_NAME_PREFIX, plan->prefix);
    const cpuset_t *io = &self->inst->place.io_cpus;
    for (int cpu = cpuset_next(io, -1); cpu >= 0 && rc == 0;
         cpu = cpuset_next(io, cpu))
        rc = zmq_ctx_set(self->ctx, ZMQ_THREAD_AFFINITY_CPU_ADD, cpu);
    if (rc)
        return err_set(err, "configuring its context: %s", zmq_strerror(errno));
    return 0;
}

static bool s_owns_context(const stage_t *self)
{
    return self->pl->ctx[self->inst->ctx].owner == self->inst->id;
}

//  Where a message buffer allocated by this thread lands
static void s_probe_memory(stage_t *self)
{
    zmq_msg_t msg;
    size_t size = self->shared->size < 4096 ? 4096 : self->shared->size;
    if (zmq_msg_init_size(&msg, size) == 0) {
        memset(zmq_msg_data(&msg), 0, size);
        self->shared->mem_node = pin_node_of(zmq_msg_data(&msg));
        zmq_msg_close(&msg);
    }
}

//  Pinned at birth (the thread's first act), the context made once and
//  kept for every trial: see crew.h
static int s_setup(stage_t *self, errbuf_t *err)
{
    if (self->shared->pin_error.msg[0])
        return err_set(err, "%s", self->shared->pin_error.msg);
    if (s_owns_context(self) && !self->ctx && s_make_context(self, err))
        return -1;
    self->setups++;
    s_probe_memory(self);
    return self->ops->setup(self, err);
}

void stage_note_bind(stage_t *self, const char *endpoint)
{
    struct stat st;
    const char *path = endpoint + strlen("ipc://");
    if (strncmp(endpoint, "ipc://", 6) || *path == '@' ||
        self->nbound == (int)(sizeof self->bound / sizeof self->bound[0]) ||
        stat(path, &st))
        return; //  not ipc, abstract (no file), or nothing to remove
    snprintf(self->bound[self->nbound].path, PIPELINE_ENDPOINT_MAX, "%s", path);
    self->bound[self->nbound].dev = st.st_dev;
    self->bound[self->nbound++].ino = st.st_ino;
}

//  The ipc files this stage bound, unless someone has bound the path since
static void s_remove_ipc_files(stage_t *self)
{
    struct stat st;
    for (int i = 0; i < self->nbound; i++)
        if (stat(self->bound[i].path, &st) == 0 &&
            st.st_dev == self->bound[i].dev && st.st_ino == self->bound[i].ino)
            unlink(self->bound[i].path);
    self->nbound = 0;
}

//  TEARDOWN: the trial's sockets, and the ipc files they bound
static int s_teardown(stage_t *self, errbuf_t *err)
{
    int rc = self->ops->teardown(self, err);
    if (rc == 0)
        s_remove_ipc_files(self);
    return rc;
}

//  At the end of the run: the sockets, then the context if it is ours
static void s_finish(stage_t *self)
{
    errbuf_t ignored;
    if (s_teardown(self, &ignored))
        return; //  something of the role's own still runs: leave the context
    if (s_owns_context(self) && self->ctx) {
        zmq_ctx_term(self->ctx); //  every socket has linger 0
        self->ctx = NULL;
    }
}

static void s_reply(zsock_t *pipe, const char *word, int rc,
                    const errbuf_t *err)
{
    if (rc == 0)
        zstr_send(pipe, word);
    else
        zstr_sendf(pipe, "ERR %s", err->msg);
}

static void s_actor(zsock_t *pipe, void *args)
{
    stage_t *self = args;
    self->shared->tid = gettid();
    //  before anything is allocated, so this thread's memory is its node's
    if (pin_thread(&self->inst->place, &self->shared->pin_error) == 0 &&
        self->inst->netns_path[0]) //  before the context: its I/O threads
        zones_enter(self->inst->netns_path, &self->shared->pin_error);
    interrupt_block_here();
    char name[16];
    snprintf(name, sizeof name, "hb:%.12s", self->inst->name);
    prctl(PR_SET_NAME, name); //  shows in top -H and threads.csv
    zsock_signal(pipe, 0);
    while (true) {
        char *command = zstr_recv(pipe);
        if (!command || streq(command, "$TERM")) {
            zstr_free(&command);
            break;
        }
        errbuf_t err = {{0}};
        if (streq(command, "SETUP"))
            s_reply(pipe, "OK", s_setup(self, &err), &err);
        else if (streq(command, "HANDSHAKE"))
            s_reply(pipe, "OK",
                    self->ops->handshake ? self->ops->handshake(self, &err) : 0,
                    &err);
        else if (streq(command, "RUN")) {
            zstr_send(pipe, "OK");
            s_reply(pipe, "DONE", self->ops->run(self, &err), &err);
        } else if (streq(command, "TEARDOWN"))
            s_reply(pipe, "OK", s_teardown(self, &err), &err);
        zstr_free(&command);
    }
    s_finish(self);
}

void stage_reset(stage_t *self, uint32_t size)
{
    self->shared->size = size;
    self->shared->misordered = 0;
    self->shared->mem_node = -1;
    self->shared->window_start_ns = self->shared->window_end_ns = 0;
    histogram_reset(&self->shared->latency);
    atomic_store(&self->shared->sent, 0);
    atomic_store(&self->shared->received, 0);
    atomic_store(&self->shared->target, UINT64_MAX);
    atomic_store(&self->shared->stop, 0);
    atomic_store(&self->shared->recording, 0);
    for (int o = 0; o < STAGE_MAX_ORIGINS; o++) {
        atomic_store(&self->shared->origins[o].received, 0);
        self->shared->origins[o].next = self->shared->origins[o].gaps = 0;
    }
}

static stage_shared_t *s_shared_new(void)
{
    //  aligned: the counters sit on cache lines of their own
    size_t size = (sizeof(stage_shared_t) + 63) & ~(size_t)63;
    stage_shared_t *shared = aligned_alloc(64, size);
    if (shared)
        memset(shared, 0, size);
    return shared;
}

stage_t *stage_new(const pipeline_t *pl, int id, stage_shared_t *shared,
                   errbuf_t *err)
{
    stage_t *self = calloc(1, sizeof *self);
    self->pl = pl;
    self->inst = &pl->inst[id];
    self->ops = s_ops(self->inst);
    self->owns_shared = !shared;
    self->shared = shared ? shared : s_shared_new();
    errbuf_t why = {"out of memory"};
    if (self->shared) {
        stage_reset(self, 0);
        self->actor = actor_new(s_actor, self, &why);
    }
    if (!self->actor) {
        err_set(err, "stage %s: %s", self->inst->name, why.msg);
        if (self->owns_shared)
            free(self->shared);
        free(self);
        return NULL;
    }
    return self;
}

int stage_destroy(stage_t **self_p, int timeout_ms)
{
    stage_t *self = *self_p;
    if (!self)
        return 0;
    //  The thread signals only after it has stopped using self; if it does
    //  not within the timeout, self is left to it rather than freed
    if (actor_destroy(&self->actor, timeout_ms))
        return -1;
    if (self->remote) {
        remote_free(self);
        *self_p = NULL;
        return 0;
    }
    if (self->ops->release)
        self->ops->release(self);
    if (self->owns_shared)
        free(self->shared);
    free(self);
    *self_p = NULL;
    return 0;
}

int stage_wait(stage_t *self, int timeout_ms, errbuf_t *err)
{
    zsock_set_rcvtimeo(self->actor, timeout_ms);
    char *reply = self->remote && remote_has_pending(self)
                      ? remote_take_pending(self)
                      : zstr_recv(self->actor);
    int rc = 0;
    if (!reply)
        rc = err_set(err, "stage %s: no answer within %.1f s", self->inst->name,
                     timeout_ms / 1000.0);
    else if (strncmp(reply, "ERR ", 4) == 0)
        rc = err_set(err, "stage %s: %s", self->inst->name, reply + 4);
    zstr_free(&reply);
    return rc;
}

int stage_command(stage_t *self, const char *command, int timeout_ms,
                  errbuf_t *err)
{
    //  Bounded: a send to a pipe whose thread is gone would block forever
    zsock_set_sndtimeo(self->actor, timeout_ms);
    if (zstr_send(self->actor, command))
        return err_set(err, "stage %s: cannot send %s within %.1f s",
                       self->inst->name, command, timeout_ms / 1000.0);
    return stage_wait(self, timeout_ms, err);
}

bool stage_ended(stage_t *self)
{
    if (self->remote && remote_has_pending(self))
        return true;
    return (zsock_events(self->actor) & ZMQ_POLLIN) != 0;
}

int stage_socket(stage_t *self, int type, int hwm, void **sock, errbuf_t *err)
{
    *sock = zmq_socket(self->ctx, type);
    if (!*sock)
        return err_set(err, "zmq_socket: %s", zmq_strerror(errno));
    int zero = 0;
    if (zmq_setsockopt(*sock, ZMQ_LINGER, &zero, sizeof zero) ||
        zmq_setsockopt(*sock, ZMQ_SNDHWM, &hwm, sizeof hwm) ||
        zmq_setsockopt(*sock, ZMQ_RCVHWM, &hwm, sizeof hwm))
        return err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
    return 0;
}

//  curve: the binding end is the CURVE server, the others its clients
static int s_curve(const hop_plan_t *hop, void *sock, bool server)
{
    int one = 1;
    if (!hop->server_public[0])
        return 0;
    if (server)
        return zmq_setsockopt(sock, ZMQ_CURVE_SERVER, &one, sizeof one) ||
               zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, hop->server_secret,
                              40);
    return zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, hop->server_public, 40) ||
           zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, hop->client_public, 40) ||
           zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, hop->client_secret, 40);
}

int stage_attach(stage_t *self, void *sock, int h, errbuf_t *err)
{
    const hop_plan_t *hop = &self->pl->hops[h];
    int e;
    bool server = pipeline_binds(self->pl, h, self->inst->id, &e);
    if (s_curve(hop, sock, server))
        return err_set(err, "hop %d: CURVE keys: %s", h + 1,
                       zmq_strerror(errno));
    if (server) {
        if (zmq_bind(sock, hop->endpoint[e]))
            return err_set(err, "bind %s (hop %d): %s", hop->endpoint[e], h + 1,
                           zmq_strerror(errno));
        stage_note_bind(self, hop->endpoint[e]);
        return 0;
    }
    for (e = 0; e < hop->nendpoints; e++)
        if (zmq_connect(sock, hop->endpoint[e]))
            return err_set(err, "connect %s (hop %d): %s", hop->endpoint[e],
                           h + 1, zmq_strerror(errno));
    return 0;
}

void stage_close(void **sock)
{
    if (*sock) {
        zmq_close(*sock);
        *sock = NULL;
    }
}
