/*  trial_window: a trial's measurement as data, what its analyses read.

    The links (trial_links.c: the rows of results.csv), every counter at
    the window's edges and after the drain, the window's length, and each
    stage's shared block as the trial left it (its sequence numbers,
    sockets and histograms).  trial.c fills one as the trial runs; the
    analyses (trial_counters.c, trial_topics.c, trial_sockets.c,
    trial_stall.c, trial_starve.c, trial_giveup.c) are functions of it
    and of their own state, never of the stages' handles, so that a
    selftest can make one by hand (trial_fixture.h).
*/
#ifndef HOPBENCH_TRIAL_WINDOW_H
#define HOPBENCH_TRIAL_WINDOW_H

#include "base/limits.h"
#include "pipeline/pipeline.h"
#include "stages/stage.h"
#include "trial/results.h"

#include <stdint.h>

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
    const pipeline_t *pl;
    int nlinks;
    link_t links[TRIAL_MAX_LINKS];
    snapshot_t s0, s1; //  the window's edges
    snapshot_t last;   //  the latest counters: after the drain, the trial's
    double seconds;    //  s1.t - s0.t, or the requesters' own
    //  each instance's block (stages/stage.h): at the end of the trial
    //  (after the stages' last sync) its sequence numbers, sockets,
    //  histograms and thread id are final
    const stage_shared_t *shared[PIPELINE_MAX_INSTANCES];
} trial_window_t;

//  trial_links.c: the links of a pipeline into links (TRIAL_MAX_LINKS):
//  how many
int trial_links_of(const pipeline_t *pl, link_t *links);
//  The instances at a link's upstream end (one, or a summed row's every
//  sender), into ids; how many
int trial_link_senders(const pipeline_t *pl, const link_t *link, int *ids);
//  The origins whose messages reach instance 'from' (a source: its own)
uint64_t trial_origins_at(const pipeline_t *pl, int from);
//  A link's ends as results.csv names them (RESULTS_NAME_MAX each)
void trial_link_name(const pipeline_t *pl, const link_t *link, char *from,
                     char *to);
//  What a link was sent by snap: its senders' counts (times a sink's
//  sockets; a client's cycles)
uint64_t trial_link_sent(const pipeline_t *pl, const link_t *link,
                         const snapshot_t *snap);

#endif
