/*  topic: the topic state of a publisher and of a subscriber, made at
    their first SETUP and kept for every trial of the combination (its
    keys do not change), freed when the stage ends; the subscriptions a
    subscriber makes; what a publisher's handshake waits for.  See
    topic.h.
*/
#include "stages/topic.h"

#include "base/check.h"
#include "config/topics.h"
#include "machine/tsc.h"
#include "pipeline/traffic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

//  ------------------------------------------------------------------------
//  A publisher's

int topic_source_new(stage_t *self, errbuf_t *err)
{
    const pipeline_t *pl = self->pl;
    if (self->topics || !traffic_on(pl))
        return 0;
    int n = self->inst->params.topics, size = traffic_topic_size(pl);
    topic_source_t *source = calloc(1, sizeof *source);
    uint32_t len = 0, *table = traffic_table(pl, self->inst->stage, &len);
    char *text = malloc((size_t)n * (size_t)size);
    if (!source || !table || !text) {
        free(source);
        free(table);
        free(text);
        return err_set(err, "topics: no memory for %d topics", n);
    }
    for (int t = 0; t < n; t++)
        topics_text((uint64_t)t, size, text + (size_t)t * (size_t)size);
    for (uint32_t i = 0; i < len; i++) //  n * size < 2^32 (limits.h)
        table[i] *= (uint32_t)size;
    *source = (topic_source_t){
        table, len, text, size, pl->params.frames, traffic_header_offset(pl)};
    self->topics = source;
    return 0;
}

//  ------------------------------------------------------------------------
//  A subscriber's

//  A subscriber's TSC ticks for consume_ns; 0 when the rate is unknown
static uint64_t s_ticks(int consume_ns)
{
    char source[32];
    double hz = consume_ns > 0 ? tsc_hz(source, sizeof source) : 0;
    return (uint64_t)(consume_ns * hz / 1e9);
}

//  Each publisher stage that reaches the sink: its table's taken topics,
//  and every one of its origins' tracks
static int s_tracks(stage_t *self, topic_sink_t *sink, const traffic_set_t *set)
{
    const pipeline_t *pl = self->pl;
    for (int s = 0; s < pl->nstages; s++) {
        int first = pl->first[s];
        if (!pipeline_is_source(pl, first) ||
            !pipeline_reaches(pl, first, self->inst->id))
            continue;
        uint32_t len, *table = traffic_table(pl, s, &len);
        uint32_t *prefix = table ? traffic_prefix(table, len, set) : NULL;
        free(table);
        if (!prefix)
            return -1;
        sink->prefix[sink->nprefix++] = prefix;
        sink->filtered |= prefix[len] != len;
        for (int u = 0; u < pl->count[s]; u++) {
            int o = pl->inst[first + u].origin;
            uint32_t phase = traffic_phase(pl, o, len);
            sink->track[o] = (topic_track_t){prefix, len, phase, phase};
        }
    }
    return 0;
}

int topic_sink_new(stage_t *self, errbuf_t *err)
{
    const pipeline_t *pl = self->pl;
    int consume = self->inst->params.consume_ns;
    if (self->topics || (!traffic_on(pl) && consume == 0))
        return 0;
    topic_sink_t *sink = calloc(1, sizeof *sink);
    traffic_set_t set = {0};
    int rc = sink ? traffic_set(pl, self->inst->id, &set) : -1;
    if (rc == 0) {
        sink->header = traffic_header_offset(pl);
        sink->consume_ns = (uint64_t)consume;
        sink->consume_ticks = s_ticks(consume);
        self->topics = sink;
        if (traffic_on(pl) && !set.all)
            rc = s_tracks(self, sink, &set);
    }
    traffic_set_free(&set);
    if (rc == 0)
        return 0;
    if (self->topics)
        topic_free(self);
    else
        free(sink);
    return err_set(err, "topics: no memory for the subscription's tables");
}

//  ------------------------------------------------------------------------
//  Subscriptions

