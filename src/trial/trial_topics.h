/*  trial_topics: what a trial's links carry when subscriptions filter
    (expected, selectivity, each subscriber's loss by its topics; the
    rule is docs/TOPICS.md, the reasoning in trial_topics.c).  Made for a
    pipeline and its links, fed the snapshots; a NULL one (no topics are
    sent) filters nothing, and every link is due what it was sent.
*/
#ifndef HOPBENCH_TRIAL_TOPICS_H
#define HOPBENCH_TRIAL_TOPICS_H

#include "trial/trial_window.h"

//  The warning of a trial whose expected shares a loss in proportion
#define TRIAL_TOPICS_ESTIMATED                                                 \
    "a proxy's upstream dropped messages, and the subscribers below it "       \
    "take different topics: the counters do not tell whose topics were "       \
    "dropped, so expected (and lost) on the links below share that loss "      \
    "in proportion; each subscriber's own loss is exact (seq_lost)"

typedef struct trial_topics_s trial_topics_t;

//  *self_p: NULL when no topics are sent; -1 when out of memory.  links
//  (nlinks of them) must outlive it
int trial_topics_new(trial_topics_t **self_p, const pipeline_t *pl,
                     const link_t *links, int nlinks);
void trial_topics_destroy(trial_topics_t **self_p);
//  Does instance id take less than its publishers send it?
bool trial_topics_filters(const trial_topics_t *self, int id);
//  What link l should have taken by snap: link_sent, or its expected
uint64_t trial_topics_due(trial_topics_t *self, const snapshot_t *snap, int l);
//  A row's expected and selectivity (= sent and 1 where nothing filters)
//  from the trial's last counters; the row's sent and received are made
void trial_topics_row(trial_topics_t *self, const snapshot_t *last, int l,
                      link_row_t *row);
//  Did a row's expected share a loss above it in proportion (an estimate:
//  TRIAL_TOPICS_ESTIMATED)?
bool trial_topics_estimated(const trial_topics_t *self);
//  A filtering sink's loss as its sequence numbers prove it (seen: its
//  block's origins), for origins
int64_t trial_topics_seq_lost(trial_topics_t *self, const snapshot_t *last,
                              int sink, const origin_t *seen, uint64_t origins);
//  ...and as its links and those above them count it
int64_t trial_topics_path_lost(trial_topics_t *self, const snapshot_t *last,
                               int sink);

int trial_topics_test(bool verbose);

#endif
