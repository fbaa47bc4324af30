/*  proxy: the frontend and backend every engine opens (proxy.h).  */
#include "stages/proxy.h"

#include <errno.h>
#include <zmq.h>

int proxy_open_sockets(stage_t *self, errbuf_t *err)
{
    int in = pipeline_hop_in(self->pl, self->inst->id);
    int out = pipeline_hop_out(self->pl, self->inst->id);
    int back = stage_socket_type(self, true), one = 1;
    if (stage_socket(self, stage_socket_type(self, false),
                     self->pl->hops[in].params.hwm, &self->in, err) ||
        stage_socket(self, back, self->pl->hops[out].params.hwm, &self->out,
                     err))
        return -1;
    if (back == ZMQ_XPUB && pipeline_backpressure(self->pl) &&
        zmq_setsockopt(self->out, ZMQ_XPUB_NODROP, &one, sizeof one))
        return err_set(err, "ZMQ_XPUB_NODROP: %s", zmq_strerror(errno));
    //  The frontend XSUB sends only the subscriptions it forwards (one per
    //  subscriber below, and ""), which libzmq drops at SNDHWM (xsub.cpp):
    //  the hop's hwm is for the messages coming the other way
    int unbounded = 0;
    if (back == ZMQ_XPUB &&
        zmq_setsockopt(self->in, ZMQ_SNDHWM, &unbounded, sizeof unbounded))
        return err_set(err, "ZMQ_SNDHWM: %s", zmq_strerror(errno));
    if (stage_attach_side(self, self->in, true, err) ||
        stage_attach_side(self, self->out, false, err))
        return -1;
    return 0;
}
