/*  validate_topics: the topic keys (config/topics.h): on the stages whose
    role takes them, in pubsub, every publisher's topic_order readable and
    one topic_size, every subscribe within the topics published, and room
    in the messages for the topics' digits.
*/
#include "config/topology_internal.h"

#include "config/topics.h"

#include <string.h>

//  (topics, topic_size, topic_order) or subscribers' (subscribe,
//  subscriptions, consume_ns); every other key is anyone's
bool topology_topic_key_fits(role_t role, int k)
{
    if (k == KEY_TOPICS || k == KEY_TOPIC_SIZE || k == KEY_TOPIC_ORDER)
        return pattern_is_source(role);
    if (k == KEY_SUBSCRIBE || k == KEY_SUBSCRIPTIONS || k == KEY_CONSUME_NS ||
        k == KEY_SOCKETS)
        return pattern_is_sink(role);
    return true;
}

//  A topic key given on a stage whose role does not take it
static int s_topic_role(const topology_t *self, int i, errbuf_t *err)
{
    const topo_stage_t *stage = &self->stages[i];
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if (stage->params.set[k] && !topology_topic_key_fits(stage->role, k))
            return topology_key_error(
                self, LEVEL_STAGE, i, (param_key_t)k, err,
                "%s is a %s's key, and '%s' is not one", params_options[k].name,
                topology_topic_key_fits(ROLE_PUBLISHER, k) ? "publisher"
                                                           : "subscriber",
                stage->name);
    return 0;
}

//  sockets = N (N > 1): a pubsub subscriber's, on any host
static int s_sockets_fit(const topology_t *self, int i, const params_t *p,
                         errbuf_t *err)
{
    const topo_stage_t *stage = &self->stages[i];
    if (p->sockets <= 1 || !pattern_is_sink(stage->role))
        return 0;
    if (self->params.pattern != PATTERN_PUBSUB)
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_SOCKETS, err,
            "sockets %d on stage '%s': sockets is for the "
            "subscribers of pubsub",
            p->sockets, stage->name);
    return 0;
}

//  Topic keys off their defaults outside pubsub (consume_ns: pushpull too)
static int s_topic_pattern(const topology_t *self, int i, const params_t *p,
                           errbuf_t *err)
{
    int pattern = self->params.pattern;
    param_key_t key = p->topics > 1                 ? KEY_TOPICS
                      : p->frames > 1               ? KEY_FRAMES
                      : strcmp(p->subscribe, "all") ? KEY_SUBSCRIBE
                      : p->subscriptions            ? KEY_SUBSCRIPTIONS
                                                    : KEY_COUNT_OF_KEYS;
    if (key != KEY_COUNT_OF_KEYS && pattern != PATTERN_PUBSUB)
        return topology_key_error(self, LEVEL_STAGE, i, key, err,
                                  "%s is for pubsub (topics and subscriptions)",
                                  params_options[key].name);
    if (p->consume_ns > 0 && pattern != PATTERN_PUBSUB &&
        pattern != PATTERN_PUSHPULL)
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_CONSUME_NS, err,
            "consume_ns is for the receivers of pubsub and "
            "pushpull");
    return s_sockets_fit(self, i, p, err);
}

//  What the topic keys add up to over the stages
typedef struct {
    int most;      //  the most topics of any publisher
    int size;      //  their topic_size (the topology's when none)
    int publisher; //  a publisher stage, for messages about topic_size
    long extras;   //  extra subscriptions of every subscriber instance
} topic_sum_t;

//  Every publisher's topic_order reads, and they share one topic_size
static int s_topic_source(const topology_t *self, int i, const params_t *p,
                          topic_sum_t *sum, errbuf_t *err)
{
    topics_order_t order;
    double exponent;
    if (topics_order_parse(p->topic_order, &order, &exponent, err))
        return topology_key_error(self, LEVEL_STAGE, i, KEY_TOPIC_ORDER, err,
                                  "%s", err->msg);
    if (sum->publisher >= 0 && p->topic_size != sum->size)
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_TOPIC_SIZE, err,
            "topic_size %d: every publisher's is the same "
            "(%s has %d; receivers read the header after it)",
            p->topic_size, self->stages[sum->publisher].name, sum->size);
    if (sum->publisher < 0)
        sum->publisher = i, sum->size = p->topic_size;
    sum->most = p->topics > sum->most ? p->topics : sum->most;
    return 0;
}

static int s_topic_sum(const topology_t *self, topic_sum_t *sum, errbuf_t *err)
{
    *sum = (topic_sum_t){1, self->params.topic_size, -1, 0};
    for (int i = 0; i < self->nstages; i++) {
        params_t p;
        topology_stage_params(self, i, &p);
        if (s_topic_role(self, i, err) || s_topic_pattern(self, i, &p, err))
            return -1;
        if (pattern_is_sink(self->stages[i].role))
            sum->extras += (long)p.count * p.subscriptions;
        if (pattern_is_source(self->stages[i].role) &&
            s_topic_source(self, i, &p, sum, err))
            return -1;
    }
    return 0;
}

//  Topics' digits, and frames = 1 messages that hold topic and header
static int s_topic_room(const topology_t *self, const topic_sum_t *sum,
                        errbuf_t *err)
{
    const params_t *p = &self->params;
    int need = topics_digits((uint64_t)sum->most + (uint64_t)sum->extras);
    if (sum->size < need)
        return topology_key_error(
            self, sum->publisher >= 0 ? LEVEL_STAGE : LEVEL_TOPOLOGY,
            sum->publisher, KEY_TOPIC_SIZE, err,
            "topic_size %d is too small: %d topics and %ld "
            "extra subscriptions are numbered in %d digits",
            sum->size, sum->most, sum->extras, need);
    unsigned least = (unsigned)sum->size + (p->rate > 0 ? 16 : 8);
    for (int i = 0; i < p->sizes.n && p->frames == 1; i++)
        if (p->sizes.size[i] < least)
            return topology_key_error(
                self, LEVEL_TOPOLOGY, 0, KEY_SIZES, err,
                "a message that starts with its topic needs "
                "sizes of at least %u bytes (topic_size %d, "
                "then the %s); sizes has %u (or frames = 2)",
                least, sum->size,
                p->rate > 0 ? "sequence and send time" : "sequence",
                p->sizes.size[i]);
    return 0;
}

//  The topic keys: on the right stages, in pubsub, and consistent
int topology_validate_topics(const topology_t *self, errbuf_t *err)
{
    topic_sum_t sum;
    if (s_topic_sum(self, &sum, err))
        return -1;
    for (int i = 0; i < self->nstages; i++) {
        params_t p;
        topology_stage_params(self, i, &p);
        if (pattern_is_sink(self->stages[i].role) &&
            topics_subscribe_check(p.subscribe, sum.most, err))
            return topology_key_error(self, LEVEL_STAGE, i, KEY_SUBSCRIBE, err,
                                      "%s", err->msg);
    }
    if (sum.most > 1 || self->params.frames == 2 || sum.extras > 0)
        return s_topic_room(self, &sum, err);
    return 0;
}

