/*  sockets: a subscriber of several SUB sockets read by one thread.  See
    sockets.h for the loop; here also the per-socket sequence check and
    what the loop leaves in the shared block when it ends.

        slots   [socket 0: origin 0 .. origin O-1][socket 1: ...] ...
                each: next sequence, gaps, its topic track (filtered)

    At the end, per origin, the furthest socket's next sequence is the
    origin's next, and each socket's gaps plus how far it is behind that
    (in messages of its topics) is its 'behind': so the controller's
    N x (sent - next) + sum of behind is the sockets' loss, and each
    socket's is its behind plus the common rest (trial_counters.c).
*/
#include "stages/sockets.h"

#include "base/check.h"
#include "stages/sequence.h"
#include "stages/topic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <zmq.h>

#define SOCKETS_BURST 64 //  messages from one socket before the next

typedef struct {
    uint64_t next, gaps;
    topic_track_t track; //  a filtered subscription's place
} slot_t;

typedef struct {
    int n, norigins;
    void **socks;
    slot_t *slots; //  n x norigins
    int epfd;      //  the sockets' ZMQ_FDs, -1 when closed
    //  The sockets that may hold a message: those that gave one on their
    //  last visit, and those whose fd stirred since; a socket whose
    //  receive failed with EAGAIN leaves until its fd says otherwise
    int *active, nactive;
    bool *listed; //  per socket: in active
    struct epoll_event *events;
    int nevents;
} many_t;

//  ------------------------------------------------------------------------
//  SETUP and TEARDOWN

static void s_free_state(many_t *m)
{
    free(m->socks);
    free(m->slots);
    free(m->active);
    free(m->listed);
    free(m->events);
    free(m);
}

static many_t *s_state(stage_t *self, errbuf_t *err)
{
    if (self->engine)
        return self->engine;
    int n = pipeline_sockets(self->pl, self->inst->id);
    int norigins = self->pl->norigins > 0 ? self->pl->norigins : 1;
    many_t *m = calloc(1, sizeof *m);
    if (m) {
        int nevents = n < 1024 ? n : 1024;
        *m = (many_t){n,
                      norigins,
                      calloc((size_t)n, sizeof(void *)),
                      calloc((size_t)n * (size_t)norigins, sizeof(slot_t)),
                      -1,
                      calloc((size_t)n, sizeof(int)),
                      0,
                      calloc((size_t)n, sizeof(bool)),
                      calloc((size_t)nevents, sizeof(struct epoll_event)),
                      nevents};
        if (!m->socks || !m->slots || !m->active || !m->listed || !m->events) {
            s_free_state(m);
            m = NULL;
        }
    }
    if (!m)
        err_set(err, "no memory for the state of %d sockets", n);
    self->engine = m;
    return m;
}

//  One socket as receiver.c makes its one: hwm, SNDHWM 0 for its
//  subscriptions, its topics and own guard, connected
static int s_open(stage_t *self, many_t *m, int s, errbuf_t *err)
{
    int h = pipeline_hop_in(self->pl, self->inst->id);
    int unbounded = 0;
    //  The last trial's sockets hold their files and context slots until
    //  libzmq's reaper has ended them: a while for that, not forever
    int rc, tries = 0;
    while ((rc = stage_socket(self, ZMQ_SUB, self->pl->hops[h].params.hwm,
                              &m->socks[s], err)) &&
           !m->socks[s] && zmq_errno() == EMFILE && tries++ < 200)
        usleep(10000);
    if (rc)
        return err_set(err, "socket %d of %d: %s", s + 1, m->n, err->msg);
    if (zmq_setsockopt(m->socks[s], ZMQ_SNDHWM, &unbounded, sizeof unbounded))
        return err_set(err, "socket %d: ZMQ_SNDHWM: %s", s + 1,
                       zmq_strerror(errno));
    if (topic_subscribe(self, m->socks[s], s, err))
        return -1;
    int fd;
    size_t len = sizeof fd;
    if (zmq_getsockopt(m->socks[s], ZMQ_FD, &fd, &len))
        return err_set(err, "socket %d: ZMQ_FD: %s", s + 1,
                       zmq_strerror(errno));
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)s};
    if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, fd, &ev))
        return err_set(err, "socket %d: epoll_ctl: %s", s + 1, strerror(errno));
    return stage_attach_side(self, m->socks[s], true, err);
}