static int s_subscribe(void *sock, const void *prefix, size_t len,
                       errbuf_t *err)
{
    if (zmq_setsockopt(sock, ZMQ_SUBSCRIBE, prefix, len))
        return err_set(err, "ZMQ_SUBSCRIBE: %s", zmq_strerror(errno));
    return 0;
}

int topic_subscribe(stage_t *self, void *sock, int socket, errbuf_t *err)
{
    const pipeline_t *pl = self->pl;
    int id = self->inst->id, size = traffic_topic_size(pl), count, rc = 0;
    uint8_t guard[6] = {0xFF,
                        'R',
                        (uint8_t)(id >> 8),
                        (uint8_t)id,
                        (uint8_t)(socket >> 8),
                        (uint8_t)socket};
    char text[LIMIT_TOPIC_SIZE];
    uint64_t first;
    traffic_set_t set;
    if (traffic_set(pl, id, &set))
        return err_set(err, "topics: no memory for the subscription");
    if (set.all || !traffic_on(pl))
        rc = s_subscribe(sock, "", 0, err);
    for (uint64_t t = 0; t < (uint64_t)set.n && rc == 0 && !set.all; t++)
        if (traffic_set_has(&set, t)) {
            topics_text(t, size, text);
            rc = s_subscribe(sock, text, (size_t)size, err);
        }
    traffic_set_free(&set);
    traffic_extras(pl, id, &first, &count);
    for (int j = 0; j < count && rc == 0; j++) {
        topics_text(first + (uint64_t)j, size, text);
        rc = s_subscribe(sock, text, (size_t)size, err);
    }
    return rc ? rc : s_subscribe(sock, guard, socket < 0 ? 4 : 6, err);
}

void topic_free(stage_t *self)
{
    if (!self->topics)
        return;
    if (pipeline_is_source(self->pl, self->inst->id)) {
        topic_source_t *source = self->topics;
        free(source->offsets);
        free(source->text);
    } else {
        topic_sink_t *sink = self->topics;
        for (int i = 0; i < sink->nprefix; i++)
            free(sink->prefix[i]);
    }
    free(self->topics);
    self->topics = NULL;
}

//  ------------------------------------------------------------------------
//  A publisher's handshake

struct topic_wait_s {
    const stage_t *self;
    uint64_t numbers;        //  subscription numbers: topics, extras
    uint64_t *need, *seen;   //  a bit each
    bool need_all, seen_all; //  the empty prefix (subscribe = all)
    uint64_t missing;        //  needed and not seen yet
    int size;                //  topic_size
};

static bool s_bit(const uint64_t *bits, uint64_t i)
{
    return bits[i / 64] >> (i % 64) & 1;
}

static void s_set_bit(uint64_t *bits, uint64_t i)
{
    bits[i / 64] |= 1ULL << (i % 64);
}

//  The sinks this publisher reaches, one after another (-1 to start)
static int s_next_sink(const stage_t *self, int after)
{
    const pipeline_t *pl = self->pl;
    for (int j = after + 1; j < pl->n; j++)
        if (pipeline_is_sink(pl, j) && pipeline_reaches(pl, self->inst->id, j))
            return j;
    return -1;
}

//  What sink j subscribes to, as bits over wait's numbers (into need)
static int s_needs(const topic_wait_t *wait, int j, uint64_t *need, bool *all)
{
    const pipeline_t *pl = wait->self->pl;
    traffic_set_t set;
    uint64_t first;
    int count;
    if (traffic_set(pl, j, &set))
        return -1;
    *all = set.all || !traffic_on(pl);
    for (uint64_t t = 0; t < (uint64_t)set.n && !*all; t++)
        if (traffic_set_has(&set, t))
            s_set_bit(need, t);
    traffic_set_free(&set);
    traffic_extras(pl, j, &first, &count);
    for (int k = 0; k < count; k++)
        s_set_bit(need, first + (uint64_t)k);
    return 0;
}

