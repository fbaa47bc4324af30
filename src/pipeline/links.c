/*  links: the rows a trial reports of a pipeline (links.h) */
#include "pipeline/links.h"

int links_senders(const pipeline_t *pl, int to)
{
    int n = 0;
    for (int h = pipeline_hop_in(pl, to); h >= 0;
         h = pipeline_next_hop_in(pl, to, h))
        n += pl->count[pl->hops[h].up];
    return n;
}

links_kind_t links_kind(const pipeline_t *pl, int h, int to)
{
    if (pipeline_sees_origins(pl, to) || links_senders(pl, to) == 1)
        return LINKS_EACH;
    return pipeline_hop_in(pl, to) == h ? LINKS_ALL : LINKS_NONE;
}

int links_check(const pipeline_t *pl, errbuf_t *err)
{
    long rows = 0;
    for (int h = 0; h < pl->nhops; h++) {
        int up = pl->hops[h].up, down = pl->hops[h].down;
        for (int d = 0; d < pl->count[down]; d++) {
            links_kind_t kind = links_kind(pl, h, pl->first[down] + d);
            rows += kind == LINKS_EACH ? pl->count[up] : kind == LINKS_ALL;
        }
        if (rows > LIMIT_LINKS)
            return topology_key_error(
                pl->topo, LEVEL_STAGE,
                pl->count[down] >= pl->count[up] ? down : up, KEY_COUNT, err,
                "hop %d (%s -> %s) makes a trial of %ld rows or more, more "
                "than %d (LIMIT_LINKS, docs/LIMITS.md): a row per (from, "
                "to) pair where a hop fans out or in",
                h + 1, pl->topo->stages[up].name, pl->topo->stages[down].name,
                rows, LIMIT_LINKS);
    }
    return 0;
}
