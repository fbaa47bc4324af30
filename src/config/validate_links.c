/*  validate_links: each hop on its own: its endpoint (well formed, not
    another hop's socket however spelt: config/endpoint.h's canonical
    forms), and the hosts it crosses (only tcp leaves a host).
*/
#include "config/topology_internal.h"

#include "config/endpoint.h"

#include <string.h>

//  "hop 1 (pub -> broker, t.cfg:7)": a link, its ends and where its
//  endpoint was given
static void s_link_words(const topology_t *self, int h, char *buf, size_t len)
{
    char where[300];
    topology_where(self, LEVEL_HOP, h, KEY_ENDPOINT, where, sizeof where);
    size_t n = strlen(where);
    if (n >= 2 && strcmp(where + n - 2, ": ") == 0)
        where[n - 2] = 0;
    snprintf(buf, len, "hop %d (%s -> %s, %s)", h + 1,
             self->stages[topology_hop_up(self, h)].name,
             self->stages[topology_hop_down(self, h)].name, where);
}

//  Hop h's endpoint against an earlier hop's: one socket in two spellings
//  (canonical), or a wildcard bind on the other's port
static int s_endpoint_alias(const topology_t *self, int h, const char *mine,
                            int other, const char *theirs, errbuf_t *err)
{
    char a[LIMIT_ENDPOINT + 4200], b[sizeof a], first[400];
    endpoint_canonical(theirs, a, sizeof a);
    endpoint_canonical(mine, b, sizeof b);
    if (!endpoint_overlap(a, b))
        return 0;
    s_link_words(self, other, first, sizeof first);
    if (strcmp(mine, theirs) == 0)
        return topology_key_error(self, LEVEL_HOP, h, KEY_ENDPOINT, err,
                                  "hop %d uses the endpoint of %s, %s", h + 1,
                                  first, mine);
    if (strcmp(a, b) == 0)
        return topology_key_error(self, LEVEL_HOP, h, KEY_ENDPOINT, err,
                                  "hop %d endpoint %s names the socket of %s, "
                                  "whose endpoint is %s: both are %s",
                                  h + 1, mine, first, theirs, a);
    return topology_key_error(
        self, LEVEL_HOP, h, KEY_ENDPOINT, err,
        "hop %d endpoint %s overlaps %s, whose endpoint is "
        "%s: a bind on 0.0.0.0 or [::] takes its port on "
        "every address",
        h + 1, mine, first, theirs);
}

int topology_validate_hop(const topology_t *self, int h, errbuf_t *err)
{
    params_t hop;
    errbuf_t why;
    topology_hop_params(self, h, &hop);
    //  the file's topology-wide curve encrypts its tcp hops; a hop's own
    //  must find one (hopbench gives CURVE keys to tcp hops only)
    if (hop.curve && self->hops[h].params.set[KEY_CURVE] &&
        hop.transport != TRANSPORT_TCP)
        return topology_key_error(
            self, LEVEL_HOP, h, KEY_CURVE, err,
            "hop %d has curve, but it is %s: hopbench "
            "encrypts tcp hops only (transport = tcp, or no "
            "curve)",
            h + 1, params_transport_names[hop.transport]);
    if (*hop.endpoint) {
        if (endpoint_check(hop.endpoint, hop.transport, &why))
            return topology_key_error(self, LEVEL_HOP, h, KEY_ENDPOINT, err,
                                      "hop %d %s", h + 1, why.msg);
        for (int other = 0; other < h; other++) {
            params_t before;
            topology_hop_params(self, other, &before);
            if (*before.endpoint &&
                s_endpoint_alias(self, h, hop.endpoint, other, before.endpoint,
                                 err))
                return -1;
        }
    }
    return 0;
}

//  curve = true for the whole file must find a tcp hop to encrypt
int topology_validate_curve(const topology_t *self, errbuf_t *err)
{
    if (!self->params.curve)
        return 0;
    for (int h = 0; h < self->nhops; h++) {
        params_t hop;
        topology_hop_params(self, h, &hop);
        if (hop.transport == TRANSPORT_TCP)
            return 0;
    }
    return topology_key_error(
        self, LEVEL_TOPOLOGY, 0, KEY_CURVE, err,
        "curve = true, but no hop is tcp: hopbench encrypts "
        "tcp hops only, so nothing would be (transport = tcp "
        "on the hops to encrypt)");
}

//  "host 'h1'", or "the controller's host" for a stage without one
static void s_host_words(const char *host, char *buf, size_t len)
{
    if (host[0])
        snprintf(buf, len, "host '%s'", host);
    else
        snprintf(buf, len, "the controller's host");
}

//  Two instances of stages up and down on different hosts, if any: their
//  hosts into a and b
static bool s_crossing_pair(const params_t *up, const params_t *down,
                            char *a, char *b, size_t len)
{
    for (int i = 0; i < up->count; i++)
        for (int j = 0; j < down->count; j++) {
            topology_instance_host(up, i, a, len);
            topology_instance_host(down, j, b, len);
            if (strcmp(a, b))
                return true;
        }
    return false;
}

//  A hop between two hosts (or a host and the controller's) is tcp
int topology_validate_crossing(const topology_t *self, int h, errbuf_t *err)
{
    params_t up, down, hop;
    char a[LIMIT_NAME + 1], b[LIMIT_NAME + 1];
    topology_stage_params(self, topology_hop_up(self, h), &up);
    topology_stage_params(self, topology_hop_down(self, h), &down);
    topology_hop_params(self, h, &hop);
    if (hop.transport == TRANSPORT_TCP ||
        !s_crossing_pair(&up, &down, a, b, sizeof a))
        return 0;
    char from[64], to[64];
    s_host_words(a, from, sizeof from);
    s_host_words(b, to, sizeof to);
    return topology_key_error(
        self, LEVEL_HOP, h, KEY_TRANSPORT, err,
        "hop %d is %s, which cannot cross from %s to %s (use "
        "tcp)",
        h + 1, params_transport_names[hop.transport], from, to);
}

