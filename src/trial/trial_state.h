/*  trial_state: the state of one trial's state machine (trial.c: set up,
    warm up, window, drain, stop), shared with the files that talk to
    the stages for it: trial_edge.c (their counters read), trial_threads.c
    (their threads read back) and trial_profile.c (their system calls
    traced).  Not for other modules.
    The measurement itself is a trial_window_t (trial_window.h), and each
    analysis keeps its own state (trial_stall.h, trial_starve.h,
    trial_sockets.h, trial_topics.h), fed from here: none of them sees
    this struct.  It is a header of its own, below its users, so that
    none of them calls back up into trial.c.
*/
#ifndef HOPBENCH_TRIAL_STATE_H
#define HOPBENCH_TRIAL_STATE_H

#include "base/lines.h"
#include "crew/crew.h"
#include "crew/stage_handle.h"
#include "machine/threads.h"
#include "pipeline/roster.h"
#include "trial/trial.h"
#include "trial/trial_sockets.h"
#include "trial/trial_stall.h"
#include "trial/trial_timeline.h"
#include "trial/trial_starve.h"
#include "trial/trial_topics.h"
#include "trial/trial_window.h"

#include <string.h>

typedef struct {
    crew_t *crew;
    trial_kept_t *kept; //  the pipeline left up between trials (trial.h)
    const machine_t *machine;
    trial_spec_t spec;
    int timeout_ms;
    stage_handle_t *stage[PIPELINE_MAX_INSTANCES];
    bool open[PIPELINE_MAX_INSTANCES];    //  SETUP answered: TEARDOWN is owed
    bool running[PIPELINE_MAX_INSTANCES]; //  RUN answered, its end unread
    bool setting[PIPELINE_MAX_INSTANCES]; //  SETUP sent, its answer unread
    bool sources_ending;                  //  the sources' DONE is expected now
    bool continuing;       //  on the pipeline the last trial left up (trial.h)
    bool verifying;        //  the stages are done: only the checks are left
    const char *unsettled; //  why the pipeline cannot stay up ("drain")
    double go_t;           //  when the sources were told to run
    //  trial_threads.c: every thread the plan lists (roster.h), and the
    //  libzmq and engine threads whose CPU time is charged to a stage
    roster_entry_t *roster;
    int nroster;
    int nhelpers; //  in arrays as long as the threads read back
    pid_t *helper_tid;
    int *helper_owner;
    //  The measurement (w.pl is the crew's pipeline); trial_edge.c's
    //  scratch (before, after, one more try), and how long each stage's
    //  last read of its counters took (seconds: a round trip; every read
    //  also goes to the stall's analysis)
    trial_window_t w;
    snapshot_t edge[3];
    double width[PIPELINE_MAX_INSTANCES];
    //  The last edge: from its start (attempts that spread too wide
    //  included) to its instant (lead), and from its kept attempt's first
    //  sample to its last (span), seconds
    double edge_lead, edge_span, edge_took; //  took: all of it
    double open_span;                       //  the window's opening edge's span
    //  The instant the next edge is to be at (the window's end: its start
    //  and the duration), 0: as soon as its first samples are in
    double edge_at;
    trial_result_t *result;
    bool tracing;   //  --profile syscalls: every stage has a tracer open
    char *warnings; //  whole lines only (base/lines.h)
    size_t warnings_len;
    int warnings_more; //  those that did not fit
    //  The analyses' own states
    trial_topics_t *topics; //  NULL: no topics
    trial_stall_t stall;
    trial_timeline_t timeline;
    trial_starve_t starve;
    trial_sockets_t sockets;
} trial_t;

//  One more line of warnings for the run
static inline void trial_warn(trial_t *self, const char *line)
{
    lines_add(self->warnings, self->warnings_len, line, &self->warnings_more);
}

//  trial_edge.c: every stage's counters into snap, one after another,
//  each at its own time, then the links' sent counts and the CPU times
int trial_snapshot(trial_t *self, snapshot_t *snap, errbuf_t *err);
//  A window's edge, every counter interpolated at one instant; each
//  stage's latency recording set to 'recording' (1 on, 0 off, -1 as it
//  is) just before its counters are first read; at the window's edges
//  (recording 1 or 0) the subscribers' sockets read too
int trial_snapshot_edge(trial_t *self, snapshot_t *snap, int recording,
                        errbuf_t *err);
//  trial_threads.c: where every thread is (record: into the result's
//  threads and memory, with checks against the plan); -1 with err when a
//  stage's host cannot say (lost, or silent for the timeout)
int trial_read_threads(trial_t *self, bool record, errbuf_t *err);
//  ...and, at the window's edge 'edge' (0 its start, 1 its end), every
//  thread row's run-queue wait and each instance's host's steal, read
//  where they run, into starve.edge[edge]; -1 (err) when a host is lost
int trial_read_waits(trial_t *self, int edge, errbuf_t *err);

//  trial_profile.c (--profile syscalls), at the window's edges: every
//  stage's threads traced from just before its first snapshot; off just
//  after its last, and read into the result's syscall rows; the tracers
//  ended, whatever happened (each does nothing unless spec.profile)
int trial_profile_start(trial_t *self, errbuf_t *err);
int trial_profile_stop(trial_t *self, errbuf_t *err);
void trial_profile_end(trial_t *self);

#endif
