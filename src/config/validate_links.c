/*  validate_links: each hop on its own: its endpoint (well formed, not
    another hop's), and the hosts it crosses (only tcp leaves a host).
*/
#include "config/topology_internal.h"

#include "config/endpoint.h"

#include <string.h>


int topology_validate_hop(const topology_t *self, int h, errbuf_t *err)
{
    params_t hop;
    errbuf_t why;
    topology_hop_params(self, h, &hop);
    if (*hop.endpoint) {
        if (endpoint_check(hop.endpoint, hop.transport, &why))
            return s_key_error(self, LEVEL_HOP, h, KEY_ENDPOINT, err,
                               "hop %d %s", h + 1, why.msg);
        for (int other = 0; other < h; other++) {
            params_t before;
            topology_hop_params(self, other, &before);
            if (strcmp(before.endpoint, hop.endpoint) == 0)
                return s_key_error(self, LEVEL_HOP, h, KEY_ENDPOINT, err,
                                   "hop %d uses hop %d's endpoint %s", h + 1,
                                   other + 1, hop.endpoint);
        }
    }
    return 0;
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
    return s_key_error(self, LEVEL_HOP, h, KEY_TRANSPORT, err,
                       "hop %d is %s, which cannot cross from %s to %s (use "
                       "tcp)",
                       h + 1, params_transport_names[hop.transport], from, to);
}

