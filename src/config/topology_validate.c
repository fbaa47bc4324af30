/*  topology_validate: the checks of a topology after --set, in one order:
    the shape (a chain's roles, a tree's, the publishers a receiver tells
    apart), each hop (validate_links.c), each stage (validate_stages.c),
    the nodes key, the modes, the topic keys (validate_topics.c), and the
    topology's own keys' combinations.  The first fault is the error, at
    the line (or --set) its key took its value from.
*/
#include "config/topology_internal.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

//  One entry of nodes: a node number, or "-"; -2 when it is neither
static int s_node_entry(const char *p, size_t len)
{
    if (len == 1 && *p == '-')
        return -1;
    if (len == 0 || len > 4 || strspn(p, "0123456789") < len ||
        (len > 1 && *p == '0'))
        return -2;
    int node = atoi(p);
    return node <= LIMIT_NODE_ID ? node : -2;
}

int topology_nodes(const topology_t *self, int *nodes, errbuf_t *err)
{
    const char *text = self->params.nodes;
    int n = 0;
    for (int s = 0; s < self->nstages; s++)
        nodes[s] = -1;
    for (const char *p = text; *text; p++) {
        size_t len = strcspn(p, "+");
        int node = s_node_entry(p, len);
        if (node == -2)
            return topology_key_error(
                self, LEVEL_TOPOLOGY, 0, KEY_NODES, err,
                "nodes '%s': '%.*s' is neither a node number "
                "(0 to %d) nor -",
                text, (int)len, p, LIMIT_NODE_ID);
        if (n < self->nstages)
            nodes[n] = node;
        n++;
        p += len;
        if (!*p)
            break;
    }
    if (*text && n != self->nstages)
        return topology_key_error(
            self, LEVEL_TOPOLOGY, 0, KEY_NODES, err,
            "nodes '%s' has %d entr%s for %d stages (one per "
            "stage in pipeline order, - where the placement "
            "decides)",
            text, n, n == 1 ? "y" : "ies", self->nstages);
    return 0;
}

//  nodes and a stage's own node must not disagree
static int s_validate_nodes(const topology_t *self, errbuf_t *err)
{
    int nodes[TOPO_MAX_STAGES];
    if (topology_nodes(self, nodes, err))
        return -1;
    for (int s = 0; s < self->nstages; s++) {
        const params_t *own = &self->stages[s].params;
        if (nodes[s] >= 0 && own->set[KEY_NODE] && own->node >= 0 &&
            own->node != nodes[s])
            return topology_key_error(
                self, LEVEL_TOPOLOGY, 0, KEY_NODES, err,
                "nodes puts stage '%s' on node %d, but its "
                "own node is %d (write - for it)",
                self->stages[s].name, nodes[s], own->node);
    }
    return 0;
}

//  A chain: the first stage a source, the last a sink, proxies between
static int s_validate_chain(const topology_t *self, errbuf_t *err)
{
    int pattern = self->params.pattern;
    role_t source = pattern_ends(pattern)->source;
    role_t sink = pattern_ends(pattern)->sink;
    for (int i = 0; i < self->nstages; i++) {
        const topo_stage_t *stage = &self->stages[i];
        role_t want = i == 0                   ? source
                      : i == self->nstages - 1 ? sink
                                               : ROLE_PROXY;
        if (stage->role != want)
            return err_set(err,
                           "%s:%d: stage %d of a %s pipeline is a %s, not a "
                           "%s ('%s')",
                           self->path, stage->line, i + 1,
                           params_pattern_names[pattern],
                           pattern_role_names[want],
                           pattern_role_names[stage->role], stage->name);
    }
    return 0;
}

//  The first link into (up = false: out of) stage s, for its line
static const topo_hop_t *s_first_link(const topology_t *self, int s, bool up)
{
    int h = up ? shape_next_in(&self->shape, s, -1)
               : shape_next_out(&self->shape, s, -1);
    return h >= 0 ? &self->hops[h] : NULL;
}

