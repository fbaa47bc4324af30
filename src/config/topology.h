/*  topology: a pipeline, or a tree of them, as the user wrote it, loaded
    from a ZPL file.

        # chain3: publisher -> 3 proxies -> subscriber
        topology = chain3
            sizes = 8..131072
            transport = ipc             # default for hops that name none
        publisher = pub
        hop = tcp
        proxy = p1
            engine = steerable
        hop
        proxy = p2
        ...
        subscriber = sub
            count = 4

    Top-level names, in file order: one "topology", then stages
    (publisher/subscriber, pusher/puller, requester/replier, proxy).  A
    stage's upstream is the stage written before it, joined by the "hop"
    line between them; a stage may instead name its upstreams with "from"
    lines, each a link whose keys are its children:

        proxy = core
            from = edge-west,edge-east  # two links, the topology's keys
        proxy = eu
            from = core
                transport = tcp         # this link's own keys

    so a file can describe a tree (config/shape.h): fan-in tiers (edges
    into a core) and fan-out tiers (a core into regional edges), pubsub
    only.  A publisher written with neither starts a new branch.  Links
    (hops) are numbered sources first; a chain keeps its order.  Anywhere
    among them, at most one "controller" line (no value) holds where
    hopbench's own threads go (node, cpus; --set controller.KEY=VALUE): a
    pseudo-stage, not part of the pipeline.  Every key lives in params
    (one table); this module checks where keys may appear, the shape of
    the pipeline, and applies --set overrides.  Errors name file:line, or
    the --set.
*/
#ifndef HOPBENCH_TOPOLOGY_H
#define HOPBENCH_TOPOLOGY_H

#include <stdio.h>

#include "base/errbuf.h"
#include "base/limits.h"
#include "config/params.h"
#include "config/pattern.h"
#include "config/shape.h"

#define TOPO_MAX_STAGES LIMIT_STAGES
#define TOPO_NAME_MAX   LIMIT_NAME


typedef struct {
    char name[TOPO_NAME_MAX + 1];
    role_t role;
    int line;
    params_t params; //  keys given on this stage
} topo_stage_t;

typedef struct {
    int line;        //  its "hop" line, or the "from" line that names it
    bool from;       //  named by a "from" line (else a "hop" line)
    char up[TOPO_NAME_MAX + 1]; //  from: the upstream it names
    params_t params; //  keys given on this hop ("hop = ipc" is transport)
} topo_hop_t;

typedef struct {
    char path[256];
    char name[TOPO_NAME_MAX + 1];
    int line;
    bool bom;        //  the file started with a UTF-8 byte-order mark, skipped
    params_t params; //  topology level: defaults, then the file, then --set
    int nstages;     //  at most TOPO_MAX_STAGES
    topo_stage_t *stages; //  nstages of them, grown while loading
    int room;             //  stages allocated
    int nhops;            //  links: nstages - 1 in a chain
    topo_hop_t *hops;     //  hops[h] joins shape.link[h].up to .down
    int hops_room;        //  hops allocated
    shape_t shape;        //  which stage feeds which; hops in number order
    char **sets;          //  the --set and --sweep assignments applied, as
    int nsets;            //  "--set KEY=VALUE": where their keys came from
    params_t controller;  //  keys of the "controller" line (node, cpus)
    int controller_line;  //  its line, 0 when the file has none
} topology_t;

//  Load and check the file's keys; call topology_validate after --set
topology_t *topology_load(const char *path, errbuf_t *err);
topology_t *topology_load_text(const char *path, const char *text,
                               errbuf_t *err);
void topology_destroy(topology_t **self_p);
//  A copy that shares nothing with self; NULL when out of memory
topology_t *topology_dup(const topology_t *self);

//  "KEY=VALUE", "STAGE.KEY=VALUE", "hopN.KEY=VALUE" or "UP:DOWN.KEY=VALUE"
//  (the link from stage UP to stage DOWN), from --set
int topology_set(topology_t *self, const char *assignment, errbuf_t *err);
//  The same from another option ("--sweep"), which messages name
int topology_set_as(topology_t *self, const char *assignment,
                    const char *option, errbuf_t *err);
//  After a topology-level "KEY=VALUE": the stages and hops that keep a
//  value of their own for KEY, so the assignment does not reach them
//  ("broker, hop2"); empty when it reaches everything
void topology_shadowed(const topology_t *self, const char *assignment,
                       char *names, size_t len);
//  The pipeline's shape and the keys' combinations
int topology_validate(const topology_t *self, errbuf_t *err);

//  Effective values for a stage / for hop h (0-based, in number order)
void topology_stage_params(const topology_t *self, int stage, params_t *out);
void topology_hop_params(const topology_t *self, int hop, params_t *out);
//  The host of instance i of a stage whose effective params are 'stage':
//  the i-th name of its host list, round robin ("" for none)
void topology_instance_host(const params_t *stage, int i, char *out,
                            size_t len);
//  The node each stage asks for through the topology's nodes key, in
//  pipeline order (-1: "-", or no nodes key); err when nodes is malformed
int topology_nodes(const topology_t *self, int *nodes, errbuf_t *err);
//  Index of the stage called name, -1 if none
int topology_stage_index(const topology_t *self, const char *name);
//  The stages at either end of hop h (0-based)
int topology_hop_up(const topology_t *self, int h);
int topology_hop_down(const topology_t *self, int h);
//  Where a key of stage or hop 'index' (level LEVEL_STAGE or LEVEL_HOP),
//  or of the topology or the controller (LEVEL_TOPOLOGY,
//  LEVEL_CONTROLLER: index ignored), took its value: the
//  prefix of a message about it, "file:7: " or "--set sub.cpus=5: ".  A
//  key given at neither that level nor the topology's gives the line of
//  the stage, hop or topology itself.
void topology_where(const topology_t *self, unsigned level, int index,
                    param_key_t key, char *buf, size_t len);
//  -1 with an error about a key, after where it took its value
int topology_key_error(const topology_t *self, unsigned level, int index,
                       param_key_t key, errbuf_t *err, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

//  The effective configuration as ZPL (loads back to the same topology)
void topology_save(const topology_t *self, FILE *out);

int topology_test(bool verbose);

#endif
