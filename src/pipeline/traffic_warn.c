/*  traffic_warn: uneven shares and topics nobody sends (see
    traffic_warn.h).

    A subscriber instance's share is the mean, over the publisher
    instances that reach it, of the part of that publisher's table whose
    topics it takes: what it would get of their messages at equal rates.
    Tables are counted once per publisher stage (count[t]: topic t's
    entries); a set's part is a sum over its topics.
*/
#include "pipeline/traffic_warn.h"

#include "base/check.h"
#include "config/topics.h"
#include "pipeline/traffic.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  Each publisher stage's entries per topic (n of them) and table length
typedef struct {
    int n;
    uint32_t *count[TOPO_MAX_STAGES];
    uint32_t len[TOPO_MAX_STAGES];
} weights_t;

static void s_weights_free(weights_t *w)
{
    for (int s = 0; s < TOPO_MAX_STAGES; s++)
        free(w->count[s]);
}

static int s_weights(const pipeline_t *pl, weights_t *w)
{
    memset(w, 0, sizeof *w);
    w->n = traffic_topics(pl);
    for (int s = 0; s < pl->nstages; s++) {
        if (!pipeline_is_source(pl, pl->first[s]))
            continue;
        uint32_t *table = traffic_table(pl, s, &w->len[s]);
        w->count[s] = calloc((size_t)w->n, sizeof *w->count[s]);
        if (!table || !w->count[s]) {
            free(table);
            return -1;
        }
        for (uint32_t i = 0; i < w->len[s]; i++)
            w->count[s][table[i]]++;
        free(table);
    }
    return 0;
}

//  Sink id's share of its publishers' messages, from its set
static double s_share(const pipeline_t *pl, const weights_t *w, int id,
                      const traffic_set_t *set)
{
    double sum = 0;
    int publishers = 0;
    for (int i = 0; i < pl->n; i++) {
        int s = pl->inst[i].stage;
        if (!pipeline_is_source(pl, i) || !pipeline_reaches(pl, i, id))
            continue;
        uint64_t taken = 0;
        for (int t = 0; t < w->n; t++)
            taken += traffic_set_has(set, (uint64_t)t) ? w->count[s][t] : 0;
        sum += (double)taken / w->len[s];
        publishers++;
    }
    return publishers ? sum / publishers : 0;
}

//  A count or a share (not all, not a list): the same text, different sets
static bool s_numbered(const char *subscribe)
{
    return !topics_subscribe_all(subscribe) && !strpbrk(subscribe, ",-");
}

//  ------------------------------------------------------------------------
//  Uneven shares

typedef struct {
    double ratio;    //  the most uneven value's largest over smallest share
    int most, least; //  a stage's first instance at each end
    double high, low; //  those stages' shares (their instances' mean)
} uneven_t;

//  Stage s's share: the mean of its instances'
static double s_stage_share(const pipeline_t *pl, const double *share, int s)
{
    double sum = 0;
    for (int j = pl->first[s]; j < pl->first[s] + pl->count[s]; j++)
        sum += share[j];
    return pl->count[s] ? sum / pl->count[s] : 0;
}

//  Of the subscriber stages naming stage first's subscribe, the largest
//  and smallest share, into u when they are further apart than u's.
//  Stages, not instances: one stage's instances take different topics
//  by design (its rows show each one's selectivity); what surprises is
//  two stages (regions) of one "equal" share getting unequal traffic,
//  because instances are numbered across the whole file
static void s_uneven_of(const pipeline_t *pl, const double *share, int first,
                        uneven_t *u)
{
    const char *text = pl->inst[pl->first[first]].params.subscribe;
    int most = first, least = first;
    double high = s_stage_share(pl, share, first), low = high;
    for (int s = first + 1; s < pl->nstages; s++) {
        int j = pl->first[s];
        if (!pipeline_is_sink(pl, j) || strcmp(pl->inst[j].params.subscribe, text))
            continue;
        double mean = s_stage_share(pl, share, s);
        if (mean > high)
            high = mean, most = s;
        if (mean < low)
            low = mean, least = s;
    }
    double ratio = low > 0 ? high / low : 1e9;
    if (most != least && ratio > u->ratio)
        *u = (uneven_t){ratio, pl->first[most], pl->first[least], high, low};
}

//  A line about stage s's subscribe key, after where it took its value,
//  added to out
static void s_say(const pipeline_t *pl, int s, char *out, size_t len,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void s_say(const pipeline_t *pl, int s, char *out, size_t len,
                  const char *fmt, ...)
{
    char where[300];
    size_t used = strlen(out);
    topology_where(pl->topo, LEVEL_STAGE, s, KEY_SUBSCRIBE, where,
                   sizeof where);
    if (used + 1 >= len)
        return;
    snprintf(out + used, len - used, "%s", where);
    used += strlen(out + used);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, len - used, fmt, ap);
    va_end(ap);
}

static void s_say_uneven(const pipeline_t *pl, const uneven_t *u, char *out,
                         size_t len)
{
    const instance_t *most = &pl->inst[u->most], *least = &pl->inst[u->least];
    const char *order = "";
    for (int i = 0; i < pl->n && !order[0]; i++)
        if (pipeline_is_source(pl, i) && pipeline_reaches(pl, i, u->most))
            order = pl->inst[i].params.topic_order;
    s_say(pl, most->stage, out, len,
          "subscribe = %s: each of %s's subscribers takes %.1f %% of "
          "its publishers' messages on average, of %s's %.1f %% (%.1f "
          "times as much): instance q "
          "of all the file's subscribers (from 0) takes topics q, q + s, "
          "q + 2s, ..., and topic_order %s weighs them unevenly; for "
          "equal shares use topic_order = uniform, or a list per stage "
          "(subscribe = 0-99)\n",
          most->params.subscribe, pl->topo->stages[most->stage].name,
          100 * u->high, pl->topo->stages[least->stage].name, 100 * u->low,
          u->ratio, order);
}

