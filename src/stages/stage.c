/*  stage: the thread that runs one stage instance, and the helpers its
    roles share (sockets, bind/connect, context).  See stage.h for the
    command protocol.  Replies are one string: "OK", "DONE", or "ERR why".
    Which role a stage plays is its ops table (stages/roles.h), chosen by
    whoever starts the thread; nothing here names a role.
*/
#define _GNU_SOURCE
#include "stages/stage.h"

#include "base/interrupt.h"
#include "config/pattern.h"
#include "machine/pin.h"
#include "pipeline/zones.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

int stage_socket_type(const stage_t *self, bool back)
{
    return pattern_socket(self->pl->params.pattern, self->inst->role, back);
}

uint64_t stage_shared_received(const stage_shared_t *shared, bool origins)
{
    if (!origins)
        return atomic_load(&shared->received);
    uint64_t sum = 0; //  receivers count only per origin (sequence.h)
    for (int o = 0; o < STAGE_MAX_ORIGINS; o++)
        sum += atomic_load_explicit(&shared->origins[o].received,
                                    memory_order_relaxed);
    return sum;
}

uint64_t stage_received(const stage_t *self)
{
    return stage_shared_received(
        self->shared, pipeline_sees_origins(self->pl, self->inst->id));
}

long stage_context_sockets(const pipeline_t *pl, int ctx)
{
    long sum = 0, stages = 0;
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].ctx == ctx) {
            sum += pipeline_sockets(pl, i);
            stages++;
        }
    //  besides their data sockets: a proxy's second side and control;
    //  twice, as a trial's closed sockets count until libzmq's reaper has
    //  ended them, which may be after the next trial's SETUP
    return 2 * (sum + 3 * stages) + STAGE_CTX_SOCKETS / 8;
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
    long sockets = stage_context_sockets(self->pl, self->inst->ctx);
    if (sockets > STAGE_CTX_SOCKETS && rc == 0)
        rc = zmq_ctx_set(self->ctx, ZMQ_MAX_SOCKETS, (int)sockets);
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

const char *const stage_memory_names[STAGE_MEMORY_REGIONS] = {
    "counters", "messages", "stack", "zerocopy"};

//  Where the memory this thread writes lands: a message buffer it
//  allocates as its messages are (mem_node: its first page), its counters,
//  its stack, its zerocopy pool
static void s_probe_memory(stage_t *self)
{
    stage_shared_t *shared = self->shared;
    zmq_msg_t msg;
    size_t size = shared->size < 4096 ? 4096 : shared->size;
    memset(shared->memory, 0, sizeof shared->memory);
    if (zmq_msg_init_size(&msg, size) == 0) {
        memset(zmq_msg_data(&msg), 0, size);
        shared->mem_node = pin_node_of(zmq_msg_data(&msg));
        pin_pages(zmq_msg_data(&msg), size,
                  &shared->memory[STAGE_MEMORY_MESSAGES]);
        zmq_msg_close(&msg);
    }
    pin_pages(shared, stage_shared_bytes(shared->nsockets),
              &shared->memory[STAGE_MEMORY_COUNTERS]);
    void *stack;
    size_t len;
    if (pin_stack_range(&stack, &len) == 0)
        pin_pages(stack, len, &shared->memory[STAGE_MEMORY_STACK]);
    if (self->pool)
        pin_pages(self->pool, self->pool_len,
                  &shared->memory[STAGE_MEMORY_ZEROCOPY]);
}

//  Pinned at birth (the thread's first act), the context made once and
//  kept for every trial: see crew.h
static int s_setup(stage_t *self, errbuf_t *err)
{
    if (self->shared->pin_error.msg[0])
        return err_set(err, "%s", self->shared->pin_error.msg);
    if (s_owns_context(self) && !self->ctx && s_make_context(self, err))
        return -1;
    if (!self->ctx && self->ctx_owner) //  its SETUP came first (inproc)
        self->ctx = self->ctx_owner->ctx;
    self->setups++;
    int rc = self->ops->setup(self, err);
    s_probe_memory(self);
    return rc;
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
    int rc = 0;
    if (self->ops->teardown)
        rc = self->ops->teardown(self, err);
    else {
        stage_close(&self->in);
        stage_close(&self->out);
        stage_close(&self->control);
    }
    if (rc == 0)
        s_remove_ipc_files(self);
    return rc;
}