int sockets_setup(stage_t *self, errbuf_t *err)
{
    many_t *m = s_state(self, err);
    if (!m || topic_sink_new(self, err))
        return -1;
    m->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (m->epfd < 0)
        return err_set(err, "epoll_create1: %s", strerror(errno));
    for (int s = 0; s < m->n; s++)
        if (s_open(self, m, s, err))
            return -1;
    return 0;
}

void sockets_close(stage_t *self)
{
    many_t *m = self->engine;
    if (!m)
        return;
    for (int s = 0; s < m->n; s++)
        stage_close(&m->socks[s]);
    if (m->epfd >= 0)
        close(m->epfd);
    m->epfd = -1;
}

void sockets_free(stage_t *self)
{
    many_t *m = self->engine;
    if (!m)
        return;
    sockets_close(self);
    s_free_state(m);
    self->engine = NULL;
}

//  ------------------------------------------------------------------------
//  The loop

//  Every slot back to sequence 0, its track to its origin's start
static void s_rewind(stage_t *self, many_t *m)
{
    const topic_sink_t *sink = self->topics;
    for (int s = 0; s < m->n; s++)
        for (int o = 0; o < m->norigins; o++) {
            slot_t *slot = &m->slots[s * m->norigins + o];
            *slot = (slot_t){.next = self->shared->origins[o].next};
            if (sink && sink->filtered) {
                slot->track = sink->track[o];
                slot->track.pos = slot->track.phase;
            }
        }
}

//  A filtered subscription's check (topic_count's, on a socket's slot)
static inline void s_filtered(stage_t *self, slot_t *slot, uint64_t seq)
{
    if (!slot->track.prefix) {
        self->shared->misordered++;
        return;
    }
    self->shared->misordered +=
        topic_step(&slot->track, &slot->next, &slot->gaps, seq);
}

static inline void s_bump(_Atomic uint64_t *counter)
{
    uint64_t n = atomic_load_explicit(counter, memory_order_relaxed);
    atomic_store_explicit(counter, n + 1, memory_order_relaxed);
}

//  One message of socket s: its header (after a topic), checked and
//  counted on the socket's slot of its origin
static inline void s_count(stage_t *self, many_t *m, const topic_sink_t *sink,
                           int s, const char *data, size_t size)
{
    uint64_t header = 0;
    size_t skip = sink ? sink->header : 0;
    if (size >= skip + sizeof header)
        memcpy(&header, data + skip, sizeof header);
    uint64_t origin = header >> STAGE_SEQ_BITS, seq = header & STAGE_SEQ_MASK;
    if (size < skip + sizeof header || origin >= (uint64_t)m->norigins) {
        self->shared->misordered++; //  not a header hopbench wrote
        return;
    }
    slot_t *slot = &m->slots[s * m->norigins + (int)origin];
    if (__builtin_expect(seq == slot->next, 1) && !(sink && sink->filtered))
        slot->next = seq + 1;
    else if (sequence_other_trial(seq, slot->next)) {
        self->shared->late++; //  an earlier trial's (sequence.h)
        return;
    } else if (sink && sink->filtered)
        s_filtered(self, slot, seq);
    else if (seq > slot->next) {
        slot->gaps += seq - slot->next;
        slot->next = seq + 1;
    } else
        self->shared->misordered++;
    s_bump(&self->shared->origins[origin].received);
    s_bump(&self->shared->sockets[s].received);
}

//  A whole message from sock without blocking: its last frame's size, or
//  -1 (errno).  The parts of a message arrive together
static inline int s_recv(zmq_msg_t *msg, void *sock)
{
    int size = zmq_msg_recv(msg, sock, ZMQ_DONTWAIT);
    while (size >= 0 && zmq_msg_more(msg))
        size = zmq_msg_recv(msg, sock, ZMQ_DONTWAIT);
    return size;
}

