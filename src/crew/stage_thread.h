/*  stage_thread: a stage on a thread of this process (process = thread),
    one kind of stage_handle.

        controller --actor pipe--> stage thread (stages/stage.c)
                    \__ stage_shared_t, plain memory, read directly __/

    The thread runs stage_actor with the role roles_ops names.  This side
    keeps the role's control channel (a steerable proxy's PAIR), opened
    when SETUP succeeds and closed before TEARDOWN, so the counters of
    every role come through stage_handle_counts alike.  The host loop of a
    stage in its own process (stage_process.c) runs its stage through this
    kind too.
*/
#ifndef HOPBENCH_STAGE_THREAD_H
#define HOPBENCH_STAGE_THREAD_H

#include "base/errbuf.h"
#include "crew/stage_handle.h"

extern const stage_kind_t stage_thread_kind;

//  Start instance id's thread.  shared: where its counters live (memory
//  shared with a controller in another process), NULL: its own.
//  ctx_owner: the thread-kind state of the instance whose context this
//  one joins (inproc), or NULL
void *stage_thread_new(const pipeline_t *pl, int id, void *ctx_owner,
                       stage_shared_t *shared, errbuf_t *err);
stage_shared_t *stage_thread_shared(void *self);
//  The thread's next message as it came ("OK", "DONE", "ERR why"), after
//  the control channel has followed it; NULL when none within timeout_ms
char *stage_thread_answer(void *self, int timeout_ms, errbuf_t *err);
//  Its pipe, to poll beside other sockets
zsock_t *stage_thread_pipe(void *self);

#endif
