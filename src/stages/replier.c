/*  replier: the last stage of a reqrep pipeline (REP).

    Receives a request, checks its sequence (sequence.h), and sends the
    same message back, as libzmq's local_lat does.  Ends when the
    controller has set stop and no request came for STAGE_IDLE_MS.
*/
#include "stages/sequence.h"
#include "stages/roles.h"
#include "stages/stage.h"

#include <errno.h>
#include <zmq.h>

static int s_setup(stage_t *self, errbuf_t *err)
{
    int h = pipeline_hop_in(self->pl, self->inst->id);
    int idle = STAGE_IDLE_MS;
    if (stage_socket(self, ZMQ_REP, self->pl->hops[h].params.hwm, &self->in,
                     err))
        return -1;
    if (zmq_setsockopt(self->in, ZMQ_RCVTIMEO, &idle, sizeof idle))
        return err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
    return stage_attach(self, self->in, h, err);
}

static int s_run(stage_t *self, errbuf_t *err)
{
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (true) {
        int size = zmq_msg_recv(&msg, self->in, 0);
        if (size < 0) {
            if (errno == EINTR ||
                (errno == EAGAIN && !atomic_load(&self->shared->stop)))
                continue;
            zmq_msg_close(&msg);
            return errno == EAGAIN
                       ? 0
                       : err_set(err, "zmq_msg_recv: %s", zmq_strerror(errno));
        }
        sequence_count(self, zmq_msg_data(&msg), (size_t)size);
        if (zmq_msg_send(&msg, self->in, 0) < 0) {
            zmq_msg_close(&msg);
            return err_set(err, "sending the reply: %s", zmq_strerror(errno));
        }
        zmq_msg_init(&msg);
    }
}

const stage_ops_t replier_ops = {.setup = s_setup, .run = s_run};
