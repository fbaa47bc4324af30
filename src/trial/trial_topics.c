/*  trial_topics: what a trial's counters mean when subscriptions filter.

    An XPUB sends a peer only the messages its subscriptions match, so a
    link's upstream counter (messages handed to the socket) is not what
    the link carried.  What it should have carried is known without
    asking libzmq: the topic of every message is a function of (origin,
    sequence, seed) (config/topics.h), the sources' counters say how many
    each sent, and the downstream's set says which topics it takes (a
    proxy's: the union of the subscribers below it, pipeline/traffic.h).

        published  P(l)   messages of the downstream's topics that l's
                          sources sent
        expected   E(l) = P(l) - A(l), A(l): what the links above l's
                          upstream lost of those topics
        lost       E(l) - received(l)
        selectivity       P(l) / what l's sources sent

    A link whose downstream takes everything keeps expected = sent, so its
    row is what it was before topics.  A(l) is exact when nothing was lost
    above, or when every message the link above carried is of the
    downstream's topics.  Otherwise (flood or search, a proxy whose
    upstream dropped, subscribers below it taking different topics) the
    counters cannot tell whose topics were dropped: A(l) takes the loss
    above in proportion to the downstream's share of it, within the bounds
    the counts allow, and the trial warns.  Where a proxy's children take
    disjoint topics one copy each, every message it received went down one
    child link: no child link lost more than the proxy received less what
    the children received (none, when they took it all).  A subscriber's
    own loss (lost of its link plus A) is exact either way, and is what
    trial_counters_verify holds against its sequence numbers.
    A module with its own state (the tables, each set's counts), made for
    a pipeline and its links and fed the snapshots; the selftest holds it
    to docs/TOPICS.md's worked example.
*/
#include "trial/trial_topics.h"

#include "base/check.h"
#include "config/topics.h"
#include "pipeline/traffic.h"
#include "trial/trial_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct trial_topics_s {
    const pipeline_t *pl;
    const link_t *links;
    int nlinks;
    int nstages;
    uint32_t len[TOPO_MAX_STAGES];     //  each publisher stage's table
    uint32_t phase[STAGE_MAX_ORIGINS]; //  each origin's start in it
    int source[STAGE_MAX_ORIGINS];     //  each origin's instance
    uint32_t *table[TOPO_MAX_STAGES];  //  each publisher stage's
    uint32_t **prefix; //  [instance * nstages + stage], made when needed
    bool filters[PIPELINE_MAX_INSTANCES]; //  takes less than is sent it
    bool estimated; //  an A(l) this trial could not know exactly
};

//  The counts instance id's set takes of publisher stage s's table
static const uint32_t *s_prefix(trial_topics_t *t, int id, int s)
{
    uint32_t **slot = &t->prefix[id * t->nstages + s];
    if (*slot)
        return *slot;
    traffic_set_t set;
    uint32_t len;
    if (!t->table[s])
        t->table[s] = traffic_table(t->pl, s, &len);
    if (t->table[s] && traffic_set(t->pl, id, &set) == 0) {
        *slot = traffic_prefix(t->table[s], t->len[s], &set);
        traffic_set_free(&set);
    }
    return *slot;
}

int trial_topics_new(trial_topics_t **self_p, const pipeline_t *pl,
                     const link_t *links, int nlinks)
{
    *self_p = NULL;
    if (!traffic_on(pl))
        return 0;
    trial_topics_t *t = calloc(1, sizeof *t);
    if (!t || !(t->prefix = calloc((size_t)pl->n * (size_t)pl->nstages,
                                   sizeof *t->prefix))) {
        free(t);
        return -1;
    }
    *t = (trial_topics_t){.pl = pl,
                          .links = links,
                          .nlinks = nlinks,
                          .nstages = pl->nstages,
                          .prefix = t->prefix};
    *self_p = t;
    for (int s = 0; s < pl->nstages; s++)
        if (pipeline_is_source(pl, pl->first[s]))
            t->len[s] = topics_period(pl->inst[pl->first[s]].params.topics);
    for (int i = 0; i < pl->n; i++) {
        int o = pl->inst[i].origin;
        if (o >= 0) {
            t->source[o] = i;
            t->phase[o] = traffic_phase(pl, o, t->len[pl->inst[i].stage]);
        }
    }
    for (int i = 0; i < pl->n; i++)
        for (int o = 0; o < pl->norigins && !pipeline_is_source(pl, i); o++) {
            int s = pl->inst[t->source[o]].stage;
            const uint32_t *prefix = pipeline_reaches(pl, t->source[o], i)
                                         ? s_prefix(t, i, s)
                                         : NULL;
            if (pipeline_reaches(pl, t->source[o], i) && !prefix)
                return -1;
            t->filters[i] |= prefix && prefix[t->len[s]] != t->len[s];
        }
    return 0;
}

