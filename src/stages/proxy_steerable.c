/*  proxy_steerable: libzmq's zmq_proxy_steerable as a proxy engine
    (engine = steerable, the default: what users deploy).

        upstream --> [frontend] --zmq_proxy_steerable--> [backend] --> downstream
                                          ^
                                          | PAIR control (inproc)
                          STATISTICS, TERMINATE from the controller's side

    PAIR, because a REP control socket wedges on PAUSE in 4.3.4.  The
    STATISTICS reply is eight uint64 frames: frontend msgs_in, bytes_in,
    msgs_out, bytes_out, then the same for the backend; a multipart message
    counts once.  Only the fixed commands here are ever sent: an unknown
    command aborts libzmq.  The control channel's far end is opened on the
    stage's context by whoever drives the stage (its controller, or the
    host of its process), so the counters never leave the context.
*/
#include "stages/proxy.h"
#include "stages/roles.h"

#include <errno.h>
#include <string.h>
#include <zmq.h>

static void s_control_endpoint(const stage_t *self, char *buf, size_t len)
{
    //  a name per trial: a closed socket's inproc name is freed later
    snprintf(buf, len, "inproc://hopbench-control-%d-%u", self->inst->id,
             self->setups);
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

//  The driver's end of the control channel, after SETUP
static void *s_control_open(stage_t *self, int timeout_ms, errbuf_t *err)
{
    char endpoint[64];
    s_control_endpoint(self, endpoint, sizeof endpoint);
    void *control = zmq_socket(self->ctx, ZMQ_PAIR);
    int zero = 0;
    if (!control || zmq_setsockopt(control, ZMQ_LINGER, &zero, sizeof zero) ||
        zmq_setsockopt(control, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms) ||
        zmq_setsockopt(control, ZMQ_SNDTIMEO, &timeout_ms, sizeof timeout_ms) ||
        zmq_connect(control, endpoint)) {
        err_set(err, "control channel %s: %s", endpoint, zmq_strerror(errno));
        if (control)
            zmq_close(control);
        return NULL;
    }
    return control;
}

//  The engine did not answer within the timeout: in the words every
//  wait for counters uses (stage_no_counts)
static int s_no_reply(void *control, errbuf_t *err)
{
    int ms = 0;
    size_t len = sizeof ms;
    if (errno != EAGAIN)
        return err_set(err, "no STATISTICS reply: %s", zmq_strerror(errno));
    zmq_getsockopt(control, ZMQ_RCVTIMEO, &ms, &len);
    return stage_no_counts(err, ms);
}

static int s_counts(stage_t *self, void *control, uint64_t *received,
                    uint64_t *sent, errbuf_t *err)
{
    (void)self;
    uint64_t stats[8];
    if (!control)
        return err_set(err, "no control channel");
    if (zmq_send(control, "STATISTICS", 10, 0) != 10)
        return err_set(err, "sending STATISTICS: %s", zmq_strerror(errno));
    for (int i = 0; i < 8; i++) {
        int more = 0;
        size_t len = sizeof more;
        if (zmq_recv(control, &stats[i], sizeof stats[i], 0) != sizeof stats[i])
            return s_no_reply(control, err);
        zmq_getsockopt(control, ZMQ_RCVMORE, &more, &len);
        if ((i < 7) != (more != 0))
            return err_set(err, "STATISTICS reply has not 8 frames");
    }
    *received = stats[0]; //  frontend msgs_in
    *sent = stats[6];     //  backend msgs_out
    return 0;
}

static int s_stop(stage_t *self, void *control, errbuf_t *err)
{
    (void)self;
    if (control && zmq_send(control, "TERMINATE", 9, 0) != 9)
        return err_set(err, "sending TERMINATE: %s", zmq_strerror(errno));
    return 0;
}

const stage_ops_t proxy_steerable_ops = {.setup = s_setup,
                                         .run = s_run,
                                         .control_open = s_control_open,
                                         .counts = s_counts,
                                         .stop = s_stop};
