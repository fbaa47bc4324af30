/*  stage: one stage instance as its role sees it, on its own thread: its
    place in the pipeline, its context and sockets, and the counters it
    shares with the controller.

    The thread runs stage_actor, which answers the controller's commands
    one at a time, each with one string:

        SETUP      make (first time) or join the context, open sockets,
                   bind and connect                     -> OK | ERR why
        HANDSHAKE  publishers: wait until every subscriber's subscription
                   has arrived (the slow-joiner guard)  -> OK | ERR why
        RUN        answer OK, run the hot loop; when it ends, send
                   DONE | ERR why
        TEARDOWN   close sockets                        -> OK | ERR why

    The thread pins itself when it starts, before it allocates anything,
    moves its stack to its node, and then makes (or, in a process of its
    own, first touches) the counters it shares, so that what it writes on
    every message is on its node; it lives for every trial of a
    combination (crew.h); its context ends with it ($TERM).  At each
    SETUP it counts the pages of its counters, of a message buffer as it
    allocates them, of its stack and of a zerocopy pool by node
    (stage_shared_t.memory: memory.csv).

    During RUN the pipe is not read: the controller stops a stage through
    the atomics below (publishers: target; receivers: stop, noticed within
    a receive timeout) or through its role's own stop (zmq_proxy_steerable's
    control socket).  The hot loops touch only raw libzmq and these relaxed
    atomics: no allocation, logging or locks of hopbench's own.

    Where the thread lives (this process, a process of its own, another
    host) is the business of crew/stage_handle.h; nothing here knows.
*/
#ifndef HOPBENCH_STAGE_H
#define HOPBENCH_STAGE_H

#include <czmq.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/errbuf.h"
#include "base/histogram.h"
#include "machine/pin.h"
#include "pipeline/pipeline.h"

#define STAGE_MAX_ORIGINS LIMIT_ORIGINS //  publishers a receiver tells apart
#define STAGE_IDLE_MS     20 //  receive/send timeout between stop checks
#define STAGE_SEQ_BITS    48  //  header: origin << 48 | epoch << 40 | seq
#define STAGE_SEQ_MASK    ((1ULL << STAGE_SEQ_BITS) - 1) //  epoch and seq
#define STAGE_EPOCH_SHIFT 40 //  a trial's epoch above its sequence
#define STAGE_EPOCHS      256
#define STAGE_COUNT_MASK  ((1ULL << STAGE_EPOCH_SHIFT) - 1)
#define STAGE_CTX_SOCKETS 1023 //  libzmq's ZMQ_MAX_SOCKETS default

//  What a receiver knows of one origin (one publisher instance)
//  Where a trial is, as the controller tells its stages (recording):
//  latency samples count in STAGE_WINDOW only; in STAGE_DRAINING the
//  window is over, and a slow subscriber (consume_ns) takes what is left
//  in its queues without its spin, so that they empty fast
typedef enum {
    STAGE_BEFORE = 0,
    STAGE_WINDOW = 1,
    STAGE_DRAINING = 2
} stage_phase_t;

typedef struct {
    _Atomic uint64_t received; //  read by the controller at any time
    uint64_t next; //  next expected epoch << 40 | sequence (stage only)
    uint64_t gaps;             //  sequences skipped (stage only)
} origin_t;

//  What a receiver of several SUB sockets (sockets = N) knows of one
typedef struct {
    _Atomic uint64_t received; //  read by the controller at any time
    //  Written when the loop ends: the messages of its origins this
    //  socket is proven to have missed up to the furthest socket's last
    //  sequence (gaps, and how far it is behind): the rest of its loss,
    //  what nobody took after that, is every socket's alike
    uint64_t behind;
} socket_count_t;

//  What a trial asks of every stage, before its SETUP
typedef struct {
    uint32_t size; //  message size
    double rate;   //  publishers: messages per second each, 0: flat out
    bool timed;    //  messages carry their intended send time (bytes
                   //  8..15) and receivers record latency in the window
    uint32_t epoch; //  the trial's number on a pipeline that stays up
                    //  (mod STAGE_EPOCHS): in every header (sequence.h)
} stage_trial_t;

