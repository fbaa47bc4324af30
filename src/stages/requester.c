/*  requester: the first stage of a reqrep pipeline (REQ).

    The classic round-trip test: one warm-up exchange, then round trips
    until 'messages' are done (5000 by default) or 'duration' has passed.
    Each request carries the usual header and the reply must carry it back;
    each round trip's time goes into the latency histogram.  The requester
    times its own window (first to last timed round trip): at tens of
    microseconds per round trip, the controller's clock reads would be too
    coarse.  A reply that does not come within the timeout fails the stage.
*/
#include "base/mono.h"
#include "stages/roles.h"
#include "stages/sequence.h"
#include "stages/stage.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

#define REQREP_DEFAULT_ROUND_TRIPS 5000

static int s_setup(stage_t *self, errbuf_t *err)
{
    int h = pipeline_hop_out(self->pl, self->inst->id);
    int wait = (int)(self->pl->params.timeout * 1000);
    if (stage_socket(self, ZMQ_REQ, self->pl->hops[h].params.hwm, &self->out,
                     err))
        return -1;
    if (zmq_setsockopt(self->out, ZMQ_SNDTIMEO, &wait, sizeof wait) ||
        zmq_setsockopt(self->out, ZMQ_RCVTIMEO, &wait, sizeof wait))
        return err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
    return stage_attach(self, self->out, h, err);
}

//  One request and its reply
static int s_round_trip(stage_t *self, uint64_t seq, errbuf_t *err)
{
    zmq_msg_t msg;
    uint64_t header = sequence_header(
        sequence_base(self->inst->origin, self->shared->epoch), seq);
    if (zmq_msg_init_size(&msg, self->shared->size))
        return err_set(err, "zmq_msg_init_size: %s", zmq_strerror(errno));
    sequence_write(zmq_msg_data(&msg), header);
    if (zmq_msg_send(&msg, self->out, 0) < 0) {
        zmq_msg_close(&msg);
        return err_set(err, "sending request %llu: %s", (unsigned long long)seq,
                       zmq_strerror(errno));
    }
    atomic_store_explicit(&self->shared->sent, seq + 1, memory_order_relaxed);
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, self->out, 0) < 0) {
        zmq_msg_close(&msg);
        return err_set(err, "no reply to request %llu within %g s: %s",
                       (unsigned long long)seq, self->pl->params.timeout,
                       zmq_strerror(errno));
    }
    uint64_t echoed = 0;
    if (zmq_msg_size(&msg) >= sizeof echoed)
        memcpy(&echoed, zmq_msg_data(&msg), sizeof echoed);
    zmq_msg_close(&msg);
    if (echoed != header)
        return err_set(err, "the reply to request %llu carries another one",
                       (unsigned long long)seq);
    atomic_store_explicit(&self->shared->received, seq + 1,
                          memory_order_relaxed);
    return 0;
}

static int s_run(stage_t *self, errbuf_t *err)
{
    const params_t *params = &self->pl->params;
    uint64_t count = params->messages;
    if (count == 0 && !params->set[KEY_DURATION])
        count = REQREP_DEFAULT_ROUND_TRIPS;
    uint64_t end =
        count ? UINT64_MAX : mono_ns() + (uint64_t)(params->duration * 1e9);
    if (s_round_trip(self, 0, err)) //  the warm-up exchange
        return -1;
    uint64_t seq = 1, start = mono_ns(), now = start;
    while ((count ? seq <= count : now < end) &&
           !atomic_load_explicit(&self->shared->stop, memory_order_relaxed)) {
        if (s_round_trip(self, seq++, err))
            return -1;
        uint64_t then = now;
        now = mono_ns();
        histogram_record(&self->shared->latency, now - then);
    }
    self->shared->window_start_ns = start;
    self->shared->window_end_ns = now;
    return 0;
}

const stage_ops_t requester_ops = {.setup = s_setup, .run = s_run};