//  At the end of the run: the sockets, then the context if it is ours,
//  then what the role keeps beyond contexts.  Something of the role's own
//  that still runs (teardown failed) keeps all of it
static void s_finish(stage_t *self)
{
    errbuf_t ignored;
    if (s_teardown(self, &ignored))
        return;
    if (s_owns_context(self) && self->ctx) {
        zmq_ctx_term(self->ctx); //  every socket has linger 0
        self->ctx = NULL;
    }
    if (self->ops->release)
        self->ops->release(self);
}

static void s_reply(zsock_t *pipe, const char *word, int rc,
                    const errbuf_t *err)
{
    if (rc == 0)
        zstr_send(pipe, word);
    else
        zstr_sendf(pipe, "ERR %s", err->msg);
}

//  No memory for the counters: the thread answers nothing but its $TERM
static void s_without_memory(zsock_t *pipe)
{
    zsock_signal(pipe, 0);
    char *command;
    while ((command = zstr_recv(pipe)) && !streq(command, "$TERM")) {
        zstr_send(pipe, "ERR no memory for the stage's counters");
        zstr_free(&command);
    }
    zstr_free(&command);
}

void stage_shared_free(stage_shared_t *shared)
{
    if (shared)
        pin_memory_free(shared, stage_shared_bytes(shared->nsockets));
}

size_t stage_shared_size(const pipeline_t *pl, int id)
{
    int n = pipeline_sockets(pl, id);
    return stage_shared_bytes(n > 1 ? n : 0);
}

//  The thread's first acts: its CPU and memory, then its stack moved to
//  its node, then the counters it writes on every message made (or, in a
//  process of its own, touched) here, so their pages are its node's
static void s_settle(stage_t *self, errbuf_t *pinned)
{
    const place_t *place = &self->inst->place;
    bool pinned_here = place->node >= 0 || !cpuset_empty(&place->cpus);
    //  not pinned: not the controller's CPU it was started on either
    int rc = pinned_here ? pin_thread(place, pinned)
                         : pin_release(&self->pl->allowed, pinned);
    if (rc == 0) {
        if (place->node >= 0) { //  memory.csv tells if they did not
            pin_stack(place->node);
            pin_heap(place->node); //  this thread's first malloc
        }
        if (self->inst->netns_path[0]) //  before the context: its I/O
            zones_enter(self->inst->netns_path, pinned);
    }
    int n = pipeline_sockets(self->pl, self->inst->id);
    n = n > 1 ? n : 0;
    if (!self->shared)
        self->shared = pin_memory_new(stage_shared_bytes(n), place->node);
    if (self->shared) {
        memset(self->shared, 0, stage_shared_bytes(n));
        self->shared->nsockets = n;
        stage_reset(self->shared, &(stage_trial_t){0});
    }
}

