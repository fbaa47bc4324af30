/*  connector: the last stage of a connect pipeline: clients that come and
    go, to measure how fast a broker takes new connections.

    Each cycle opens a SUB socket, connects to the hop's endpoints,
    subscribes, waits for one message, and closes the socket: sent counts
    cycles begun, received the cycles that got their message, and the
    latency histogram holds each cycle's time from connect to message.  A
    cycle that gets nothing within the timeout is counted and abandoned.
    The publisher should send at a steady rate (rate = N), so a new client
    waits about 1/N for its message.
*/
#include "base/mono.h"
#include "stages/roles.h"
#include "stages/stage.h"

#include <errno.h>
#include <zmq.h>

static int s_setup(stage_t *self, errbuf_t *err)
{
    (void)self, (void)err;
    return 0; //  sockets are the cycles' own
}

//  Open, connect, subscribe: the cycle's socket, or NULL with err set
static void *s_open(stage_t *self, int h, errbuf_t *err)
{
    void *sock = NULL;
    int idle = STAGE_IDLE_MS;
    if (stage_socket(self, ZMQ_SUB, self->pl->hops[h].params.hwm, &sock, err))
        return NULL;
    if (zmq_setsockopt(sock, ZMQ_RCVTIMEO, &idle, sizeof idle) ||
        stage_attach(self, sock, h, err) ||
        zmq_setsockopt(sock, ZMQ_SUBSCRIBE, "", 0)) {
        if (!err->msg[0])
            err_set(err, "zmq_setsockopt: %s", zmq_strerror(errno));
        zmq_close(sock);
        return NULL;
    }
    return sock;
}

//  Wait for the cycle's message: 1 got it, 0 gave up (timeout, stop)
static int s_wait(stage_t *self, void *sock, uint64_t deadline)
{
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    int got = 0;
    while (!atomic_load_explicit(&self->shared->stop, memory_order_relaxed) &&
           mono_ns() < deadline) {
        if (zmq_msg_recv(&msg, sock, 0) >= 0) {
            got = 1;
            break;
        }
        if (errno == ETERM)
            break;
    }
    zmq_msg_close(&msg);
    return got;
}

static int s_run(stage_t *self, errbuf_t *err)
{
    int h = pipeline_hop_in(self->pl, self->inst->id);
    uint64_t timeout = (uint64_t)(self->pl->params.timeout * 1e9);
    uint64_t begun = 0, done = 0;
    while (!atomic_load_explicit(&self->shared->stop, memory_order_relaxed)) {
        uint64_t start = mono_ns();
        void *sock = s_open(self, h, err);
        if (!sock)
            return -1;
        atomic_store_explicit(&self->shared->sent, ++begun,
                              memory_order_relaxed);
        if (s_wait(self, sock, start + timeout)) {
            if (stage_phase(self->shared) == STAGE_WINDOW)
                histogram_record(&self->shared->latency, mono_ns() - start);
            atomic_store_explicit(&self->shared->received, ++done,
                                  memory_order_relaxed);
        }
        zmq_close(sock);
    }
    return 0;
}

const stage_ops_t connector_ops = {.setup = s_setup, .run = s_run};
