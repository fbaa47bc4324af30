/*  topic: what the timed loops do about topics, as inline helpers, and
    the state they read, made at SETUP (topic.c).

    A publisher's next topic is one table step: the table holds each
    position's text offset, so a message costs a load, a compare for the
    wrap and a memcpy of topic_size bytes; no division, no allocation.

        position   0    1    2    3   ..  L-1     (pos wraps to 0)
        offset     0    16   8    0   ..          text + offset: "00000002"

    A subscriber takes a whole message (a topic frame, then the payload
    frame, with frames = 2), finds the header after the topic, and counts
    its sequence (sequence.h).  When it takes less than everything its
    publishers send, a jump in an origin's sequence is not loss by itself:
    only the skipped messages of topics it subscribed to are (gaps), and
    a message of a topic it did not subscribe to counts as misordered.
    Each origin keeps its position in its publisher's table and a prefix
    count of the topics taken (pipeline/traffic.h), so a jump of any
    length costs a few loads and no division:

        gaps += prefix[pos + skipped] - prefix[pos]   (round the table)

    topic_take is that per-message step for one subscription: a receiver
    with several SUB sockets keeps one topic_sink_t per socket.  After
    each message a slow subscriber spins consume_ns on the TSC (its own
    CPU busy, as a real consumer's would be), not a sleep.
*/
#ifndef HOPBENCH_TOPIC_H
#define HOPBENCH_TOPIC_H

#include "base/mono.h"
#include "stages/sequence.h"
#include "stages/stage.h"

#include <zmq.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

//  ------------------------------------------------------------------------
//  Publishers

typedef struct {
    uint32_t *offsets; //  per table position: its topic's text offset
    uint32_t len;      //  the table's length
    char *text;        //  every topic's text, size bytes each
    int size;          //  topic_size
    int frames;        //  1: topic then header in one frame; 2: two frames
    size_t header;     //  where the header starts in the last frame
} topic_source_t;

//  A publisher's place in its table, kept by its loop
typedef struct {
    const uint32_t *offsets;
    const char *text;
    uint32_t len, pos;
} topic_gen_t;

static inline topic_gen_t topic_gen(const topic_source_t *source,
                                    uint32_t phase)
{
    return (topic_gen_t){source->offsets, source->text, source->len, phase};
}

//  The topic of the message at the generator's position
static inline const char *topic_gen_text(const topic_gen_t *gen)
{
    return gen->text + gen->offsets[gen->pos];
}

//  On to the next sequence
static inline void topic_gen_step(topic_gen_t *gen)
{
    if (++gen->pos == gen->len)
        gen->pos = 0;
}

//  ------------------------------------------------------------------------
//  Subscribers

//  One origin as a subscription sees it
typedef struct {
    const uint32_t *prefix; //  its publisher's table, taken topics counted
    uint32_t len;           //  the table's length
    uint32_t pos;           //  the table position of the next sequence
    uint32_t phase;         //  ...of sequence 0
} topic_track_t;

typedef struct {
    bool filtered; //  takes less than some publisher sends
    size_t header; //  where the header starts in the last frame
    uint64_t consume_ns, consume_ticks; //  after each message (ticks: TSC)
    topic_track_t track[STAGE_MAX_ORIGINS];
    int nprefix;
    uint32_t *prefix[LIMIT_STAGES]; //  owned, one per publisher stage
} topic_sink_t;

//  Every origin back to sequence 0 (a trial's start)
static inline void topic_rewind(topic_sink_t *sink)
{
    for (int o = 0; o < STAGE_MAX_ORIGINS; o++)
        sink->track[o].pos = sink->track[o].phase;
}

//  Round the table: the taken topics among the next 'skip' sequences,
//  and the position after them
static inline uint64_t topic_skip(topic_track_t *track, uint64_t skip)
{
    const uint32_t *prefix = track->prefix;
    uint64_t taken = 0;
    while (skip >= track->len) { //  a whole table's worth: rare
        taken += prefix[track->len];
        skip -= track->len;
    }
    uint32_t end = track->pos + (uint32_t)skip;
    if (end >= track->len) {
        end -= track->len;
        taken += prefix[track->len] - prefix[track->pos] + prefix[end];
    } else
        taken += prefix[end] - prefix[track->pos];
    track->pos = end;
    return taken;
}

//  One message of sequence seq on a filtered subscription's track, whose
//  next expected sequence is *next: the subscribed messages it skipped
//  added to *gaps, the track one past it.  1 when it is out of place (a
//  sequence gone backwards, or a topic not subscribed to), else 0
static inline int topic_step(topic_track_t *track, uint64_t *next,
                             uint64_t *gaps, uint64_t seq)
{
    if (seq < *next)
        return 1;
    //  relaxed: the controller reads a receiver's gaps as it runs
    __atomic_store_n(gaps, *gaps + topic_skip(track, seq - *next),
                     __ATOMIC_RELAXED);
    int wrong = track->prefix[track->pos + 1] == track->prefix[track->pos];
    if (++track->pos == track->len)
        track->pos = 0;
    *next = seq + 1;
    return wrong;
}

