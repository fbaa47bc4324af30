/*  topology_internal: what the topology files share, and nothing else
    includes.  topology.c loads the model; topology_set.c applies --set
    and says where a key took its value; topology_validate.c is the entry
    of the checks (shape, modes, the topology's own keys), which call
    validate_links.c (each hop: endpoints, CURVE, hosts it crosses),
    validate_stages.c (each stage: engine, process, hosts, zones, its
    sockets' sides) and validate_topics.c (the topic keys);
    topology_save.c writes the effective configuration.
*/
#ifndef HOPBENCH_TOPOLOGY_INTERNAL_H
#define HOPBENCH_TOPOLOGY_INTERNAL_H

#include "config/topology.h"

#include <stdarg.h>

//  An error about a key, after where it took its value (topology_where)
int topology_key_verror(const topology_t *self, unsigned level, int index,
                        param_key_t key, errbuf_t *err, const char *fmt,
                        va_list ap);

//  Set one key at a level; 'where' prefixes messages ("file:7: "), and
//  'origin' is where it came from (params_t.line)
int topology_set_key(params_t *params, unsigned level, const char *key,
                     const char *value, int origin, const char *where,
                     errbuf_t *err);

//  The checks topology_validate runs, in its order
int topology_validate_hop(const topology_t *self, int h, errbuf_t *err);
int topology_validate_crossing(const topology_t *self, int h, errbuf_t *err);
int topology_validate_curve(const topology_t *self, errbuf_t *err);
int topology_validate_stages(const topology_t *self, errbuf_t *err);
int topology_validate_topics(const topology_t *self, errbuf_t *err);

//  Does a stage of this role take key k (the topic keys are publishers' or
//  subscribers')?
bool topology_topic_key_fits(role_t role, int k);

//  Selftests' helpers: text loaded, set and validated, expecting an error
//  that contains 'want'; what topology_save writes, loaded again
int topology_expect(const char *text, const char *set, const char *want);
topology_t *topology_reloaded(const topology_t *topo);
int topology_validate_test(void);

#endif