void trial_topics_destroy(trial_topics_t **self_p)
{
    trial_topics_t *t = *self_p;
    if (!t)
        return;
    for (int i = 0; i < t->pl->n * t->nstages && t->prefix; i++)
        free(t->prefix[i]);
    for (int s = 0; s < t->nstages; s++)
        free(t->table[s]);
    free(t->prefix);
    free(t);
    *self_p = NULL;
}

bool trial_topics_filters(const trial_topics_t *self, int id)
{
    return self && self->filters[id];
}

bool trial_topics_estimated(const trial_topics_t *self)
{
    return self && self->estimated;
}

//  Of origin o's sequences [0, n), those instance id's set takes
static uint64_t s_taken(trial_topics_t *t, int id, int o, uint64_t n)
{
    int s = t->pl->inst[t->source[o]].stage;
    return traffic_taken(s_prefix(t, id, s), t->len[s], t->phase[o], n);
}

//  What the sources of link l sent of set_id's topics, by snap
static uint64_t s_published(trial_topics_t *t, const snapshot_t *snap, int l,
                            int set_id)
{
    uint64_t sum = 0;
    for (int o = 0; o < t->pl->norigins; o++)
        if (t->links[l].origins >> o & 1)
            sum += s_taken(t, set_id, o, snap->sent[t->source[o]]);
    return sum;
}

static uint64_t s_expected(trial_topics_t *t, const snapshot_t *snap, int l);

//  A(l) for set_id's topics (within l's downstream's): what the links
//  above link l's upstream end lost of them
static uint64_t s_above(trial_topics_t *t, const snapshot_t *snap, int l,
                        int set_id);

//  The loss of link k that falls on set_id's topics
static uint64_t s_lost_of(trial_topics_t *t, const snapshot_t *snap, int k,
                          int set_id)
{
    uint64_t expected = s_expected(t, snap, k);
    uint64_t received = snap->link_received[k];
    uint64_t lost = expected > received ? expected - received : 0;
    uint64_t mine = s_published(t, snap, k, set_id);
    uint64_t all = s_published(t, snap, k, t->links[k].to);
    if (lost == 0 || mine == 0 || mine == all)
        return mine == 0 ? 0 : lost;
    //  k carried other topics too: in proportion, within the bounds
    uint64_t above = s_above(t, snap, k, set_id);
    uint64_t carried = mine > above ? mine - above : 0;
    double share = expected ? (double)carried / (double)expected : 0;
    uint64_t guess = (uint64_t)llround((double)lost * share);
    uint64_t others = expected > carried ? expected - carried : 0;
    uint64_t low = lost > others ? lost - others : 0;
    uint64_t high = lost < carried ? lost : carried;
    t->estimated = true;
    return guess < low ? low : guess > high ? high : guess;
}

static uint64_t s_above(trial_topics_t *t, const snapshot_t *snap, int l,
                        int set_id)
{
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(t->pl, &t->links[l], ids);
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < t->nlinks; k++)
            if (t->links[k].to == ids[i])
                sum +=
                    s_lost_of(t, snap, k, set_id) + s_above(t, snap, k, set_id);
    return sum;
}

static uint64_t s_expected(trial_topics_t *t, const snapshot_t *snap, int l)
{
    int to = t->links[l].to;
    if (!trial_topics_filters(t, to))
        return snap->link_sent[l];
    bool before = t->estimated;
    t->estimated = false;
    //  a sink of N sockets: N copies of what one would take
    uint64_t copies = (uint64_t)pipeline_sockets(t->pl, to);
    uint64_t published = s_published(t, snap, l, to) * copies;
    uint64_t above = s_above(t, snap, l, to) * copies;
    uint64_t expected = published > above ? published - above : 0;
    uint64_t received = snap->link_received[l];
    if (t->estimated && expected < received) //  the share took too much
        expected = received < published ? received : published;
    t->estimated |= before;
    return expected;
}