//  A filtered subscription's sequence check (sequence_count's job, with
//  the topics it takes): only subscribed skipped messages are gaps
static inline void topic_count(stage_t *self, topic_sink_t *sink,
                               const void *data, size_t size)
{
    uint64_t header = 0;
    if (size >= sizeof header)
        memcpy(&header, data, sizeof header);
    uint64_t origin = header >> STAGE_SEQ_BITS, seq = header & STAGE_SEQ_MASK;
    topic_track_t *track =
        &sink->track[origin < STAGE_MAX_ORIGINS ? origin : 0];
    if (origin >= STAGE_MAX_ORIGINS || !track->prefix) {
        self->shared->misordered++; //  not a header of a publisher it hears
        return;
    }
    origin_t *from = &self->shared->origins[origin];
    if (sequence_other_trial(seq, from->next)) {
        self->shared->late++; //  an earlier trial's (sequence.h)
        return;
    }
    self->shared->misordered += topic_step(track, &from->next, &from->gaps, seq);
    uint64_t n = atomic_load_explicit(&from->received, memory_order_relaxed);
    atomic_store_explicit(&from->received, n + 1, memory_order_relaxed);
}

//  One message taken, its last frame's data and size: the header after
//  the topic, counted as the subscription says
static inline void topic_take(stage_t *self, topic_sink_t *sink,
                              const void *data, size_t size)
{
    if (size < sink->header) {
        self->shared->misordered++;
        return;
    }
    data = (const char *)data + sink->header;
    size -= sink->header;
    if (sink->filtered)
        topic_count(self, sink, data, size);
    else
        sequence_count(self, data, size);
}

//  A whole message, into msg (its last frame): the size of that frame,
//  or -1 (errno) as zmq_msg_recv
static inline int topic_recv(zmq_msg_t *msg, void *sock)
{
    int size = zmq_msg_recv(msg, sock, 0);
    while (size >= 0 && zmq_msg_more(msg))
        size = zmq_msg_recv(msg, sock, 0);
    return size;
}

//  Does a slow subscriber still spin on each message?  Not once the window
//  is over (STAGE_DRAINING) or it is told to stop: what is left is counted
static inline bool topic_consuming(stage_t *self)
{
    return stage_phase(self->shared) != STAGE_DRAINING &&
           !atomic_load_explicit(&self->shared->stop, memory_order_relaxed);
}

//  A slow subscriber's work on each message: its CPU busy, on the TSC
static inline void topic_consume(const topic_sink_t *sink)
{
#if defined(__x86_64__) || defined(__i386__)
    if (sink->consume_ticks) {
        uint64_t end = __rdtsc() + sink->consume_ticks;
        while (__rdtsc() < end)
            _mm_pause();
        return;
    }
#endif
    uint64_t end = mono_ns() + sink->consume_ns; //  no TSC rate known
    while (mono_ns() < end)
        ;
}

//  ------------------------------------------------------------------------
//  SETUP (topic.c); the state goes to self->topics, freed by topic_free

//  A publisher's table, texts and frames
int topic_source_new(stage_t *self, errbuf_t *err);
//  A receiver's: NULL in self->topics when it needs none (no topics on
//  the wire, everything taken, no consume_ns): the plain loops serve
int topic_sink_new(stage_t *self, errbuf_t *err);
//  Subscribe sock as the pipeline says for this subscriber: its topics
//  (or everything), its extra subscriptions, then its own guard topic
//  (0xFF 'R' id_hi id_lo) last, so that the guard's arrival upstream
//  comes after all of them on every hop; socket >= 0: socket 'socket' of
//  a receiver of several (stages/sockets.h), whose guard is 0xFF 'R'
//  id_hi id_lo hi lo
int topic_subscribe(stage_t *self, void *sock, int socket, errbuf_t *err);
void topic_free(stage_t *self);

//  What a publisher's handshake waits for: every subscription of every
//  subscriber it reaches
typedef struct topic_wait_s topic_wait_t;
topic_wait_t *topic_wait_new(stage_t *self, errbuf_t *err);
//  Has every one arrived?
bool topic_wait_done(const topic_wait_t *wait);
//  A message the publisher's XPUB handed it
void topic_wait_saw(topic_wait_t *wait, const void *data, size_t size);
//  The first subscriber whose guard or subscription has not arrived, -1
//  when none; what is missing of it, for the error
int topic_wait_missing(const topic_wait_t *wait, char *what, size_t len);
void topic_wait_destroy(topic_wait_t **wait_p);

int topic_test(bool verbose);

#endif
