/*  stage: one running stage instance (a thread with its sockets), and the
    counters it shares with the controller.

    The controller drives each stage through its czmq actor pipe, one
    command at a time, every answer awaited with a timeout:

        SETUP      make (first time) or join the context, open sockets,
                   bind and connect                     -> OK | ERR why
        HANDSHAKE  publishers: wait until every subscriber's subscription
                   has arrived (the slow-joiner guard)  -> OK | ERR why
        RUN        answer OK, run the hot loop; when it ends, send
                   DONE | ERR why
        TEARDOWN   close sockets                        -> OK

    The thread pins itself when it starts, before it allocates anything,
    and lives for every trial of the run (crew.h); its context ends with
    it ($TERM, from stage_destroy).

    During RUN the pipe is not read: the controller stops a stage through
    the atomics below (publishers: target; receivers: stop, noticed within
    a receive timeout) or, for zmq_proxy_steerable, its control socket.
    The hot loops touch only raw libzmq and these relaxed atomics: no
    allocation, logging or locks of hopbench's own.
*/
#ifndef HOPBENCH_STAGE_H
#define HOPBENCH_STAGE_H

#include <czmq.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/errbuf.h"
#include "base/histogram.h"
#include "pipeline/pipeline.h"

#define STAGE_MAX_ORIGINS LIMIT_ORIGINS //  publishers a receiver tells apart
#define STAGE_IDLE_MS     100 //  receive/send timeout between stop checks
#define STAGE_SEQ_BITS    48  //  header: origin << 48 | sequence
#define STAGE_SEQ_MASK    ((1ULL << STAGE_SEQ_BITS) - 1)

//  What a receiver knows of one origin (one publisher instance)
typedef struct {
    _Atomic uint64_t received; //  read by the controller at any time
    uint64_t next;             //  next expected sequence (stage only)
    uint64_t gaps;             //  sequences skipped (stage only)
} origin_t;

typedef struct stage_s stage_t;

//  What a role does at each step (handshake may be NULL: nothing to wait
//  for); run returns 0 when stopped cleanly
typedef struct {
    int (*setup)(stage_t *self, errbuf_t *err);
    int (*handshake)(stage_t *self, errbuf_t *err);
    int (*run)(stage_t *self, errbuf_t *err);
    //  Close what setup opened; -1 when something could not be ended
    //  (a thread of the role's own): the stage is then left behind
    int (*teardown)(stage_t *self, errbuf_t *err);
    //  Optional: free what must outlive every context (stage_destroy)
    void (*release)(stage_t *self);
} stage_ops_t;

//  What the controller and a stage share: plain data, no pointers, so it
//  can sit in memory shared with a stage's own process (remote.h)
typedef struct {
    uint32_t size;       //  message size of this trial
    pid_t tid;           //  the stage thread
    uint64_t misordered; //  receivers: sequences that went backwards
    int mem_node;        //  node of a page the stage allocated, -1
    errbuf_t pin_error;  //  pinning at birth failed: SETUP says so
    //  Latency (rate mode, requesters): samples while recording is set
    histogram_t latency;
    uint64_t window_start_ns, window_end_ns; //  requesters time themselves

    //  Written by the stage, read by the controller (own cache lines)
    _Alignas(64) _Atomic uint64_t sent;
    _Atomic uint64_t received;
    //  Written by the controller, read by the stage
    _Alignas(64) _Atomic uint64_t target; //  publishers send while below
    _Atomic int stop;                     //  receivers stop when idle
    _Atomic int recording;                //  latency samples count now
    _Alignas(64) origin_t origins[STAGE_MAX_ORIGINS];
} stage_shared_t;

struct stage_s {
    const pipeline_t *pl;
    const instance_t *inst;
    stage_shared_t *shared;
    bool owns_shared;
    void *ctx; //  its context (made by the owner at the first SETUP)
    const stage_ops_t *ops;
    void *in, *out, *control;
    void *engine;    //  a role's own state (zcpool, czmq's zproxy)
    zsock_t *actor;  //  the controller's end of its thread's pipe (actor.h)
    unsigned setups; //  SETUPs so far: makes per-trial inproc names unique
    //  ipc socket files this stage bound, removed when it closes them
    struct {
        char path[PIPELINE_ENDPOINT_MAX];
        dev_t dev;
        ino_t ino;
    } bound[2];
    int nbound;
    //  A stage in its own process: this side is the controller's relay
    bool remote;
    void *remote_state;
};

extern const stage_ops_t sender_ops, receiver_ops, requester_ops, replier_ops,
    proxy_ops, proxy_forwarder_ops, proxy_zproxy_ops, connector_ops;

//  Start the stage's thread; NULL if it could not start (err says why).
//  shared: where its counters live (memory shared with the controller),
//  NULL: its own
stage_t *stage_new(const pipeline_t *pl, int id, stage_shared_t *shared,
                   errbuf_t *err);
//  Before each trial, while the thread waits for a command: counters,
//  targets and flags back to their start, and the message size
void stage_reset(stage_t *self, uint32_t size);
//  End the thread and free the stage; -1 (and nothing freed) if the
//  thread does not answer within timeout_ms
int stage_destroy(stage_t **self_p, int timeout_ms);
//  Send a command and wait up to timeout_ms for the first answer line:
//  0 for OK/DONE, -1 with err "stage NAME: ..." otherwise
int stage_command(stage_t *self, const char *command, int timeout_ms,
                  errbuf_t *err);
//  Wait for the message that follows RUN (DONE or ERR)
int stage_wait(stage_t *self, int timeout_ms, errbuf_t *err);
//  Has the stage sent something unasked (it ended early)?  Non-blocking
bool stage_ended(stage_t *self);

//  Helpers for role code
//  The libzmq socket type a role uses in this pipeline's pattern; for a
//  proxy, front (its upstream side) or back
int stage_socket_type(const stage_t *self, bool back);
int stage_socket(stage_t *self, int type, int hwm, void **sock, errbuf_t *err);
//  Messages the stage has taken in (the sum of its origins' counts where
//  it reads headers)
uint64_t stage_received(const stage_t *self);
//  Bind or connect sock to hop h, as the pipeline says for this instance
int stage_attach(stage_t *self, void *sock, int h, errbuf_t *err);
void stage_close(void **sock);
//  After a bind to endpoint: if it made an ipc socket file, note it, so
//  that teardown removes it (libzmq 4.3.4 leaves it behind)
void stage_note_bind(stage_t *self, const char *endpoint);

#endif
