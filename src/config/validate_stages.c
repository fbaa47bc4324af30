/*  validate_stages: each stage with the hops next to it: a proxy's engine
    (what its traits allow), a stage in its own process or on a host (no
    inproc), a host list, zones (netns) and the hops that cross them, and
    the one socket on each side of a stage (one HWM, CURVE on all or
    none).
*/
#include "config/topology_internal.h"

#include "config/engines.h"
#include "config/hostlist.h"

#include <string.h>

//  The next hop after 'after' (-1 to start) into or out of stage i, -1
//  when there is none
static int s_next_hop_at(const topology_t *self, int i, int after)
{
    for (int h = after + 1; h < self->nhops; h++)
        if (topology_hop_up(self, h) == i || topology_hop_down(self, h) == i)
            return h;
    return -1;
}

//  The hops on one side of a stage (into it, or out of it) share its one
//  socket there: one HWM (libzmq applies a change of it to every pipe the
//  socket has) and CURVE on all or none
static int s_validate_side(const topology_t *self, int i, bool in,
                           errbuf_t *err)
{
    const shape_t *shape = &self->shape;
    int first = in ? shape_next_in(shape, i, -1) : shape_next_out(shape, i, -1);
    params_t a, b;
    if (first < 0)
        return 0;
    topology_hop_params(self, first, &a);
    for (int h = in ? shape_next_in(shape, i, first)
                    : shape_next_out(shape, i, first);
         h >= 0; h = in ? shape_next_in(shape, i, h) : shape_next_out(shape, i, h)) {
        topology_hop_params(self, h, &b);
        const char *side = in ? "into" : "out of";
        if (b.hwm != a.hwm)
            return topology_key_error(
                self, LEVEL_HOP, h, KEY_HWM, err,
                "hop %d asks for hwm %d, hop %d for %d: the "
                "hops %s '%s' share its socket, and a socket "
                "has one HWM",
                h + 1, b.hwm, first + 1, a.hwm, side, self->stages[i].name);
        if (b.curve != a.curve)
            return topology_key_error(
                self, LEVEL_HOP, h, KEY_CURVE, err,
                "hop %d has curve %s, hop %d %s: the hops %s "
                "'%s' share its socket, CURVE on all or none",
                h + 1, b.curve ? "true" : "false", first + 1,
                a.curve ? "true" : "false", side, self->stages[i].name);
    }
    return 0;
}

//  What a hop or the mode may ask of stage i's engine, by its traits (a
//  czmq actor lives in czmq's context: no inproc); engine: its id

static int s_validate_engine(const topology_t *self, int i, int engine,
                             errbuf_t *err)
{
    const params_t *p = &self->params;
    const char *name = engine_name(engine);
    char others[64];
    engines_with(TRAIT_COUNTS_REQREP, true, others, sizeof others);
    if (p->pattern == PATTERN_REQREP &&
        !engine_can(engine, TRAIT_COUNTS_REQREP))
        return topology_key_error(self, LEVEL_STAGE, i, KEY_ENGINE, err,
                                  "engine %s: reqrep through %s is not "
                                  "counted (use %s)",
                                  name, name, others);
    for (int h = s_next_hop_at(self, i, -1); h >= 0;
         h = s_next_hop_at(self, i, h)) {
        params_t hop;
        topology_hop_params(self, h, &hop);
        if (hop.transport == TRANSPORT_INPROC &&
            engine_can(engine, TRAIT_CZMQ_ACTOR))
            return topology_key_error(self, LEVEL_HOP, h, KEY_TRANSPORT, err,
                                      "engine %s runs in czmq's own context: "
                                      "hop %d cannot be inproc",
                                      name, h + 1);
        if (hop.hwm != 1000 && !engine_can(engine, TRAIT_SETS_HWM))
            return topology_key_error(self, LEVEL_HOP, h, KEY_HWM, err,
                                      "engine %s keeps libzmq's HWM of 1000; "
                                      "hop %d asks for %d",
                                      name, h + 1, hop.hwm);
        if (hop.curve && !engine_can(engine, TRAIT_TAKES_CURVE))
            return topology_key_error(self, LEVEL_HOP, h, KEY_CURVE, err,
                                      "engine %s: hopbench does not give it "
                                      "CURVE keys (hop %d has curve)",
                                      name, h + 1);
    }
    if (p->pattern == PATTERN_PUBSUB && p->mode == MODE_CAPACITY &&
        !engine_can(engine, TRAIT_HOLDS_BACKPRESSURE))
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_ENGINE, err,
            "engine %s cannot carry back-pressure (mode = "
            "capacity): it sets no ZMQ_XPUB_NODROP; use "
            "mode = flood",
            name);
    return 0;
}

