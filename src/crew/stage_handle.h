/*  stage_handle: the controller's hold on one stage instance, wherever it
    runs.

        trial ---stage_handle_*---> kind    where the stage's thread is
                                    thread  in this process (stage_thread.c)
                                    process a process of its own, this
                                            host (stage_process.c)
                                    remote  a process of its own on another
                                            host, through its agent
                                            (stage_remote.c)

    The trial drives every stage through these functions alone: commands
    and their answers (stage.h's protocol), counters with the time they
    were read, the flags it sets (stop, recording), the shared
    block it reads after a trial (sequence state, latency, read-back) and
    the stage's threads and their CPU time.  It never learns which kind it
    holds.  Each kind is one ops table; the kind is chosen once, in
    stage_handle_new.  A kind whose shared block is not this host's memory
    (remote) keeps a mirror: the flags go to the stage as messages, and
    stage_handle_sync fills the mirror.
*/
#ifndef HOPBENCH_STAGE_HANDLE_H
#define HOPBENCH_STAGE_HANDLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/errbuf.h"
#include "crew/agent_link.h"
#include "machine/syscalls.h"
#include "machine/threads.h"
#include "pipeline/pipeline.h"
#include "stages/stage.h"

typedef struct stage_handle_s stage_handle_t;

//  Counters as read at one moment
typedef struct {
    double t;     //  when they were read (mono_seconds)
    double asked; //  asked ahead (stage_handle_ask): when, else 0
    //  > 0: t is the reading's own instant on another host, its clock
    //  mapped to this one's within this many seconds; 0: t is here
    double stamp_error;
    uint64_t sent;     //  handed to the stage's downstream socket
    uint64_t received; //  taken from its upstream socket
} stage_counts_t;

//  The questions a stage on another host can be asked ahead
//  (stage_handle_ask), so that a crew's are all in flight at once
typedef enum {
    STAGE_ASK_COUNTS,
    STAGE_ASK_SHARED,
    STAGE_ASK_THREADS,
    STAGE_ASK_CPU,
    STAGE_ASK_WAITS,
    STAGE_ASKS
} stage_ask_t;

//  What a kind does; self is the kind's own state
typedef struct {
    const char *name; //  "thread", "process"
    int (*send)(void *self, const char *command, int timeout_ms, errbuf_t *err);
    //  Is an answer (or an unasked DONE/ERR) waiting?  Waits up to wait_ms
    bool (*ready)(void *self, int wait_ms);
    int (*wait)(void *self, int timeout_ms, errbuf_t *err);
    int (*counts)(void *self, stage_counts_t *out, errbuf_t *err);
    int (*stop)(void *self, errbuf_t *err);
    //  A trial failed: unblock whatever the stage waits for
    void (*abort)(void *self);
    pid_t (*pid)(void *self);
    int (*destroy)(void *self, int timeout_ms);
    //  Optional, where a stage's start is a question (remote): asked when
    //  it is made, its answer awaited here until then (mono seconds), so
    //  that a crew's stages start all at once; NULL: made is started
    int (*started)(void *self, double until, errbuf_t *err);
    //  Optional, where a stage's end is a question (remote): asked, then
    //  its answer awaited, so that a crew's stages end all at once; NULL:
    //  destroy ends it
    void (*end)(void *self);
    int (*ended)(void *self, int timeout_ms, errbuf_t *err);
    //  Optional; NULL: the shared block is this host's memory, written and
    //  read here (threads: threads_scan of pid; cpu_ns: /proc here)
    void (*reset)(void *self, const stage_trial_t *trial, int64_t clock_ns);
    void (*record)(void *self, stage_phase_t phase);
    int (*sync)(void *self, errbuf_t *err);
    int (*threads)(void *self, task_t *out, int max, errbuf_t *err);
    int (*cpu_ns)(void *self, const pid_t *tids, int n, uint64_t *ns,
                  errbuf_t *err);
    //  Optional, where the stage's threads are another host's: their
    //  run-queue waits and that host's steal, read there; NULL: read here
    //  (stage_handle_waits says what it returns)
    int (*waits)(void *self, const pid_t *tids, int n, threads_wait_t *out,
                 int64_t *steal, int64_t *ticks, errbuf_t *err);
    //  Optional, where the stage's threads are another host's: its
    //  tracer (--profile syscalls) there; NULL: traced here
    int (*trace_open)(void *self, const pid_t *tids, int n, errbuf_t *err);
    void (*trace)(void *self, bool on);
    int (*trace_read)(void *self, const syscalls_thread_t **threads, int *n,
                      errbuf_t *err);
    void (*trace_close)(void *self);
    //  Optional, where a question is a round trip (remote): sent now, its
    //  reply read by the call that asks it next; NULL: nothing to send
    void (*ask)(void *self, stage_ask_t what, const pid_t *tids, int n);
} stage_kind_t;

//  The functions every kind has, as its file names them (s_ready ..
//  s_destroy; its send may have another name): a kind's table is
//  {STAGE_KIND(name, send), and its optional functions}
#define STAGE_KIND(NAME, SEND)                                                 \
    .name = NAME, .send = SEND, .ready = s_ready, .wait = s_wait,              \
    .counts = s_counts, .stop = s_stop, .abort = s_abort, .pid = s_pid,        \
    .destroy = s_destroy

//  Where a stage may need to know more than its pipeline says
typedef struct {
    const char *config;        //  the combination's effective topology
    const char *ipc_dir;       //  the run's private directory
    stage_handle_t *ctx_owner; //  the handle of its context's owner
    agent_link_t *link;        //  host = NAME: its host's agent
    const machine_t *machine;  //  ...and that host's machine
    int64_t clock_ns;          //  shared block's clock_ns (stage.h)
} stage_where_t;

