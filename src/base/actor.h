/*  actor: czmq's zactor, started and ended within bounds.

    czmq 4.2.1's zactor_new ignores pthread_create's result and then waits
    for the new thread's first signal forever: where threads run out
    (RLIMIT_NPROC, threads-max) it hangs the caller.  zactor_destroy waits
    for the actor as long as its pipe's receive timeout and then frees the
    pipe whatever happened.  These two do the same job with both waits
    bounded and reported.  Any zactor_fn runs here (s_actor of a stage,
    czmq's zproxy): it gets one end of a PAIR pipe, signals once it is
    ready, and ends on "$TERM"; when it returns, its end signals again
    and is destroyed, as czmq's does.  The thread inherits the caller's
    name, CPU affinity, memory policy and signal mask.
*/
#ifndef HOPBENCH_ACTOR_H
#define HOPBENCH_ACTOR_H

#include <czmq.h>
#include <stdbool.h>

#include "base/errbuf.h"

//  Start fn (pipe, args) on a new thread and wait for its first signal.
//  The caller's end of the pipe, or NULL when the thread could not start
//  (err says why).  Once the thread is running the wait is not bounded:
//  fn's first act is to signal, and args must not be freed before it
//  has
zsock_t *actor_new(zactor_fn fn, void *args, errbuf_t *err);

//  Send "$TERM" and wait up to timeout_ms for the thread to end: 0, and
//  the pipe destroyed; -1 when it did not, and the pipe is kept (the
//  thread may still be using its args)
int actor_destroy(zsock_t **pipe_p, int timeout_ms);
//  How many threads actor_destroy has left behind in this process: their
//  sockets are still theirs, so the process must not end the contexts
//  under them (main ends with _exit then, not czmq's shutdown)
int actor_left_behind(void);

//  Send a command down an actor's pipe within timeout_ms (a pipe whose
//  thread is gone would take it never): -1, and err says so, when it
//  does not go
int actor_send(zsock_t *pipe, const char *command, int timeout_ms,
               errbuf_t *err);

int actor_test(bool verbose);

#endif
