/*  subscriber: the last stage of a pubsub pipeline.

    A SUB socket subscribed to everything, plus to a topic of its own
    (0xFF 'R' id) that reaches the publishers through every proxy: when a
    publisher has seen it, the whole path to this subscriber is in place.
    The hot loop receives, checks the sequence (receive.h) and counts.  It
    ends when the controller has set stop and no message came for
    STAGE_IDLE_MS, so nothing in flight is cut off.
*/
#include "receive.h"
#include "stage.h"

#include <errno.h>
#include <zmq.h>

static int s_setup(stage_t *self, errbuf_t *err)
{
    int h = pipeline_hop_in(self->pl, self->inst->id);
    const params_t *hop = &self->pl->hops[h].params;
    if (stage_socket(self, ZMQ_SUB, hop->hwm, &self->in, err))
        return -1;
    uint8_t own[3] = {0xFF, 'R', (uint8_t)self->inst->id};
    int idle = STAGE_IDLE_MS;
    if (zmq_setsockopt(self->in, ZMQ_RCVTIMEO, &idle, sizeof idle) ||
        zmq_setsockopt(self->in, ZMQ_SUBSCRIBE, "", 0) ||
        zmq_setsockopt(self->in, ZMQ_SUBSCRIBE, own, sizeof own))
        return err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
    return stage_attach(self, self->in, h, err);
}

static int s_handshake(stage_t *self, errbuf_t *err)
{
    (void)self, (void)err;
    return 0;
}

static int s_run(stage_t *self, errbuf_t *err)
{
    void *sock = self->in;
    uint64_t total = 0;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (true) {
        if (zmq_msg_recv(&msg, sock, 0) < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                if (atomic_load_explicit(&self->stop, memory_order_relaxed))
                    break;
                continue;
            }
            zmq_msg_close(&msg);
            return err_set(err, "zmq_msg_recv: %s", zmq_strerror(errno));
        }
        receive_count(self, zmq_msg_data(&msg), zmq_msg_size(&msg), &total);
    }
    zmq_msg_close(&msg);
    return 0;
}

static void s_teardown(stage_t *self)
{
    stage_close(&self->in);
}

const stage_ops_t subscriber_ops = {s_setup, s_handshake, s_run, s_teardown};
