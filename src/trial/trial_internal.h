/*  trial_internal: the state one trial shares between trial.c (driving the
    stages) and trial_counters.c (what the counters mean: links, snapshots,
    rows, loss verification, thread read-back).  Not for other modules.
*/
#ifndef HOPBENCH_TRIAL_INTERNAL_H
#define HOPBENCH_TRIAL_INTERNAL_H

#include "crew/crew.h"
#include "crew/stage_handle.h"
#include "machine/threads.h"
#include "pipeline/roster.h"
#include "trial/trial.h"

#include <string.h>

#define TRIAL_MAX_LINKS LIMIT_LINKS //  never reached: see base/limits.h

//  A row's link: from one instance to another over hop 'hop', or (from
//  -1) from every instance upstream of 'to', over all of its hops, when
//  'to' cannot tell them apart (a fan-in into a steerable or zproxy
//  proxy); hop is then the first of them
typedef struct {
    int hop;          //  0-based
    int from, to;     //  instance ids
    uint64_t origins; //  bit o: origin o's messages take this link
} link_t;

//  Every counter, each with the time it was read (a stage's counters are
//  read one after another, a proxy's through a round trip: each hop's
//  rate is its own count over its own time)
typedef struct {
    double t; //  when the last counter was read
    double at[PIPELINE_MAX_INSTANCES];
    uint64_t sent[PIPELINE_MAX_INSTANCES], received[PIPELINE_MAX_INSTANCES];
    uint64_t cpu_ns[PIPELINE_MAX_INSTANCES];
    uint64_t link_sent[TRIAL_MAX_LINKS], link_received[TRIAL_MAX_LINKS];
} snapshot_t;

typedef struct {
    crew_t *crew;
    pipeline_t *pl;
    const machine_t *machine;
    trial_spec_t spec;
    int timeout_ms;
    stage_handle_t *stage[PIPELINE_MAX_INSTANCES];
    bool open[PIPELINE_MAX_INSTANCES]; //  SETUP answered: TEARDOWN is owed
    int nlinks;
    link_t links[TRIAL_MAX_LINKS];
    roster_entry_t *roster; //  every thread the plan lists (roster.h)
    int nroster;
    int nhelpers;                  //  libzmq and engine threads, whose CPU
    pid_t helper_tid[THREADS_MAX]; //  time is charged to a stage
    int helper_owner[THREADS_MAX];
    snapshot_t s0, s1, last;
    double window_seconds; //  s1.t - s0.t, or the requesters' own
    bool sources_ending;   //  the sources' DONE is expected now
    bool running[PIPELINE_MAX_INSTANCES]; //  RUN answered, its end unread
    trial_result_t *result;
    bool tracing; //  --profile syscalls: every stage has a tracer open
    char *warnings;
    size_t warnings_len;
    struct trial_topics_s *topics; //  trial_topics.c; NULL: no topics
} trial_t;

//  One more line of warnings for the run
static inline void trial_warn(trial_t *self, const char *line)
{
    size_t used = strlen(self->warnings);
    snprintf(self->warnings + used, self->warnings_len - used, "%s\n", line);
}

void trial_make_links(trial_t *self);
void trial_link_name(trial_t *self, const link_t *link, char *from, char *to);
int trial_snapshot(trial_t *self, snapshot_t *snap, errbuf_t *err);
//  The same at a window's edge: each stage's latency recording set to
//  'recording' (1 on, 0 off) just before its counters are read
int trial_snapshot_edge(trial_t *self, snapshot_t *snap, int recording,
                        errbuf_t *err);
//  Where every thread is (record: into the result's threads and memory,
//  with checks against the plan)
void trial_read_threads(trial_t *self, bool record);
void trial_make_rows(trial_t *self);
int trial_verify(trial_t *self, errbuf_t *err);
void trial_make_latency(trial_t *self);

//  trial_profile.c (--profile syscalls), at the window's edges: every
//  stage's threads traced from just before its first snapshot; off just
//  after its last, and read into the result's syscall rows; the tracers
//  ended, whatever happened (each does nothing unless spec.profile)
int trial_profile_start(trial_t *self, errbuf_t *err);
int trial_profile_stop(trial_t *self, errbuf_t *err);
void trial_profile_end(trial_t *self);

//  Topics (trial_topics.c): what links carry when subscriptions filter.
//  new: -1 when out of memory; nothing to make when no topics are sent
typedef struct trial_topics_s trial_topics_t;
int trial_topics_new(trial_t *self);
void trial_topics_destroy(trial_t *self);
//  Does instance id take less than its publishers send it?
bool trial_topics_filters(const trial_t *self, int id);
//  What link l should have taken by snap: link_sent, or its expected
uint64_t trial_link_due(trial_t *self, const snapshot_t *snap, int l);
//  A row's expected and selectivity (= sent and 1 where nothing filters)
void trial_topics_row(trial_t *self, int l, link_row_t *row);
//  A filtering sink's loss as its sequence numbers prove it, for origins
int64_t trial_topics_seq_lost(trial_t *self, int sink, uint64_t origins);
//  ...and as its links and those above them count it
int64_t trial_topics_path_lost(trial_t *self, int sink);

#endif
