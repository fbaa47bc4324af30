/*  publisher: the first stage of a pubsub pipeline.

    An XPUB socket (XPUB rather than PUB: it shows subscriptions arriving,
    which is how the handshake knows every subscriber is reachable, and it
    offers ZMQ_XPUB_NODROP).  Each message starts with an 8-byte header,
    origin << 48 | sequence, that receivers check; the rest of the payload
    is left as zmq_msg_init_size gives it, as libzmq's remote_thr does.
    The hot loop sends while the sequence is below the target the
    controller sets (UINT64_MAX until the window's end is known).
*/
#include "stage.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

static int s_setup(stage_t *self, errbuf_t *err)
{
    int h = pipeline_hop_out(self->pl, self->inst->id);
    const params_t *hop = &self->pl->hops[h].params;
    if (stage_socket(self, ZMQ_XPUB, hop->hwm, &self->out, err))
        return -1;
    int one = 1, idle = STAGE_IDLE_MS;
    if (self->pl->params.nodrop &&
        zmq_setsockopt(self->out, ZMQ_XPUB_NODROP, &one, sizeof one))
        return err_set(err, "ZMQ_XPUB_NODROP: %s", zmq_strerror(errno));
    if (zmq_setsockopt(self->out, ZMQ_SNDTIMEO, &idle, sizeof idle) ||
        zmq_setsockopt(self->out, ZMQ_RCVTIMEO, &idle, sizeof idle))
        return err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
    return stage_attach(self, self->out, h, err);
}

//  Wait for each expected subscriber's own topic (0xFF 'R' id) to arrive
static int s_handshake(stage_t *self, errbuf_t *err)
{
    bool seen[PIPELINE_MAX_INSTANCES] = {false};
    int missing = self->nhandshake;
    int64_t deadline =
        zclock_mono() + (int64_t)(self->pl->params.timeout * 1000);
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (missing > 0 && zclock_mono() < deadline) {
        if (zmq_msg_recv(&msg, self->out, 0) < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            zmq_msg_close(&msg);
            return err_set(err, "waiting for subscriptions: %s",
                           zmq_strerror(errno));
        }
        const uint8_t *data = zmq_msg_data(&msg);
        if (zmq_msg_size(&msg) == 4 && data[0] == 1 && data[1] == 0xFF &&
            data[2] == 'R' && data[3] < PIPELINE_MAX_INSTANCES &&
            !seen[data[3]]) {
            seen[data[3]] = true;
            missing--;
        }
    }
    zmq_msg_close(&msg);
    for (int i = 0; i < self->nhandshake && missing; i++)
        if (!seen[self->handshake_ids[i]])
            return err_set(err,
                           "the subscription of %s did not arrive within "
                           "%g s",
                           self->pl->inst[self->handshake_ids[i]].name,
                           self->pl->params.timeout);
    return 0;
}

static int s_run(stage_t *self, errbuf_t *err)
{
    void *sock = self->out;
    const size_t size = self->size;
    const uint64_t origin = (uint64_t)self->inst->instance << STAGE_SEQ_BITS;
    uint64_t seq = 0;
    zmq_msg_t msg;
    while (seq < atomic_load_explicit(&self->target, memory_order_relaxed)) {
        if (zmq_msg_init_size(&msg, size))
            return err_set(err, "zmq_msg_init_size: %s", zmq_strerror(errno));
        uint64_t header = origin | seq;
        memcpy(zmq_msg_data(&msg), &header, sizeof header);
        if (zmq_msg_send(&msg, sock, 0) < 0) {
            zmq_msg_close(&msg);
            if (errno == EAGAIN || errno == EINTR)
                continue; //  nodrop back-pressure: check the target, retry
            return err_set(err, "zmq_msg_send: %s", zmq_strerror(errno));
        }
        atomic_store_explicit(&self->sent, ++seq, memory_order_relaxed);
    }
    return 0;
}

static void s_teardown(stage_t *self)
{
    stage_close(&self->out);
}

const stage_ops_t publisher_ops = {s_setup, s_handshake, s_run, s_teardown};
