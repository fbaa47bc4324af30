/*  proxy: the zmq_proxy_steerable engine (see proxy.h).

        upstream --> [XSUB frontend] --zmq_proxy_steerable--> [XPUB backend] -->
   downstream
                                            ^
                            PAIR control: STATISTICS, TERMINATE (controller)
*/
#include "proxy.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

static void s_control_endpoint(const stage_t *self, char *buf, size_t len)
{
    snprintf(buf, len, "inproc://hopbench-control-%d", self->inst->id);
}

static int s_setup(stage_t *self, errbuf_t *err)
{
    int in = pipeline_hop_in(self->pl, self->inst->id);
    int out = pipeline_hop_out(self->pl, self->inst->id);
    char control[64];
    s_control_endpoint(self, control, sizeof control);
    int one = 1;
    if (stage_socket(self, ZMQ_XSUB, self->pl->hops[in].params.hwm, &self->in,
                     err) ||
        stage_socket(self, ZMQ_XPUB, self->pl->hops[out].params.hwm, &self->out,
                     err) ||
        stage_socket(self, ZMQ_PAIR, 0, &self->control, err))
        return -1;
    if (self->pl->params.nodrop &&
        zmq_setsockopt(self->out, ZMQ_XPUB_NODROP, &one, sizeof one))
        return err_set(err, "ZMQ_XPUB_NODROP: %s", zmq_strerror(errno));
    if (zmq_bind(self->control, control))
        return err_set(err, "bind %s: %s", control, zmq_strerror(errno));
    if (stage_attach(self, self->in, in, err) ||
        stage_attach(self, self->out, out, err))
        return -1;
    return 0;
}

static int s_handshake(stage_t *self, errbuf_t *err)
{
    (void)self, (void)err;
    return 0;
}

static int s_run(stage_t *self, errbuf_t *err)
{
    int rc = zmq_proxy_steerable(self->in, self->out, NULL, self->control);
    if (rc < 0 && errno != ETERM)
        return err_set(err, "zmq_proxy_steerable: %s", zmq_strerror(errno));
    return 0;
}

static void s_teardown(stage_t *self)
{
    stage_close(&self->in);
    stage_close(&self->out);
    stage_close(&self->control);
}

const stage_ops_t proxy_ops = {s_setup, s_handshake, s_run, s_teardown};

void *proxy_control_open(stage_t *proxy, int timeout_ms, errbuf_t *err)
{
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

int proxy_statistics(stage_t *proxy, void *control, proxy_counts_t *out,
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

int proxy_terminate(stage_t *proxy, void *control, errbuf_t *err)
{
    if (zmq_send(control, "TERMINATE", 9, 0) != 9)
        return err_set(err, "stage %s: sending TERMINATE: %s",
                       proxy->inst->name, zmq_strerror(errno));
    return 0;
}
