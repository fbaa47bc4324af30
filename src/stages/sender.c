/*  sender: the first stage of a stream pipeline, a publisher (XPUB) or a
    pusher (PUSH).

    XPUB rather than PUB: it shows subscriptions arriving, which is how the
    handshake knows every subscriber is reachable, and it offers
    ZMQ_XPUB_NODROP.  Each message starts with an 8-byte header, origin << 48
    | epoch << 40 | sequence (stages/sequence.h), that receivers check; the rest of the payload is left as
    zmq_msg_init_size gives it, as libzmq's remote_thr does.  Three loops,
    chosen once, so the fast one carries nothing it does not need:

        fast      zmq_msg_init_size, header, send: as fast as possible
        zerocopy  the same with buffers from a zcpool (zmq_msg_init_data)
        paced     rate > 0: an open-loop schedule; each message carries its
                  intended send time (bytes 8..15), so a stalled pipeline
                  shows as latency instead of hiding it

    With topics (stages/topic.h) the fast loop has a twin that copies each
    message's topic before its header, and one more loop does all three,
    each message starting with its topic, or sent as a topic frame then the
    payload (frames = 2).  Every loop sends while the sequence is below the
    target the controller sets (UINT64_MAX until the window's end is
    known).
*/
#include "base/mono.h"
#include "pipeline/traffic.h"
#include "stages/roles.h"
#include "stages/sequence.h"
#include "stages/topic.h"
#include "stages/zcpool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static int s_setup(stage_t *self, errbuf_t *err)
{
    int h = pipeline_hop_out(self->pl, self->inst->id);
    const params_t *hop = &self->pl->hops[h].params;
    int type = stage_socket_type(self, false);
    if (stage_socket(self, type, hop->hwm, &self->out, err))
        return -1;
    int one = 1, idle = STAGE_IDLE_MS;
    if (type == ZMQ_XPUB && pipeline_backpressure(self->pl) &&
        zmq_setsockopt(self->out, ZMQ_XPUB_NODROP, &one, sizeof one))
        return err_set(err, "ZMQ_XPUB_NODROP: %s", zmq_strerror(errno));
    if (zmq_setsockopt(self->out, ZMQ_SNDTIMEO, &idle, sizeof idle) ||
        zmq_setsockopt(self->out, ZMQ_RCVTIMEO, &idle, sizeof idle))
        return err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
    if (self->pl->params.zerocopy) {
        //  the last trial's pool goes once libzmq has given back every
        //  buffer (its sockets are closed, its queues being emptied)
        zcpool_t *old = self->engine;
        if (old && zcpool_wait_idle(old, 1000) == 0)
            zcpool_destroy(&old);
        if (old)
            return err_set(err, "zerocopy: libzmq still holds buffers of "
                                "the last trial");
        int count = zcpool_count(self->shared->size, hop->hwm);
        self->pool = NULL;
        if (!(self->engine = zcpool_new(self->shared->size, count, err)))
            return -1;
        self->pool = zcpool_memory(self->engine, &self->pool_len);
    }
    if (topic_source_new(self, err))
        return -1;
    return stage_attach_side(self, self->out, false, err);
}

//  The guards a publisher waits for: one per sink it reaches, or one per
//  socket of a sink of several (stages/sockets.h), each seen once
typedef struct {
    int left[PIPELINE_MAX_INSTANCES]; //  guards not seen yet, per sink
    long first[PIPELINE_MAX_INSTANCES]; //  its sockets' bits in seen
    uint8_t *seen;
} guards_t;

static int s_guards_new(const stage_t *self, guards_t *g, errbuf_t *err)
{
    const pipeline_t *pl = self->pl;
    long bits = 0;
    for (int j = 0; j < pl->n; j++) {
        bool sink = pipeline_is_sink(pl, j) &&
                    pipeline_reaches(pl, self->inst->id, j);
        g->left[j] = sink ? pipeline_sockets(pl, j) : 0;
        g->first[j] = bits;
        bits += g->left[j];
    }
    g->seen = calloc((size_t)bits / 8 + 1, 1);
    return g->seen ? 0 : err_set(err, "no memory for %ld guards", bits);
}

//  A message the XPUB handed over: \x01 0xFF 'R' id_hi id_lo, or with a
//  socket number after it, hi lo
static void s_guard_saw(const stage_t *self, guards_t *g, const uint8_t *data,
                        size_t size)
{
    if ((size != 5 && size != 7) || data[0] != 1 || data[1] != 0xFF ||
        data[2] != 'R')
        return;
    int j = data[3] << 8 | data[4];
    if (j >= self->pl->n || g->left[j] <= 0)
        return;
    int n = pipeline_sockets(self->pl, j);
    int s = size == 7 ? data[5] << 8 | data[6] : -1;
    if ((n > 1) != (s >= 0) || s >= n)
        return;
    long bit = g->first[j] + (s > 0 ? s : 0);
    if (g->seen[bit / 8] >> (bit % 8) & 1)
        return;
    g->seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
    g->left[j]--;
}

