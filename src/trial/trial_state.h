/*  trial_state: the state one trial shares between trial.c (driving the
    stages) and the files that read it (trial_counters.c: what the
    counters mean: links, snapshots, rows, loss verification;
    trial_threads.c: the threads' read-back; trial_topics.c;
    trial_profile.c).  Not for other modules.
    It is a header of its own, below them all, so that none of them calls
    back up into trial.c.
*/
#ifndef HOPBENCH_TRIAL_STATE_H
#define HOPBENCH_TRIAL_STATE_H

#include "base/lines.h"
#include "crew/crew.h"
#include "crew/stage_handle.h"
#include "machine/threads.h"
#include "pipeline/roster.h"
#include "trial/trial.h"

#include <string.h>

#define TRIAL_MAX_LINKS LIMIT_LINKS //  never reached: see base/limits.h

//  A row's link: from one instance to another over hop 'hop', or (from
//  -1) from every instance upstream of 'to', over all of its hops, when
//  'to' cannot tell them apart (a fan-in into a proxy whose engine does
//  not, config/engines.h); hop is then the first of them
typedef struct {
    int hop;          //  0-based
    int from, to;     //  instance ids
    uint64_t origins; //  bit o: origin o's messages take this link
} link_t;

//  Every counter, each with the time it was read (a stage's counters are
//  read one after another, a proxy's through a round trip).  At a
//  window's edge (trial_edge.c) every counter is as it was at one
//  instant, t, and at[i] = t for every stage
typedef struct {
    double t; //  when the last counter was read; an edge's instant
    double at[PIPELINE_MAX_INSTANCES];
    uint64_t sent[PIPELINE_MAX_INSTANCES], received[PIPELINE_MAX_INSTANCES];
    uint64_t cpu_ns[PIPELINE_MAX_INSTANCES];
    uint64_t link_sent[TRIAL_MAX_LINKS], link_received[TRIAL_MAX_LINKS];
} snapshot_t;

typedef struct {
    crew_t *crew;
    trial_kept_t *kept; //  the pipeline left up between trials (trial.h)
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
    snapshot_t edge[3]; //  trial_edge.c: before, after, one more try
    double window_seconds; //  s1.t - s0.t, or the requesters' own
    bool sources_ending;   //  the sources' DONE is expected now
    bool continuing;       //  on the pipeline the last trial left up (trial.h)
    bool verifying;        //  the stages are done: only the checks are left
    const char *unsettled; //  why the pipeline cannot stay up ("drain")
    double go_t;           //  when the sources were told to run
    bool running[PIPELINE_MAX_INSTANCES]; //  RUN answered, its end unread
    trial_result_t *result;
    bool tracing; //  --profile syscalls: every stage has a tracer open
    char *warnings; //  whole lines only (base/lines.h)
    size_t warnings_len;
    int warnings_more;             //  those that did not fit
    struct trial_topics_s *topics; //  trial_topics.c; NULL: no topics
    //  trial_stall.c: each link's current stretch (its start, its count
    //  then) and its slowest one so far
    double stretch_t[TRIAL_MAX_LINKS], slowest_rate[TRIAL_MAX_LINKS],
        slowest_seconds[TRIAL_MAX_LINKS];
    uint64_t stretch_count[TRIAL_MAX_LINKS];
    double same_t[TRIAL_MAX_LINKS], frozen[TRIAL_MAX_LINKS]; //  unchanged
    uint64_t same_count[TRIAL_MAX_LINKS]; //  ...since same_t, the longest
    double width[PIPELINE_MAX_INSTANCES]; //  its last read's (a round trip)
    double blocked[PIPELINE_MAX_INSTANCES]; //  the longest in the window
    int64_t steal0, ticks0; //  trial_starve.c: /proc/stat at the window's
    double steal_pct;       //  start; the share stolen in it, -1 unknown
    //  Subscribers of several sockets: each socket's count at the
    //  window's edges, instance i's from socket_first[i]
    long nsockets;
    long socket_first[PIPELINE_MAX_INSTANCES];
    uint64_t *socket0, *socket1;
    //  when instance i's sockets were read at the window's edges: the
    //  middle of the pass over them here, a remote stage's COUNTS time
    double sockets_at[2][PIPELINE_MAX_INSTANCES];
} trial_t;

//  One more line of warnings for the run
static inline void trial_warn(trial_t *self, const char *line)
{
    lines_add(self->warnings, self->warnings_len, line, &self->warnings_more);
}

void trial_link_name(trial_t *self, const link_t *link, char *from, char *to);
int trial_snapshot(trial_t *self, snapshot_t *snap, errbuf_t *err);
//  Its parts: stage i's counters into snap, with the clock read before
//  and after them (at[i]: their middle; width: between them); then the
//  links' sent counts and the CPU times
int trial_read_stage(trial_t *self, int i, snapshot_t *snap, double *width,
                     errbuf_t *err);
int trial_snapshot_finish(trial_t *self, snapshot_t *snap, errbuf_t *err);
//  trial_edge.c: a window's edge, every counter interpolated at one
//  instant; each stage's latency recording set to 'recording' (1 on, 0
//  off, -1 as it is) just before its counters are first read
int trial_snapshot_edge(trial_t *self, snapshot_t *snap, int recording,
                        errbuf_t *err);
//  trial_threads.c: where every thread is (record: into the result's
//  threads and memory, with checks against the plan)
void trial_read_threads(trial_t *self, bool record);
void trial_make_rows(trial_t *self);
//  trial_links.c: the trial's links (its rows) made from its pipeline
void trial_make_links(trial_t *self);
//  The instances at a link's upstream end (one, or a summed row's every
//  sender), into ids; how many
int trial_link_senders(const pipeline_t *pl, const link_t *link, int *ids);
//  The links of a pipeline into links (TRIAL_MAX_LINKS): how many
int trial_links_of(const pipeline_t *pl, link_t *links);
//  The origins whose messages reach instance 'from' (a source: its own)
uint64_t trial_origins_at(const pipeline_t *pl, int from);

//  trial_starve.c: every local thread's run-queue wait when the window
//  opens (after threads are read back) and closes; then each row's
//  from_wait_pct, to_wait_pct, steal_pct, starved and the trial's starved
void trial_starve_open(trial_t *self);
void trial_starve_close(trial_t *self);
void trial_starve_rows(trial_t *self);
//  Flood: after the starved columns, which rows the HWM's bound set
void trial_hwm_rows(trial_t *self);

//  trial_giveup.c: has a subscriber proven more lost than spec.give_up
//  allows of the whole trial, so that the window may end now?
bool trial_give_up(trial_t *self, double now);

//  trial_stall.c: each link's stretches of the window, from its opening
//  (s0) through every poll; then each row's slowest stretch and stalled
void trial_stall_open(trial_t *self);
void trial_stall_poll(trial_t *self, const snapshot_t *now);
void trial_stall_rows(trial_t *self);
//  The per-socket counts' room (trial_counters.c): -1 out of memory
int trial_sockets_new(trial_t *self);
void trial_sockets_destroy(trial_t *self);
//  At a window's edge (recording 1: its start, 0: its end, -1: neither),
//  instance i's sockets' counts
void trial_sockets_edge(trial_t *self, int i, int recording);
//  After the rows are made (trial_make_rows): each row's sockets and its
//  slowest and fastest socket's rate, and a row per socket
void trial_sockets_rows(trial_t *self);
//  What a sink's sequence numbers prove it lost, over all its origins
int64_t trial_seq_lost(trial_t *self, int sink);
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
