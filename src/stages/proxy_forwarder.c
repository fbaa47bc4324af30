/*  proxy_forwarder: hopbench's own proxy loop (engine = forwarder).

        upstream --> [frontend] --zmq_poll, then up to --> [backend] --> downstream
                                  FORWARD_BATCH receives
                                  (ZMQ_DONTWAIT)

    One zmq_poll, then a burst of ZMQ_DONTWAIT receives, each sent on at
    once: the technique of libzmq PR #3440.  Unlike zmq_proxy_steerable it
    reads every message's header on the way, so it counts per origin (a
    fan-in hop gets a row per publisher) and, in rate mode, records each
    hop's latency.  Multipart messages (reqrep envelopes) are forwarded
    whole (reqrep envelopes, a topic frame and its payload with frames =
    2); the header is read from the last part, after the topic when a
    single frame starts with one.
*/
#include "pipeline/traffic.h"
#include "stages/proxy.h"
#include "stages/roles.h"
#include "stages/sequence.h"

#include <errno.h>
#include <zmq.h>

#define FORWARD_BATCH 1000

//  A send that meets back-pressure (ZMQ_XPUB_NODROP, a full PUSH) waits in
//  slices of STAGE_IDLE_MS, so a stop is seen: every wait is bounded
static int s_setup(stage_t *self, errbuf_t *err)
{
    int idle = STAGE_IDLE_MS;
    if (proxy_open_sockets(self, err))
        return -1;
    if (zmq_setsockopt(self->in, ZMQ_SNDTIMEO, &idle, sizeof idle) ||
        zmq_setsockopt(self->out, ZMQ_SNDTIMEO, &idle, sizeof idle))
        return err_set(err, "ZMQ_SNDTIMEO: %s", zmq_strerror(errno));
    return 0;
}

//  0 sent; 1 the pipeline is ending (ETERM, or stopped while the far end
//  takes nothing more); -1 an error
static int s_send(stage_t *self, zmq_msg_t *msg, void *to, int flags,
                  errbuf_t *err)
{
    while (zmq_msg_send(msg, to, flags) < 0) {
        if (errno == EAGAIN && !atomic_load(&self->shared->stop))
            continue;
        if (errno == EAGAIN || errno == ETERM)
            return 1;
        return err_set(err, "zmq_msg_send: %s", zmq_strerror(errno));
    }
    return 0;
}

//  Forward a burst from -> to; counting when it flows downstream.  1 when
//  the burst ended (nothing left), -1 on an error
static int s_burst(stage_t *self, void *from, void *to, bool downstream,
                   size_t header, uint64_t *total, errbuf_t *err)
{
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    const bool latency = self->shared->timed;
    for (int i = 0; i < FORWARD_BATCH; i++) {
        if (zmq_msg_recv(&msg, from, ZMQ_DONTWAIT) < 0)
            break;
        int more = zmq_msg_more(&msg);
        if (downstream && !more) {
            size_t size = zmq_msg_size(&msg),
                   skip = size < header ? size : header;
            const char *data = (const char *)zmq_msg_data(&msg) + skip;
            sequence_count(self, data, size - skip);
            ++*total;
            if (latency && stage_phase(self->shared) == STAGE_WINDOW)
                sequence_latency(self, data, size - skip);
        }
        int rc = s_send(self, &msg, to, more ? ZMQ_SNDMORE : 0, err);
        if (rc) {
            zmq_msg_close(&msg);
            return rc;
        }
        if (downstream && !more)
            atomic_store_explicit(&self->shared->sent, *total,
                                  memory_order_relaxed);
    }
    zmq_msg_close(&msg);
    if (errno != EAGAIN && errno != EINTR && errno != ETERM)
        return err_set(err, "zmq_msg_recv: %s", zmq_strerror(errno));
    return 1;
}

static int s_run(stage_t *self, errbuf_t *err)
{
    zmq_pollitem_t items[] = {{self->in, 0, ZMQ_POLLIN, 0},
                              {self->out, 0, ZMQ_POLLIN, 0}};
    uint64_t total = 0;
    const size_t header = traffic_header_offset(self->pl); //  after a topic
    while (true) {
        int rc = zmq_poll(items, 2, STAGE_IDLE_MS);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return errno == ETERM
                       ? 0
                       : err_set(err, "zmq_poll: %s", zmq_strerror(errno));
        if (rc == 0 && atomic_load(&self->shared->stop))
            return 0;
        if ((items[0].revents & ZMQ_POLLIN) &&
            s_burst(self, self->in, self->out, true, header, &total, err) < 0)
            return -1;
        if ((items[1].revents & ZMQ_POLLIN) &&
            s_burst(self, self->out, self->in, false, header, &total, err) < 0)
            return -1;
    }
}

const stage_ops_t proxy_forwarder_ops = {.setup = s_setup, .run = s_run};