//  A tree: publishers start paths, subscribers end them, proxies carry
//  them; pubsub only
static int s_validate_tree_stage(const topology_t *self, int i, errbuf_t *err)
{
    const topo_stage_t *stage = &self->stages[i];
    const char *path = self->path;
    int in = shape_inputs(&self->shape, i), out = shape_outputs(&self->shape, i);
    const topo_hop_t *first_in = s_first_link(self, i, true);
    const topo_hop_t *first_out = s_first_link(self, i, false);
    if (stage->role != ROLE_PUBLISHER && stage->role != ROLE_PROXY &&
        stage->role != ROLE_SUBSCRIBER)
        return err_set(err, "%s:%d: '%s' is a %s: a tree has publishers, "
                       "proxies and subscribers", path, stage->line,
                       stage->name, pattern_role_names[stage->role]);
    if (stage->role == ROLE_PUBLISHER && in > 0)
        return err_set(err, "%s:%d: publisher '%s' has an upstream ('%s'): a "
                       "publisher starts a path", path, first_in->line,
                       stage->name,
                       self->stages[topology_hop_up(
                           self, (int)(first_in - self->hops))].name);
    if (stage->role == ROLE_SUBSCRIBER && out > 0)
        return err_set(err, "%s:%d: subscriber '%s' has a downstream ('%s'): "
                       "a subscriber ends a path", path, first_out->line,
                       stage->name,
                       self->stages[topology_hop_down(
                           self, (int)(first_out - self->hops))].name);
    if (stage->role != ROLE_PUBLISHER && in == 0)
        return err_set(err, "%s:%d: %s '%s' has no upstream (a 'hop' line "
                       "before it, or 'from = STAGE' below it)", path,
                       stage->line, pattern_role_names[stage->role],
                       stage->name);
    if (stage->role != ROLE_SUBSCRIBER && out == 0)
        return err_set(err, "%s:%d: %s '%s' feeds no stage (a 'hop' line "
                       "after it, or a 'from = %s' below another)", path,
                       stage->line, pattern_role_names[stage->role],
                       stage->name, stage->name);
    return 0;
}

static int s_validate_tree(const topology_t *self, errbuf_t *err)
{
    int pattern = self->params.pattern;
    if (pattern != PATTERN_PUBSUB) {
        int h = 0;
        while (h < self->nhops - 1 && !self->hops[h].from)
            h++;
        int line = self->nhops && self->hops[h].from ? self->hops[h].line
                                                     : self->line;
        return err_set(err, "%s:%d: a %s pipeline is a chain, each stage "
                       "fed by the one before it through a 'hop' line "
                       "(trees, with from and more than one publisher "
                       "stage, are pubsub's)", self->path, line,
                       params_pattern_names[pattern]);
    }
    for (int i = 0; i < self->nstages; i++)
        if (s_validate_tree_stage(self, i, err))
            return -1;
    return 0;
}

//  Every publisher instance is an origin its receivers tell apart
static int s_validate_origins(const topology_t *self, errbuf_t *err)
{
    int origins = 0;
    for (int i = 0; i < self->nstages; i++) {
        params_t stage;
        topology_stage_params(self, i, &stage);
        if (!pattern_is_source(self->stages[i].role))
            continue;
        origins += stage.count;
        if (origins > LIMIT_ORIGINS)
            return topology_key_error(
                self, LEVEL_STAGE, i, KEY_COUNT, err,
                "publishers of '%s' and before: %d instances, "
                "more than %d (LIMIT_ORIGINS: the publishers a "
                "receiver tells apart, docs/LIMITS.md)",
                self->stages[i].name, origins, LIMIT_ORIGINS);
    }
    return 0;
}

static int s_validate_shape(const topology_t *self, errbuf_t *err)
{
    if (self->nstages < 2)
        return err_set(err,
                       "%s:%d: a pipeline needs at least two stages "
                       "(e.g. a publisher and a subscriber)",
                       self->path, self->line);
    if (shape_is_chain(&self->shape) ? s_validate_chain(self, err)
                                     : s_validate_tree(self, err))
        return -1;
    for (int i = 0; i < self->nstages; i++) {
        const topo_stage_t *stage = &self->stages[i];
        if (stage->role == ROLE_PROXY && stage->params.set[KEY_COUNT] &&
            stage->params.count != 1)
            return topology_key_error(
                self, LEVEL_STAGE, i, KEY_COUNT, err,
                "count is for the first and last stages "
                "(publishers and subscribers, anywhere in a "
                "tree); proxy '%s' runs once",
                stage->name);
        if (stage->role != ROLE_PROXY && stage->params.set[KEY_ENGINE])
            return topology_key_error(self, LEVEL_STAGE, i, KEY_ENGINE, err,
                                      "engine is a proxy key; '%s' is a %s",
                                      stage->name,
                                      pattern_role_names[stage->role]);
    }
    return s_validate_origins(self, err);
}

