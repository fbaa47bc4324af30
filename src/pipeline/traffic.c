/*  traffic: who sends and who takes which topics (see traffic.h).

    Everything is recomputed from the pipeline's effective keys each time
    it is asked: the stages ask at SETUP, the controller once a trial.
*/
#include "pipeline/traffic.h"

#include "base/check.h"
#include "config/topics.h"

#include <stdlib.h>
#include <string.h>

int traffic_topics(const pipeline_t *pl)
{
    int most = 1;
    for (int i = 0; i < pl->n; i++)
        if (pipeline_is_source(pl, i) && pl->inst[i].params.topics > most)
            most = pl->inst[i].params.topics;
    return most;
}

bool traffic_on(const pipeline_t *pl)
{
    if (pl->params.frames == 2 || traffic_topics(pl) > 1)
        return true;
    for (int i = 0; i < pl->n; i++)
        if (pipeline_is_sink(pl, i) && pl->inst[i].params.subscriptions > 0)
            return true;
    return false;
}

int traffic_topic_size(const pipeline_t *pl)
{
    for (int i = 0; i < pl->n; i++)
        if (pipeline_is_source(pl, i))
            return pl->inst[i].params.topic_size; //  all the same
    return pl->params.topic_size;
}

size_t traffic_header_offset(const pipeline_t *pl)
{
    return pl->params.frames == 1 && traffic_on(pl)
               ? (size_t)traffic_topic_size(pl)
               : 0;
}

int traffic_subscriber(const pipeline_t *pl, int id)
{
    int q = 0;
    for (int i = 0; i < id; i++)
        q += pipeline_is_sink(pl, i);
    return q;
}

void traffic_extras(const pipeline_t *pl, int id, uint64_t *first, int *count)
{
    *first = (uint64_t)traffic_topics(pl);
    for (int i = 0; i < id; i++)
        if (pipeline_is_sink(pl, i))
            *first += (uint64_t)pl->inst[i].params.subscriptions;
    *count = pipeline_is_sink(pl, id) ? pl->inst[id].params.subscriptions : 0;
}

uint64_t traffic_numbers(const pipeline_t *pl)
{
    uint64_t first;
    int count;
    traffic_extras(pl, pl->n - 1, &first, &count);
    return first + (uint64_t)count;
}

//  Sink id's own set, into set (bits allocated)
static void s_sink_set(const pipeline_t *pl, int id, traffic_set_t *set)
{
    const char *subscribe = pl->inst[id].params.subscribe;
    set->all = topics_subscribe_all(subscribe);
    topics_subscribe_set(subscribe, set->n, traffic_subscriber(pl, id),
                         set->bits);
}

int traffic_set(const pipeline_t *pl, int id, traffic_set_t *set)
{
    set->n = traffic_topics(pl);
    set->all = false;
    set->bits = calloc(((size_t)set->n + 63) / 64, sizeof *set->bits);
    traffic_set_t one = {set->n, false,
                         calloc(((size_t)set->n + 63) / 64, sizeof *set->bits)};
    if (!set->bits || !one.bits) {
        free(one.bits);
        traffic_set_free(set);
        return -1;
    }
    set->all = pipeline_is_source(pl, id);
    for (int t = 0; t < set->n && set->all; t++)
        set->bits[t / 64] |= 1ULL << (t % 64);
    for (int j = 0; j < pl->n && !pipeline_is_source(pl, id); j++) {
        if (!pipeline_is_sink(pl, j) || !pipeline_reaches(pl, id, j))
            continue;
        s_sink_set(pl, j, &one);
        set->all |= one.all;
        for (int w = 0; w < (set->n + 63) / 64; w++)
            set->bits[w] |= one.bits[w];
    }
    free(one.bits);
    return 0;
}

//  Does sink j take a topic some publisher upstream of it sends?
static bool s_reached(const pipeline_t *pl, int j, const traffic_set_t *set)
{
    if (set->all)
        return true;
    for (int i = 0; i < pl->n; i++) {
        if (!pipeline_is_source(pl, i) || !pipeline_reaches(pl, i, j))
            continue;
        int sent = pl->inst[i].params.topics;
        for (int t = 0; t < sent && t < set->n; t++)
            if (traffic_set_has(set, (uint64_t)t))
                return true;
    }
    return false;
}

int traffic_unreached(const pipeline_t *pl)
{
    if (!traffic_on(pl) || pl->params.pattern != PATTERN_PUBSUB)
        return -1;
    for (int j = 0; j < pl->n; j++) {
        if (!pipeline_is_sink(pl, j))
            continue;
        traffic_set_t set;
        if (traffic_set(pl, j, &set))
            return -2;
        bool reached = s_reached(pl, j, &set);
        traffic_set_free(&set);
        if (!reached)
            return j;
    }
    return -1;
}

