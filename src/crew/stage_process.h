/*  stage_process: a stage in a process of its own (process = own), one
    kind of stage_handle.

      controller process                         stage process "hopbench:NAME"

      trial --pipe--> relay actor --ipc PAIR--> host loop --pipe--> stage thread
        |                                                               |
        +------------- stage_shared_t in shared memory (memfd) ---------+

    The relay starts the child (this same binary, "hopbench stage ..."),
    passes every command on over a PAIR socket in the run's private 0700
    ipc directory, passes every answer back, and watches the child: if it
    dies, the trial gets "ERR its process (pid N) ended: ...".  Counters,
    flags and the latency histogram live in memory both processes map, so
    the controller reads them as it reads a thread's.  SETUP carries the
    hop endpoints and CURVE keys of the trial.  The host loop runs its
    stage as a thread kind (stage_thread.h), so a role's own counters (a
    steerable proxy's) come from its process on request (COUNTS), and its
    own stop on STOP.  The child dies with the controller
    (PR_SET_PDEATHSIG).
*/
#ifndef HOPBENCH_STAGE_PROCESS_H
#define HOPBENCH_STAGE_PROCESS_H

#include "base/errbuf.h"
#include "crew/stage_handle.h"

extern const stage_kind_t stage_process_kind;

//  Start instance id in its own process; the combination's effective
//  topology is in config (the child loads it to build the same
//  pipeline), and its host's stages are planned on the machine described
//  in 'machine' (an agent's), NULL: the live one.  *shared: the
//  counters, mapped here
void *stage_process_new(const pipeline_t *pl, int id, const char *config,
                        const char *ipc_dir, const char *machine,
                        stage_shared_t **shared, errbuf_t *err);

//  The relay's pipe, where the stage's answers arrive: to poll beside
//  other sockets (an agent serving several stages)
zsock_t *stage_process_pipe(void *state);

//  The same without waiting, for a loop that must not block (an agent,
//  which heartbeats its controller whatever its stages do).  ask_counts
//  starts a reading (a steerable proxy's through its process; the shared
//  counters need none); take_counts gives 1 and the counters once they
//  are here, 0 while they are not (the pipe wakes its poller when they
//  come), -1 and err when they will not come.  Take before ready and
//  wait: what it reads first is kept for them, and while the counters are
//  on their way, ready says true only for what take_counts has kept
int stage_process_ask_counts(void *state, errbuf_t *err);
int stage_process_take_counts(void *state, stage_counts_t *out, errbuf_t *err);
//  end tells the relay to end the process ($TERM, SIGKILL 2 s later);
//  ended frees the stage and says true once the relay is gone (its pipe
//  wakes the poller), false while it is not
void stage_process_end(void *state);
bool stage_process_ended(void *state);

//  The child: "hopbench stage CONFIG ID ENDPOINT FD CPUS [MACHINE]"
//  (CPUS: the CPU set the controller planned with; MACHINE: the
//  description its host's stages are planned on); returns the exit status
//  of the process
int stage_process_main(int argc, char **argv);

int stage_process_test(bool verbose);

#endif
