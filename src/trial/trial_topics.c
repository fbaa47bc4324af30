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
    own loss (lost
    of its link plus A) is exact either way, and is what trial_verify
    holds against its sequence numbers.
*/
#include "trial/trial_state.h"

#include "config/topics.h"
#include "pipeline/traffic.h"

#include <math.h>
#include <stdlib.h>

struct trial_topics_s {
    int nstages;
    uint32_t len[TOPO_MAX_STAGES];     //  each publisher stage's table
    uint32_t phase[STAGE_MAX_ORIGINS]; //  each origin's start in it
    int source[STAGE_MAX_ORIGINS];     //  each origin's instance
    uint32_t *table[TOPO_MAX_STAGES]; //  each publisher stage's
    uint32_t **prefix; //  [instance * nstages + stage], made when needed
    bool filters[PIPELINE_MAX_INSTANCES]; //  takes less than is sent it
    bool estimated; //  an A(l) this trial could not know exactly
    bool warned;
};

//  The counts instance id's set takes of publisher stage s's table
static const uint32_t *s_prefix(trial_t *self, int id, int s)
{
    trial_topics_t *t = self->topics;
    uint32_t **slot = &t->prefix[id * t->nstages + s];
    if (*slot)
        return *slot;
    traffic_set_t set;
    uint32_t len;
    if (!t->table[s])
        t->table[s] = traffic_table(self->pl, s, &len);
    if (t->table[s] && traffic_set(self->pl, id, &set) == 0) {
        *slot = traffic_prefix(t->table[s], t->len[s], &set);
        traffic_set_free(&set);
    }
    return *slot;
}

int trial_topics_new(trial_t *self)
{
    const pipeline_t *pl = self->pl;
    if (!traffic_on(pl))
        return 0;
    trial_topics_t *t = calloc(1, sizeof *t);
    if (!t || !(t->prefix = calloc((size_t)pl->n * (size_t)pl->nstages,
                                   sizeof *t->prefix))) {
        free(t);
        return -1;
    }
    t->nstages = pl->nstages;
    self->topics = t;
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
                                         ? s_prefix(self, i, s)
                                         : NULL;
            if (pipeline_reaches(pl, t->source[o], i) && !prefix)
                return -1;
            t->filters[i] |= prefix && prefix[t->len[s]] != t->len[s];
        }
    return 0;
}

void trial_topics_destroy(trial_t *self)
{
    trial_topics_t *t = self->topics;
    if (!t)
        return;
    for (int i = 0; i < self->pl->n * t->nstages && t->prefix; i++)
        free(t->prefix[i]);
    for (int s = 0; s < t->nstages; s++)
        free(t->table[s]);
    free(t->prefix);
    free(t);
    self->topics = NULL;
}

bool trial_topics_filters(const trial_t *self, int id)
{
    return self->topics && self->topics->filters[id];
}

//  Of origin o's sequences [0, n), those instance id's set takes
static uint64_t s_taken(trial_t *self, int id, int o, uint64_t n)
{
    trial_topics_t *t = self->topics;
    int s = self->pl->inst[t->source[o]].stage;
    return traffic_taken(s_prefix(self, id, s), t->len[s], t->phase[o], n);
}

//  What the sources of link l sent of set_id's topics, by snap
static uint64_t s_published(trial_t *self, const snapshot_t *snap, int l,
                            int set_id)
{
    uint64_t sum = 0;
    for (int o = 0; o < self->pl->norigins; o++)
        if (self->links[l].origins >> o & 1)
            sum +=
                s_taken(self, set_id, o, snap->sent[self->topics->source[o]]);
    return sum;
}

static uint64_t s_expected(trial_t *self, const snapshot_t *snap, int l);

//  A(l) for set_id's topics (within l's downstream's): what the links
//  above link l's upstream end lost of them
static uint64_t s_above(trial_t *self, const snapshot_t *snap, int l,
                        int set_id);

//  The loss of link k that falls on set_id's topics
static uint64_t s_lost_of(trial_t *self, const snapshot_t *snap, int k,
                          int set_id)
{
    uint64_t expected = s_expected(self, snap, k);
    uint64_t received = snap->link_received[k];
    uint64_t lost = expected > received ? expected - received : 0;
    uint64_t mine = s_published(self, snap, k, set_id);
    uint64_t all = s_published(self, snap, k, self->links[k].to);
    if (lost == 0 || mine == 0 || mine == all)
        return mine == 0 ? 0 : lost;
    //  k carried other topics too: in proportion, within the bounds
    uint64_t above = s_above(self, snap, k, set_id);
    uint64_t carried = mine > above ? mine - above : 0;
    double share = expected ? (double)carried / (double)expected : 0;
    uint64_t guess = (uint64_t)llround((double)lost * share);
    uint64_t others = expected > carried ? expected - carried : 0;
    uint64_t low = lost > others ? lost - others : 0;
    uint64_t high = lost < carried ? lost : carried;
    self->topics->estimated = true;
    return guess < low ? low : guess > high ? high : guess;
}