//  Up to a burst from socket s: how many, or -1 (rc set) when the loop
//  must end
static int s_drain(stage_t *self, many_t *m, int s, zmq_msg_t *msg, int *rc,
                   errbuf_t *err)
{
    const topic_sink_t *sink = self->topics;
    const bool timed = self->shared->timed;
    int got = 0;
    while (got < SOCKETS_BURST) {
        int size = s_recv(msg, m->socks[s]);
        if (size < 0) {
            if (errno == EAGAIN)
                return got;
            if (errno == EINTR)
                continue;
            *rc = errno == ETERM ? 0
                                 : err_set(err, "socket %d: zmq_msg_recv: %s",
                                           s + 1, zmq_strerror(errno));
            return -1;
        }
        got++;
        const char *data = zmq_msg_data(msg);
        s_count(self, m, sink, s, data, (size_t)size);
        size_t skip = sink ? sink->header : 0;
        if (timed && (size_t)size > skip &&
            stage_phase(self->shared) == STAGE_WINDOW)
            sequence_latency(self, data + skip, (size_t)size - skip);
        if (sink && sink->consume_ns && topic_consuming(self))
            topic_consume(sink); //  what is left after the window: counted
    }
    return got;
}

//  Sockets whose fd stirred join the active ones; wait at most
//  timeout_ms for one.  0 when none did, -1 on an error
static int s_stirred(many_t *m, int timeout_ms, errbuf_t *err)
{
    int n = epoll_wait(m->epfd, m->events, m->nevents, timeout_ms);
    if (n < 0 && errno != EINTR)
        return err_set(err, "epoll_wait: %s", strerror(errno));
    for (int e = 0; e < n; e++) {
        int s = (int)m->events[e].data.u32;
        if (s < m->n && !m->listed[s]) {
            m->listed[s] = true;
            m->active[m->nactive++] = s;
        }
    }
    return n > 0 ? n : 0;
}

//  One pass over the active sockets, a burst from each; those that ran
//  dry leave.  Messages taken, or -1 (rc set) when the loop must end
static int s_pass(stage_t *self, many_t *m, zmq_msg_t *msg, int *rc,
                  errbuf_t *err)
{
    int kept = 0, got = 0;
    for (int a = 0; a < m->nactive; a++) {
        int s = m->active[a];
        int k = s_drain(self, m, s, msg, rc, err);
        if (k < 0)
            return -1;
        got += k;
        if (k == SOCKETS_BURST)
            m->active[kept++] = s; //  it may hold more
        else
            m->listed[s] = false; //  EAGAIN: its fd will tell
    }
    m->nactive = kept;
    return got;
}

//  The slots into the shared block: each origin's furthest next, each
//  socket's gaps and lag behind it (in messages of its topics)
static void s_fold(stage_t *self, many_t *m)
{
    stage_shared_t *shared = self->shared;
    for (int s = 0; s < m->n; s++)
        shared->sockets[s].behind = 0;
    for (int o = 0; o < m->norigins; o++) {
        uint64_t furthest = 0, gaps = 0;
        for (int s = 0; s < m->n; s++)
            if (m->slots[s * m->norigins + o].next > furthest)
                furthest = m->slots[s * m->norigins + o].next;
        for (int s = 0; s < m->n; s++) {
            slot_t *slot = &m->slots[s * m->norigins + o];
            uint64_t lag = furthest - slot->next;
            if (slot->track.prefix) {
                topic_track_t track = slot->track;
                lag = topic_skip(&track, lag);
            }
            shared->sockets[s].behind += slot->gaps + lag;
            gaps += slot->gaps + lag;
        }
        shared->origins[o].next = furthest;
        shared->origins[o].gaps = gaps;
    }
}

int sockets_run(stage_t *self, errbuf_t *err)
{
    many_t *m = self->engine;
    int rc = 1;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    s_rewind(self, m);
    m->nactive = m->n; //  each visited once, then as its fd says
    for (int s = 0; s < m->n; s++) {
        m->active[s] = s;
        m->listed[s] = true;
    }
    while (rc > 0) {
        if (s_pass(self, m, &msg, &rc, err) < 0)
            break;
        //  fds that stirred: without waiting while some are active
        int wait_ms = m->nactive ? 0 : STAGE_IDLE_MS;
        int woke = s_stirred(m, wait_ms, err);
        if (woke < 0)
            rc = -1;
        else if (woke == 0 && wait_ms > 0 &&
                 atomic_load_explicit(&self->shared->stop,
                                      memory_order_relaxed))
            rc = 0; //  stopped, and nothing for STAGE_IDLE_MS
    }
    zmq_msg_close(&msg);
    s_fold(self, m);
    return rc;
}