//  Start instance id of pl where its params say (process = thread | own,
//  host = NAME)
stage_handle_t *stage_handle_new(const pipeline_t *pl, int id,
                                 const stage_where_t *where, errbuf_t *err);
//  Its start awaited until then (mono seconds; made, a remote stage is
//  asked to start, nothing more): -1 with err "stage NAME: ..." when it
//  did not; 0 at once for a kind that starts as it is made
int stage_handle_started(stage_handle_t *self, double until, errbuf_t *err);
//  End the stage; -1 (and nothing freed) if it does not end within
//  timeout_ms: it is left behind
int stage_handle_destroy(stage_handle_t **self_p, int timeout_ms);
//  The same in two steps, for a crew's stages all at once: told to end
//  (no wait), then its end awaited, -1 with err when it did not come (its
//  host lost, or silent for timeout_ms); destroy then frees it.  A kind
//  whose destroy ends it says 0 here
void stage_handle_end(stage_handle_t *self);
int stage_handle_ended(stage_handle_t *self, int timeout_ms, errbuf_t *err);

//  Send a command; its answer comes through stage_handle_wait
int stage_handle_send(stage_handle_t *self, const char *command, int timeout_ms,
                      errbuf_t *err);
//  Has the stage said something (an answer, or DONE/ERR after RUN)?
bool stage_handle_ready(stage_handle_t *self, int wait_ms);
//  Its next answer: 0 for OK/DONE, -1 with err "stage NAME: ..."
int stage_handle_wait(stage_handle_t *self, int timeout_ms, errbuf_t *err);
//  send, then wait
int stage_handle_command(stage_handle_t *self, const char *command,
                         int timeout_ms, errbuf_t *err);

//  A question sent ahead, where it is a round trip (a stage on another
//  host): the next stage_handle_counts, _sync, _threads, or _cpu_ns or
//  _waits (with the same tids) reads its reply instead of asking.  Asking every stage
//  first, then reading every reply, takes one round trip for a crew, not
//  one per stage.  A kind that needs no round trip ignores it
void stage_handle_ask(stage_handle_t *self, stage_ask_t what, const pid_t *tids,
                      int n);
//  Its counters now (a proxy's from its engine); errors name the stage
int stage_handle_counts(stage_handle_t *self, stage_counts_t *out,
                        errbuf_t *err);
//  What a receiver took from one origin (a publisher instance), now
uint64_t stage_handle_origin(stage_handle_t *self, int origin);
//  The block the stage shares: read after a trial, or for its tid
const stage_shared_t *stage_handle_shared(stage_handle_t *self);

//  Before a trial: counters and flags to their start, and what the trial
//  asks (size, pace, send times)
void stage_handle_reset(stage_handle_t *self, const stage_trial_t *trial);
//  The trial's phase: latency samples count in STAGE_WINDOW, a slow
//  subscriber drops its spin in STAGE_DRAINING (stages/stage.h)
void stage_handle_record(stage_handle_t *self, stage_phase_t phase);
//  The shared block as the stage has it now (its tid, mem_node, sequence
//  state, latency, a requester's window on this host's clock): read
//  before its threads are, and after a trial
int stage_handle_sync(stage_handle_t *self, errbuf_t *err);
//  The threads of the stage's own process (0 for one in this process,
//  whose threads are this process's, and for a process here that has
//  ended); -1 with err naming the stage when its host cannot say
int stage_handle_threads(stage_handle_t *self, task_t *out, int max,
                         errbuf_t *err);
//  CPU time of these threads of the stage's (its own, its libzmq
//  threads), read where they run, into *ns; -1 with err naming the stage
//  when it cannot be read (its host is lost, or did not answer in time)
int stage_handle_cpu_ns(stage_handle_t *self, const pid_t *tids, int n,
                        uint64_t *ns, errbuf_t *err);
//  The run-queue waits of these threads of the stage's host (threads_wait:
//  -1 -1 for one that cannot be read) and that host's steal and CPU ticks
//  (threads_steal), read where they run, at a window's edge: 0; 1 when
//  the host cannot tell (its agent is older than the question: err says
//  why, and the figures are -1); -1 with err naming the stage when its
//  host is lost or did not answer in time
int stage_handle_waits(stage_handle_t *self, const pid_t *tids, int n,
                       threads_wait_t *out, int64_t *steal, int64_t *ticks,
                       errbuf_t *err);
//  --profile syscalls (machine/syscalls.h): a tracer over these threads
//  of the stage (its own, its libzmq threads), opened where they run and
//  off; then on when the window opens, off when it closes; then what each
//  thread did while it was on, in the order of tids (valid until
//  trace_close, which ends the tracer whatever happened before)
int stage_handle_trace_open(stage_handle_t *self, const pid_t *tids, int n,
                            errbuf_t *err);
void stage_handle_trace(stage_handle_t *self, bool on);
int stage_handle_trace_read(stage_handle_t *self,
                            const syscalls_thread_t **threads, int *n,
                            errbuf_t *err);
void stage_handle_trace_close(stage_handle_t *self);
//  Its host: the name, "" for the controller's; and that host's machine,
//  NULL for the controller's
const char *stage_handle_host(const stage_handle_t *self);
const machine_t *stage_handle_machine(const stage_handle_t *self);
//  Stop the stage's loop (its DONE follows); a proxy through its engine
int stage_handle_stop(stage_handle_t *self, errbuf_t *err);
void stage_handle_abort(stage_handle_t *self);

//  The process the stage runs in (on its host): 0 for this one, -1 once
//  it has ended
pid_t stage_handle_pid(stage_handle_t *self);
const char *stage_handle_kind(const stage_handle_t *self);

#endif