//  rates and the trials' length itself
static int s_validate_mode(const topology_t *self, errbuf_t *err)
{
    const params_t *p = &self->params;
    if (p->mode != MODE_CAPACITY && p->pattern != PATTERN_PUBSUB)
        return topology_key_error(
            self, LEVEL_TOPOLOGY, 0, KEY_MODE, err,
            "mode = %s is for pubsub (pushpull never drops, "
            "reqrep and connect time themselves)",
            params_mode_names[p->mode]);
    if (p->mode != MODE_SEARCH)
        return 0;
    if (p->precision > 0)
        return topology_key_error(
            self, LEVEL_TOPOLOGY, 0, KEY_PRECISION, err,
            "mode = search runs its own trials to its own "
            "precision (search_precision, search_trials): "
            "precision and max_repeat are for capacity and "
            "flood");
    if (p->rate > 0)
        return topology_key_error(
            self, LEVEL_TOPOLOGY, 0, KEY_RATE, err,
            "mode = search chooses the rates itself: leave "
            "rate at 0");
    if (p->messages > 0)
        return topology_key_error(
            self, LEVEL_TOPOLOGY, 0, KEY_MESSAGES, err,
            "mode = search times its trials (search_trial, "
            "search_confirm): leave messages at 0");
    for (int i = 0; i < p->sizes.n && p->p99_us > 0; i++)
        if (p->sizes.size[i] < 16)
            return topology_key_error(self, LEVEL_TOPOLOGY, 0, KEY_P99_US, err,
                                      "p99_us needs sizes of at least 16 bytes "
                                      "(sequence and send time); sizes has %u",
                                      p->sizes.size[i]);
    return 0;
}

//  ------------------------------------------------------------------------
//  Topics (config/topics.h): whose keys they are, and what they must agree on

//  Does a stage of this role take key k?  The topic keys are publishers'

static int s_validate_params(const topology_t *self, errbuf_t *err)
{
    const params_t *p = &self->params;
    if (topology_validate_stages(self, err) || s_validate_nodes(self, err))
        return -1;
    if (p->pattern == PATTERN_REQREP && (p->rate > 0 || p->zerocopy))
        return topology_key_error(self, LEVEL_TOPOLOGY, 0,
                                  p->rate > 0 ? KEY_RATE : KEY_ZEROCOPY, err,
                                  "reqrep times its own round trips: rate and "
                                  "zerocopy are for pubsub and pushpull");
    if (p->rate > 0 && p->zerocopy)
        return topology_key_error(self, LEVEL_TOPOLOGY, 0, KEY_ZEROCOPY, err,
                                  "zerocopy is for throughput runs (rate = 0)");
    if (s_validate_mode(self, err) || topology_validate_topics(self, err))
        return -1;
    if (p->precision > 0 && p->max_repeat < params_min_repeat(p))
        return topology_key_error(
            self, LEVEL_TOPOLOGY, 0, KEY_MAX_REPEAT, err,
            "max_repeat %d is below the %d repeats precision "
            "starts with (repeat)",
            p->max_repeat, params_min_repeat(p));
    if (p->rate > 0)
        for (int i = 0; i < p->sizes.n; i++)
            if (p->sizes.size[i] < 16)
                return topology_key_error(
                    self, LEVEL_TOPOLOGY, 0, KEY_SIZES, err,
                    "rate needs sizes of at least 16 bytes "
                    "(sequence and send time); sizes has %u",
                    p->sizes.size[i]);
    return 0;
}

int topology_validate(const topology_t *self, errbuf_t *err)
{
    if (s_validate_shape(self, err))
        return -1;
    for (int h = 0; h < self->nhops; h++)
        if (topology_validate_hop(self, h, err))
            return -1;
    if (topology_validate_curve(self, err))
        return -1;
    return s_validate_params(self, err);
}