//  ------------------------------------------------------------------------
//  Selftest: the per-socket sequence check and what the loop's end folds
//  into the shared block, on three sockets and two origins, no zmq

//  One message of origin o, sequence seq, to socket s
static void s_test_message(stage_t *self, many_t *m, int s, uint64_t o,
                           uint64_t seq)
{
    char data[16] = {0};
    uint64_t header = o << STAGE_SEQ_BITS | seq;
    memcpy(data, &header, sizeof header);
    s_count(self, m, NULL, s, data, sizeof data);
}

static int s_test_fold(stage_t *self, many_t *m)
{
    stage_shared_t *shared = self->shared;
    //  origin 0: socket 0 takes 0 1 2, socket 1 0 2 (a gap), socket 2 0;
    //  origin 1: socket 0 takes 0
    for (uint64_t seq = 0; seq < 3; seq++)
        s_test_message(self, m, 0, 0, seq);
    s_test_message(self, m, 1, 0, 0);
    s_test_message(self, m, 1, 0, 2);
    s_test_message(self, m, 2, 0, 0);
    s_test_message(self, m, 0, 1, 0);
    CHECK(shared->misordered == 0);
    s_test_message(self, m, 0, 0, 1); //  backwards
    s_test_message(self, m, 1, 5, 0); //  an origin it does not hear
    s_count(self, m, NULL, 2, "short", 5);
    CHECK(shared->misordered == 3);
    CHECK(shared->sockets[0].received == 5 && shared->sockets[1].received == 2 &&
          shared->sockets[2].received == 1);
    CHECK(shared->origins[0].received == 7 && shared->origins[1].received == 1);
    s_fold(self, m);
    //  each origin's next is its furthest socket's; a socket's behind is
    //  its gaps and its lag behind that, over both origins
    CHECK(shared->origins[0].next == 3 && shared->origins[1].next == 1);
    CHECK(shared->sockets[0].behind == 0 && shared->sockets[1].behind == 2 &&
          shared->sockets[2].behind == 3);
    CHECK(shared->origins[0].gaps == 3 && shared->origins[1].gaps == 2);
    return 0;
}

//  The next trial, epoch 1: a message the last one (epoch 0) left in a
//  queue is late, neither received nor a step back; its own count anew
static int s_test_late(stage_t *self, many_t *m)
{
    stage_shared_t *shared = self->shared;
    stage_reset(shared, &(stage_trial_t){.size = 16, .epoch = 1});
    s_rewind(self, m);
    s_test_message(self, m, 0, 0, 3); //  epoch 0's, late
    uint64_t one = 1ULL << STAGE_EPOCH_SHIFT;
    s_test_message(self, m, 0, 0, one); //  epoch 1's first
    s_test_message(self, m, 1, 0, one);
    s_test_message(self, m, 1, 0, 4); //  late again, after this trial's
    CHECK(shared->late == 2 && shared->misordered == 0);
    CHECK(shared->origins[0].received == 2 && shared->sockets[1].received == 1);
    s_fold(self, m);
    CHECK(shared->origins[0].gaps == 1); //  socket 2 missed epoch 1's first
    CHECK((shared->origins[0].next & STAGE_COUNT_MASK) == 1);
    return 0;
}

int sockets_test(bool verbose)
{
    (void)verbose;
    enum { N = 3, ORIGINS = 2 };
    stage_shared_t *shared = calloc(1, stage_shared_bytes(N));
    many_t *m = calloc(1, sizeof *m);
    slot_t *slots = calloc(N * ORIGINS, sizeof *slots);
    int rc = -1;
    if (shared && m && slots) {
        shared->nsockets = N;
        *m = (many_t){.n = N, .norigins = ORIGINS, .slots = slots, .epfd = -1};
        stage_t self = {.shared = shared};
        rc = s_test_fold(&self, m) || s_test_late(&self, m) ? -1 : 0;
    }
    free(slots);
    free(m);
    free(shared);
    return rc;
}