//  The first sink this publisher reaches whose subscription has not
//  arrived, -1 when all have
static int s_missing(const stage_t *self, const guards_t *g)
{
    for (int j = 0; j < self->pl->n; j++)
        if (g->left[j] > 0)
            return j;
    return -1;
}

//  What is missing of sink j: "subscription", or "subscription of socket
//  17 (and 3 more)"
static void s_missing_what(const stage_t *self, const guards_t *g, int j,
                           char *what, size_t len)
{
    int n = pipeline_sockets(self->pl, j);
    for (int s = 0; s < n && n > 1; s++) {
        long bit = g->first[j] + s;
        if (!(g->seen[bit / 8] >> (bit % 8) & 1)) {
            snprintf(what, len, "subscription of socket %d of %d (%d missing)",
                     s + 1, n, g->left[j]);
            return;
        }
    }
}

//  The path a subscription takes, for errors: "hop 1: pub -> sub", "hops
//  1-3: pub -> p1 -> p2 -> sub", or in a tree "hops 2, 4, 5: ..."
static void s_path(const stage_t *self, int sink, char *buf, size_t len)
{
    const pipeline_t *pl = self->pl;
    const shape_t *shape = &pl->topo->shape;
    int stages[TOPO_MAX_STAGES], hops[TOPO_MAX_STAGES];
    int n = shape_path(shape, self->inst->stage, pl->inst[sink].stage, stages,
                       TOPO_MAX_STAGES);
    bool consecutive = true;
    for (int k = 1; k < n; k++) {
        hops[k] = shape_link_towards(shape, stages[0], stages[k]) + 1;
        consecutive &= k == 1 || hops[k] == hops[k - 1] + 1;
    }
    size_t used = n == 2        ? (size_t)snprintf(buf, len, "hop %d", hops[1])
                  : consecutive ? (size_t)snprintf(buf, len, "hops %d-%d",
                                                   hops[1], hops[n - 1])
                                : (size_t)snprintf(buf, len, "hops");
    for (int k = 1; k < n && !consecutive && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s %d",
                                 k > 1 ? "," : "", hops[k]);
    for (int k = 0; k < n && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s %s",
                                 k ? " ->" : ":",
                                 k == 0       ? self->inst->name
                                 : k == n - 1 ? pl->inst[sink].name
                                              : pl->topo->stages[stages[k]].name);
}

//  Publishers wait for each subscriber's own topic (0xFF 'R' id), and for
//  every subscription of theirs (stages/topic.h)
static int s_handshake(stage_t *self, errbuf_t *err)
{
    if (self->pl->params.pattern != PATTERN_PUBSUB)
        return 0; //  connect's clients come and go: nobody to wait for
    guards_t guards;
    if (s_guards_new(self, &guards, err))
        return -1;
    double deadline = mono_seconds() + self->pl->params.timeout;
    topic_wait_t *wait = topic_wait_new(self, err);
    if (!wait) {
        free(guards.seen);
        return -1;
    }
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while ((s_missing(self, &guards) >= 0 || !topic_wait_done(wait)) &&
           mono_seconds() < deadline && !atomic_load(&self->shared->stop)) {
        if (zmq_msg_recv(&msg, self->out, 0) < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            zmq_msg_close(&msg);
            topic_wait_destroy(&wait);
            free(guards.seen);
            return err_set(err, "waiting for subscriptions: %s",
                           zmq_strerror(errno));
        }
        const uint8_t *data = zmq_msg_data(&msg);
        s_guard_saw(self, &guards, data, zmq_msg_size(&msg));
        topic_wait_saw(wait, data, zmq_msg_size(&msg));
    }
    zmq_msg_close(&msg);
    int missing = s_missing(self, &guards);
    char what[LIMIT_TOPIC_SIZE + 40] = "subscription";
    if (missing >= 0)
        s_missing_what(self, &guards, missing, what, sizeof what);
    else
        missing = topic_wait_missing(wait, what, sizeof what);
    topic_wait_destroy(&wait);
    free(guards.seen);
    if (missing < 0)
        return 0;
    char path[256];
    s_path(self, missing, path, sizeof path);
    return err_set(err,
                   "the %s of %s did not arrive within %g s "
                   "(%s)",
                   what, self->pl->inst[missing].name, self->pl->params.timeout,
                   path);
}

