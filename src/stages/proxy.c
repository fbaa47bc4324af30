/*  proxy: the steerable engine, libzmq's zmq_proxy_steerable, and what all
    engines share (see proxy.h).

        upstream --> [frontend] --zmq_proxy_steerable--> [backend] -->
   downstream
                                          ^
                          PAIR control: STATISTICS, TERMINATE (controller)

    PAIR, because a REP control socket wedges on PAUSE in 4.3.4.  The
    STATISTICS reply is eight uint64 frames: frontend msgs_in, bytes_in,
    msgs_out, bytes_out, then the same for the backend; a multipart message
    counts once.  Only the fixed commands here are ever sent: an unknown
    command aborts libzmq.
*/
#include "stages/proxy.h"

#include "crew/stage_process.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

static void s_control_endpoint(const stage_t *self, char *buf, size_t len)
{
    //  a name per trial: a closed socket's inproc name is freed later
    snprintf(buf, len, "inproc://hopbench-control-%d-%u", self->inst->id,
             self->setups);
}

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
    if (back == ZMQ_XPUB && self->pl->params.nodrop &&
        zmq_setsockopt(self->out, ZMQ_XPUB_NODROP, &one, sizeof one))
        return err_set(err, "ZMQ_XPUB_NODROP: %s", zmq_strerror(errno));
    //  The frontend XSUB sends only the subscriptions it forwards (one per
    //  subscriber below, and ""), which libzmq drops at SNDHWM (xsub.cpp):
    //  the hop's hwm is for the messages coming the other way
    int unbounded = 0;
    if (back == ZMQ_XPUB &&
        zmq_setsockopt(self->in, ZMQ_SNDHWM, &unbounded, sizeof unbounded))
        return err_set(err, "ZMQ_SNDHWM: %s", zmq_strerror(errno));
    if (stage_attach(self, self->in, in, err) ||
        stage_attach(self, self->out, out, err))
        return -1;
    return 0;
}

static int s_setup(stage_t *self, errbuf_t *err)
{
    char control[64];
    s_control_endpoint(self, control, sizeof control);
    if (stage_socket(self, ZMQ_PAIR, 0, &self->control, err))
        return -1;
    if (zmq_bind(self->control, control))
        return err_set(err, "bind %s: %s", control, zmq_strerror(errno));
    return proxy_open_sockets(self, err);
}

static int s_run(stage_t *self, errbuf_t *err)
{
    int rc = zmq_proxy_steerable(self->in, self->out, NULL, self->control);
    if (rc < 0 && errno != ETERM)
        return err_set(err, "zmq_proxy_steerable: %s", zmq_strerror(errno));
    return 0;
}

static int s_teardown(stage_t *self, errbuf_t *err)
{
    (void)err;
    stage_close(&self->in);
    stage_close(&self->out);
    stage_close(&self->control);
    return 0;
}

const stage_ops_t proxy_ops = {s_setup, NULL, s_run, s_teardown, NULL};

static bool s_steerable(const stage_t *proxy)
{
    return proxy->inst->params.engine == ENGINE_STEERABLE;
}

void *proxy_control_open(stage_t *proxy, int timeout_ms, errbuf_t *err)
{
    if (!s_steerable(proxy) || proxy->remote)
        return NULL; //  a remote one is asked through its process

    char endpoint[64];
    s_control_endpoint(proxy, endpoint, sizeof endpoint);
    void *control = zmq_socket(proxy->ctx, ZMQ_PAIR);
    int zero = 0;
    if (!control || zmq_setsockopt(control, ZMQ_LINGER, &zero, sizeof zero) ||
        zmq_setsockopt(control, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms) ||
        zmq_setsockopt(control, ZMQ_SNDTIMEO, &timeout_ms, sizeof timeout_ms) ||
        zmq_connect(control, endpoint)) {
        err_set(err, "stage %s: control channel %s: %s", proxy->inst->name,
                endpoint, zmq_strerror(errno));
        if (control)
            zmq_close(control);
        return NULL;
    }
    return control;
}

static int s_statistics(stage_t *proxy, void *control, proxy_counts_t *out,
                        errbuf_t *err)
{
    uint64_t stats[8];
    if (zmq_send(control, "STATISTICS", 10, 0) != 10)
        return err_set(err, "stage %s: sending STATISTICS: %s",
                       proxy->inst->name, zmq_strerror(errno));
    for (int i = 0; i < 8; i++) {
        int more = 0;
        size_t len = sizeof more;
        if (zmq_recv(control, &stats[i], sizeof stats[i], 0) != sizeof stats[i])
            return err_set(err, "stage %s: no STATISTICS reply: %s",
                           proxy->inst->name, zmq_strerror(errno));
        zmq_getsockopt(control, ZMQ_RCVMORE, &more, &len);
        if ((i < 7) != (more != 0))
            return err_set(err, "stage %s: STATISTICS reply has not 8 frames",
                           proxy->inst->name);
    }
    out->received = stats[0]; //  frontend msgs_in
    out->sent = stats[6];     //  backend msgs_out
    return 0;
}

int proxy_counts(stage_t *proxy, void *control, proxy_counts_t *out,
                 errbuf_t *err)
{
    if (s_steerable(proxy) && proxy->remote)
        return remote_counts(proxy, &out->received, &out->sent, err);
    if (s_steerable(proxy))
        return s_statistics(proxy, control, out, err);
    out->received = stage_received(proxy);
    out->sent = atomic_load(&proxy->shared->sent);
    return 0;
}

int proxy_stop(stage_t *proxy, void *control, errbuf_t *err)
{
    atomic_store(&proxy->shared->stop, 1);
    if (s_steerable(proxy) && proxy->remote)
        remote_stop(proxy);
    else if (s_steerable(proxy) && control &&
             zmq_send(control, "TERMINATE", 9, 0) != 9)
        return err_set(err, "stage %s: sending TERMINATE: %s",
                       proxy->inst->name, zmq_strerror(errno));
    return 0;
}