//  The first hop next to stage i that is inproc (0-based), or -1
static int s_inproc_neighbour(const topology_t *self, int i)
{
    for (int h = s_next_hop_at(self, i, -1); h >= 0;
         h = s_next_hop_at(self, i, h)) {
        params_t hop;
        topology_hop_params(self, h, &hop);
        if (hop.transport == TRANSPORT_INPROC)
            return h;
    }
    return -1;
}

//  A stage in its own process cannot share a context: no inproc hops
static int s_validate_process(const topology_t *self, int i, errbuf_t *err)
{
    int h = s_inproc_neighbour(self, i);
    if (h >= 0)
        return topology_key_error(self, LEVEL_STAGE, i, KEY_PROCESS, err,
                                  "stage '%s' runs in its own process: hop %d "
                                  "cannot be inproc (use ipc or tcp)",
                                  self->stages[i].name, h + 1);
    return 0;
}

//  The hosts of a stage's list: names of letters, digits, _ and -, or
//  ranges of them (config/hostlist.h), at most one per instance
static int s_validate_host_list(const topology_t *self, int i,
                                const params_t *stage, errbuf_t *err)
{
    const char *host = stage->host;
    char entry[LIMIT_HOST_LIST + 3];
    if (!hostlist_valid(host, LIMIT_NAME, entry, sizeof entry))
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_HOST, err,
            "host '%s': names of 1 to %d letters, digits, _ and -, commas "
            "between, or a range like h3..h98 (%s is not)",
            host, LIMIT_NAME, entry);
    long names = hostlist_count(host);
    if (names > stage->count)
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_HOST, err,
            "host '%s' names %ld hosts for %d instance%s of "
            "'%s': the extra ones would run nothing",
            host, names, stage->count, stage->count == 1 ? "" : "s",
            self->stages[i].name);
    return 0;
}

//  A stage on a host runs there in a process of its own (hopbench agent
//  starts it as process = own stages start): no inproc hops, no zone
static int s_validate_host(const topology_t *self, int i, const params_t *stage,
                           errbuf_t *err)
{
    const char *host = stage->host;
    if (s_validate_host_list(self, i, stage, err))
        return -1;
    if (stage->netns[0])
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_NETNS, err,
            "stage '%s' runs on host %s: zones (netns) are "
            "made on the controller's host only",
            self->stages[i].name, host);
    int h = s_inproc_neighbour(self, i);
    if (h >= 0)
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_HOST, err,
            "stage '%s' runs on host %s, in a process of its "
            "own: hop %d cannot be inproc (use ipc or tcp)",
            self->stages[i].name, host, h + 1);
    return 0;
}


//  The stage whose netns makes hop h cross: the one downstream if it
//  names a zone, else the one upstream
static int s_zone_stage(const topology_t *self, int h)
{
    params_t down;
    topology_stage_params(self, topology_hop_down(self, h), &down);
    return down.netns[0] ? topology_hop_down(self, h) : topology_hop_up(self, h);
}

//  Hop h, into a stage in zone 'zone': inproc cannot leave a zone, and
//  each hop that crosses gets a /30 of one /24 (zones.c)
static int s_validate_zone_hop(const topology_t *self, int h, const char *zone,
                               errbuf_t *err)
{
    params_t before, hop;
    topology_stage_params(self, topology_hop_up(self, h), &before);
    topology_hop_params(self, h, &hop);
    if (strcmp(before.netns, zone) == 0)
        return 0;
    int culprit = s_zone_stage(self, h);
    if (hop.transport == TRANSPORT_INPROC)
        return topology_key_error(
            self, LEVEL_STAGE, culprit, KEY_NETNS, err,
            "hop %d is inproc, which cannot cross from zone "
            "'%s' to zone '%s'",
            h + 1, before.netns, zone);
    if (h + 1 > LIMIT_ZONE_HOPS)
        return topology_key_error(self, LEVEL_STAGE, culprit, KEY_NETNS, err,
                                  "hop %d crosses zones; only hops 1..%d can "
                                  "(LIMIT_ZONE_HOPS, docs/LIMITS.md)",
                                  h + 1, LIMIT_ZONE_HOPS);
    return 0;
}