//  The memory a stage writes, each counted at SETUP (memory.csv)
typedef enum {
    STAGE_MEMORY_COUNTERS, //  this shared block
    STAGE_MEMORY_MESSAGES, //  a message buffer of the trial's size
    STAGE_MEMORY_STACK,    //  the stage thread's stack
    STAGE_MEMORY_ZEROCOPY, //  a publisher's zerocopy pool (zerocopy)
    STAGE_MEMORY_REGIONS
} stage_memory_t;

extern const char *const stage_memory_names[STAGE_MEMORY_REGIONS];

//  What the controller and a stage share: plain data, no pointers, so it
//  can sit in memory shared with a stage's own process
typedef struct {
    uint32_t size;       //  message size of this trial
    double rate;         //  publishers: the trial's pace, 0: flat out
    int timed;           //  the trial's messages carry send times
    pid_t tid;           //  the stage thread
    uint64_t misordered; //  receivers: sequences that went backwards
    uint64_t late;       //  receivers: messages of another trial's epoch
                         //  (sequence.h), neither received nor lost
    uint32_t epoch;      //  the trial's epoch
    int mem_node;        //  node of a page the stage allocated, -1
    pin_pages_t memory[STAGE_MEMORY_REGIONS]; //  counted at SETUP
    errbuf_t pin_error;  //  pinning at birth failed: SETUP says so
    //  Latency (rate mode, requesters): samples while recording is set
    histogram_t latency;
    //  Added to the send time a message carries, to read it on this
    //  stage's clock: this host's clock minus the publishers' host's, as
    //  the controller estimated it (0 on one host; crew/stage_handle.h)
    int64_t clock_ns;
    uint64_t window_start_ns, window_end_ns; //  requesters time themselves

    //  Written by the stage, read by the controller (own cache lines)
    _Alignas(64) _Atomic uint64_t sent;
    _Atomic uint64_t received;
    //  Written by the controller, read by the stage
    _Alignas(64) _Atomic uint64_t target; //  publishers send while below
    _Atomic int stop;                     //  receivers stop when idle
    _Atomic int recording;                //  a stage_phase_t: the trial's
    _Alignas(64) origin_t origins[STAGE_MAX_ORIGINS];
    //  A receiver of several SUB sockets: its origins sum its sockets'
    //  (origins[o].next is the furthest socket's, gaps every socket's
    //  behind, once its loop has ended), and each socket's count follows
    //  (nsockets of them: stage_shared_bytes); 0 for every other stage
    int nsockets;
    _Alignas(64) socket_count_t sockets[];
} stage_shared_t;

//  The trial's phase, as the stage reads it (relaxed: a flag, not a fence)
static inline stage_phase_t stage_phase(stage_shared_t *shared)
{
    return (stage_phase_t)atomic_load_explicit(&shared->recording,
                                               memory_order_relaxed);
}

//  The sockets a context of pl opens at most (ZMQ_MAX_SOCKETS is set to
//  it when libzmq's default is too few)
long stage_context_sockets(const pipeline_t *pl, int ctx);

//  The size of a shared block with room for n sockets' counts (n > 1)
static inline size_t stage_shared_bytes(int n)
{
    return sizeof(stage_shared_t) +
           (n > 1 ? (size_t)n * sizeof(socket_count_t) : 0);
}

typedef struct stage_s stage_t;

//  What a role does at each step.  handshake NULL: nothing to wait for;
//  teardown NULL: close in, out and control.  run returns 0 when stopped
//  cleanly.  The last three run on the controller's side of the stage
//  (its thread, or the host of its process), for roles whose counters or
//  stop are not the shared atomics: NULL means the atomics say it all
typedef struct {
    int (*setup)(stage_t *self, errbuf_t *err);
    int (*handshake)(stage_t *self, errbuf_t *err);
    int (*run)(stage_t *self, errbuf_t *err);
    //  -1 when something could not be ended (a thread of the role's own):
    //  the stage is then left behind
    int (*teardown)(stage_t *self, errbuf_t *err);
    //  free what must outlive every context (after $TERM)
    void (*release)(stage_t *self);
    void *(*control_open)(stage_t *self, int timeout_ms, errbuf_t *err);
    int (*counts)(stage_t *self, void *control, uint64_t *received,
                  uint64_t *sent, errbuf_t *err);
    int (*stop)(stage_t *self, void *control, errbuf_t *err);
} stage_ops_t;

