/*  wire: what crosses a process boundary about a stage, as zmsg frames.

    Shared by both ends of the two channels that carry stages: the
    controller and a stage's own process (stage_process.c, stage_child.c),
    and the controller and a host's agent (stage_remote.c, agent_link.c,
    src/agent/).  Numbers travel as decimal text, the latency histogram as
    little-endian binary, so neither end depends on the other's struct
    layout; the agent protocol's version (WIRE_PROTOCOL) changes whenever
    any of it does, except for a question an older agent refuses as an
    unknown request and the controller can do without (WAITS: its
    stages' run-queue waits are then unknown), so that such an agent
    still serves the run.

    The agent protocol: every message is [COMMAND][ID][args...], ID the
    stage instance it is about, or -1 for the link itself.  See
    docs/HOSTS.md for the commands.
*/
#ifndef HOPBENCH_WIRE_H
#define HOPBENCH_WIRE_H

#include <czmq.h>
#include <stdint.h>

#include "machine/syscalls.h"
#include "machine/threads.h"
#include "pipeline/pipeline.h"
#include "stages/stage.h"

//  6: a subscriber's guard topic carries its id in two bytes, COUNTS
//  the instant of its reading (5: no TARGET; 4: a trial's epoch, late)
#define WIRE_PROTOCOL 6

//  The protocol this process speaks: WIRE_PROTOCOL, unless the test-only
//  environment variable HOPBENCH_TEST_PROTOCOL fakes another
int wire_protocol(void);

//  SETUP's frames: per hop of instance id, "h n ep1 .. epn server_public
//  server_secret client_public client_secret" (the endpoints of the trial
//  and the run's CURVE keys)
void wire_add_hops(zmsg_t *msg, const pipeline_t *pl, int id);
//  ...and taken into a pipeline built from the same topology
void wire_take_hops(zmsg_t *msg, pipeline_t *pl);

//  What a trial reads of a stage's shared block when it has ended: tid,
//  misordered, mem_node, the requesters' window, pin error, the first
//  norigins origins, the latency histogram and its sockets' counts and
//  what each is behind (wire_add_sockets, with behind).  The taker's
//  block has room for as many sockets as the adder's (-1 otherwise)
void wire_add_shared(zmsg_t *msg, const stage_shared_t *shared, int norigins);
int wire_take_shared(zmsg_t *msg, stage_shared_t *shared, int norigins);

//  A subscriber of several sockets' counts (each socket's received, and
//  with 'behind' what it is behind too): one binary frame, empty for
//  every other stage.  Taking it into a block of another number of
//  sockets is -1
void wire_add_sockets(zmsg_t *msg, const stage_shared_t *shared, bool behind);
int wire_take_sockets(zmsg_t *msg, stage_shared_t *shared, bool behind);

//  The latency histogram alone: one binary frame
void wire_add_histogram(zmsg_t *msg, const histogram_t *h);
int wire_take_histogram(zmsg_t *msg, histogram_t *h);

//  Threads, four frames each (tid, name, allowed CPUs, last CPU)
void wire_add_tasks(zmsg_t *msg, const task_t *tasks, int n);
int wire_take_tasks(zmsg_t *msg, task_t *tasks, int max);

//  Run-queue waits (WAITS): the host's steal and all CPU ticks
//  (threads_steal), then each thread's wait and preemptions
//  (threads_wait, -1 -1 where it cannot be read), for n threads.  Taking
//  it is -1 unless it holds n threads' exactly
void wire_add_waits(zmsg_t *msg, int64_t steal, int64_t ticks,
                    const threads_wait_t *waits, int n);
int wire_take_waits(zmsg_t *msg, int64_t *steal, int64_t *ticks,
                    threads_wait_t *waits, int n);

//  Traced threads (--profile syscalls); taken with their calls allocated
//  (syscalls_thread_free), n or -1 if malformed (nothing kept)
void wire_add_syscalls(zmsg_t *msg, const syscalls_thread_t *threads, int n);
int wire_take_syscalls(zmsg_t *msg, syscalls_thread_t *threads, int max);

//  The next frame as a number (0 when missing)
long long wire_pop_ll(zmsg_t *msg);
double wire_pop_double(zmsg_t *msg);
//  ...or text into buf (cut to fit; "" when missing)
void wire_pop_text(zmsg_t *msg, char *buf, size_t len);

int wire_test(bool verbose);

#endif
