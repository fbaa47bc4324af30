/*  roster: every thread a run of a pipeline starts, and where the plan
    puts it.  `hopbench plan` prints it, `check` counts it, the thread
    limit is checked against it, and the read-back (threads.csv) matches
    what /proc shows to it: one list, so the plan is the run.

        stage       thread          what it is                 where
        NAME        main            the stage's thread         its CPU
        NAME        zproxy          czmq's zproxy actor        its CPU
        NAME        io0.., reaper   its libzmq context's       its node
        NAME        relay           the controller's side of   housekeeping
                                    a stage in its own process
        NAME        process         that process's main thread housekeeping
        NAME        process/io0,    that process's czmq        housekeeping
                    process/reaper  context (a zproxy stage's
                                    I/O instead: io0, reaper   its node)
        controller  main, io0,      hopbench itself and its    housekeeping
                    reaper          czmq context

    czmq's context serves zproxy's sockets: in hopbench's own process its
    threads are listed (and pinned) under the first zproxy stage that runs
    there, on that stage's node, if there is one.  A stage's own context
    starts no thread when the stage is a zproxy one (its sockets live in
    czmq's), so none is listed.  Threads read back name libzmq's as the
    kernel does ("ZMQbg/IO/0"); roster_name says which row that is.
*/
#ifndef HOPBENCH_ROSTER_H
#define HOPBENCH_ROSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "pipeline/plan.h"

#define ROSTER_CZMQ_IO_THREADS 1 //  czmq's default (ZSYS_IO_THREADS)

typedef struct {
    int owner;         //  instance id; -1: the controller
    char thread[24];   //  "main", "io0", "reaper", "process/io0", ...
    int node;          //  -1: not pinned
    cpuset_t cpus;     //  empty: not pinned (any CPU it is allowed)
    bool housekeeping; //  one of hopbench's own (the controller's place)
} roster_entry_t;

//  Threads instance id brings (with its context, its own process, the
//  controller's relay to it); id -1: the controller's own
int roster_count(const pipeline_t *pl, int id);
//  Every thread: each instance's in pipeline order, then the
//  controller's; returns how many (at most max are written)
int roster_list(const pipeline_t *pl, roster_entry_t *out, int max);
//  The instance whose thread carries czmq's context in hopbench's own
//  process (a zproxy stage's), -1: the controller's own
int roster_czmq_owner(const pipeline_t *pl);
//  The roster's name for a thread as read back: "ZMQbg/IO/0" -> "io0",
//  "ZMQbg/Reaper" -> "reaper", "process/ZMQbg/IO/1" -> "process/io1";
//  other names are kept
void roster_name(const char *readback, char *out, size_t len);
//  The roster entry of (owner, name as read back), NULL if none
const roster_entry_t *roster_find(const roster_entry_t *list, int n, int owner,
                                  const char *readback);

int roster_test(bool verbose);

#endif
