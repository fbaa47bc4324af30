/*  trial_links: a trial's links, the rows of results.csv: one per hop,
    or one per (from, to) pair where a hop fans in or out and its
    receiving end can tell senders apart (sinks and the forwarder read
    every header; zmq_proxy_steerable and zproxy cannot, so a fan-in into
    them is one row, "pub.*"); each link's senders and the origins whose
    messages it carries; their names in results.csv, and what each was
    sent by a snapshot.  A function of the pipeline alone: the counters
    (trial_counters.c), topics, stalls and starvation read them.
*/
#include "trial/trial_window.h"

#include "pipeline/links.h"

#include <stdio.h>
#include <string.h>

_Static_assert(LIMIT_ORIGINS <= 64, "a link's origins fit one uint64_t");

//  The origins whose messages reach instance 'from' (a source: its own)
uint64_t trial_origins_at(const pipeline_t *pl, int from)
{
    uint64_t mask = 0;
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].origin >= 0 && pipeline_reaches(pl, i, from))
            mask |= 1ULL << pl->inst[i].origin;
    return mask;
}

static void s_add_link(const pipeline_t *pl, link_t *links, int *n, int hop,
                       int from, int to)
{
    uint64_t origins = 0;
    if (from >= 0)
        origins = trial_origins_at(pl, from);
    else
        for (int h = pipeline_hop_in(pl, to); h >= 0;
             h = pipeline_next_hop_in(pl, to, h))
            for (int u = 0; u < pl->count[pl->hops[h].up]; u++)
                origins |= trial_origins_at(pl, pl->first[pl->hops[h].up] + u);
    if (*n < TRIAL_MAX_LINKS)
        links[(*n)++] = (link_t){hop, from, to, origins};
}

//  One row per (from, to) pair of each hop, in hop order; a receiver that
//  cannot tell its senders apart and has several gets one row for them
//  all, at its first hop (pipeline/links.h decides).  Into links
//  (TRIAL_MAX_LINKS, which the plan keeps to); how many
int trial_links_of(const pipeline_t *pl, link_t *links)
{
    int n = 0;
    for (int h = 0; h < pl->nhops; h++) {
        int up = pl->hops[h].up, down = pl->hops[h].down;
        for (int d = 0; d < pl->count[down]; d++) {
            int to = pl->first[down] + d;
            links_kind_t kind = links_kind(pl, h, to);
            for (int u = 0; kind == LINKS_EACH && u < pl->count[up]; u++)
                s_add_link(pl, links, &n, h, pl->first[up] + u, to);
            if (kind == LINKS_ALL)
                s_add_link(pl, links, &n, h, -1, to);
        }
    }
    return n;
}

int trial_link_senders(const pipeline_t *pl, const link_t *link, int *ids)
{
    int n = 0;
    if (link->from >= 0) {
        ids[0] = link->from;
        return 1;
    }
    for (int h = pipeline_hop_in(pl, link->to); h >= 0;
         h = pipeline_next_hop_in(pl, link->to, h))
        for (int u = 0; u < pl->count[pl->hops[h].up]; u++)
            ids[n++] = pl->first[pl->hops[h].up] + u;
    return n;
}

//  "pub.*", "edge-a+edge-b" or "pa.*+pb.*": the stages a summed row takes
//  from, "*" when their names do not fit
static void s_senders_name(const pipeline_t *pl, int to, char *from)
{
    size_t used = 0;
    from[0] = 0;
    for (int h = pipeline_hop_in(pl, to); h >= 0;
         h = pipeline_next_hop_in(pl, to, h)) {
        int up = pl->hops[h].up;
        used += (size_t)snprintf(from + used, RESULTS_NAME_MAX - used, "%s%s%s",
                                 used ? "+" : "", pl->topo->stages[up].name,
                                 pl->count[up] > 1 ? ".*" : "");
        if (used >= RESULTS_NAME_MAX) {
            snprintf(from, RESULTS_NAME_MAX, "*");
            return;
        }
    }
}

void trial_link_name(const pipeline_t *pl, const link_t *link, char *from,
                     char *to)
{
    if (link->from >= 0)
        snprintf(from, RESULTS_NAME_MAX, "%s", pl->inst[link->from].name);
    else
        s_senders_name(pl, link->to, from);
    snprintf(to, RESULTS_NAME_MAX, "%s", pl->inst[link->to].name);
}

uint64_t trial_link_sent(const pipeline_t *pl, const link_t *link,
                         const snapshot_t *snap)
{
    //  connect: a client's hop counts the cycles it began
    if (pl->params.pattern == PATTERN_CONNECT && pipeline_is_sink(pl, link->to))
        return snap->sent[link->to];
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(pl, link, ids);
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += snap->sent[ids[i]];
    //  a receiver of N sockets takes N copies of each message
    return sum * (uint64_t)pipeline_sockets(pl, link->to);
}