//  A failed send: EAGAIN (mode = capacity: back-pressure, or the send
//  timeout) and EINTR mean try again after checking the target; ETERM (the
//  controller shut the context down) means stop; anything else is fatal
static int s_send_failed(stage_t *self, zmq_msg_t *msg, errbuf_t *err)
{
    zmq_msg_close(msg);
    if (errno == EAGAIN || errno == EINTR)
        return 0;
    if (errno == ETERM) {
        atomic_store(&self->shared->target, 0);
        return 0;
    }
    return err_set(err, "zmq_msg_send: %s", zmq_strerror(errno));
}

static int s_run_fast(stage_t *self, errbuf_t *err)
{
    void *sock = self->out;
    const size_t size = self->shared->size;
    const uint64_t base =
        sequence_base(self->inst->origin, self->shared->epoch);
    uint64_t seq = 0;
    zmq_msg_t msg;
    while (seq <
           atomic_load_explicit(&self->shared->target, memory_order_relaxed)) {
        if (zmq_msg_init_size(&msg, size))
            return err_set(err, "zmq_msg_init_size: %s", zmq_strerror(errno));
        sequence_write(zmq_msg_data(&msg), sequence_header(base, seq));
        if (zmq_msg_send(&msg, sock, 0) < 0) {
            if (s_send_failed(self, &msg, err))
                return -1;
            continue;
        }
        atomic_store_explicit(&self->shared->sent, ++seq, memory_order_relaxed);
    }
    return 0;
}

static int s_run_zerocopy(stage_t *self, errbuf_t *err)
{
    void *sock = self->out;
    zcpool_t *pool = self->engine;
    const uint64_t base =
        sequence_base(self->inst->origin, self->shared->epoch);
    uint64_t seq = 0;
    zmq_msg_t msg;
    while (seq <
           atomic_load_explicit(&self->shared->target, memory_order_relaxed)) {
        if (zcpool_msg(pool, &msg, sequence_header(base, seq)))
            continue; //  every buffer in flight: check the target, retry
        if (zmq_msg_send(&msg, sock, 0) < 0) {
            if (s_send_failed(self, &msg, err))
                return -1;
            continue;
        }
        atomic_store_explicit(&self->shared->sent, ++seq, memory_order_relaxed);
    }
    return 0;
}

//  Open loop: message seq is due at start + seq / rate, whatever happened
//  to the ones before; a timed trial stamps it with that intended time
static int s_run_paced(stage_t *self, errbuf_t *err)
{
    const double period = 1e9 / self->shared->rate;
    const uint64_t base =
        sequence_base(self->inst->origin, self->shared->epoch);
    const bool timed = self->shared->timed;
    const uint64_t start = mono_ns();
    uint64_t seq = 0;
    zmq_msg_t msg;
    while (seq <
           atomic_load_explicit(&self->shared->target, memory_order_relaxed)) {
        uint64_t intended = start + (uint64_t)(seq * period);
        uint64_t now = mono_ns();
        if (now < intended) { //  in slices: a new target is seen soon
            uint64_t slice = now + STAGE_IDLE_MS * 1000000ULL;
            mono_sleep_until_ns(intended < slice ? intended : slice);
            continue;
        }
        if (zmq_msg_init_size(&msg, self->shared->size))
            return err_set(err, "zmq_msg_init_size: %s", zmq_strerror(errno));
        sequence_write(zmq_msg_data(&msg), sequence_header(base, seq));
        if (timed)
            sequence_write_time(zmq_msg_data(&msg), intended);
        if (zmq_msg_send(&msg, self->out, 0) < 0) {
            if (s_send_failed(self, &msg, err))
                return -1;
            continue;
        }
        atomic_store_explicit(&self->shared->sent, ++seq, memory_order_relaxed);
    }
    return 0;
}

