/*  raw: the baseline of `make bench`.  hopbench's pipelines written with
    raw libzmq and nothing else, so that hopbench's figures can be held
    against what the library itself gives, in the same run.

        direct    XPUB --T--> SUB
        proxy     XPUB --T--> [XSUB | zmq_proxy_steerable | XPUB] --T--> SUB
                                          PAIR control ^
        pushpull  PUSH --T--> PULL      (libzmq's local_thr / inproc_thr)

    "The same sockets" means the ones hopbench opens, so that a ratio
    prices hopbench's harness and nothing else: an XPUB publisher (hopbench
    needs XPUB to see subscriptions arrive; --pub pub prices a plain PUB),
    a SUB subscribed to everything, the proxy's XSUB/XPUB with a bound PAIR
    control socket (it changes zmq_proxy_steerable's poll set), SNDHWM and
    RCVHWM 1000 on both ends, linger 0, and the same side binds: the
    publisher in direct, the proxy in proxy.  pushpull is libzmq's own
    throughput pattern, for reference.

    "The same work" means what hopbench's contract makes every pipeline do,
    done the cheapest way: each message carries an 8-byte sequence number
    that the sender writes and the receiver reads and checks against the
    next it expects (loss accounting needs it); with --topics, each message
    starts with a topic from a table (a load, a wrap and a copy), the
    sequence after it; with --zerocopy, each message is a buffer of a ring
    that the sender reuses only once libzmq has given it back (one release
    count per buffer, written by the thread that frees it, read by the
    sender a cache line at a time), as any sender that writes its messages
    in place must.  --no-sequence drops the sequence (libzmq's cost alone).
    What hopbench adds and raw does not: the origin and epoch bits of its
    header and the per-origin counters, send and receive timeouts, its
    actor protocol and the controller's polls.

    Each stage is a thread of its own, with a context of its own except
    over inproc, where all stages share one (inproc needs it).  The
    measurement is hopbench's: the slow-joiner wait (the XPUB publisher
    sees the subscription come back), a warm-up, then the messages the
    receiver took during a window of fixed length, over the window's length
    on the monotonic clock.  The receiver publishes its count with one
    relaxed atomic store per message, the least a controller can read;
    the sender's loop is the message's making and zmq_msg_send alone, and
    it ends when its context is shut down (ETERM).  Every wait has a
    deadline: a stage that does not start, deliver or end in time is an
    error naming it (exit 1), never a hang.

    Output, one line on stdout (the receiver's and the sender's thread CPU
    time in the window per message, for comparison with hopbench's
    to_cpu_ns_per_msg and from_cpu_ns_per_msg; the messages whose sequence
    was not the next, over the whole run):
        case=direct transport=tcp size=1024 pub=xpub msgs_per_sec=R
        received=N seconds=S receiver_cpu_ns_per_msg=C
        sender_cpu_ns_per_msg=D out_of_sequence=J
*/
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "raw_work.h"

#define RAW_MAX_STAGES 3
#define RAW_ENDPOINT   256
#define RAW_POLL_MS    1 //  the controller's sleep while it waits for a stage
//  The hot loops stay functions of their own, so profilers name them
#define RAW_LOOP __attribute__((noinline)) static int

typedef enum { CASE_DIRECT, CASE_PROXY, CASE_PUSHPULL } case_t;
static const char *const case_names[] = {"direct", "proxy", "pushpull"};

typedef struct {
    case_t kase;
    const char *transport; //  inproc, ipc, tcp
    size_t size;
    double duration, warmup, timeout; //  seconds
    int pub_type;                     //  ZMQ_XPUB or ZMQ_PUB
    int hwm;
    int rcvtimeo;  //  receiver's ZMQ_RCVTIMEO, -1 (block) unless asked
    bool zerocopy; //  zmq_msg_init_data over a ring's buffers (raw_work.h)
    bool nodrop;   //  ZMQ_XPUB_NODROP on every XPUB: back-pressure
    bool sequence; //  each message's 8-byte sequence, written and checked
    int topics;    //  each message starts with one of this many topics
    size_t topic_size;
} options_t;

typedef enum { ROLE_SENDER, ROLE_PROXY, ROLE_RECEIVER } role_t;
typedef enum { STATE_STARTING, STATE_READY, STATE_FAILED } state_t;

