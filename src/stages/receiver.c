/*  receiver: the last stage of a stream pipeline, a subscriber (SUB) or a
    puller (PULL).

    A subscriber subscribes to its topics (everything, by default) and its
    extra subscriptions, then to a topic of its own (0xFF 'R' id) that
    reaches the publishers through every proxy: when a publisher has seen
    it, the whole path to this subscriber is in place (stages/topic.h).
    With sockets = N (N > 1) the instance reads N SUB sockets in one loop of
    its own (sockets.h).  The loop receives, checks the sequence (sequence.h)
    and counts; in rate mode it also records receive time minus the
    publisher's intended send time while the window is open; with topics
    in one frame it finds the header after the topic.  A subscription that
    takes less than everything, frames = 2 or consume_ns take one more
    loop: whole messages, the header after the topic, what the
    subscription takes counted, consume_ns spun after each message.  It
    ends when the controller has set stop and no message came for
    STAGE_IDLE_MS, so nothing in flight is cut; what it takes once the
    window is over (STAGE_DRAINING) or it is told to stop it counts without
    consume_ns's spin, so that a slow subscriber's queues empty fast.
*/
#include "stages/sequence.h"
#include "stages/roles.h"
#include "stages/sockets.h"
#include "stages/stage.h"
#include "stages/topic.h"

#include <errno.h>
#include <zmq.h>

static int s_setup(stage_t *self, errbuf_t *err)
{
    if (pipeline_sockets(self->pl, self->inst->id) > 1)
        return sockets_setup(self, err);
    int h = pipeline_hop_in(self->pl, self->inst->id);
    const params_t *hop = &self->pl->hops[h].params;
    int type = stage_socket_type(self, false);
    if (stage_socket(self, type, hop->hwm, &self->in, err))
        return -1;
    int idle = STAGE_IDLE_MS, unbounded = 0;
    if (zmq_setsockopt(self->in, ZMQ_RCVTIMEO, &idle, sizeof idle))
        return err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
    //  A SUB sends only subscriptions, and libzmq drops one that finds the
    //  pipe at SNDHWM (xsub.cpp): with hwm = 1 over tcp or ipc the second
    //  never left.  The hop's hwm is for the messages, not for these.
    if (type == ZMQ_SUB &&
        zmq_setsockopt(self->in, ZMQ_SNDHWM, &unbounded, sizeof unbounded))
        return err_set(err, "ZMQ_SNDHWM: %s", zmq_strerror(errno));
    if (type == ZMQ_SUB && topic_subscribe(self, self->in, -1, err))
        return -1;
    if (topic_sink_new(self, err))
        return -1;
    return stage_attach_side(self, self->in, true, err);
}

static inline bool s_stopped(stage_t *self)
{
    return atomic_load_explicit(&self->shared->stop, memory_order_relaxed);
}

//  A failed receive: 1 to go on, 0 when stopped, -1 on an error
static int s_recv_failed(stage_t *self, errbuf_t *err)
{
    if (errno == EINTR)
        return 1;
    if (errno == EAGAIN)
        return !s_stopped(self);
    if (errno == ETERM)
        return 0; //  the controller shut the context down: stop
    return err_set(err, "zmq_msg_recv: %s", zmq_strerror(errno));
}

//  The header at offset at (after the topic), if the message holds it
static inline void s_count(stage_t *self, const char *data, size_t size,
                           size_t at)
{
    if (size >= at)
        sequence_count(self, data + at, size - at);
    else
        self->shared->misordered++; //  not a message hopbench sent
}

//  at: where the header starts (after the topic of a one-frame message)
static int s_run_fast(stage_t *self, size_t at, errbuf_t *err)
{
    void *sock = self->in;
    int rc = 1;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (rc > 0) {
        int size = zmq_msg_recv(&msg, sock, 0);
        if (size < 0)
            rc = s_recv_failed(self, err);
        else
            s_count(self, zmq_msg_data(&msg), (size_t)size, at);
    }
    zmq_msg_close(&msg);
    return rc;
}

static int s_run_latency(stage_t *self, size_t at, errbuf_t *err)
{
    void *sock = self->in;
    int rc = 1;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (rc > 0) {
        int size = zmq_msg_recv(&msg, sock, 0);
        if (size < 0) {
            rc = s_recv_failed(self, err);
            continue;
        }
        const char *data = zmq_msg_data(&msg);
        s_count(self, data, (size_t)size, at);
        if ((size_t)size >= at && stage_phase(self->shared) == STAGE_WINDOW)
            sequence_latency(self, data + at, (size_t)size - at);
    }
    zmq_msg_close(&msg);
    return rc;
}

//  A filtered subscription, envelopes or a slow subscriber
//  (stages/topic.h): whole messages, the header after the topic, the
//  subscription's count
static int s_run_topics(stage_t *self, errbuf_t *err)
{
    topic_sink_t *sink = self->topics;
    void *sock = self->in;
    const bool timed = self->shared->timed;
    int rc = 1;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    topic_rewind(sink);
    while (rc > 0) {
        int size = topic_recv(&msg, sock);
        if (size < 0) {
            rc = s_recv_failed(self, err);
            continue;
        }
        const char *data = zmq_msg_data(&msg);
        topic_take(self, sink, data, (size_t)size);
        if (timed && (size_t)size >= sink->header &&
            stage_phase(self->shared) == STAGE_WINDOW)
            sequence_latency(self, data + sink->header,
                             (size_t)size - sink->header);
        if (sink->consume_ns && topic_consuming(self))
            topic_consume(sink); //  what is left after the window: counted
    }
    zmq_msg_close(&msg);
    return rc;
}

//  Topics that need no more than their header's place (one frame, every
//  topic taken, no consume_ns) take the plain loops, the header at its
//  offset: what a subscription to everything costs is the topic's bytes
static int s_run(stage_t *self, errbuf_t *err)
{
    const topic_sink_t *sink = self->topics;
    if (self->engine)
        return sockets_run(self, err);
    if (sink &&
        (sink->filtered || sink->consume_ns || self->pl->params.frames != 1))
        return s_run_topics(self, err);
    size_t at = sink ? sink->header : 0;
    if (self->shared->timed)
        return s_run_latency(self, at, err);
    return s_run_fast(self, at, err);
}

static int s_teardown(stage_t *self, errbuf_t *err)
{
    (void)err;
    sockets_close(self);
    stage_close(&self->in);
    return 0;
}

static void s_release(stage_t *self)
{
    sockets_free(self);
    topic_free(self);
}

const stage_ops_t receiver_ops = {.setup = s_setup,
                                  .run = s_run,
                                  .teardown = s_teardown,
                                  .release = s_release};
