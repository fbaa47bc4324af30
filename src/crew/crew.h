/*  crew: the stage threads of one pipeline, kept for every trial of a
    combination (every size and repetition).

    Keeping them matters on NUMA machines: a memory policy rules only pages
    touched after it is set, and glibc hands a new thread the malloc arena
    of a thread that has ended, pages and all.  A stage thread that pins
    itself before its first allocation and then lives for the whole run
    keeps its arena, and its context's I/O threads, on its node.  Each trial
    opens and closes the sockets; the contexts end with the crew.

    crew_new first puts the calling thread (the controller) on the plan's
    housekeeping CPU, and, once the stages run, czmq's context threads
    where the roster says (pipeline/roster.h): nothing of hopbench's own
    is left unplaced while a combination runs.
*/
#ifndef HOPBENCH_CREW_H
#define HOPBENCH_CREW_H

#include "base/errbuf.h"
#include "pipeline/pipeline.h"
#include "crew/fleet.h"
#include "crew/stage_handle.h"

typedef struct {
    pipeline_t *pl;
    stage_handle_t *stage[PIPELINE_MAX_INSTANCES];
    bool broken; //  a trial was aborted: contexts are shut down
    uint32_t epoch; //  the last trial's (stages/sequence.h)
} crew_t;

//  Start every stage where its params say (stage_handle.h): its thread
//  (which pins itself first), or its process (process = own: it loads
//  'config', the combination's effective topology, and talks over ipc in
//  'ipc_dir'), or its host (host = NAME: the fleet's agent there gets
//  'config' first).  fleet: NULL when no stage names a host
crew_t *crew_new(pipeline_t *pl, const char *config, const char *ipc_dir,
                 fleet_t *fleet, errbuf_t *err);
//  Tell every stage whose end is a question (on a host) to end, all at
//  once, then await each end: -1 with err naming the first that did not
//  (its host lost, or silent for timeout_ms); the others still end
int crew_end(crew_t *self, int timeout_ms, errbuf_t *err);
//  End the threads and their contexts (crew_end first, whatever it
//  says); -1 if a thread did not answer within timeout_ms and was left
//  behind
int crew_destroy(crew_t **self_p, int timeout_ms);

#endif
