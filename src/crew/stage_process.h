/*  stage_process: a stage in a process of its own (process = own).

        controller process                          stage process
   "hopbench:NAME" trial --actor pipe--> relay actor --ipc PAIR--> host loop
   --actor pipe--> stage
                 \_____________ stage_shared_t in shared memory (memfd)
   ___________/

    The controller keeps a stage_t whose actor is a relay: it starts the
    child (this same binary, "hopbench stage ..."), passes every command
    on over a PAIR socket in the run's private 0700 ipc directory, passes
    every answer back, and watches the child: if it dies, the trial gets
    "ERR stage NAME: its process ended (...)".  Counters, flags and the
    latency histogram live in memory both processes map, so the
    controller reads them as it reads an in-process stage's.  SETUP carries
    the hop endpoints the child must use (they are chosen per trial).  A
    steerable proxy's counters come from its own process on request
    (COUNTS), since its control socket is inproc.  The child dies with the
    controller (PR_SET_PDEATHSIG).
*/
#ifndef HOPBENCH_REMOTE_H
#define HOPBENCH_REMOTE_H

#include <sys/types.h>

#include "base/errbuf.h"
#include "pipeline/pipeline.h"
#include "stages/stage.h"

//  Start instance id in its own process; the run's effective topology is
//  in config (the child loads it to build the same pipeline)
stage_t *remote_new(const pipeline_t *pl, int id, const char *config,
                    const char *ipc_dir, errbuf_t *err);
//  The child's pid, -1 once it has ended
pid_t remote_pid(const stage_t *stage);
//  A steerable proxy's counters, asked of its process
int remote_counts(stage_t *stage, uint64_t *received, uint64_t *sent,
                  errbuf_t *err);
//  Ask a proxy's process to stop it (no answer: its DONE follows)
void remote_stop(stage_t *stage);
//  A message the stage sent while remote_counts waited (DONE or ERR),
//  handed back to stage_wait / stage_ended
char *remote_take_pending(stage_t *stage);
bool remote_has_pending(const stage_t *stage);
//  Free what remote_new allocated, once the relay has ended
void remote_free(stage_t *stage);

//  The child: "hopbench stage CONFIG ID ENDPOINT FD"; returns the exit
//  status of the process
int remote_host_main(int argc, char **argv);

#endif