topic_wait_t *topic_wait_new(stage_t *self, errbuf_t *err)
{
    topic_wait_t *wait = calloc(1, sizeof *wait);
    uint64_t numbers = traffic_numbers(self->pl), words = numbers / 64 + 1;
    if (wait) {
        *wait = (topic_wait_t){self,
                               numbers,
                               calloc(words, 8),
                               calloc(words, 8),
                               false,
                               false,
                               0,
                               traffic_topic_size(self->pl)};
    }
    int rc = wait && wait->need && wait->seen ? 0 : -1;
    for (int j = s_next_sink(self, -1); j >= 0 && rc == 0;
         j = s_next_sink(self, j)) {
        bool all;
        rc = s_needs(wait, j, wait->need, &all);
        wait->need_all |= all;
    }
    for (uint64_t w = 0; w < words && rc == 0; w++)
        wait->missing += (uint64_t)__builtin_popcountll(wait->need[w]);
    if (rc == 0) {
        wait->missing += wait->need_all;
        return wait;
    }
    topic_wait_destroy(&wait);
    err_set(err, "topics: no memory for the handshake's %llu subscriptions",
            (unsigned long long)numbers);
    return NULL;
}

//  The number a subscription's topic_size digits spell, or UINT64_MAX
static uint64_t s_number(const uint8_t *digits, int size)
{
    uint64_t n = 0;
    for (int i = 0; i < size; i++) {
        if (digits[i] < '0' || digits[i] > '9')
            return UINT64_MAX;
        n = n * 10 + (uint64_t)(digits[i] - '0');
    }
    return n;
}

void topic_wait_saw(topic_wait_t *wait, const void *data, size_t size)
{
    const uint8_t *bytes = data;
    if (size < 1 || bytes[0] != 1)
        return; //  not a subscription
    if (size == 1 && wait->need_all && !wait->seen_all) {
        wait->seen_all = true;
        wait->missing--;
        return;
    }
    uint64_t n = size == (size_t)wait->size + 1
                     ? s_number(bytes + 1, wait->size)
                     : UINT64_MAX;
    if (n < wait->numbers && s_bit(wait->need, n) && !s_bit(wait->seen, n)) {
        s_set_bit(wait->seen, n);
        wait->missing--;
    }
}

bool topic_wait_done(const topic_wait_t *wait)
{
    return wait->missing == 0;
}

int topic_wait_missing(const topic_wait_t *wait, char *what, size_t len)
{
    if (wait->missing == 0)
        return -1;
    uint64_t *need = calloc(wait->numbers / 64 + 1, 8);
    int found = -1;
    for (int j = s_next_sink(wait->self, -1); j >= 0 && need && found < 0;
         j = s_next_sink(wait->self, j)) {
        bool all;
        memset(need, 0, (wait->numbers / 64 + 1) * 8);
        if (s_needs(wait, j, need, &all))
            break;
        if (all && !wait->seen_all) {
            snprintf(what, len, "subscription to every topic");
            found = j;
        }
        for (uint64_t n = 0; n < wait->numbers && found < 0; n++)
            if (s_bit(need, n) && !s_bit(wait->seen, n)) {
                char text[LIMIT_TOPIC_SIZE + 1] = {0};
                topics_text(n, wait->size, text);
                snprintf(what, len, "subscription to %s", text);
                found = j;
            }
    }
    free(need);
    return found;
}

void topic_wait_destroy(topic_wait_t **wait_p)
{
    topic_wait_t *wait = *wait_p;
    if (!wait)
        return;
    free(wait->need);
    free(wait->seen);
    free(wait);
    *wait_p = NULL;
}

//  ------------------------------------------------------------------------
//  Selftest: a subscriber's count and a publisher's wait, on a pipeline
//  of one publisher of 100 topics, a proxy and two subscribers of 25 %

