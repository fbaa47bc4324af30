/*  topics: the traffic model of topics, as pure functions of the keys.

    A publisher with topics = N sends topics 0 .. N-1.  The topic of its
    message seq (0, 1, 2, ...) is

        topic(origin, seq) = table[(phase(origin) + seq) mod L]

    a pure function of the publisher instance (its origin), the sequence
    and the seed, so any stage, and the controller, can recompute it.  The
    table has L = N * ceil(2^18 / N) entries (whole rounds of N) and
    depends on (N, topic_order, seed) only; phase(origin) on (seed,
    origin).  topic_order says what the table holds:

        roundrobin   0, 1, .. N-1, 0, 1, ..: every topic L / N times
        uniform      every topic L / N times, each spread evenly over the
                     table from a start of its own (from the seed)
        zipf:S       topic t (from 0) in proportion to 1 / (t + 1)^S,
                     its count by largest remainder, spread the same way

    Spread evenly: the k-th of topic t's c entries goes to key (k + u_t) /
    c, u_t in [0, 1) from the seed, and the table is the entries in key
    order.  So every stretch of r messages holds each topic r * c / L times
    give or take one: a window's share of a topic is the table's, not
    only the whole run's.  A topic whose zipf share is below 1 / L is
    never sent.

    On the wire a topic is its number in decimal, zero-padded to
    topic_size bytes ("00000042"): fixed width, so no topic is a prefix of
    another, and digits only, so never a subscriber's own guard topic
    (0xFF 'R', then its id in two bytes).  The extra subscriptions of
    subscriptions = M are numbers from the most topics of any publisher
    up: topics nobody sends.

    subscribe says which topics a subscriber takes, out of n topics:

        all          every topic (the empty prefix)
        K            K topics: subscriber number q takes q, q + s,
                     q + 2s, .. (mod n), K of them, s = n / K (whole
                     division): subscribers 0 .. s-1 take disjoint sets
        P%           the same with K = n * P / 100, rounded, at least 1
        0-9,40       a list of topic numbers and ranges: the same for
                     every subscriber that names it

    Nothing here allocates except topics_table's caller; nothing knows of
    pipelines (pipeline/traffic.h puts these together per instance).
*/
#ifndef HOPBENCH_TOPICS_H
#define HOPBENCH_TOPICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"

#define TOPICS_ROUND (1u << 18) //  the table holds at least this many

typedef enum { TOPICS_ROUNDROBIN, TOPICS_UNIFORM, TOPICS_ZIPF } topics_order_t;

//  "roundrobin", "uniform" or "zipf:S" (0 < S <= 10); errors say why
int topics_order_parse(const char *text, topics_order_t *order,
                       double *exponent, errbuf_t *err);

//  A subscribe value checked against n topics; errors say why
int topics_subscribe_check(const char *text, int ntopics, errbuf_t *err);
//  Does it take every topic?
bool topics_subscribe_all(const char *text);
//  The topics subscriber number q takes, as bits[t / 64] >> t % 64 & 1
//  (ntopics bits, cleared first); how many.  text must have passed
//  topics_subscribe_check
int topics_subscribe_set(const char *text, int ntopics, int q, uint64_t *bits);

//  L for a publisher of n topics
uint32_t topics_period(int ntopics);
//  The table of a publisher of n topics (len = topics_period (n)); order
//  as topic_order writes it, checked.  -1 when out of memory
int topics_table(int ntopics, topics_order_t order, double exponent,
                 uint64_t seed, uint32_t *table, uint32_t len);
//  Where origin's sequence 0 is in the table
uint32_t topics_phase(uint64_t seed, int origin, uint32_t len);
//  A topic's (or extra subscription's) number as size decimal digits,
//  zero-padded, no terminating NUL
void topics_text(uint64_t number, int size, char *out);
//  The digits numbers below 'count' need (topics_text)
int topics_digits(uint64_t count);

int topics_test(bool verbose);

#endif