//  ------------------------------------------------------------------------
//  Topics nobody upstream sends

//  The most topics of a publisher that reaches sink id
static int s_sent(const pipeline_t *pl, int id)
{
    int sent = 0;
    for (int i = 0; i < pl->n; i++)
        if (pipeline_is_source(pl, i) && pipeline_reaches(pl, i, id) &&
            pl->inst[i].params.topics > sent)
            sent = pl->inst[i].params.topics;
    return sent;
}

//  Sink id, when its set is partly beyond what its publishers send: a
//  line for it, unless one of its stage has had one (said)
static void s_beyond(const pipeline_t *pl, int id, const traffic_set_t *set,
                     bool *said, char *out, size_t len)
{
    int sent = s_sent(pl, id), first = -1, last = -1, below = 0;
    for (int t = 0; t < set->n; t++)
        if (traffic_set_has(set, (uint64_t)t)) {
            below += t < sent;
            first = t >= sent && first < 0 ? t : first;
            last = t >= sent ? t : last;
        }
    const instance_t *sink = &pl->inst[id];
    if (set->all || first < 0 || below == 0 || said[sink->stage])
        return;
    said[sink->stage] = true;
    s_say(pl, sink->stage, out, len,
          "subscriber %s (subscribe = %s) takes topics %d to %d of which "
          "its publishers send none (they send 0 to %d): those "
          "subscriptions can never match\n",
          sink->name, sink->params.subscribe, first, last, sent - 1);
}

//  ------------------------------------------------------------------------

int traffic_warnings(const pipeline_t *pl, char *out, size_t len)
{
    out[0] = 0;
    if (!traffic_on(pl) || pl->params.pattern != PATTERN_PUBSUB)
        return 0;
    weights_t w;
    bool said[TOPO_MAX_STAGES] = {false};
    double *share = calloc((size_t)pl->n, sizeof *share);
    int rc = share ? s_weights(pl, &w) : -1;
    for (int j = 0; j < pl->n && rc == 0; j++) {
        traffic_set_t set;
        if (!pipeline_is_sink(pl, j))
            continue;
        if (traffic_set(pl, j, &set)) {
            rc = -1;
            break;
        }
        share[j] = s_share(pl, &w, j, &set);
        s_beyond(pl, j, &set, said, out, len);
        traffic_set_free(&set);
    }
    uneven_t u = {TRAFFIC_UNEVEN, -1, -1, 0, 0};
    for (int s = 0; s < pl->nstages && rc == 0; s++)
        if (pipeline_is_sink(pl, pl->first[s]) &&
            s_numbered(pl->inst[pl->first[s]].params.subscribe))
            s_uneven_of(pl, share, s, &u);
    if (rc == 0 && u.most >= 0)
        s_say_uneven(pl, &u, out, len);
    if (share)
        s_weights_free(&w);
    free(share);
    return rc;
}

//  ------------------------------------------------------------------------
//  Selftest

//  The warnings of a topology's text, into out
static int s_warned(const char *text, char *out, size_t len)
{
    errbuf_t err;
    pipeline_fixture_t f;
    int rc = pipeline_fixture_new(&f, text, &err) == 0
                 ? traffic_warnings(f.pl, out, len)
                 : -1;
    pipeline_fixture_free(&f);
    return rc;
}

int traffic_warn_test(bool verbose)
{
    (void)verbose;
    char out[2048];
    //  two regions of "5 %" under one zipf feed: eu-sub.1 is number 0
    const char *regions = "topology = t\n    sizes = 64\n"
                          "publisher = pub\n    topics = 40\n"
                          "    topic_order = %s\nhop\nproxy = core\n"
                          "proxy = eu\n    from = core\nhop\n"
                          "subscriber = eu-sub\n    count = 2\n"
                          "    subscribe = 5%%\n"
                          "proxy = us\n    from = core\nhop\n"
                          "subscriber = us-sub\n    count = 2\n"
                          "    subscribe = 5%%\n";
    char text[1024];
    snprintf(text, sizeof text, regions, "zipf:1.1");
    CHECK(s_warned(text, out, sizeof out) == 0);
    CHECK(strstr(out, "t.cfg:13: subscribe = 5%: each of eu-sub's "
                      "subscribers takes 20.9 % of its publishers' messages "
                      "on average, of us-sub's 7.9 % (2.7 times as much)"));
    CHECK(strstr(out, "zipf:1.1"));
    //  one stage's instances: different topics by design, no warning
    CHECK(s_warned("topology = t\n    sizes = 64\npublisher = pub\n"
                   "    topics = 40\n    topic_order = zipf:1.1\nhop\n"
                   "subscriber = sub\n    count = 8\n    subscribe = 10%\n",
                   out, sizeof out) == 0 &&
          out[0] == 0);
    snprintf(text, sizeof text, regions, "uniform");
    CHECK(s_warned(text, out, sizeof out) == 0 && out[0] == 0);
    //  a region of 10 topics whose subscriber asks for 0-20
    CHECK(s_warned("topology = t\n    sizes = 64\n"
                   "publisher = a\n    topics = 10\nhop\nsubscriber = x\n"
                   "    subscribe = 0-20\n"
                   "publisher = b\n    topics = 30\nhop\nsubscriber = y\n",
                   out, sizeof out) == 0);
    CHECK(strstr(
        out, "t.cfg:7: subscriber x (subscribe = 0-20) takes topics 10 to 20 "
             "of which its publishers send none (they send 0 to 9)"));
    CHECK(!strstr(out, "subscriber y"));
    return 0;
}