struct stage_s {
    const pipeline_t *pl;
    const instance_t *inst;
    const stage_ops_t *ops;
    stage_shared_t *shared;
    void *ctx;                //  made by the owner at its first SETUP
    const stage_t *ctx_owner; //  or joined from the owner's (inproc)
    void *in, *out, *control; //  the trial's sockets
    void *engine;             //  a role's own state (zcpool, zproxy)
    const void *pool;         //  memory the role writes per message (a
    size_t pool_len;          //  zerocopy pool), counted at SETUP
    unsigned setups;          //  makes per-trial inproc names unique
    //  ipc socket files this stage bound, removed when it closes them: at
    //  most one per hop (a tree's proxy binds every hop out)
    struct {
        char path[PIPELINE_ENDPOINT_MAX];
        dev_t dev;
        ino_t ino;
    } bound[LIMIT_STAGES];
    int nbound;
    void *topics; //  topic state (stages/topic.h), NULL: none
};

//  The thread's body (a zactor_fn; args: the stage_t, whose pl, inst,
//  ops and ctx_owner are filled in, and shared when it lives in memory
//  shared with the controller's process): pins itself, makes shared if
//  it is NULL (the thread's own, freed with stage_shared_free), zeroes
//  it, enters its zone, answers commands until $TERM, then ends its
//  context.  shared stays NULL when there was no memory for it
void stage_actor(zsock_t *pipe, void *args);
void stage_shared_free(stage_shared_t *shared);
//  The shared block's size for instance id of pl
size_t stage_shared_size(const pipeline_t *pl, int id);
//  Before each trial, while the thread waits for a command: counters,
//  targets and flags back to their start, and the message size
void stage_reset(stage_shared_t *shared, const stage_trial_t *trial);

//  For the controller's side (see stage_ops_t): messages in and out, and
//  stop; the shared atomics unless the role has its own
void *stage_control_open(stage_t *self, int timeout_ms, errbuf_t *err);
int stage_counts(stage_t *self, void *control, uint64_t *received,
                 uint64_t *sent, errbuf_t *err);
int stage_stop(stage_t *self, void *control, errbuf_t *err);
//  -1 with "no COUNTS within 5.0 s": a stage's counters did not come in
//  time.  One sentence wherever the wait ended (a proxy's engine that
//  did not answer, its process's relay, the controller's question to an
//  agent), so one fault reads the same whichever wait saw it first
int stage_no_counts(errbuf_t *err, int timeout_ms);

//  Helpers for role code
//  The libzmq socket type of this stage; for a proxy, back or front
int stage_socket_type(const stage_t *self, bool back);
int stage_socket(stage_t *self, int type, int hwm, void **sock, errbuf_t *err);
//  Messages the stage has taken in (the sum of its origins' counts where
//  it reads headers)
uint64_t stage_received(const stage_t *self);
//  The same from the shared counters alone, for the controller
uint64_t stage_shared_received(const stage_shared_t *shared, bool origins);
//  Bind or connect sock to hop h, as the pipeline says for this instance
int stage_attach(stage_t *self, void *sock, int h, errbuf_t *err);
//  The same for every hop into (in) or out of this instance: a tree's
//  proxy fans in and out on one socket each side
int stage_attach_side(stage_t *self, void *sock, bool in, errbuf_t *err);
void stage_close(void **sock);
//  After a bind to endpoint: if it made an ipc socket file, note it, so
//  that teardown removes it (libzmq 4.3.4 leaves it behind)
void stage_note_bind(stage_t *self, const char *endpoint);

#endif