void stage_actor(zsock_t *pipe, void *args)
{
    stage_t *self = args;
    //  before anything is allocated, so this thread's memory is its node's
    errbuf_t pinned = {0};
    s_settle(self, &pinned);
    if (!self->shared) {
        s_without_memory(pipe);
        return;
    }
    self->shared->tid = gettid();
    self->shared->pin_error = pinned;
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
        errbuf_t err = {0};
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

void stage_reset(stage_shared_t *shared, const stage_trial_t *trial)
{
    shared->size = trial->size;
    shared->rate = trial->rate;
    shared->timed = trial->timed;
    shared->misordered = shared->late = 0;
    shared->epoch = trial->epoch % STAGE_EPOCHS;
    shared->mem_node = -1;
    shared->window_start_ns = shared->window_end_ns = 0;
    histogram_reset(&shared->latency);
    atomic_store(&shared->sent, 0);
    atomic_store(&shared->received, 0);
    atomic_store(&shared->target, UINT64_MAX);
    atomic_store(&shared->stop, 0);
    atomic_store(&shared->recording, 0);
    for (int o = 0; o < STAGE_MAX_ORIGINS; o++) {
        atomic_store(&shared->origins[o].received, 0);
        shared->origins[o].next = (uint64_t)shared->epoch << STAGE_EPOCH_SHIFT;
        shared->origins[o].gaps = 0;
    }
    for (int s = 0; s < shared->nsockets; s++) {
        atomic_store(&shared->sockets[s].received, 0);
        shared->sockets[s].behind = 0;
    }
}

void *stage_control_open(stage_t *self, int timeout_ms, errbuf_t *err)
{
    return self->ops->control_open
               ? self->ops->control_open(self, timeout_ms, err)
               : NULL;
}

int stage_counts(stage_t *self, void *control, uint64_t *received,
                 uint64_t *sent, errbuf_t *err)
{
    if (self->ops->counts)
        return self->ops->counts(self, control, received, sent, err);
    *received = stage_received(self);
    *sent = atomic_load(&self->shared->sent);
    return 0;
}

int stage_no_counts(errbuf_t *err, int timeout_ms)
{
    return err_set(err, "no COUNTS within %.1f s", timeout_ms / 1000.0);
}

//  Sources stop sending at once; receivers when they next find no message
int stage_stop(stage_t *self, void *control, errbuf_t *err)
{
    if (pipeline_is_source(self->pl, self->inst->id))
        atomic_store(&self->shared->target, 0);
    atomic_store(&self->shared->stop, 1);
    return self->ops->stop ? self->ops->stop(self, control, err) : 0;
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

//  A binder that many sockets connect to at once (sockets = N): a listen
//  queue for all of them, or the kernel drops the SYNs past libzmq's 100
//  and the connections come seconds later, after TCP's retries
static int s_backlog(const stage_t *self, const hop_plan_t *hop, void *sock)
{
    const pipeline_t *pl = self->pl;
    int other = hop->upstream_binds ? hop->down : hop->up, backlog = 0;
    for (int j = 0; j < pl->count[other]; j++)
        backlog += pipeline_sockets(pl, pl->first[other] + j);
    if (backlog <= 100)
        return 0; //  libzmq's default
    return zmq_setsockopt(sock, ZMQ_BACKLOG, &backlog, sizeof backlog);
}

int stage_attach(stage_t *self, void *sock, int h, errbuf_t *err)
{
    const hop_plan_t *hop = &self->pl->hops[h];
    int e;
    bool server = pipeline_binds(self->pl, h, self->inst->id, &e);
    if (s_curve(hop, sock, server))
        return err_set(err, "hop %d: CURVE keys: %s", h + 1,
                       zmq_strerror(errno));
    int buffer = hop->params.tcp_buffer;
    if (buffer > 0 && hop->params.transport == TRANSPORT_TCP &&
        (zmq_setsockopt(sock, ZMQ_SNDBUF, &buffer, sizeof buffer) ||
         zmq_setsockopt(sock, ZMQ_RCVBUF, &buffer, sizeof buffer)))
        return err_set(err, "hop %d: tcp_buffer: %s", h + 1,
                       zmq_strerror(errno));
    if (server && s_backlog(self, hop, sock))
        return err_set(err, "hop %d: ZMQ_BACKLOG: %s", h + 1,
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

int stage_attach_side(stage_t *self, void *sock, bool in, errbuf_t *err)
{
    int id = self->inst->id;
    for (int h = in ? pipeline_hop_in(self->pl, id) : pipeline_hop_out(self->pl, id);
         h >= 0; h = in ? pipeline_next_hop_in(self->pl, id, h)
                        : pipeline_next_hop_out(self->pl, id, h))
        if (stage_attach(self, sock, h, err))
            return -1;
    return 0;
}

void stage_close(void **sock)
{
    if (*sock) {
        zmq_close(*sock);
        *sock = NULL;
    }
}