uint64_t trial_topics_due(trial_topics_t *t, const snapshot_t *snap, int l)
{
    if (!t || !trial_topics_filters(t, t->links[l].to))
        return snap->link_sent[l];
    //  messages still on their way look lost: no estimate to warn of yet
    bool estimated = t->estimated;
    uint64_t due = s_expected(t, snap, l);
    t->estimated = estimated;
    return due;
}

//  The most link l can have lost of what its upstream proxy received,
//  where the counts bound it: the proxy's children take disjoint topics
//  (their shares add up to the proxy's own) and one copy each, so every
//  message the proxy received went down exactly one child link, and the
//  children together lost what the proxy received less what they did.
//  UINT64_MAX where no such bound holds
static uint64_t s_children_bound(trial_topics_t *t, const snapshot_t *snap,
                                 int l)
{
    const pipeline_t *pl = t->pl;
    int up = t->links[l].from;
    if (up < 0 || pipeline_is_source(pl, up))
        return UINT64_MAX;
    uint64_t parent = 0, proxy = 0, shares = 0, children = 0;
    for (int k = 0; k < t->nlinks; k++) {
        const link_t *link = &t->links[k];
        if (link->to == up) {
            parent += snap->link_received[k];
            proxy += s_published(t, snap, k, up);
        } else if (link->from == up) {
            if (pipeline_sockets(pl, link->to) != 1)
                return UINT64_MAX;
            shares += s_published(t, snap, k, link->to);
            children += snap->link_received[k];
        }
    }
    if (shares != proxy || children > parent)
        return UINT64_MAX;
    return parent - children;
}

void trial_topics_row(trial_topics_t *t, const snapshot_t *last, int l,
                      link_row_t *row)
{
    row->expected = row->sent;
    row->selectivity = 1;
    if (!t || !trial_topics_filters(t, t->links[l].to))
        return;
    uint64_t sent = 0;
    for (int o = 0; o < t->pl->norigins; o++)
        if (t->links[l].origins >> o & 1)
            sent += last->sent[t->source[o]];
    row->expected = s_expected(t, last, l);
    uint64_t bound = s_children_bound(t, last, l);
    if (row->expected > row->received && row->expected - row->received > bound)
        row->expected = row->received + bound;
    row->selectivity =
        sent ? (double)s_published(t, last, l, t->links[l].to) / sent : 0;
}

int64_t trial_topics_seq_lost(trial_topics_t *t, const snapshot_t *last,
                              int sink, const origin_t *seen, uint64_t origins)
{
    int64_t lost = 0;
    for (int o = 0; o < t->pl->norigins; o++) {
        if (!(origins >> o & 1))
            continue;
        uint64_t sent = last->sent[t->source[o]];
        lost +=
            (int64_t)(s_taken(t, sink, o, sent) -
                      s_taken(t, sink, o, seen[o].next & STAGE_COUNT_MASK)) *
                pipeline_sockets(t->pl, sink) +
            (int64_t)seen[o].gaps;
    }
    return lost;
}

int64_t trial_topics_path_lost(trial_topics_t *t, const snapshot_t *last,
                               int sink)
{
    int64_t lost = 0;
    if (!trial_topics_filters(t, sink))
        return 0;
    for (int l = 0; l < t->nlinks; l++)
        if (t->links[l].to == sink)
            lost += (int64_t)s_published(t, last, l, sink) *
                        pipeline_sockets(t->pl, sink) -
                    (int64_t)last->link_received[l];
    return lost;
}

//  ------------------------------------------------------------------------
//  Selftest: docs/TOPICS.md's worked example, and a proxy whose upstream
//  dropped above subscribers of different topics

