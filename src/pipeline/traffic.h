/*  traffic: who sends and who takes which topics, in a pipeline.

        publisher pub           table of its stage, phase of each origin
            topics = 1000       (config/topics.h: a pure function)
        proxy broker            takes the union of what the subscribers
                                below it take: libzmq forwards their
                                subscriptions upstream, and an XPUB sends
                                a peer only what it subscribed to
        subscriber sub x 8      subscriber q takes subscribe's set for q,
            subscribe = 10%     and subscriptions = M extra numbers

    Topic numbers run over 0 .. traffic_topics - 1 (the most topics of any
    publisher); the extra subscriptions of the subscribers follow, each
    subscriber's own block, in instance order.  Messages carry a topic
    when any publisher has topics > 1, frames = 2, or a subscriber has
    extra subscriptions (so that a data message never looks like a
    subscription): then a frames = 1 message is its topic and, after
    topic_size bytes, the header (stages/sequence.h); with frames = 2 the
    header starts the payload frame.

    The stages use this at SETUP, the controller for each trial's expected
    counts (trial/trial_topics.c); nothing here is in a timed loop.
*/
#ifndef HOPBENCH_TRAFFIC_H
#define HOPBENCH_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline/pipeline.h"

//  The most topics of any publisher: every set is over these numbers
int traffic_topics(const pipeline_t *pl);
//  Do messages carry a topic?
bool traffic_on(const pipeline_t *pl);
//  The publishers' topic_size
int traffic_topic_size(const pipeline_t *pl);
//  Where the 8-byte header starts in a message's last frame
size_t traffic_header_offset(const pipeline_t *pl);
//  Sink id's number among all sinks, from 0, in instance order
int traffic_subscriber(const pipeline_t *pl, int id);
//  The extra subscriptions of sink id: numbers first .. first + count - 1
void traffic_extras(const pipeline_t *pl, int id, uint64_t *first, int *count);
//  Every subscription number there is: topics, then all the extras
uint64_t traffic_numbers(const pipeline_t *pl);

typedef struct {
    int n;          //  traffic_topics
    bool all;       //  subscribe = all (the empty prefix)
    uint64_t *bits; //  n bits: bits[t / 64] >> t % 64 & 1, topic t taken
} traffic_set_t;

//  What instance id takes: a sink its own set, a proxy the union of the
//  sinks it reaches, a source everything.  -1 when out of memory
int traffic_set(const pipeline_t *pl, int id, traffic_set_t *set);
void traffic_set_free(traffic_set_t *set);
//  The first sink that nothing can reach: it takes no topic that a
//  publisher upstream of it sends (topics 0 .. that publisher's topics -
//  1); -1 when every sink can take something, -2 out of memory
int traffic_unreached(const pipeline_t *pl);
//  The same as an error, at the sink's subscribe (file:line): 0 when
//  every sink can take something, else -1 and err
int traffic_check_reached(const pipeline_t *pl, errbuf_t *err);
static inline bool traffic_set_has(const traffic_set_t *set, uint64_t t)
{
    return t < (uint64_t)set->n && (set->bits[t / 64] >> (t % 64) & 1);
}

//  The table of publisher stage 'stage', its length in *len; NULL when
//  out of memory
uint32_t *traffic_table(const pipeline_t *pl, int stage, uint32_t *len);
//  Where the sequence 0 of 'origin' is in its table of len
uint32_t traffic_phase(const pipeline_t *pl, int origin, uint32_t len);
//  prefix[i]: entries of table[0 .. i) whose topic the set takes (len + 1
//  of them; prefix[len] == len: it takes all the table has); NULL when out
//  of memory
uint32_t *traffic_prefix(const uint32_t *table, uint32_t len,
                         const traffic_set_t *set);
//  Of the sequences [0, n) of a publisher whose phase is 'phase', how many
//  the set of 'prefix' takes
uint64_t traffic_taken(const uint32_t *prefix, uint32_t len, uint32_t phase,
                       uint64_t n);

int traffic_test(bool verbose);

#endif