//  A zone is made on the controller's host, its veth links there: no hop
//  of stage i (in zone 'zone') may link it to a stage on another host
static int s_validate_zone_hosts(const topology_t *self, int i,
                                 const char *zone, errbuf_t *err)
{
    for (int h = s_next_hop_at(self, i, -1); h >= 0;
         h = s_next_hop_at(self, i, h)) {
        int other = topology_hop_up(self, h) == i ? topology_hop_down(self, h)
                                                   : topology_hop_up(self, h);
        params_t there;
        topology_stage_params(self, other, &there);
        if (there.host[0])
            return topology_key_error(
                self, LEVEL_STAGE, i, KEY_NETNS, err,
                "stage '%s' is in zone '%s' on the "
                "controller's host, and hop %d links it to "
                "'%s' on host %s: a zone's links reach only "
                "the controller's host (no zone, or no host, "
                "for one of them)",
                self->stages[i].name, zone, h + 1, self->stages[other].name,
                there.host);
    }
    return 0;
}

//  A zone's name becomes part of a namespace's; then the hops into stage i
static int s_validate_zone(const topology_t *self, int i, const params_t *stage,
                           errbuf_t *err)
{
    const char *zone = stage->netns;
    size_t len = strlen(zone);
    if (len > LIMIT_ZONE_NAME ||
        strspn(zone, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                     "OPQRSTUVWXYZ0123456789_-") != len)
        return topology_key_error(
            self, LEVEL_STAGE, i, KEY_NETNS, err,
            "zone '%s': up to %d letters, digits, _ and -", zone,
            LIMIT_ZONE_NAME);
    for (int h = shape_next_in(&self->shape, i, -1); h >= 0;
         h = shape_next_in(&self->shape, i, h))
        if (s_validate_zone_hop(self, h, zone, err))
            return -1;
    return zone[0] ? s_validate_zone_hosts(self, i, zone, err) : 0;
}

//  What each mode needs: flood and search are pubsub's; search chooses the

//  At most LIMIT_ZONES distinct zones (netns is a stage key only)
static int s_validate_zones(const topology_t *self, errbuf_t *err)
{
    const char *zones[LIMIT_ZONES];
    int nzones = 0;
    for (int i = 0; i < self->nstages; i++) {
        const char *zone = self->stages[i].params.netns;
        int z = 0;
        while (z < nzones && strcmp(zones[z], zone))
            z++;
        if (!zone[0] || z < nzones)
            continue;
        if (nzones == LIMIT_ZONES)
            return topology_key_error(
                self, LEVEL_STAGE, i, KEY_NETNS, err,
                "zone '%s': more than %d zones (LIMIT_ZONES, "
                "docs/LIMITS.md)",
                zone, LIMIT_ZONES);
        zones[nzones++] = zone;
    }
    return 0;
}

int topology_validate_stages(const topology_t *self, errbuf_t *err)
{
    for (int i = 0; i < self->nstages; i++) {
        params_t stage;
        topology_stage_params(self, i, &stage);
        if (self->stages[i].role == ROLE_PROXY &&
            s_validate_engine(self, i, stage.engine, err))
            return -1;
        if (stage.process == PROCESS_OWN && s_validate_process(self, i, err))
            return -1;
        if (s_validate_side(self, i, true, err) ||
            s_validate_side(self, i, false, err))
            return -1;
        if (s_validate_zone(self, i, &stage, err))
            return -1;
        if (stage.host[0] && s_validate_host(self, i, &stage, err))
            return -1;
        for (int h = shape_next_out(&self->shape, i, -1); h >= 0;
             h = shape_next_out(&self->shape, i, h))
            if (topology_validate_crossing(self, h, err))
                return -1;
    }
    return s_validate_zones(self, err);
}