static int s_test_example(void)
{
    trial_fixture_t f;
    trial_topics_t *t;
    CHECK(trial_fixture_new(&f,
                            "topology = ex\n    sizes = 64\npublisher = pub\n"
                            "    topics = 4\nhop\nsubscriber = sub\n"
                            "    subscribe = 1-2\n") == 0);
    CHECK(trial_topics_new(&t, f.pl, f.w->links, f.w->nlinks) == 0 && t);
    CHECK(trial_topics_filters(t, 1) && !trial_topics_filters(t, 0));
    //  10 sent: topics 2, 3, 0, 1, 2, 3, 0, 1, 2, 3; seq 0, 3, 4, 7, 8 taken
    snapshot_t *last = &f.w->last;
    last->sent[0] = last->link_sent[0] = 10;
    last->link_received[0] = 4;
    CHECK(trial_topics_due(t, last, 0) == 5);
    link_row_t *row = &f.rows[0];
    *row = (link_row_t){.sent = 10, .received = 4};
    trial_topics_row(t, last, 0, row);
    CHECK(row->expected == 5 && row->selectivity == 0.5);
    CHECK(!trial_topics_estimated(t));
    //  its counters lose 1; its sequence numbers: it took up to seq 6
    //  (seq 0, 3 and 4 of its topics: 2 of its 5 missing), and 1 gap
    CHECK(trial_topics_path_lost(t, last, 1) == 1);
    origin_t seen[1] = {{.next = 7, .gaps = 1}};
    CHECK(trial_topics_seq_lost(t, last, 1, seen, 1) == 3);
    //  1,000,000 sent: three whole rounds of the table, then half the rest
    last->sent[0] = last->link_sent[0] = 1000000;
    CHECK(trial_topics_due(t, last, 0) == 500000);
    trial_topics_destroy(&t);
    CHECK(t == NULL);
    trial_fixture_destroy(&f);
    //  no topics: nothing filters, every link is due what it was sent
    CHECK(trial_fixture_new(&f, "topology = ex\npublisher = pub\nhop\n"
                                "subscriber = sub\n") == 0);
    CHECK(trial_topics_new(&t, f.pl, f.w->links, f.w->nlinks) == 0 && !t);
    f.w->last.link_sent[0] = 7;
    CHECK(trial_topics_due(t, &f.w->last, 0) == 7);
    row = &f.rows[0];
    *row = (link_row_t){.sent = 7};
    trial_topics_row(t, &f.w->last, 0, row);
    CHECK(row->expected == 7 && row->selectivity == 1);
    trial_fixture_destroy(&f);
    return 0;
}

int trial_topics_test(bool verbose)
{
    (void)verbose;
    CHECK(s_test_example() == 0);
    //  pub (4 topics) -> p -> sub.1 (topic 0), sub.2 (topic 1): the proxy
    //  takes half, 500 of 1000, and received 400 of them
    trial_fixture_t f;
    trial_topics_t *t;
    CHECK(trial_fixture_new(&f, "topology = t\n    sizes = 64\n"
                                "publisher = pub\n    topics = 4\nhop\n"
                                "proxy = p\nhop\nsubscriber = sub\n"
                                "    count = 2\n    subscribe = 1\n") == 0);
    CHECK(f.w->nlinks == 3);
    CHECK(trial_topics_new(&t, f.pl, f.w->links, f.w->nlinks) == 0 && t);
    CHECK(trial_topics_filters(t, 1) && trial_topics_filters(t, 2));
    snapshot_t *last = &f.w->last;
    uint64_t received[3] = {500, 250, 250};
    last->sent[0] = 1000;
    for (int l = 0; l < 3; l++) {
        last->link_sent[l] = l == 0 ? 1000 : 500;
        last->link_received[l] = received[l];
    }
    //  nothing lost: exact, each subscriber due its 250
    CHECK(trial_topics_due(t, last, 0) == 500);
    CHECK(trial_topics_due(t, last, 1) == 250);
    for (int l = 0; l < 3; l++) {
        f.rows[l] =
            (link_row_t){.sent = last->link_sent[l], .received = received[l]};
        trial_topics_row(t, last, l, &f.rows[l]);
    }
    CHECK(f.rows[1].expected == 250 && f.rows[1].selectivity == 0.25);
    CHECK(!trial_topics_estimated(t));
    //  the proxy's 100 lost fall half on each subscriber's topics (an
    //  estimate); sub.1 then took 150, sub.2 240: sub.1 lost no more than
    //  the proxy received less what both took (400 - 390), and sub.2's
    //  estimate is raised to what it took
    last->link_received[0] = 400;
    last->link_received[1] = 150, last->link_received[2] = 240;
    CHECK(trial_topics_due(t, last, 1) == 200 && !trial_topics_estimated(t));
    uint64_t expected[3] = {500, 160, 240};
    for (int l = 0; l < 3; l++) {
        f.rows[l] = (link_row_t){.sent = last->link_sent[l],
                                 .received = last->link_received[l]};
        trial_topics_row(t, last, l, &f.rows[l]);
        CHECK(f.rows[l].expected == expected[l]);
    }
    CHECK(trial_topics_estimated(t));
    //  sub.1's own loss is exact: 250 of its topics sent, 150 taken
    CHECK(trial_topics_path_lost(t, last, 2) == 100);
    trial_topics_destroy(&t);
    trial_fixture_destroy(&f);
    return 0;
}