int traffic_check_reached(const pipeline_t *pl, errbuf_t *err)
{
    int j = traffic_unreached(pl);
    if (j == -2)
        return err_set(err, "the topics' sets: out of memory");
    if (j < 0)
        return 0;
    const instance_t *sink = &pl->inst[j];
    int sent = 0; //  the most topics of a publisher upstream of it
    for (int i = 0; i < pl->n; i++)
        if (pipeline_is_source(pl, i) && pipeline_reaches(pl, i, j) &&
            pl->inst[i].params.topics > sent)
            sent = pl->inst[i].params.topics;
    return topology_key_error(pl->topo, LEVEL_STAGE, sink->stage, KEY_SUBSCRIBE,
                              err,
                              "subscriber %s (subscribe = %s) takes no topic "
                              "its publishers send (0 to %d): nothing can "
                              "arrive",
                              sink->name, sink->params.subscribe, sent - 1);
}

void traffic_set_free(traffic_set_t *set)
{
    free(set->bits);
    set->bits = NULL;
}

uint32_t *traffic_table(const pipeline_t *pl, int stage, uint32_t *len)
{
    const params_t *p = &pl->inst[pl->first[stage]].params;
    topics_order_t order;
    double exponent;
    errbuf_t ignored; //  checked by topology_validate
    if (topics_order_parse(p->topic_order, &order, &exponent, &ignored))
        order = TOPICS_ROUNDROBIN;
    *len = topics_period(p->topics);
    uint32_t *table = malloc((size_t)*len * sizeof *table);
    if (table && topics_table(p->topics, order, exponent, pl->params.seed,
                              table, *len)) {
        free(table);
        table = NULL;
    }
    return table;
}

uint32_t traffic_phase(const pipeline_t *pl, int origin, uint32_t len)
{
    return topics_phase(pl->params.seed, origin, len);
}

uint32_t *traffic_prefix(const uint32_t *table, uint32_t len,
                         const traffic_set_t *set)
{
    uint32_t *prefix = malloc(((size_t)len + 1) * sizeof *prefix);
    if (!prefix)
        return NULL;
    prefix[0] = 0;
    for (uint32_t i = 0; i < len; i++)
        prefix[i + 1] =
            prefix[i] + (set->all || traffic_set_has(set, table[i]));
    return prefix;
}

uint64_t traffic_taken(const uint32_t *prefix, uint32_t len, uint32_t phase,
                       uint64_t n)
{
    uint64_t taken = n / len * prefix[len];
    uint64_t end = phase + n % len; //  the rest: [phase, end) round the table
    if (end <= len)
        return taken + prefix[end] - prefix[phase];
    return taken + prefix[len] - prefix[phase] + prefix[end - len];
}

int traffic_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    const char *text = "topology = t\n    topics = 100\n    sizes = 64\n"
                       "    subscriptions = 3\n"
                       "publisher = pub\n    count = 2\n"
                       "hop\nproxy = p\nhop\n"
                       "subscriber = sub\n    count = 4\n"
                       "    subscribe = 25%\n";
    pipeline_fixture_t f;
    CHECK(pipeline_fixture_new(&f, text, &err) == 0);
    const pipeline_t *pl = f.pl;
    CHECK(traffic_on(pl) && traffic_topics(pl) == 100);
    CHECK(traffic_header_offset(pl) == 8 && traffic_subscriber(pl, 5) == 2);
    uint64_t first;
    int count;
    traffic_extras(pl, 4, &first, &count);
    CHECK(first == 103 && count == 3 && traffic_numbers(pl) == 112);
    //  the proxy takes the union: all 100; a subscriber 25 of them
    traffic_set_t sub, proxy;
    CHECK(traffic_set(pl, 3, &sub) == 0 && traffic_set(pl, 2, &proxy) == 0);
    uint32_t len, *table = traffic_table(pl, 0, &len);
    CHECK(table && len % 100 == 0);
    uint32_t *all = traffic_prefix(table, len, &proxy);
    uint32_t *some = traffic_prefix(table, len, &sub);
    CHECK(all && some && all[len] == len && some[len] == len / 4);
    //  taken over a stretch: counted one by one
    uint32_t phase = traffic_phase(pl, 1, len);
    uint64_t n = 3 * (uint64_t)len + 12345, counted = 0;
    for (uint64_t seq = 0; seq < n; seq++)
        counted += traffic_set_has(&sub, table[(phase + seq) % len]);
    CHECK(traffic_taken(some, len, phase, n) == counted);
    CHECK(traffic_taken(all, len, phase, n) == n);
    free(table);
    free(all);
    free(some);
    traffic_set_free(&sub);
    traffic_set_free(&proxy);
    pipeline_fixture_free(&f);
    return 0;
}