static int s_test_count(stage_t *sub)
{
    CHECK(topic_sink_new(sub, &(errbuf_t){0}) == 0 && sub->topics);
    topic_sink_t *sink = sub->topics;
    CHECK(sink->filtered && sink->header == 8);
    topic_rewind(sink);
    //  the sequences of origin 0 whose topic it takes, every other one
    uint32_t *prefix = sink->prefix[0], len = sink->track[0].len;
    uint32_t phase = sink->track[0].phase;
    uint64_t taken = 0, skipped = 0;
    char message[16] = {0};
    for (uint64_t seq = 0; seq < 2000; seq++) {
        uint32_t pos = (uint32_t)((phase + seq) % len);
        if (prefix[pos + 1] == prefix[pos])
            continue;
        if (taken++ % 2) {
            skipped++;
            continue;
        }
        sequence_write(message + 8, sequence_header(0, seq));
        topic_take(sub, sink, message, sizeof message);
    }
    const origin_t *from = &sub->shared->origins[0];
    CHECK(from->gaps == skipped - (taken % 2 == 0)); //  not the last one
    CHECK(sub->shared->misordered == 0);
    CHECK(atomic_load(&from->received) == taken - skipped);
    //  a message of a topic it does not take counts as misordered
    for (uint64_t seq = 2000;; seq++)
        if (prefix[(phase + seq) % len + 1] == prefix[(phase + seq) % len]) {
            sequence_write(message + 8, sequence_header(0, seq));
            topic_take(sub, sink, message, sizeof message);
            break;
        }
    CHECK(sub->shared->misordered == 1);
    //  the next trial (epoch 2): what the last one left in a queue is
    //  late, on a filtered subscription and a plain one alike
    stage_reset(sub->shared, &(stage_trial_t){.size = 16, .epoch = 2});
    topic_rewind(sink);
    sequence_write(message + 8, sequence_header(0, 2001));
    topic_take(sub, sink, message, sizeof message);
    sequence_write(message + 8, sequence_header(sequence_base(1, 0), 7));
    sequence_count(sub, message + 8, 8);
    CHECK(sub->shared->late == 2 && sub->shared->misordered == 0);
    sequence_write(message + 8, sequence_header(sequence_base(1, 2), 0));
    sequence_count(sub, message + 8, 8);
    CHECK(atomic_load(&sub->shared->origins[1].received) == 1);
    CHECK(atomic_load(&from->received) == 0 && from->gaps == 0);
    topic_free(sub);
    return 0;
}

static int s_test_wait(stage_t *pub)
{
    topic_wait_t *wait = topic_wait_new(pub, &(errbuf_t){0});
    CHECK(wait && !topic_wait_done(wait));
    char what[80], sub[10] = {1};
    int missing = topic_wait_missing(wait, what, sizeof what);
    CHECK(missing == 2 && strcmp(what, "subscription to 00000000") == 0);
    //  subscriber 0 takes 0, 4, 8, ..; subscriber 1 1, 5, ..; then each
    //  its 3 extra subscriptions, 100 .. 105
    for (int t = 0; t < 106; t++) {
        topics_text((uint64_t)t, 8, sub + 1);
        if (t != 5)
            topic_wait_saw(wait, sub, 9);
    }
    CHECK(!topic_wait_done(wait));
    CHECK(topic_wait_missing(wait, what, sizeof what) == 3);
    CHECK(strcmp(what, "subscription to 00000005") == 0);
    topics_text(5, 8, sub + 1);
    topic_wait_saw(wait, sub, 9);
    topic_wait_saw(wait, sub, 9); //  twice is once
    CHECK(topic_wait_done(wait) && topic_wait_missing(wait, what, 80) < 0);
    topic_wait_destroy(&wait);
    return 0;
}

int topic_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    const char *text = "topology = t\n    sizes = 64\n"
                       "publisher = pub\n    topics = 100\n"
                       "hop\nproxy = p\nhop\n"
                       "subscriber = sub\n    count = 2\n"
                       "    subscribe = 25%\n    subscriptions = 3\n";
    pipeline_fixture_t f;
    stage_shared_t *shared = calloc(1, sizeof *shared);
    CHECK(pipeline_fixture_new(&f, text, &err) == 0 && shared);
    const pipeline_t *pl = f.pl;
    stage_t pub = {.pl = pl, .inst = &pl->inst[0], .shared = shared};
    stage_t sub = {.pl = pl, .inst = &pl->inst[2], .shared = shared};
    int rc = s_test_count(&sub);
    if (rc == 0)
        rc = s_test_wait(&pub);
    free(shared);
    pipeline_fixture_free(&f);
    return rc;
}