static uint64_t s_above(trial_t *self, const snapshot_t *snap, int l,
                        int set_id)
{
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(self->pl, &self->links[l], ids);
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < self->nlinks; k++)
            if (self->links[k].to == ids[i])
                sum += s_lost_of(self, snap, k, set_id) +
                       s_above(self, snap, k, set_id);
    return sum;
}

static uint64_t s_expected(trial_t *self, const snapshot_t *snap, int l)
{
    trial_topics_t *t = self->topics;
    int to = self->links[l].to;
    if (!trial_topics_filters(self, to))
        return snap->link_sent[l];
    bool before = t->estimated;
    t->estimated = false;
    //  a sink of N sockets: N copies of what one would take
    uint64_t copies = (uint64_t)pipeline_sockets(self->pl, to);
    uint64_t published = s_published(self, snap, l, to) * copies;
    uint64_t above = s_above(self, snap, l, to) * copies;
    uint64_t expected = published > above ? published - above : 0;
    uint64_t received = snap->link_received[l];
    if (t->estimated && expected < received) //  the share took too much
        expected = received < published ? received : published;
    t->estimated |= before;
    return expected;
}

uint64_t trial_link_due(trial_t *self, const snapshot_t *snap, int l)
{
    if (!trial_topics_filters(self, self->links[l].to))
        return snap->link_sent[l];
    //  messages still on their way look lost: no estimate to warn of yet
    bool estimated = self->topics->estimated;
    uint64_t due = s_expected(self, snap, l);
    self->topics->estimated = estimated;
    return due;
}

//  The most link l can have lost of what its upstream proxy received,
//  where the counts bound it: the proxy's children take disjoint topics
//  (their shares add up to the proxy's own) and one copy each, so every
//  message the proxy received went down exactly one child link, and the
//  children together lost what the proxy received less what they did.
//  UINT64_MAX where no such bound holds
static uint64_t s_children_bound(trial_t *self, const snapshot_t *snap, int l)
{
    const pipeline_t *pl = self->pl;
    int up = self->links[l].from;
    if (up < 0 || pipeline_is_source(pl, up))
        return UINT64_MAX;
    uint64_t parent = 0, proxy = 0, shares = 0, children = 0;
    for (int k = 0; k < self->nlinks; k++) {
        const link_t *link = &self->links[k];
        if (link->to == up) {
            parent += snap->link_received[k];
            proxy += s_published(self, snap, k, up);
        } else if (link->from == up) {
            if (pipeline_sockets(pl, link->to) != 1)
                return UINT64_MAX;
            shares += s_published(self, snap, k, link->to);
            children += snap->link_received[k];
        }
    }
    if (shares != proxy || children > parent)
        return UINT64_MAX;
    return parent - children;
}

void trial_topics_row(trial_t *self, int l, link_row_t *row)
{
    row->expected = row->sent;
    row->selectivity = 1;
    if (!trial_topics_filters(self, self->links[l].to))
        return;
    const snapshot_t *snap = &self->last;
    uint64_t sent = 0;
    for (int o = 0; o < self->pl->norigins; o++)
        if (self->links[l].origins >> o & 1)
            sent += snap->sent[self->topics->source[o]];
    row->expected = s_expected(self, snap, l);
    uint64_t bound = s_children_bound(self, snap, l);
    if (row->expected > row->received &&
        row->expected - row->received > bound)
        row->expected = row->received + bound;
    row->selectivity =
        sent ? (double)s_published(self, snap, l, self->links[l].to) / sent : 0;
    if (self->topics->estimated && !self->topics->warned) {
        self->topics->warned = true;
        trial_warn(self, "a proxy's upstream dropped messages, and the "
                         "subscribers below it take different topics: the "
                         "counters do not tell whose topics were dropped, "
                         "so expected (and lost) on the links below share "
                         "that loss in proportion; each subscriber's own "
                         "loss is exact (seq_lost)");
    }
}

int64_t trial_topics_seq_lost(trial_t *self, int sink, uint64_t origins)
{
    int64_t lost = 0;
    for (int o = 0; o < self->pl->norigins; o++) {
        if (!(origins >> o & 1))
            continue;
        const origin_t *seen =
            &stage_handle_shared(self->stage[sink])->origins[o];
        uint64_t sent = self->last.sent[self->topics->source[o]];
        lost +=
            (int64_t)(s_taken(self, sink, o, sent) -
                      s_taken(self, sink, o, seen->next & STAGE_COUNT_MASK)) *
                pipeline_sockets(self->pl, sink) +
            (int64_t)seen->gaps;
    }
    return lost;
}

int64_t trial_topics_path_lost(trial_t *self, int sink)
{
    int64_t lost = 0;
    if (!trial_topics_filters(self, sink))
        return 0;
    for (int l = 0; l < self->nlinks; l++)
        if (self->links[l].to == sink)
            lost += (int64_t)s_published(self, &self->last, l, sink) *
                        pipeline_sockets(self->pl, sink) -
                    (int64_t)self->last.link_received[l];
    return lost;
}