//  Topics: the payload frame's first bytes are the topic (frames = 1) and
//  the header after it; with frames = 2 the topic goes first in a frame
//  of its own.  0 sent, 1 not sent (try again), -1 an error
static int s_send_topic(stage_t *self, const topic_gen_t *gen, uint64_t header,
                        uint64_t intended, errbuf_t *err)
{
    const topic_source_t *source = self->topics;
    const size_t size = (size_t)source->size;
    zmq_msg_t msg, topic;
    if (self->engine ? zcpool_msg(self->engine, &msg, header)
                     : zmq_msg_init_size(&msg, self->shared->size))
        return self->engine
                   ? 1 //  every buffer in flight: retry
                   : err_set(err, "zmq_msg_init_size: %s", zmq_strerror(errno));
    char *data = zmq_msg_data(&msg);
    if (source->frames == 1)
        memcpy(data, topic_gen_text(gen), size);
    sequence_write(data + source->header, header);
    if (intended)
        sequence_write_time(data + source->header, intended);
    if (source->frames == 2 && zmq_msg_init_size(&topic, size)) {
        zmq_msg_close(&msg);
        return err_set(err, "zmq_msg_init_size: %s", zmq_strerror(errno));
    }
    if (source->frames == 2) {
        memcpy(zmq_msg_data(&topic), topic_gen_text(gen), size);
        if (zmq_msg_send(&topic, self->out, ZMQ_SNDMORE) < 0) {
            zmq_msg_close(&msg);
            return s_send_failed(self, &topic, err) ? -1 : 1;
        }
    }
    //  once a topic frame went, its payload must follow (XPUB takes the
    //  rest of a message it began: its HWM counts whole messages)
    while (zmq_msg_send(&msg, self->out, 0) < 0)
        if (source->frames == 1 || (errno != EAGAIN && errno != EINTR) ||
            !atomic_load_explicit(&self->shared->target, memory_order_relaxed))
            return s_send_failed(self, &msg, err) ? -1 : 1;
    return 0;
}

//  Topics flat out in one frame, without zero-copy: s_run_fast with the
//  topic's table step and copy before the header, and nothing else
static int s_run_topics_fast(stage_t *self, errbuf_t *err)
{
    void *sock = self->out;
    const size_t size = self->shared->size;
    const topic_source_t *source = self->topics;
    const size_t at = source->header; //  the topic's size, in one frame
    const uint64_t base =
        sequence_base(self->inst->origin, self->shared->epoch);
    topic_gen_t gen = topic_gen(
        source, traffic_phase(self->pl, self->inst->origin, source->len));
    uint64_t seq = 0;
    zmq_msg_t msg;
    while (seq <
           atomic_load_explicit(&self->shared->target, memory_order_relaxed)) {
        if (zmq_msg_init_size(&msg, size))
            return err_set(err, "zmq_msg_init_size: %s", zmq_strerror(errno));
        char *data = zmq_msg_data(&msg);
        memcpy(data, topic_gen_text(&gen), at);
        sequence_write(data + at, sequence_header(base, seq));
        if (zmq_msg_send(&msg, sock, 0) < 0) {
            if (s_send_failed(self, &msg, err))
                return -1;
            continue;
        }
        topic_gen_step(&gen);
        atomic_store_explicit(&self->shared->sent, ++seq, memory_order_relaxed);
    }
    return 0;
}

//  With topics, paced (rate > 0, as s_run_paced), zero-copy or in two
//  frames: one loop, since the topic's table step is the same in all
static int s_run_topics(stage_t *self, errbuf_t *err)
{
    const double period = self->shared->rate > 0 ? 1e9 / self->shared->rate : 0;
    const uint64_t base =
        sequence_base(self->inst->origin, self->shared->epoch);
    const bool timed = self->shared->timed;
    const topic_source_t *source = self->topics;
    topic_gen_t gen = topic_gen(
        source, traffic_phase(self->pl, self->inst->origin, source->len));
    const uint64_t start = mono_ns();
    uint64_t seq = 0;
    while (seq <
           atomic_load_explicit(&self->shared->target, memory_order_relaxed)) {
        uint64_t intended = 0;
        if (period > 0) {
            intended = start + (uint64_t)(seq * period);
            uint64_t now = mono_ns();
            if (now < intended) { //  in slices: a new target is seen soon
                uint64_t slice = now + STAGE_IDLE_MS * 1000000ULL;
                mono_sleep_until_ns(intended < slice ? intended : slice);
                continue;
            }
        }
        int rc = s_send_topic(self, &gen, sequence_header(base, seq),
                              timed ? intended : 0, err);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue;
        topic_gen_step(&gen);
        atomic_store_explicit(&self->shared->sent, ++seq, memory_order_relaxed);
    }
    return 0;
}

static int s_run(stage_t *self, errbuf_t *err)
{
    const topic_source_t *source = self->topics;
    if (source && source->frames == 1 && !self->engine &&
        self->shared->rate <= 0)
        return s_run_topics_fast(self, err);
    if (source)
        return s_run_topics(self, err);
    if (self->shared->rate > 0)
        return s_run_paced(self, err);
    if (self->engine)
        return s_run_zerocopy(self, err);
    return s_run_fast(self, err);
}

//  After every context is gone: libzmq can no longer hold a buffer
static void s_release(stage_t *self)
{
    zcpool_t *pool = self->engine;
    zcpool_destroy(&pool);
    self->engine = NULL;
    self->pool = NULL;
    topic_free(self);
}

const stage_ops_t sender_ops = {.setup = s_setup,
                                .handshake = s_handshake,
                                .run = s_run,
                                .release = s_release};