//  One link; its binding end writes the endpoint before its peer starts
typedef struct {
    bool upstream_binds;
    char bind_to[RAW_ENDPOINT];  //  what the binder asks for
    char endpoint[RAW_ENDPOINT]; //  what it got (ZMQ_LAST_ENDPOINT)
} hop_t;

typedef struct {
    const options_t *opt;
    const char *name;
    role_t role;
    void *ctx;
    hop_t *in, *out; //  NULL at the pipeline's ends
    void *sock_in, *sock_out, *control;
    ring_t ring;     //  the sender's, --zerocopy
    topics_t topics; //  the sender's, --topics
    uint64_t jumps;  //  the receiver's messages out of sequence, at its end
    pthread_t thread;
    bool started;
    _Atomic int state;
    char error[256];
    //  Written by the receiver per message, read by the controller
    _Alignas(64) _Atomic uint64_t received;
} stage_t;

typedef struct {
    options_t opt;
    int nstages, nhops, nctx;
    stage_t stage[RAW_MAX_STAGES];
    hop_t hop[RAW_MAX_STAGES - 1];
    void *ctx[RAW_MAX_STAGES];
    char ipc_dir[64];
} raw_t;

//  ------------------------------------------------------------------------
//  Small helpers

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void s_sleep(double seconds)
{
    struct timespec ts = {(time_t)seconds,
                          (long)((seconds - (time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

//  Record why a stage failed; returns -1 for the caller to return
static int s_fail(stage_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(self->error, sizeof self->error, "%s: ", self->name);
    vsnprintf(self->error + n, sizeof self->error - (size_t)n, fmt, ap);
    va_end(ap);
    atomic_store(&self->state, STATE_FAILED);
    return -1;
}

static void *s_socket(stage_t *self, int type, int hwm)
{
    void *sock = zmq_socket(self->ctx, type);
    int zero = 0, nodrop = self->opt->nodrop;
    if (!sock) {
        s_fail(self, "zmq_socket: %s", zmq_strerror(errno));
        return NULL;
    }
    if (zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero) ||
        zmq_setsockopt(sock, ZMQ_SNDHWM, &hwm, sizeof hwm) ||
        zmq_setsockopt(sock, ZMQ_RCVHWM, &hwm, sizeof hwm) ||
        (type == ZMQ_XPUB &&
         zmq_setsockopt(sock, ZMQ_XPUB_NODROP, &nodrop, sizeof nodrop))) {
        s_fail(self, "zmq_setsockopt: %s", zmq_strerror(errno));
        zmq_close(sock);
        return NULL;
    }
    return sock;
}

//  Bind or connect sock to hop, as the hop says for this end
static int s_attach(stage_t *self, void *sock, hop_t *hop, bool upstream)
{
    if (hop->upstream_binds == upstream) {
        size_t len = sizeof hop->endpoint;
        if (zmq_bind(sock, hop->bind_to) ||
            zmq_getsockopt(sock, ZMQ_LAST_ENDPOINT, hop->endpoint, &len))
            return s_fail(self, "bind %s: %s", hop->bind_to,
                          zmq_strerror(errno));
        return 0;
    }
    if (zmq_connect(sock, hop->endpoint))
        return s_fail(self, "connect %s: %s", hop->endpoint,
                      zmq_strerror(errno));
    return 0;
}

//  ------------------------------------------------------------------------
//  Stages: set up, then the hot loop, which ends on ETERM

static int s_sender_setup(stage_t *self)
{
    int type =
        self->opt->kase == CASE_PUSHPULL ? ZMQ_PUSH : self->opt->pub_type;
    const options_t *opt = self->opt;
    if (opt->zerocopy && ring_init(&self->ring, opt->size, opt->hwm))
        return s_fail(self, "no memory for the zero-copy ring");
    if (opt->topics && topics_init(&self->topics, opt->topics, opt->topic_size))
        return s_fail(self, "no memory for %d topics", opt->topics);
    self->sock_out = s_socket(self, type, opt->hwm);
    if (!self->sock_out)
        return -1;
    return s_attach(self, self->sock_out, self->out, true);
}

//  The slow joiner: an XPUB sees the subscription once the whole path to
//  the subscriber exists.  PUB and PUSH cannot tell; the controller's
//  wait for the first delivered message covers them.
static int s_sender_wait_subscription(stage_t *self)
{
    if (self->opt->kase == CASE_PUSHPULL || self->opt->pub_type != ZMQ_XPUB)
        return 0;
    zmq_pollitem_t item = {self->sock_out, 0, ZMQ_POLLIN, 0};
    int rc = zmq_poll(&item, 1, (long)(self->opt->timeout * 1000));
    if (rc < 0)
        return s_fail(self, "zmq_poll: %s", zmq_strerror(errno));
    if (rc == 0)
        return s_fail(self, "no subscription arrived within %g s",
                      self->opt->timeout);
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    rc = zmq_msg_recv(&msg, self->sock_out, ZMQ_DONTWAIT);
    zmq_msg_close(&msg);
    if (rc < 0)
        return s_fail(self, "receiving the subscription: %s",
                      zmq_strerror(errno));
    return 0;
}

//  Every ring buffer in flight: wait for libzmq to give one back, and
//  notice meanwhile a context shut down.  0: try again; 1: ETERM; -1
static int s_ring_wait(stage_t *self)
{
    zmq_pollitem_t item = {self->sock_out, 0, ZMQ_POLLOUT, 0};
    if (zmq_poll(&item, 1, 1) >= 0 || errno == EINTR)
        return 0;
    return errno == ETERM ? 1
                          : s_fail(self, "zmq_poll: %s", zmq_strerror(errno));
}

//  The sender's loop, made once for each combination of its work: the
//  flags are constants at each call below, so every loop the compiler
//  makes holds only its own work.  zerocopy: the ring's buffers, else
//  zmq_msg_init_size; stamp: the sequence (and topic) written in place
static inline __attribute__((always_inline)) int
s_send(stage_t *self, bool zerocopy, bool stamp, bool topics)
{
    void *sock = self->sock_out;
    const size_t size = self->opt->size, at = self->opt->topic_size;
    uint64_t seq = 0;
    zmq_msg_t msg;
    while (true) {
        char *data = NULL;
        if (zerocopy && ring_msg(&self->ring, &msg, &data)) {
            if (errno != EAGAIN)
                return s_fail(self, "zmq_msg_init_data: %s",
                              zmq_strerror(errno));
            int rc = s_ring_wait(self);
            if (rc)
                return rc > 0 ? 0 : -1;
            continue;
        }
        if (!zerocopy && zmq_msg_init_size(&msg, size))
            return s_fail(self, "zmq_msg_init_size: %s", zmq_strerror(errno));
        if (stamp && !zerocopy)
            data = zmq_msg_data(&msg);
        if (topics)
            topics_write(&self->topics, data);
        if (stamp)
            memcpy(data + (topics ? at : 0), &seq, sizeof seq);
        if (zmq_msg_send(&msg, sock, 0) < 0) {
            int err = errno;
            zmq_msg_close(&msg);
            if (err == EINTR)
                continue;
            return err == ETERM
                       ? 0
                       : s_fail(self, "zmq_msg_send: %s", zmq_strerror(err));
        }
        seq++;
    }
}

RAW_LOOP s_send_bare(stage_t *self)
{
    return s_send(self, false, false, false);
}

RAW_LOOP s_send_sequence(stage_t *self)
{
    return s_send(self, false, true, false);
}

RAW_LOOP s_send_topics(stage_t *self)
{
    return s_send(self, false, true, true);
}

RAW_LOOP s_send_zerocopy_bare(stage_t *self)
{
    return s_send(self, true, false, false);
}

RAW_LOOP s_send_zerocopy(stage_t *self)
{
    return s_send(self, true, true, false);
}

RAW_LOOP s_send_zerocopy_topics(stage_t *self)
{
    return s_send(self, true, true, true);
}

//  [zerocopy][bare, sequence, topics]
static int (*const s_senders[2][3])(stage_t *) = {
    {s_send_bare, s_send_sequence, s_send_topics},
    {s_send_zerocopy_bare, s_send_zerocopy, s_send_zerocopy_topics}};

static int s_receiver_setup(stage_t *self)
{
    bool pull = self->opt->kase == CASE_PUSHPULL;
    int timeout = self->opt->rcvtimeo;
    self->sock_in = s_socket(self, pull ? ZMQ_PULL : ZMQ_SUB, self->opt->hwm);
    if (!self->sock_in)
        return -1;
    if ((!pull && zmq_setsockopt(self->sock_in, ZMQ_SUBSCRIBE, "", 0)) ||
        zmq_setsockopt(self->sock_in, ZMQ_RCVTIMEO, &timeout, sizeof timeout))
        return s_fail(self, "zmq_setsockopt: %s", zmq_strerror(errno));
    return s_attach(self, self->sock_in, self->in, false);
}

//  The receiver's loop, made once with the sequence check and once
//  without (check is a constant at each call below): the sequence at
//  offset at, against the next expected; a message too short for one is
//  out of sequence too
static inline __attribute__((always_inline)) int s_receive(stage_t *self,
                                                           bool check)
{
    void *sock = self->sock_in;
    const size_t at = self->opt->topics ? self->opt->topic_size : 0;
    uint64_t n = 0, next = 0, jumps = 0;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (true) {
        int size = zmq_msg_recv(&msg, sock, 0);
        if (size < 0) {
            if (errno == EINTR || errno == EAGAIN) //  EAGAIN: --rcvtimeo
                continue;
            break;
        }
        if (check) {
            uint64_t seq = ~next;
            if ((size_t)size >= at + sizeof seq)
                memcpy(&seq, (const char *)zmq_msg_data(&msg) + at, sizeof seq);
            jumps += seq != next;
            next = seq + 1;
        }
        atomic_store_explicit(&self->received, ++n, memory_order_relaxed);
    }
    int err = errno;
    zmq_msg_close(&msg);
    self->jumps = jumps;
    return err == ETERM ? 0
                        : s_fail(self, "zmq_msg_recv: %s", zmq_strerror(err));
}

RAW_LOOP s_receive_bare(stage_t *self)
{
    return s_receive(self, false);
}

RAW_LOOP s_receive_sequence(stage_t *self)
{
    return s_receive(self, true);
}

static int s_proxy_setup(stage_t *self)
{
    char control[64];
    snprintf(control, sizeof control, "inproc://raw-control-%d", (int)getpid());
    self->sock_in = s_socket(self, ZMQ_XSUB, self->opt->hwm);
    self->sock_out =
        self->sock_in ? s_socket(self, ZMQ_XPUB, self->opt->hwm) : NULL;
    self->control = self->sock_out ? s_socket(self, ZMQ_PAIR, 0) : NULL;
    if (!self->control)
        return -1;
    if (zmq_bind(self->control, control))
        return s_fail(self, "bind %s: %s", control, zmq_strerror(errno));
    if (s_attach(self, self->sock_in, self->in, false) ||
        s_attach(self, self->sock_out, self->out, true))
        return -1;
    return 0;
}

RAW_LOOP s_proxy_run(stage_t *self)
{
    zmq_proxy_steerable(self->sock_in, self->sock_out, NULL, self->control);
    return errno == ETERM
               ? 0
               : s_fail(self, "zmq_proxy_steerable: %s", zmq_strerror(errno));
}

static int s_setup(stage_t *self)
{
    switch (self->role) {
    case ROLE_SENDER:
        return s_sender_setup(self);
    case ROLE_PROXY:
        return s_proxy_setup(self);
    default:
        return s_receiver_setup(self);
    }
}

//  What the sender writes: 0 nothing, 1 the sequence, 2 topic and sequence
static int s_work(const options_t *opt)
{
    return !opt->sequence ? 0 : opt->topics ? 2 : 1;
}

static int s_run(stage_t *self)
{
    const options_t *opt = self->opt;
    switch (self->role) {
    case ROLE_SENDER:
        if (s_sender_wait_subscription(self))
            return -1;
        return s_senders[opt->zerocopy][s_work(opt)](self);
    case ROLE_PROXY:
        return s_proxy_run(self);
    default:
        return opt->sequence ? s_receive_sequence(self) : s_receive_bare(self);
    }
}

static void s_close(void **sock)
{
    if (*sock)
        zmq_close(*sock);
    *sock = NULL;
}

static void *s_stage_thread(void *args)
{
    stage_t *self = args;
    if (s_setup(self) == 0) {
        atomic_store(&self->state, STATE_READY);
        s_run(self);
    }
    s_close(&self->sock_in);
    s_close(&self->sock_out);
    s_close(&self->control);
    return NULL;
}

//  ------------------------------------------------------------------------
//  The controller

//  The pipeline of a case: stages, hops, who binds, contexts, endpoints
static int s_plan(raw_t *self)
{
    const options_t *opt = &self->opt;
    bool proxy = opt->kase == CASE_PROXY;
    self->nstages = proxy ? 3 : 2;
    self->nhops = self->nstages - 1;
    const char *names[] = {"publisher", "proxy", "subscriber"};
    const char *pp[] = {"pusher", "puller"};
    for (int i = 0; i < self->nstages; i++) {
        stage_t *st = &self->stage[i];
        st->opt = opt;
        st->role = i == 0
                       ? ROLE_SENDER
                       : (i == self->nstages - 1 ? ROLE_RECEIVER : ROLE_PROXY);
        st->name =
            opt->kase == CASE_PUSHPULL ? pp[i] : names[proxy ? i : 2 * i];
        st->in = i > 0 ? &self->hop[i - 1] : NULL;
        st->out = i < self->nhops ? &self->hop[i] : NULL;
    }
    if (strcmp(opt->transport, "ipc") == 0) {
        snprintf(self->ipc_dir, sizeof self->ipc_dir, "/tmp/raw-XXXXXX");
        if (!mkdtemp(self->ipc_dir)) {
            fprintf(stderr, "raw: mkdtemp %s: %s\n", self->ipc_dir,
                    strerror(errno));
            self->ipc_dir[0] = 0;
            return -1;
        }
    }
    for (int h = 0; h < self->nhops; h++) {
        hop_t *hop = &self->hop[h];
        hop->upstream_binds = !proxy || h > 0; //  the proxy binds both
        if (strcmp(opt->transport, "tcp") == 0)
            snprintf(hop->bind_to, sizeof hop->bind_to, "tcp://127.0.0.1:*");
        else if (strcmp(opt->transport, "ipc") == 0)
            snprintf(hop->bind_to, sizeof hop->bind_to, "ipc://%s/hop%d",
                     self->ipc_dir, h + 1);
        else
            snprintf(hop->bind_to, sizeof hop->bind_to, "inproc://raw-hop%d",
                     h + 1);
        //  inproc connects by name; the others learn the bound endpoint
        snprintf(hop->endpoint, sizeof hop->endpoint, "%s", hop->bind_to);
    }
    return 0;
}

static int s_make_contexts(raw_t *self)
{
    bool shared = strcmp(self->opt.transport, "inproc") == 0;
    self->nctx = shared ? 1 : self->nstages;
    for (int c = 0; c < self->nctx; c++)
        if (!(self->ctx[c] = zmq_ctx_new())) {
            fprintf(stderr, "raw: zmq_ctx_new: %s\n", zmq_strerror(errno));
            return -1;
        }
    for (int i = 0; i < self->nstages; i++)
        self->stage[i].ctx = self->ctx[shared ? 0 : i];
    return 0;
}

//  Wait until the stage is ready (or has failed), for up to timeout
static int s_wait_ready(raw_t *self, stage_t *st)
{
    double deadline = s_now() + self->opt.timeout;
    while (atomic_load(&st->state) == STATE_STARTING && s_now() < deadline)
        s_sleep(RAW_POLL_MS / 1000.0);
    int state = atomic_load(&st->state);
    if (state == STATE_READY)
        return 0;
    if (state == STATE_STARTING)
        fprintf(stderr, "raw: %s: not set up within %g s\n", st->name,
                self->opt.timeout);
    return -1;
}

static bool s_binds(const stage_t *st)
{
    return (st->in && !st->in->upstream_binds) ||
           (st->out && st->out->upstream_binds);
}

//  Binding stages first (their endpoints are known when they are ready),
//  then those that connect
static int s_start(raw_t *self)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = self->nstages - 1; i >= 0; i--) {
            stage_t *st = &self->stage[i];
            if (s_binds(st) != (pass == 0))
                continue;
            if (pthread_create(&st->thread, NULL, s_stage_thread, st)) {
                fprintf(stderr, "raw: %s: pthread_create failed\n", st->name);
                return -1;
            }
            st->started = true;
            if (s_wait_ready(self, st))
                return -1;
        }
    return 0;
}

static int s_check_stages(raw_t *self)
{
    for (int i = 0; i < self->nstages; i++)
        if (atomic_load(&self->stage[i].state) == STATE_FAILED)
            return -1;
    return 0;
}

//  CPU time of a stage's thread, to price its loop apart from the rate
static double s_thread_cpu(const stage_t *st)
{
    clockid_t clock;
    struct timespec ts;
    if (pthread_getcpuclockid(st->thread, &clock) || clock_gettime(clock, &ts))
        return 0;
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

//  The receiver's and the sender's
static void s_cpu(raw_t *self, double cpu[2])
{
    cpu[0] = s_thread_cpu(&self->stage[self->nstages - 1]);
    cpu[1] = s_thread_cpu(&self->stage[0]);
}

static uint64_t s_received(raw_t *self)
{
    stage_t *receiver = &self->stage[self->nstages - 1];
    return atomic_load_explicit(&receiver->received, memory_order_relaxed);
}

//  Until the first message reached the receiver, then warm-up and window;
//  cpu: the receiver's and the sender's CPU time in it
static int s_measure(raw_t *self, uint64_t *count, double *seconds,
                     double cpu[2])
{
    double deadline = s_now() + self->opt.timeout;
    while (s_received(self) == 0) {
        if (s_check_stages(self))
            return -1;
        if (s_now() > deadline) {
            fprintf(stderr, "raw: nothing reached the %s within %g s\n",
                    self->stage[self->nstages - 1].name, self->opt.timeout);
            return -1;
        }
        s_sleep(RAW_POLL_MS / 1000.0);
    }
    s_sleep(self->opt.warmup);
    uint64_t c0 = s_received(self);
    double t0 = s_now(), cpu0[2], cpu1[2];
    s_cpu(self, cpu0);
    s_sleep(self->opt.duration);
    uint64_t c1 = s_received(self);
    double t1 = s_now();
    s_cpu(self, cpu1);
    *count = c1 - c0;
    *seconds = t1 - t0;
    cpu[0] = cpu1[0] - cpu0[0];
    cpu[1] = cpu1[1] - cpu0[1];
    if (s_check_stages(self))
        return -1;
    return 0;
}

//  Shut the contexts down (blocking calls return ETERM), join every
//  thread within the timeout, then terminate the contexts.  A thread that
//  does not end leaves its context alone: terminating it would hang.
static int s_stop(raw_t *self)
{
    int rc = 0;
    for (int c = 0; c < self->nctx; c++)
        if (self->ctx[c])
            zmq_ctx_shutdown(self->ctx[c]);
    for (int i = 0; i < self->nstages; i++) {
        stage_t *st = &self->stage[i];
        if (!st->started)
            continue;
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += (time_t)self->opt.timeout + 1;
        if (pthread_timedjoin_np(st->thread, NULL, &deadline)) {
            fprintf(stderr, "raw: %s: did not end within %g s\n", st->name,
                    self->opt.timeout + 1);
            return -1;
        }
        st->started = false;
    }
    for (int c = 0; c < self->nctx; c++)
        if (self->ctx[c] && zmq_ctx_term(self->ctx[c]))
            rc = -1;
    return rc;
}

static void s_report_failures(raw_t *self)
{
    for (int i = 0; i < self->nstages; i++)
        if (atomic_load(&self->stage[i].state) == STATE_FAILED)
            fprintf(stderr, "raw: %s\n", self->stage[i].error);
}

static void s_remove_ipc_dir(raw_t *self)
{
    if (!self->ipc_dir[0])
        return;
    char path[RAW_ENDPOINT];
    for (int h = 0; h < self->nhops; h++) {
        snprintf(path, sizeof path, "%s/hop%d", self->ipc_dir, h + 1);
        unlink(path);
    }
    rmdir(self->ipc_dir);
}

//  ------------------------------------------------------------------------
//  Command line

static void s_usage(FILE *out)
{
    fprintf(out,
            "usage: raw [options]\n"
            "  --case direct|proxy|pushpull   pipeline (default direct)\n"
            "  --transport inproc|ipc|tcp     (default tcp)\n"
            "  --size BYTES                   message size (default 1024)\n"
            "  --duration SECONDS             window (default 1)\n"
            "  --warmup SECONDS               before the window (default 0.2)\n"
            "  --timeout SECONDS              any wait (default 10)\n"
            "  --pub xpub|pub                 publisher socket (default xpub)\n"
            "  --hwm N                        both ends (default 1000)\n"
            "  --rcvtimeo MS                  receiver's ZMQ_RCVTIMEO (default "
            "-1)\n"
            "  --zerocopy                     zmq_msg_init_data over a ring of "
            "buffers\n"
            "  --nodrop                       ZMQ_XPUB_NODROP: back-pressure\n"
            "  --topics N                     each message starts with a topic "
            "(of N)\n"
            "  --topic-size BYTES             a topic's bytes (default 8)\n"
            "  --no-sequence                  no 8-byte sequence written and "
            "checked\n");
}

static int s_lookup(const char *value, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return -1;
}

static int s_number(const char *opt, const char *value, double min, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(value, &end);
    if (errno || end == value || *end || *out < min) {
        fprintf(stderr, "raw: --%s: '%s' is not a number >= %g\n", opt, value,
                min);
        return -1;
    }
    return 0;
}

static int s_most(const char *opt, double v, double max)
{
    if (v <= max)
        return 0;
    fprintf(stderr, "raw: --%s: %g is more than %g\n", opt, v, max);
    return -1;
}

static int s_option(options_t *opt, const char *name, const char *value)
{
    static const char *const transports[] = {"inproc", "ipc", "tcp"};
    static const char *const pubs[] = {"xpub", "pub"};
    double v;
    int i;
    if (strcmp(name, "case") == 0) {
        if ((i = s_lookup(value, case_names, 3)) < 0)
            goto bad;
        opt->kase = (case_t)i;
    } else if (strcmp(name, "transport") == 0) {
        if ((i = s_lookup(value, transports, 3)) < 0)
            goto bad;
        opt->transport = transports[i];
    } else if (strcmp(name, "pub") == 0) {
        if ((i = s_lookup(value, pubs, 2)) < 0)
            goto bad;
        opt->pub_type = i == 0 ? ZMQ_XPUB : ZMQ_PUB;
    } else if (strcmp(name, "size") == 0) {
        if (s_number(name, value, 0, &v))
            return -1;
        opt->size = (size_t)v;
    } else if (strcmp(name, "duration") == 0)
        return s_number(name, value, 0.001, &opt->duration);
    else if (strcmp(name, "warmup") == 0)
        return s_number(name, value, 0, &opt->warmup);
    else if (strcmp(name, "timeout") == 0)
        return s_number(name, value, 0.1, &opt->timeout);
    else if (strcmp(name, "hwm") == 0) {
        if (s_number(name, value, 0, &v))
            return -1;
        opt->hwm = (int)v;
    } else if (strcmp(name, "rcvtimeo") == 0) {
        if (s_number(name, value, -1, &v))
            return -1;
        opt->rcvtimeo = (int)v;
    } else if (strcmp(name, "topics") == 0) {
        if (s_number(name, value, 1, &v) || s_most(name, v, 1e6))
            return -1;
        opt->topics = (int)v;
    } else if (strcmp(name, "topic-size") == 0) {
        if (s_number(name, value, 1, &v) || s_most(name, v, 20))
            return -1;
        opt->topic_size = (size_t)v;
    }
    return 0;
bad:
    fprintf(stderr, "raw: --%s: unknown value '%s'\n", name, value);
    return -1;
}

//  What each message must hold: its topic and its sequence
static int s_check(const options_t *opt)
{
    size_t need = opt->sequence ? (opt->topics ? opt->topic_size : 0) + 8 : 0;
    if (opt->topics && !opt->sequence) {
        fprintf(stderr, "raw: --topics needs the sequence after the topic: "
                        "not with --no-sequence\n");
        return -1;
    }
    if (opt->size < need) {
        fprintf(stderr,
                "raw: --size %zu cannot hold %sthe 8-byte sequence (%zu "
                "bytes)\n",
                opt->size, opt->topics ? "the topic and " : "", need);
        return -1;
    }
    return 0;
}

static int s_parse(options_t *opt, int argc, char **argv)
{
    static const struct option longs[] = {
        {"case", 1, 0, 'c'},       {"transport", 1, 0, 't'},
        {"size", 1, 0, 's'},       {"duration", 1, 0, 'd'},
        {"warmup", 1, 0, 'w'},     {"timeout", 1, 0, 'T'},
        {"pub", 1, 0, 'p'},        {"hwm", 1, 0, 'H'},
        {"rcvtimeo", 1, 0, 'r'},   {"zerocopy", 0, 0, 'z'},
        {"nodrop", 0, 0, 'n'},     {"topics", 1, 0, 'o'},
        {"topic-size", 1, 0, 'S'}, {"no-sequence", 0, 0, 'q'},
        {"help", 0, 0, 'h'},       {0, 0, 0, 0}};
    *opt = (options_t){.kase = CASE_DIRECT,
                       .transport = "tcp",
                       .size = 1024,
                       .duration = 1.0,
                       .warmup = 0.2,
                       .timeout = 10.0,
                       .pub_type = ZMQ_XPUB,
                       .hwm = 1000,
                       .rcvtimeo = -1,
                       .sequence = true,
                       .topic_size = 8};
    int c, index;
    while ((c = getopt_long(argc, argv, "", longs, &index)) != -1) {
        if (c == 'h') {
            s_usage(stdout);
            exit(0);
        }
        if (c == '?')
            return -1;
        if (c == 'z')
            opt->zerocopy = true;
        else if (c == 'n')
            opt->nodrop = true;
        else if (c == 'q')
            opt->sequence = false;
        else if (s_option(opt, longs[index].name, optarg))
            return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "raw: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    return s_check(opt);
}

//  ------------------------------------------------------------------------

static void s_print(const raw_t *self, uint64_t count, double seconds,
                    const double cpu[2])
{
    const options_t *opt = &self->opt;
    const char *sender = opt->kase == CASE_PUSHPULL  ? "push"
                         : opt->pub_type == ZMQ_XPUB ? "xpub"
                                                     : "pub";
    printf("case=%s transport=%s size=%zu pub=%s msgs_per_sec=%.1f "
           "received=%llu seconds=%.6f receiver_cpu_ns_per_msg=%.1f "
           "sender_cpu_ns_per_msg=%.1f out_of_sequence=%llu\n",
           case_names[opt->kase], opt->transport, opt->size, sender,
           seconds > 0 ? (double)count / seconds : 0.0,
           (unsigned long long)count, seconds,
           count ? cpu[0] * 1e9 / (double)count : 0.0,
           count ? cpu[1] * 1e9 / (double)count : 0.0,
           (unsigned long long)self->stage[self->nstages - 1].jumps);
}

int main(int argc, char **argv)
{
    //  aligned: each stage's counter has a cache line of its own
    raw_t *self = aligned_alloc(_Alignof(raw_t), sizeof(raw_t));
    if (!self) {
        fprintf(stderr, "raw: out of memory\n");
        return 1;
    }
    memset(self, 0, sizeof *self);
    if (s_parse(&self->opt, argc, argv)) {
        s_usage(stderr);
        free(self);
        return 2;
    }
    uint64_t count = 0;
    double seconds = 0, cpu[2] = {0, 0};
    int rc = s_plan(self) || s_make_contexts(self) || s_start(self) ||
             s_measure(self, &count, &seconds, cpu);
    int stopped = s_stop(self);
    s_report_failures(self);
    if (stopped)
        return 1; //  a stage still runs: free nothing it may use
    s_remove_ipc_dir(self);
    if (rc == 0 && s_check_stages(self) == 0)
        s_print(self, count, seconds, cpu);
    else
        rc = 1;
    ring_free(&self->stage[0].ring);
    topics_free(&self->stage[0].topics);
    free(self);
    return rc ? 1 : 0;
}
