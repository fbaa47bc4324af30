/*  topology: load a pipeline from ZPL, apply --set, validate its shape.

    Loading walks the file's top-level names in order.  "topology" holds
    topology-level keys; a stage name starts a stage; "hop" joins the stage
    before it to the stage after it.  Each key is checked against the level
    where it appears (params' table says where a key may go), and every
    error carries file:line.  The shape (first stage a source, last a sink,
    proxies between, a hop between each two) is checked by
    topology_validate, after --set overrides, since those can change it.
*/
#include "config/topology.h"

#include "base/check.h"
#include "config/endpoint.h"
#include "config/topics.h"
#include "config/zpl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int s_role(const char *name)
{
    for (int r = 0; pattern_role_names[r]; r++)
        if (strcmp(pattern_role_names[r], name) == 0)
            return r;
    return -1;
}

//  Edit distance, to suggest a key for a typo
static int s_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 30 || lb > 30)
        return 99;
    int row[32];
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static const char *s_suggest(const char *name, unsigned level)
{
    const char *best = NULL;
    int best_distance = 3;
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        const option_t *opt = &params_options[k];
        int d = s_distance(name, opt->name);
        if ((opt->levels & level) && d < best_distance)
            best = opt->name, best_distance = d;
    }
    return best;
}

static int s_unknown_key(const char *where, const char *key, unsigned level,
                         errbuf_t *err)
{
    const option_t *opt = params_option(key);
    if (params_retired(key))
        return err_set(err, "%s%s", where, params_retired(key));
    if (opt)
        return err_set(err, "%s'%s' is a %s key, not a %s key", where, key,
                       params_levels_text(opt->levels),
                       params_levels_text(level));
    const char *hint = s_suggest(key, level);
    if (hint)
        return err_set(err, "%sunknown key '%s' (did you mean '%s'?)", where,
                       key, hint);
    return err_set(err, "%sunknown key '%s' (hopbench --help-keys lists them)",
                   where, key);
}

//  Set one key at a level; 'where' prefixes messages ("file:7: "), and
//  'origin' is where it came from (params_t.line)
static int s_set_key(params_t *params, unsigned level, const char *key,
                     const char *value, int origin, const char *where,
                     errbuf_t *err)
{
    const option_t *opt = params_option(key);
    if (!opt || !(opt->levels & level))
        return s_unknown_key(where, key, level, err);
    errbuf_t why;
    if (params_set(params, opt, value, &why))
        return err_set(err, "%s%s", where, why.msg);
    params->line[opt - params_options] = origin;
    return 0;
}

//  One key of a node: not given twice among its siblings
static int s_load_key(zpl_t *zpl, zconfig_t *node, zconfig_t *child,
                      params_t *params, unsigned level, errbuf_t *err)
{
    char where[300];
    const char *key = zconfig_name(child);
    snprintf(where, sizeof where, "%s:%d: ", zpl_path(zpl),
             zpl_line(zpl, child));
    if (zconfig_child(child))
        return err_set(err, "%s'%s' takes no indented lines below it", where,
                       key);
    for (zconfig_t *prev = zconfig_child(node); prev != child;
         prev = zconfig_next(prev))
        if (strcmp(zconfig_name(prev), key) == 0)
            return err_set(err, "%s'%s' given twice (also at line %d)", where,
                           key, zpl_line(zpl, prev));
    return s_set_key(params, level, key, zconfig_value(child),
                     zpl_line(zpl, child), where, err);
}

//  The keys under one node
static int s_load_keys(zpl_t *zpl, zconfig_t *node, params_t *params,
                       unsigned level, errbuf_t *err)
{
    for (zconfig_t *child = zconfig_child(node); child;
         child = zconfig_next(child))
        if (s_load_key(zpl, node, child, params, level, err))
            return -1;
    return 0;
}

static int s_check_name(const char *where, const char *name, errbuf_t *err)
{
    size_t len = strlen(name);
    if (len == 0 || len > TOPO_NAME_MAX)
        return err_set(err, "%sa name needs 1 to %d characters (LIMIT_NAME)",
                       where, TOPO_NAME_MAX);
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return err_set(err, "%sname '%s': use letters, digits, _ and -",
                           where, name);
    if (strncmp(name, "hop", 3) == 0 && isdigit((unsigned char)name[3]))
        return err_set(err, "%sname '%s' would clash with --set hopN.KEY",
                       where, name);
    if (strcmp(name, "controller") == 0)
        return err_set(err,
                       "%sname 'controller' would clash with --set "
                       "controller.KEY (hopbench's own threads)",
                       where);
    return 0;
}

static int s_load_topology(topology_t *self, zpl_t *zpl, zconfig_t *node,
                           const char *where, errbuf_t *err)
{
    if (self->line)
        return err_set(err, "%sa second 'topology' (the first is at line %d)",
                       where, self->line);
    if (s_check_name(where, zconfig_value(node), err))
        return -1;
    snprintf(self->name, sizeof self->name, "%s", zconfig_value(node));
    self->line = zpl_line(zpl, node);
    return s_load_keys(zpl, node, &self->params, LEVEL_TOPOLOGY, err);
}

//  "controller": where hopbench's own threads go, at most once, no value
static int s_load_controller(topology_t *self, zpl_t *zpl, zconfig_t *node,
                             const char *where, errbuf_t *err)
{
    if (self->controller_line)
        return err_set(err,
                       "%sa second 'controller' (the first is at line %d)",
                       where, self->controller_line);
    if (*zconfig_value(node))
        return err_set(err,
                       "%s'controller' takes no value: its keys (node, cpus) "
                       "go on the lines below it",
                       where);
    self->controller_line = zpl_line(zpl, node);
    return s_load_keys(zpl, node, &self->controller, LEVEL_CONTROLLER, err);
}

//  While loading: the ends of each hop entry (stage indices; a from's
//  upstream is resolved once every stage is known) and the hop line that
//  waits for the stage after it
//  Hop lines and from entries a file may hold: one more than a tree of
//  LIMIT_STAGES stages has links, so that a chain one stage too long is
//  refused for its stages, and any more links for their loop
#define TOPO_MAX_LINK_LINES LIMIT_STAGES

typedef struct {
    int pending; //  -1: none
    int up[TOPO_MAX_LINK_LINES], down[TOPO_MAX_LINK_LINES];
} load_t;

//  Room for one more stage
static int s_grow_stages(topology_t *self, const char *where, errbuf_t *err)
{
    if (self->nstages < self->room)
        return 0;
    int room = self->room ? 2 * self->room : 8;
    room = room < TOPO_MAX_STAGES ? room : TOPO_MAX_STAGES;
    topo_stage_t *stages = realloc(self->stages, (size_t)room * sizeof *stages);
    if (!stages)
        return err_set(err, "%sout of memory", where);
    memset(stages + self->room, 0, (size_t)(room - self->room) * sizeof *stages);
    self->stages = stages;
    self->room = room;
    return 0;
}

//  One more hop entry (a hop line or a from), at line; NULL with err set
static topo_hop_t *s_new_hop(topology_t *self, int line, const char *where,
                             errbuf_t *err)
{
    if (self->nhops == TOPO_MAX_LINK_LINES)
        return err_set(err,
                       "%smore than %d links: a tree of at most %d stages "
                       "has fewer (LIMIT_STAGES, docs/LIMITS.md)",
                       where, TOPO_MAX_LINK_LINES - 1, TOPO_MAX_STAGES),
               NULL;
    if (self->nhops == self->hops_room) {
        int room = self->hops_room ? 2 * self->hops_room : 8;
        room = room < TOPO_MAX_LINK_LINES ? room : TOPO_MAX_LINK_LINES;
        topo_hop_t *hops = realloc(self->hops, (size_t)room * sizeof *hops);
        if (!hops)
            return err_set(err, "%sout of memory", where), NULL;
        self->hops = hops;
        self->hops_room = room;
    }
    topo_hop_t *hop = &self->hops[self->nhops++];
    memset(hop, 0, sizeof *hop);
    hop->line = line;
    params_defaults(&hop->params);
    return hop;
}

//  "from = a,b" below a stage: a link from each, its keys the children
static int s_load_from(topology_t *self, load_t *load, zpl_t *zpl,
                       zconfig_t *node, const char *where, errbuf_t *err)
{
    const char *list = zconfig_value(node);
    if (!*list)
        return err_set(err, "%sfrom needs the stages it names (from = a,b)",
                       where);
    for (const char *p = list; *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        char name[TOPO_NAME_MAX + 1];
        if (len == 0 || len > TOPO_NAME_MAX)
            return err_set(err, "%sfrom '%s': stage names of 1 to %d "
                           "characters, commas between", where, list,
                           TOPO_NAME_MAX);
        memcpy(name, p, len);
        name[len] = 0;
        for (int h = 0; h < self->nhops; h++)
            if (load->down[h] == self->nstages - 1 &&
                strcmp(self->hops[h].up, name) == 0)
                return err_set(err, "%sfrom names '%s' twice (also at line "
                               "%d)", where, name, self->hops[h].line);
        topo_hop_t *hop = s_new_hop(self, zpl_line(zpl, node), where, err);
        if (!hop || s_load_keys(zpl, node, &hop->params, LEVEL_HOP, err))
            return -1;
        hop->from = true;
        snprintf(hop->up, sizeof hop->up, "%s", name);
        load->up[self->nhops - 1] = -1;
        load->down[self->nhops - 1] = self->nstages - 1;
        p += len;
    }
    return 0;
}

//  A stage's children: its keys, and its from lines
static int s_load_stage_keys(topology_t *self, load_t *load, zpl_t *zpl,
                             zconfig_t *node, errbuf_t *err)
{
    topo_stage_t *stage = &self->stages[self->nstages - 1];
    for (zconfig_t *child = zconfig_child(node); child;
         child = zconfig_next(child)) {
        char where[300];
        snprintf(where, sizeof where, "%s:%d: ", zpl_path(zpl),
                 zpl_line(zpl, child));
        if (strcmp(zconfig_name(child), "from") != 0) {
            if (s_load_key(zpl, node, child, &stage->params, LEVEL_STAGE, err))
                return -1;
            continue;
        }
        if (load->pending >= 0)
            return err_set(err,
                           "%s'%s' names its upstreams with from: no 'hop' "
                           "line before it (line %d; a link's keys go "
                           "below its from)",
                           where, stage->name, self->hops[load->pending].line);
        if (pattern_is_source(stage->role))
            return err_set(err, "%sfrom: a %s has no upstream", where,
                           pattern_role_names[stage->role]);
        if (s_load_from(self, load, zpl, child, where, err))
            return -1;
    }
    return 0;
}

//  Does the stage under node name its upstreams?
static bool s_has_from(zconfig_t *node)
{
    for (zconfig_t *child = zconfig_child(node); child;
         child = zconfig_next(child))
        if (strcmp(zconfig_name(child), "from") == 0)
            return true;
    return false;
}

static int s_load_stage(topology_t *self, load_t *load, zpl_t *zpl,
                        zconfig_t *node, role_t role, const char *where,
                        errbuf_t *err)
{
    if (self->nstages == TOPO_MAX_STAGES)
        return err_set(err,
                       "%sstage %d: a topology has at most %d stages "
                       "(LIMIT_STAGES, docs/LIMITS.md)",
                       where, self->nstages + 1, TOPO_MAX_STAGES);
    //  a publisher may start a branch of its own; other stages are fed
    if (self->nstages > 0 && load->pending < 0 && !s_has_from(node) &&
        role != ROLE_PUBLISHER)
        return err_set(err,
                       "%sno hop between '%s' and this stage (add a "
                       "'hop' line, or 'from = STAGE' below it to name "
                       "its upstream)",
                       where, self->stages[self->nstages - 1].name);
    const char *name = zconfig_value(node);
    if (s_check_name(where, name, err))
        return -1;
    if (topology_stage_index(self, name) >= 0)
        return err_set(err, "%sa second stage called '%s'", where, name);
    if (s_grow_stages(self, where, err))
        return -1;
    topo_stage_t *stage = &self->stages[self->nstages++];
    snprintf(stage->name, sizeof stage->name, "%s", name);
    stage->role = role;
    stage->line = zpl_line(zpl, node);
    params_defaults(&stage->params);
    if (s_load_stage_keys(self, load, zpl, node, err))
        return -1;
    if (load->pending >= 0)
        load->down[load->pending] = self->nstages - 1;
    load->pending = -1;
    return 0;
}

static int s_load_hop(topology_t *self, load_t *load, zpl_t *zpl,
                      zconfig_t *node, const char *where, errbuf_t *err)
{
    if (self->nstages == 0)
        return err_set(err, "%sa hop before any stage", where);
    if (load->pending >= 0)
        return err_set(err, "%stwo hops in a row (after '%s')", where,
                       self->stages[self->nstages - 1].name);
    topo_hop_t *hop = s_new_hop(self, zpl_line(zpl, node), where, err);
    if (!hop)
        return -1;
    load->pending = self->nhops - 1;
    load->up[load->pending] = self->nstages - 1;
    load->down[load->pending] = -1;
    //  "hop = ipc" is "hop" with "transport = ipc" below it: one or the other
    const char *transport = zconfig_value(node);
    zconfig_t *child = zconfig_locate(node, "transport");
    if (*transport && child)
        return err_set(err,
                       "%s:%d: transport given twice: also as the value of "
                       "'hop = %s' (line %d)",
                       zpl_path(zpl), zpl_line(zpl, child), transport,
                       hop->line);
    if (*transport && s_set_key(&hop->params, LEVEL_HOP, "transport", transport,
                                hop->line, where, err))
        return -1;
    return s_load_keys(zpl, node, &hop->params, LEVEL_HOP, err);
}

//  "a -> b -> c -> a"
static void s_cycle_words(const topology_t *self, const shape_refusal_t *why,
                          char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k <= why->npath && used < len; k++)
        used += (size_t)snprintf(
            buf + used, len - used, "%s%s", k ? " -> " : "",
            self->stages[why->path[k < why->npath ? k : 0]].name);
}

//  A stage of 'role' kind at the far end from 'from' (up: a source that
//  reaches it; down: a sink it reaches), or 'from' itself
static int s_end_stage(const topology_t *self, int from, bool up)
{
    for (int s = 0; s < self->nstages; s++) {
        bool kind = up ? pattern_is_source(self->stages[s].role)
                       : pattern_is_sink(self->stages[s].role);
        if (kind && (up ? shape_reaches(&self->shape, s, from)
                        : shape_reaches(&self->shape, from, s)))
            return s;
    }
    return from;
}

//  Why link h (up -> down) cannot be, at its line
static int s_refused(const topology_t *self, int h, int up, int down,
                     const shape_refusal_t *why, errbuf_t *err)
{
    const topo_hop_t *hop = &self->hops[h];
    const char *u = self->stages[up].name, *d = self->stages[down].name;
    char words[600];
    if (why->problem == SHAPE_CYCLE) {
        s_cycle_words(self, why, words, sizeof words);
        return err_set(err,
                       "%s:%d: %s -> %s makes a cycle (%s): messages would "
                       "go round for ever",
                       self->path, hop->line, u, d, words);
    }
    if (why->problem == SHAPE_DIAMOND) {
        int pub = s_end_stage(self, why->top, true);
        int sub = s_end_stage(self, down, false);
        int other = shape_link_towards(&self->shape, why->top, down);
        const char *through =
            other >= 0 ? self->stages[self->shape.link[other].up].name : "?";
        return err_set(err,
                       "%s:%d: %s -> %s makes a diamond: '%s' would reach "
                       "'%s' through both '%s' and '%s', so '%s' would get "
                       "every message of '%s' twice (one path from each "
                       "publisher to each subscriber)",
                       self->path, hop->line, u, d,
                       self->stages[pub].name, self->stages[sub].name, u,
                       through, self->stages[sub].name,
                       self->stages[pub].name);
    }
    if (why->problem == SHAPE_LOOP)
        return err_set(err,
                       "%s:%d: %s -> %s closes a loop: '%s' and '%s' are "
                       "joined already (a topology is a tree: one path at "
                       "most between two stages, directions aside)",
                       self->path, hop->line, u, d, u, d);
    return err_set(err, "%s:%d: %s -> %s: more links than %d stages can have",
                   self->path, hop->line, u, d, self->nstages);
}

//  Each from's upstream by name; unknown names are refused
static int s_resolve(topology_t *self, load_t *load, errbuf_t *err)
{
    for (int h = 0; h < self->nhops; h++) {
        if (!self->hops[h].from)
            continue;
        load->up[h] = topology_stage_index(self, self->hops[h].up);
        if (load->up[h] >= 0)
            continue;
        char names[200] = "";
        for (int i = 0; i < self->nstages; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%s", i ? ", " : "", self->stages[i].name);
        return err_set(err, "%s:%d: from '%s': no stage called '%s' "
                       "(stages: %s)", self->path, self->hops[h].line,
                       self->hops[h].up, self->hops[h].up, names);
    }
    return 0;
}

//  The shape of the file: every link added in file order (the first to
//  close a loop is refused, named once every other is in), then the hops
//  numbered sources first
static int s_link(topology_t *self, load_t *load, errbuf_t *err)
{
    if (s_resolve(self, load, err))
        return -1;
    int order[TOPO_MAX_LINK_LINES], refused = -1;
    for (int h = 0; h < self->nhops; h++) { //  by line: hop lines, froms
        int k = h;
        while (k > 0 && self->hops[order[k - 1]].line > self->hops[h].line) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = h;
    }
    shape_init(&self->shape, self->nstages);
    int added[TOPO_MAX_LINK_LINES], nadded = 0;
    shape_refusal_t why;
    for (int k = 0; k < self->nhops; k++) {
        int h = order[k];
        if (shape_add(&self->shape, load->up[h], load->down[h], &why) == 0)
            added[nadded++] = h;
        else if (refused < 0)
            refused = h;
    }
    if (refused >= 0) {
        shape_add(&self->shape, load->up[refused], load->down[refused], &why);
        return s_refused(self, refused, load->up[refused],
                         load->down[refused], &why, err);
    }
    int perm[SHAPE_MAX_LINKS];
    shape_finish(&self->shape, perm);
    topo_hop_t *sorted = malloc((size_t)(self->nhops + 1) * sizeof *sorted);
    if (!sorted)
        return err_set(err, "%s: out of memory", self->path);
    for (int k = 0; k < self->nhops; k++)
        sorted[k] = self->hops[added[perm[k]]];
    memcpy(self->hops, sorted, (size_t)self->nhops * sizeof *sorted);
    free(sorted);
    return 0;
}

static int s_load_node(topology_t *self, load_t *load, zpl_t *zpl,
                       zconfig_t *node, errbuf_t *err)
{
    char where[300];
    const char *name = zconfig_name(node);
    snprintf(where, sizeof where, "%s:%d: ", zpl_path(zpl),
             zpl_line(zpl, node));
    int role = s_role(name);
    if (strcmp(name, "topology") == 0)
        return s_load_topology(self, zpl, node, where, err);
    if (strcmp(name, "hop") == 0)
        return s_load_hop(self, load, zpl, node, where, err);
    if (strcmp(name, "controller") == 0)
        return s_load_controller(self, zpl, node, where, err);
    if (role >= 0)
        return s_load_stage(self, load, zpl, node, role, where, err);
    return err_set(err,
                   "%sunknown name '%s' (topology, hop, publisher, "
                   "subscriber, proxy, pusher, puller, requester, "
                   "replier, controller)",
                   where, name);
}

static int s_load(topology_t *self, zpl_t *zpl, errbuf_t *err)
{
    load_t *load = calloc(1, sizeof *load);
    if (!load)
        return err_set(err, "%s: out of memory", zpl_path(zpl));
    load->pending = -1;
    int rc = 0;
    for (zconfig_t *node = zconfig_child(zpl_root(zpl)); node && rc == 0;
         node = zconfig_next(node))
        rc = s_load_node(self, load, zpl, node, err);
    if (rc == 0 && !self->line)
        rc = err_set(err, "%s: no 'topology = NAME' line", zpl_path(zpl));
    if (rc == 0 && load->pending >= 0)
        rc = err_set(err, "%s:%d: a hop after the last stage", zpl_path(zpl),
                     self->hops[load->pending].line);
    if (rc == 0)
        rc = s_link(self, load, err);
    free(load);
    //  Without a pattern key, the first stage says which pattern it is
    if (rc == 0 && !self->params.set[KEY_PATTERN] && self->nstages > 0)
        self->params.pattern =
            self->stages[0].role == ROLE_PUSHER      ? PATTERN_PUSHPULL
            : self->stages[0].role == ROLE_REQUESTER ? PATTERN_REQREP
                                                     : PATTERN_PUBSUB;
    return rc;
}

topology_t *topology_load_text(const char *path, const char *text,
                               errbuf_t *err)
{
    zpl_t *zpl = text ? zpl_load_text(path, text, err) : zpl_load(path, err);
    if (!zpl)
        return NULL;
    topology_t *self = calloc(1, sizeof *self);
    if (!self) {
        zpl_destroy(&zpl);
        err_set(err, "%s: out of memory", path);
        return NULL;
    }
    snprintf(self->path, sizeof self->path, "%s", path);
    params_defaults(&self->params);
    params_defaults(&self->controller);
    self->bom = zpl_bom(zpl);
    if (s_load(self, zpl, err))
        topology_destroy(&self);
    zpl_destroy(&zpl);
    return self;
}

topology_t *topology_load(const char *path, errbuf_t *err)
{
    return topology_load_text(path, NULL, err);
}

void topology_destroy(topology_t **self_p)
{
    topology_t *self = *self_p;
    if (self) {
        for (int i = 0; i < self->nsets; i++)
            free(self->sets[i]);
        free(self->sets);
        free(self->stages);
        free(self->hops);
        free(self);
        *self_p = NULL;
    }
}

topology_t *topology_dup(const topology_t *self)
{
    topology_t *copy = calloc(1, sizeof *copy);
    if (!copy)
        return NULL;
    *copy = *self;
    size_t room = (size_t)self->room, hops_room = (size_t)self->hops_room;
    copy->stages = room ? malloc(room * sizeof *copy->stages) : NULL;
    copy->hops = hops_room ? malloc(hops_room * sizeof *copy->hops) : NULL;
    copy->sets = calloc((size_t)self->nsets + 1, sizeof *copy->sets);
    copy->nsets = 0;
    bool ok = copy->sets && (!room || copy->stages) &&
              (!hops_room || copy->hops);
    if (ok && room)
        memcpy(copy->stages, self->stages, room * sizeof *copy->stages);
    if (ok && hops_room)
        memcpy(copy->hops, self->hops, hops_room * sizeof *copy->hops);
    for (int i = 0; ok && i < self->nsets; i++)
        ok = (copy->sets[copy->nsets++] = strdup(self->sets[i])) != NULL;
    if (!ok)
        topology_destroy(&copy);
    return copy;
}

int topology_stage_index(const topology_t *self, const char *name)
{
    for (int i = 0; i < self->nstages; i++)
        if (strcmp(self->stages[i].name, name) == 0)
            return i;
    return -1;
}

int topology_hop_up(const topology_t *self, int h)
{
    return self->shape.link[h].up;
}

int topology_hop_down(const topology_t *self, int h)
{
    return self->shape.link[h].down;
}

//  "UP:DOWN": the link from stage UP to stage DOWN, -1 if none
static int s_named_link(const topology_t *self, const char *target)
{
    const char *colon = strchr(target, ':');
    char up[TOPO_NAME_MAX + 1];
    if (!colon || colon - target > TOPO_NAME_MAX)
        return -1;
    snprintf(up, sizeof up, "%.*s", (int)(colon - target), target);
    int u = topology_stage_index(self, up);
    int d = topology_stage_index(self, colon + 1);
    for (int h = 0; u >= 0 && d >= 0 && h < self->nhops; h++)
        if (topology_hop_up(self, h) == u && topology_hop_down(self, h) == d)
            return h;
    return -1;
}

//  Which params a --set target names: the topology, a stage, or a hop
static params_t *s_set_target(topology_t *self, const char *target,
                              unsigned *level, const char *where, errbuf_t *err)
{
    int hop;
    char tail;
    if (strcmp(target, "controller") == 0) {
        *level = LEVEL_CONTROLLER;
        return &self->controller;
    }
    if (sscanf(target, "hop%d%c", &hop, &tail) == 1) {
        if (hop < 1 || hop > self->nhops)
            return err_set(err, "%sthere is no hop %d (hops 1..%d)", where, hop,
                           self->nhops),
                   NULL;
        *level = LEVEL_HOP;
        return &self->hops[hop - 1].params;
    }
    if (strchr(target, ':')) {
        int h = s_named_link(self, target);
        if (h < 0)
            return err_set(err, "%sno link '%s' (UP:DOWN names a link from "
                           "stage UP to stage DOWN; hopbench check --verbose "
                           "lists them)", where, target), NULL;
        *level = LEVEL_HOP;
        return &self->hops[h].params;
    }
    int stage = topology_stage_index(self, target);
    if (stage < 0) {
        char names[200] = "";
        for (int i = 0; i < self->nstages; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%s", i ? ", " : "", self->stages[i].name);
        return err_set(err,
                       "%sno stage called '%s' (stages: %s; hops: "
                       "hop1..hop%d; controller)",
                       where, target, names, self->nhops),
               NULL;
    }
    *level = LEVEL_STAGE;
    return &self->stages[stage].params;
}

//  Keep "--set KEY=VALUE" for topology_where; *origin = -(its index + 1)
static int s_remember(topology_t *self, const char *option,
                      const char *assignment, int *origin, errbuf_t *err)
{
    char **sets = realloc(self->sets, (size_t)(self->nsets + 1) * sizeof *sets);
    char *text = malloc(strlen(option) + strlen(assignment) + 2);
    if (sets)
        self->sets = sets;
    if (!sets || !text) {
        free(text);
        return err_set(err, "%s %.200s: out of memory", option, assignment);
    }
    sprintf(text, "%s %s", option, assignment);
    self->sets[self->nsets++] = text;
    *origin = -self->nsets;
    return 0;
}

int topology_set(topology_t *self, const char *assignment, errbuf_t *err)
{
    return topology_set_as(self, assignment, "--set", err);
}

int topology_set_as(topology_t *self, const char *assignment,
                    const char *option, errbuf_t *err)
{
    char where[300], target[128] = "";
    snprintf(where, sizeof where, "%s %.200s: ", option, assignment);
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return err_set(err, "%sexpected KEY=VALUE", where);
    const char *key = assignment, *dot = memchr(key, '.', (size_t)(eq - key));
    unsigned level = LEVEL_TOPOLOGY;
    params_t *params = &self->params;
    if (dot) {
        snprintf(target, sizeof target, "%.*s", (int)(dot - key), key);
        params = s_set_target(self, target, &level, where, err);
        if (!params)
            return -1;
        key = dot + 1;
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - key), key);
    const option_t *opt = params_option(name);
    if (opt && level == LEVEL_TOPOLOGY && !(opt->levels & LEVEL_TOPOLOGY))
        return err_set(err, "%s'%s' is a %s key: use %s.%s=VALUE", where, name,
                       params_levels_text(opt->levels),
                       opt->levels & LEVEL_STAGE ? "STAGE" : "hopN", name);
    int origin = 0;
    if (s_remember(self, option, assignment, &origin, err))
        return -1;
    return s_set_key(params, level, name, eq + 1, origin, where, err);
}

//  The prefix for an origin (params_t.line)
static void s_origin(const topology_t *self, int origin, char *buf, size_t len)
{
    if (origin > 0)
        snprintf(buf, len, "%s:%d: ", self->path, origin);
    else if (origin < 0 && -origin <= self->nsets)
        snprintf(buf, len, "%.200s: ", self->sets[-origin - 1]);
    else
        snprintf(buf, len, "%s: ", self->path);
}

void topology_where(const topology_t *self, unsigned level, int index,
                    param_key_t key, char *buf, size_t len)
{
    const params_t *own = &self->params;
    int line = self->line;
    if (level == LEVEL_STAGE)
        own = &self->stages[index].params, line = self->stages[index].line;
    else if (level == LEVEL_HOP)
        own = &self->hops[index].params, line = self->hops[index].line;
    else if (level == LEVEL_CONTROLLER)
        own = &self->controller,
        line = self->controller_line ? self->controller_line : self->line;
    int origin = own->set[key]           ? own->line[key]
                 : self->params.set[key] ? self->params.line[key]
                                         : line;
    s_origin(self, origin, buf, len);
}

void topology_shadowed(const topology_t *self, const char *assignment,
                       char *names, size_t len)
{
    char key[64];
    names[0] = 0;
    snprintf(key, sizeof key, "%.*s", (int)strcspn(assignment, "="),
             assignment);
    const option_t *opt = params_option(key);
    if (!opt || strchr(key, '.'))
        return;
    int k = (int)(opt - params_options);
    for (int i = 0; i < self->nstages; i++)
        if (self->stages[i].params.set[k])
            snprintf(names + strlen(names), len - strlen(names), "%s%s",
                     names[0] ? ", " : "", self->stages[i].name);
    for (int h = 0; h < self->nhops; h++)
        if (self->hops[h].params.set[k])
            snprintf(names + strlen(names), len - strlen(names), "%shop%d",
                     names[0] ? ", " : "", h + 1);
}

void topology_stage_params(const topology_t *self, int stage, params_t *out)
{
    params_overlay(out, &self->params, &self->stages[stage].params);
}

void topology_hop_params(const topology_t *self, int hop, params_t *out)
{
    params_overlay(out, &self->params, &self->hops[hop].params);
}

//  An error about a key, after where it took its value (topology_where)
static int __attribute__((format(printf, 6, 7)))
s_key_error(const topology_t *self, unsigned level, int index, param_key_t key,
            errbuf_t *err, const char *fmt, ...)
{
    char where[300];
    errbuf_t text;
    topology_where(self, level, index, key, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    err_vset(&text, fmt, ap);
    va_end(ap);
    return err_set(err, "%s%s", where, text.msg);
}

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
            return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_NODES, err,
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
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_NODES, err,
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
            return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_NODES, err,
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
            return s_key_error(self, LEVEL_STAGE, i, KEY_COUNT, err,
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
            return s_key_error(self, LEVEL_STAGE, i, KEY_COUNT, err,
                               "count is for the first and last stages "
                               "(publishers and subscribers, anywhere in a "
                               "tree); proxy '%s' runs once",
                               stage->name);
        if (stage->role != ROLE_PROXY && stage->params.set[KEY_ENGINE])
            return s_key_error(self, LEVEL_STAGE, i, KEY_ENGINE, err,
                               "engine is a proxy key; '%s' is a %s",
                               stage->name, pattern_role_names[stage->role]);
    }
    return s_validate_origins(self, err);
}

static int s_validate_hop(const topology_t *self, int h, errbuf_t *err)
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
            return s_key_error(self, LEVEL_HOP, h, KEY_HWM, err,
                               "hop %d asks for hwm %d, hop %d for %d: the "
                               "hops %s '%s' share its socket, and a socket "
                               "has one HWM",
                               h + 1, b.hwm, first + 1, a.hwm, side,
                               self->stages[i].name);
        if (b.curve != a.curve)
            return s_key_error(self, LEVEL_HOP, h, KEY_CURVE, err,
                               "hop %d has curve %s, hop %d %s: the hops %s "
                               "'%s' share its socket, CURVE on all or none",
                               h + 1, b.curve ? "true" : "false", first + 1,
                               a.curve ? "true" : "false", side,
                               self->stages[i].name);
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
        return s_key_error(self, LEVEL_STAGE, i, KEY_ENGINE, err,
                           "engine %s: reqrep through %s is not "
                           "counted (use %s)",
                           name, name, others);
    for (int h = s_next_hop_at(self, i, -1); h >= 0;
         h = s_next_hop_at(self, i, h)) {
        params_t hop;
        topology_hop_params(self, h, &hop);
        if (hop.transport == TRANSPORT_INPROC &&
            engine_can(engine, TRAIT_CZMQ_ACTOR))
            return s_key_error(self, LEVEL_HOP, h, KEY_TRANSPORT, err,
                               "engine %s runs in czmq's own context: "
                               "hop %d cannot be inproc",
                               name, h + 1);
        if (hop.hwm != 1000 && !engine_can(engine, TRAIT_SETS_HWM))
            return s_key_error(self, LEVEL_HOP, h, KEY_HWM, err,
                               "engine %s keeps libzmq's HWM of 1000; "
                               "hop %d asks for %d",
                               name, h + 1, hop.hwm);
        if (hop.curve && !engine_can(engine, TRAIT_TAKES_CURVE))
            return s_key_error(self, LEVEL_HOP, h, KEY_CURVE, err,
                               "engine %s: hopbench does not give it "
                               "CURVE keys (hop %d has curve)",
                               name, h + 1);
    }
    if (p->pattern == PATTERN_PUBSUB && p->mode == MODE_CAPACITY &&
        !engine_can(engine, TRAIT_HOLDS_BACKPRESSURE))
        return s_key_error(self, LEVEL_STAGE, i, KEY_ENGINE, err,
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
        return s_key_error(self, LEVEL_STAGE, i, KEY_PROCESS, err,
                           "stage '%s' runs in its own process: hop %d "
                           "cannot be inproc (use ipc or tcp)",
                           self->stages[i].name, h + 1);
    return 0;
}

void topology_instance_host(const params_t *stage, int i, char *out,
                            size_t len)
{
    const char *list = stage->host;
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    const char *at = list;
    for (int k = 0; k < i % n; k++)
        at = strchr(at, ',') + 1;
    snprintf(out, len, "%.*s", (int)strcspn(at, ","), at);
}

//  The hosts of a stage's list: names of letters, digits, _ and -, at
//  most one per instance
static int s_validate_host_list(const topology_t *self, int i,
                                const params_t *stage, errbuf_t *err)
{
    const char *host = stage->host;
    int names = 1;
    for (const char *p = host; *p; p++)
        names += *p == ',';
    for (const char *p = host; *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        if (len == 0 || len > LIMIT_NAME ||
            strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                      "OPQRSTUVWXYZ0123456789_-") != len)
            return s_key_error(self, LEVEL_STAGE, i, KEY_HOST, err,
                               "host '%s': names of 1 to %d letters, digits, "
                               "_ and -, commas between",
                               host, LIMIT_NAME);
        p += len;
    }
    if (names > stage->count)
        return s_key_error(self, LEVEL_STAGE, i, KEY_HOST, err,
                           "host '%s' names %d hosts for %d instance%s of "
                           "'%s': the extra ones would run nothing",
                           host, names, stage->count,
                           stage->count == 1 ? "" : "s", self->stages[i].name);
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
        return s_key_error(self, LEVEL_STAGE, i, KEY_NETNS, err,
                           "stage '%s' runs on host %s: zones (netns) are "
                           "made on the controller's host only",
                           self->stages[i].name, host);
    int h = s_inproc_neighbour(self, i);
    if (h >= 0)
        return s_key_error(self, LEVEL_STAGE, i, KEY_HOST, err,
                           "stage '%s' runs on host %s, in a process of its "
                           "own: hop %d cannot be inproc (use ipc or tcp)",
                           self->stages[i].name, host, h + 1);
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
static int s_validate_crossing(const topology_t *self, int h, errbuf_t *err)
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
        return s_key_error(self, LEVEL_STAGE, culprit, KEY_NETNS, err,
                           "hop %d is inproc, which cannot cross from zone "
                           "'%s' to zone '%s'",
                           h + 1, before.netns, zone);
    if (h + 1 > LIMIT_ZONE_HOPS)
        return s_key_error(self, LEVEL_STAGE, culprit, KEY_NETNS, err,
                           "hop %d crosses zones; only hops 1..%d can "
                           "(LIMIT_ZONE_HOPS, docs/LIMITS.md)",
                           h + 1, LIMIT_ZONE_HOPS);
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
        return s_key_error(self, LEVEL_STAGE, i, KEY_NETNS, err,
                           "zone '%s': up to %d letters, digits, _ and -", zone,
                           LIMIT_ZONE_NAME);
    for (int h = shape_next_in(&self->shape, i, -1); h >= 0;
         h = shape_next_in(&self->shape, i, h))
        if (s_validate_zone_hop(self, h, zone, err))
            return -1;
    return 0;
}

//  What each mode needs: flood and search are pubsub's; search chooses the
//  rates and the trials' length itself
static int s_validate_mode(const topology_t *self, errbuf_t *err)
{
    const params_t *p = &self->params;
    if (p->mode != MODE_CAPACITY && p->pattern != PATTERN_PUBSUB)
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_MODE, err,
                           "mode = %s is for pubsub (pushpull never drops, "
                           "reqrep and connect time themselves)",
                           params_mode_names[p->mode]);
    if (p->mode != MODE_SEARCH)
        return 0;
    if (p->profile != PROFILE_NONE)
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_PROFILE, err,
                           "profile = %s traces fixed windows, each beside "
                           "an untraced twin: not with mode = search",
                           params_profile_names[p->profile]);
    if (p->precision > 0)
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_PRECISION, err,
                           "mode = search runs its own trials to its own "
                           "precision (search_precision, search_trials): "
                           "precision and max_repeat are for capacity and "
                           "flood");
    if (p->rate > 0)
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_RATE, err,
                           "mode = search chooses the rates itself: leave "
                           "rate at 0");
    if (p->messages > 0)
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_MESSAGES, err,
                           "mode = search times its trials (search_trial, "
                           "search_confirm): leave messages at 0");
    for (int i = 0; i < p->sizes.n && p->p99_us > 0; i++)
        if (p->sizes.size[i] < 16)
            return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_P99_US, err,
                               "p99_us needs sizes of at least 16 bytes "
                               "(sequence and send time); sizes has %u",
                               p->sizes.size[i]);
    return 0;
}

//  ------------------------------------------------------------------------
//  Topics (config/topics.h): whose keys they are, and what they must agree on

//  Does a stage of this role take key k?  The topic keys are publishers'
//  (topics, topic_size, topic_order) or subscribers' (subscribe,
//  subscriptions, consume_ns); every other key is anyone's
static bool s_topic_key_fits(role_t role, int k)
{
    if (k == KEY_TOPICS || k == KEY_TOPIC_SIZE || k == KEY_TOPIC_ORDER)
        return pattern_is_source(role);
    if (k == KEY_SUBSCRIBE || k == KEY_SUBSCRIPTIONS || k == KEY_CONSUME_NS ||
        k == KEY_SOCKETS)
        return pattern_is_sink(role);
    return true;
}

//  A topic key given on a stage whose role does not take it
static int s_topic_role(const topology_t *self, int i, errbuf_t *err)
{
    const topo_stage_t *stage = &self->stages[i];
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if (stage->params.set[k] && !s_topic_key_fits(stage->role, k))
            return s_key_error(
                self, LEVEL_STAGE, i, (param_key_t)k, err,
                "%s is a %s's key, and '%s' is not one", params_options[k].name,
                s_topic_key_fits(ROLE_PUBLISHER, k) ? "publisher"
                                                    : "subscriber",
                stage->name);
    return 0;
}

//  sockets = N (N > 1): a pubsub subscriber's, on any host
static int s_sockets_fit(const topology_t *self, int i, const params_t *p,
                         errbuf_t *err)
{
    const topo_stage_t *stage = &self->stages[i];
    if (p->sockets <= 1 || !pattern_is_sink(stage->role))
        return 0;
    if (self->params.pattern != PATTERN_PUBSUB)
        return s_key_error(self, LEVEL_STAGE, i, KEY_SOCKETS, err,
                           "sockets %d on stage '%s': sockets is for the "
                           "subscribers of pubsub",
                           p->sockets, stage->name);
    return 0;
}

//  Topic keys off their defaults outside pubsub (consume_ns: pushpull too)
static int s_topic_pattern(const topology_t *self, int i, const params_t *p,
                           errbuf_t *err)
{
    int pattern = self->params.pattern;
    param_key_t key = p->topics > 1                 ? KEY_TOPICS
                      : p->frames > 1               ? KEY_FRAMES
                      : strcmp(p->subscribe, "all") ? KEY_SUBSCRIBE
                      : p->subscriptions            ? KEY_SUBSCRIPTIONS
                                                    : KEY_COUNT_OF_KEYS;
    if (key != KEY_COUNT_OF_KEYS && pattern != PATTERN_PUBSUB)
        return s_key_error(self, LEVEL_STAGE, i, key, err,
                           "%s is for pubsub (topics and subscriptions)",
                           params_options[key].name);
    if (p->consume_ns > 0 && pattern != PATTERN_PUBSUB &&
        pattern != PATTERN_PUSHPULL)
        return s_key_error(self, LEVEL_STAGE, i, KEY_CONSUME_NS, err,
                           "consume_ns is for the receivers of pubsub and "
                           "pushpull");
    return s_sockets_fit(self, i, p, err);
}

//  What the topic keys add up to over the stages
typedef struct {
    int most;      //  the most topics of any publisher
    int size;      //  their topic_size (the topology's when none)
    int publisher; //  a publisher stage, for messages about topic_size
    long extras;   //  extra subscriptions of every subscriber instance
} topic_sum_t;

//  Every publisher's topic_order reads, and they share one topic_size
static int s_topic_source(const topology_t *self, int i, const params_t *p,
                          topic_sum_t *sum, errbuf_t *err)
{
    topics_order_t order;
    double exponent;
    if (topics_order_parse(p->topic_order, &order, &exponent, err))
        return s_key_error(self, LEVEL_STAGE, i, KEY_TOPIC_ORDER, err, "%s",
                           err->msg);
    if (sum->publisher >= 0 && p->topic_size != sum->size)
        return s_key_error(self, LEVEL_STAGE, i, KEY_TOPIC_SIZE, err,
                           "topic_size %d: every publisher's is the same "
                           "(%s has %d; receivers read the header after it)",
                           p->topic_size, self->stages[sum->publisher].name,
                           sum->size);
    if (sum->publisher < 0)
        sum->publisher = i, sum->size = p->topic_size;
    sum->most = p->topics > sum->most ? p->topics : sum->most;
    return 0;
}

static int s_topic_sum(const topology_t *self, topic_sum_t *sum, errbuf_t *err)
{
    *sum = (topic_sum_t){1, self->params.topic_size, -1, 0};
    for (int i = 0; i < self->nstages; i++) {
        params_t p;
        topology_stage_params(self, i, &p);
        if (s_topic_role(self, i, err) || s_topic_pattern(self, i, &p, err))
            return -1;
        if (pattern_is_sink(self->stages[i].role))
            sum->extras += (long)p.count * p.subscriptions;
        if (pattern_is_source(self->stages[i].role) &&
            s_topic_source(self, i, &p, sum, err))
            return -1;
    }
    return 0;
}

//  Topics' digits, and frames = 1 messages that hold topic and header
static int s_topic_room(const topology_t *self, const topic_sum_t *sum,
                        errbuf_t *err)
{
    const params_t *p = &self->params;
    int need = topics_digits((uint64_t)sum->most + (uint64_t)sum->extras);
    if (sum->size < need)
        return s_key_error(self,
                           sum->publisher >= 0 ? LEVEL_STAGE : LEVEL_TOPOLOGY,
                           sum->publisher, KEY_TOPIC_SIZE, err,
                           "topic_size %d is too small: %d topics and %ld "
                           "extra subscriptions are numbered in %d digits",
                           sum->size, sum->most, sum->extras, need);
    unsigned least = (unsigned)sum->size + (p->rate > 0 ? 16 : 8);
    for (int i = 0; i < p->sizes.n && p->frames == 1; i++)
        if (p->sizes.size[i] < least)
            return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_SIZES, err,
                               "a message that starts with its topic needs "
                               "sizes of at least %u bytes (topic_size %d, "
                               "then the %s); sizes has %u (or frames = 2)",
                               least, sum->size,
                               p->rate > 0 ? "sequence and send time"
                                           : "sequence",
                               p->sizes.size[i]);
    return 0;
}

//  The topic keys: on the right stages, in pubsub, and consistent
static int s_validate_topics(const topology_t *self, errbuf_t *err)
{
    topic_sum_t sum;
    if (s_topic_sum(self, &sum, err))
        return -1;
    for (int i = 0; i < self->nstages; i++) {
        params_t p;
        topology_stage_params(self, i, &p);
        if (pattern_is_sink(self->stages[i].role) &&
            topics_subscribe_check(p.subscribe, sum.most, err))
            return s_key_error(self, LEVEL_STAGE, i, KEY_SUBSCRIBE, err, "%s",
                               err->msg);
    }
    if (sum.most > 1 || self->params.frames == 2 || sum.extras > 0)
        return s_topic_room(self, &sum, err);
    return 0;
}

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
            return s_key_error(self, LEVEL_STAGE, i, KEY_NETNS, err,
                               "zone '%s': more than %d zones (LIMIT_ZONES, "
                               "docs/LIMITS.md)",
                               zone, LIMIT_ZONES);
        zones[nzones++] = zone;
    }
    return 0;
}

static int s_validate_stages(const topology_t *self, errbuf_t *err)
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
            if (s_validate_crossing(self, h, err))
                return -1;
    }
    return s_validate_zones(self, err);
}

static int s_validate_params(const topology_t *self, errbuf_t *err)
{
    const params_t *p = &self->params;
    if (s_validate_stages(self, err) || s_validate_nodes(self, err))
        return -1;
    if (p->pattern == PATTERN_REQREP && (p->rate > 0 || p->zerocopy))
        return s_key_error(self, LEVEL_TOPOLOGY, 0,
                           p->rate > 0 ? KEY_RATE : KEY_ZEROCOPY, err,
                           "reqrep times its own round trips: rate and "
                           "zerocopy are for pubsub and pushpull");
    if (p->rate > 0 && p->zerocopy)
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_ZEROCOPY, err,
                           "zerocopy is for throughput runs (rate = 0)");
    if (s_validate_mode(self, err) || s_validate_topics(self, err))
        return -1;
    if (p->precision > 0 && p->max_repeat < params_min_repeat(p))
        return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_MAX_REPEAT, err,
                           "max_repeat %d is below the %d repeats precision "
                           "starts with (repeat)",
                           p->max_repeat, params_min_repeat(p));
    if (p->rate > 0)
        for (int i = 0; i < p->sizes.n; i++)
            if (p->sizes.size[i] < 16)
                return s_key_error(self, LEVEL_TOPOLOGY, 0, KEY_SIZES, err,
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
        if (s_validate_hop(self, h, err))
            return -1;
    return s_validate_params(self, err);
}

//  One "    key = value" line; values are always quoted
static void s_save_key(FILE *out, const params_t *params, int k)
{
    char value[1024];
    params_format(params, &params_options[k], value, sizeof value);
    fprintf(out, "    %s = \"%s\"\n", params_options[k].name, value);
}

//  A link's keys, indented under its hop or from line
static void s_save_link(const topology_t *self, int h, const char *indent,
                        FILE *out)
{
    params_t effective;
    topology_hop_params(self, h, &effective);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if ((params_options[k].levels & LEVEL_HOP) &&
            (k != KEY_TRANSPORT || *indent)) {
            fputs(indent, out);
            s_save_key(out, &effective, k);
        }
}

//  The one hop that joins stage i to the stage written before it, or -1
//  when its upstreams are named (from)
static int s_hop_line(const topology_t *self, int i)
{
    int h = shape_next_in(&self->shape, i, -1);
    if (h < 0 || shape_next_in(&self->shape, i, h) >= 0 ||
        topology_hop_up(self, h) != i - 1)
        return -1;
    return h;
}

//  A stage: its hop line before it, or its from lines below it
static void s_save_stage(const topology_t *self, int i, FILE *out)
{
    const topo_stage_t *stage = &self->stages[i];
    params_t effective;
    int line = s_hop_line(self, i);
    if (line >= 0) {
        topology_hop_params(self, line, &effective);
        fprintf(out, "hop = %s\n", params_transport_names[effective.transport]);
        s_save_link(self, line, "", out);
    }
    topology_stage_params(self, i, &effective);
    fprintf(out, "%s = %s\n", pattern_role_names[stage->role], stage->name);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if ((params_options[k].levels & LEVEL_STAGE) &&
            (stage->role == ROLE_PROXY || k != KEY_ENGINE) &&
            (stage->role != ROLE_PROXY || k != KEY_COUNT) &&
            s_topic_key_fits(stage->role, k))
            s_save_key(out, &effective, k);
    for (int h = shape_next_in(&self->shape, i, -1); h >= 0 && line < 0;
         h = shape_next_in(&self->shape, i, h)) {
        fprintf(out, "    from = %s\n",
                self->stages[topology_hop_up(self, h)].name);
        s_save_link(self, h, "    ", out);
    }
}

void topology_save(const topology_t *self, FILE *out)
{
    fprintf(out, "# effective configuration of %s\n", self->path);
    fprintf(out, "topology = %s\n", self->name);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if (params_options[k].levels & LEVEL_TOPOLOGY)
            s_save_key(out, &self->params, k);
    fprintf(out, "controller\n");
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if (params_options[k].levels & LEVEL_CONTROLLER)
            s_save_key(out, &self->controller, k);
    for (int i = 0; i < self->nstages; i++)
        s_save_stage(self, i, out);
}

//  Loads text, applies sets, validates; expects an error containing 'want'
static int s_expect(const char *text, const char *set, const char *want)
{
    errbuf_t err = {{0}};
    topology_t *topo = topology_load_text("t.cfg", text, &err);
    int rc = topo ? 0 : -1;
    if (topo && set)
        rc = topology_set(topo, set, &err);
    if (topo && rc == 0)
        rc = topology_validate(topo, &err);
    topology_destroy(&topo);
    if (rc == 0 || !strstr(err.msg, want)) {
        fprintf(stderr, "topology: wanted '%s', got '%s'\n", want,
                rc ? err.msg : "success");
        return -1;
    }
    return 0;
}

//  What topology_save writes, loaded and validated again; NULL on failure
static topology_t *s_reloaded(const topology_t *topo)
{
    errbuf_t err;
    char *saved = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&saved, &len);
    if (!out)
        return NULL;
    topology_save(topo, out);
    fclose(out);
    topology_t *again = topology_load_text("saved.cfg", saved, &err);
    free(saved);
    if (again && topology_validate(again, &err))
        topology_destroy(&again);
    return again;
}

static const char *s_chain = "topology = chain\n"
                             "    transport = ipc\n"
                             "    sizes = 64,4096\n"
                             "publisher = pub\n"
                             "hop = tcp\n"
                             "    hwm = 5000\n"
                             "proxy = p1\n"
                             "hop\n"
                             "subscriber = sub\n"
                             "    count = 4\n";

static int s_test_load(void)
{
    errbuf_t err;
    params_t p;
    topology_t *topo = topology_load_text("t.cfg", s_chain, &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    CHECK(topo->nstages == 3 && strcmp(topo->name, "chain") == 0);
    CHECK(topo->params.pattern == PATTERN_PUBSUB);
    topology_hop_params(topo, 0, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 5000);
    topology_hop_params(topo, 1, &p);
    CHECK(p.transport == TRANSPORT_IPC && p.hwm == 1000);
    topology_stage_params(topo, 2, &p);
    CHECK(p.count == 4 && p.sizes.n == 2);

    //  --set: the topology's transport moves hops that name none
    CHECK(topology_set(topo, "transport=inproc", &err) == 0);
    CHECK(topology_set(topo, "sub.count=2", &err) == 0);
    CHECK(topology_set(topo, "hop1.hwm=7", &err) == 0);
    topology_hop_params(topo, 1, &p);
    CHECK(p.transport == TRANSPORT_INPROC);
    topology_hop_params(topo, 0, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 7);
    topology_stage_params(topo, 2, &p);
    CHECK(p.count == 2);
    CHECK(topology_set(topo, "node=1", &err) == -1);
    CHECK(strstr(err.msg, "use STAGE.node=VALUE"));
    CHECK(topology_set(topo, "nosuch.hwm=1", &err) == -1);
    CHECK(strstr(err.msg, "no stage called 'nosuch'"));
    CHECK(topology_set(topo, "hop9.hwm=1", &err) == -1);
    CHECK(topology_set(topo, "hwm", &err) == -1);

    //  The effective config loads back to the same values
    topology_t *again = s_reloaded(topo);
    CHECK(again);
    topology_hop_params(again, 0, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 7);
    topology_stage_params(again, 2, &p);
    CHECK(p.count == 2);
    topology_destroy(&again);
    topology_destroy(&topo);
    return 0;
}

//  Where keys took their values, and copies that share nothing
static int s_test_where(void)
{
    errbuf_t err;
    char where[300];
    topology_t *topo = topology_load_text("t.cfg", s_chain, &err);
    CHECK(topo && topology_set(topo, "sub.cpus=0", &err) == 0);
    topology_where(topo, LEVEL_HOP, 0, KEY_HWM, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:6: ") == 0);
    topology_where(topo, LEVEL_HOP, 1, KEY_TRANSPORT, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:2: ") == 0); //  the topology's transport
    topology_where(topo, LEVEL_HOP, 0, KEY_TRANSPORT, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:5: ") == 0); //  hop = tcp
    topology_where(topo, LEVEL_STAGE, 2, KEY_CPUS, where, sizeof where);
    CHECK(strcmp(where, "--set sub.cpus=0: ") == 0);
    topology_where(topo, LEVEL_STAGE, 1, KEY_NODE, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:7: ") == 0); //  not given: the stage's line
    topology_t *copy = topology_dup(topo);
    CHECK(copy && copy->stages != topo->stages && copy->sets != topo->sets);
    CHECK(topology_set_as(copy, "hop2.hwm=9", "--sweep", &err) == 0);
    topology_where(copy, LEVEL_HOP, 1, KEY_HWM, where, sizeof where);
    CHECK(strcmp(where, "--sweep hop2.hwm=9: ") == 0);
    CHECK(topo->nsets == 1 && !topo->hops[1].params.set[KEY_HWM]);
    topology_destroy(&copy);
    topology_destroy(&topo);
    return 0;
}

//  The controller's line and the nodes key: read, set, saved, refused
static int s_test_controller(void)
{
    errbuf_t err;
    char where[300];
    int nodes[3];
    const char *text = "topology = t\n    nodes = 0+-+1\ncontroller\n"
                       "    cpus = 3\npublisher = pub\nhop\nproxy = p\n"
                       "hop\nsubscriber = sub\n";
    topology_t *topo = topology_load_text("t.cfg", text, &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    CHECK(strcmp(topo->controller.cpus, "3") == 0 && topo->controller_line == 3);
    CHECK(topology_nodes(topo, nodes, &err) == 0);
    CHECK(nodes[0] == 0 && nodes[1] == -1 && nodes[2] == 1);
    CHECK(topology_set(topo, "controller.node=1", &err) == 0);
    CHECK(topo->controller.node == 1);
    topology_where(topo, LEVEL_CONTROLLER, 0, KEY_NODE, where, sizeof where);
    CHECK(strcmp(where, "--set controller.node=1: ") == 0);
    CHECK(topology_set(topo, "controller.count=2", &err) == -1);
    CHECK(strstr(err.msg, "'count' is a stage key, not a controller key"));
    topology_t *again = s_reloaded(topo);
    CHECK(again);
    CHECK(again->controller.node == 1 && strcmp(again->controller.cpus, "3") == 0);
    CHECK(strcmp(again->params.nodes, "0+-+1") == 0);
    topology_destroy(&again);
    CHECK(topology_set(topo, "pub.node=1", &err) == 0);
    CHECK(topology_validate(topo, &err) == -1);
    CHECK(strstr(err.msg, "nodes puts stage 'pub' on node 0, but its own "
                          "node is 1"));
    topology_destroy(&topo);
    CHECK(s_expect("topology = t\ncontroller = x\n", NULL,
                   "t.cfg:2: 'controller' takes no value") == 0);
    CHECK(s_expect("topology = t\ncontroller\ncontroller\n", NULL,
                   "t.cfg:3: a second 'controller' (the first is at line "
                   "2)") == 0);
    CHECK(s_expect("topology = t\npublisher = controller\n", NULL,
                   "name 'controller' would clash") == 0);
    const char *pair = "topology = t\npublisher = a\nhop\nsubscriber = b\n";
    CHECK(s_expect(pair, "nodes=0", "nodes '0' has 1 entry for 2 stages") == 0);
    CHECK(s_expect(pair, "nodes=0+x", "'x' is neither a node number") == 0);
    CHECK(s_expect(pair, "nodes=0+", "'' is neither a node number") == 0);
    CHECK(s_expect(pair, "nodes=01+1", "'01' is neither") == 0);
    return 0;
}

//  A 2-tier fan-in, written branch by branch, and its links numbered
//  sources first: west, east into their edges, the edges into the core
static const char *s_fanin = "topology = fanin\n"
                             "publisher = west\n"
                             "    count = 3\n"
                             "hop = ipc\n"
                             "proxy = edge-west\n"
                             "publisher = east\n"
                             "hop = ipc\n"
                             "proxy = edge-east\n"
                             "proxy = core\n"
                             "    from = edge-west\n"
                             "        transport = tcp\n"
                             "    from = edge-east\n"
                             "        transport = ipc\n"
                             "hop = tcp\n"
                             "subscriber = sub\n";

static int s_test_tree(void)
{
    errbuf_t err;
    params_t p;
    topology_t *topo = topology_load_text("t.cfg", s_fanin, &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    CHECK(topo->nstages == 6 && topo->nhops == 5);
    CHECK(topology_hop_up(topo, 0) == 0 && topology_hop_down(topo, 0) == 1);
    CHECK(topology_hop_up(topo, 1) == 2 && topology_hop_down(topo, 1) == 3);
    CHECK(topology_hop_up(topo, 2) == 1 && topology_hop_down(topo, 2) == 4);
    CHECK(topology_hop_up(topo, 3) == 3 && topology_hop_up(topo, 4) == 4);
    topology_hop_params(topo, 2, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 1000);
    topology_hop_params(topo, 3, &p);
    CHECK(p.transport == TRANSPORT_IPC && p.hwm == 1000);
    topology_hop_params(topo, 4, &p);
    CHECK(p.transport == TRANSPORT_TCP); //  the default
    CHECK(topology_set(topo, "edge-east:core.transport=inproc", &err) == 0);
    topology_hop_params(topo, 3, &p);
    CHECK(p.transport == TRANSPORT_INPROC);
    CHECK(topology_set(topo, "sub:core.hwm=7", &err) == -1);
    CHECK(strstr(err.msg, "no link 'sub:core'"));
    char where[300];
    topology_where(topo, LEVEL_HOP, 3, KEY_HWM, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:12: ") == 0); //  not given: its from line
    topology_where(topo, LEVEL_HOP, 3, KEY_TRANSPORT, where, sizeof where);
    CHECK(strcmp(where, "--set edge-east:core.transport=inproc: ") == 0);
    topology_t *again = s_reloaded(topo);
    CHECK(again && again->nhops == 5);
    for (int h = 0; h < 5; h++)
        CHECK(topology_hop_up(again, h) == topology_hop_up(topo, h) &&
              topology_hop_down(again, h) == topology_hop_down(topo, h));
    topology_hop_params(again, 3, &p);
    CHECK(p.transport == TRANSPORT_INPROC);
    topology_hop_params(again, 0, &p);
    CHECK(p.transport == TRANSPORT_IPC);
    topology_destroy(&again);
    topology_destroy(&topo);
    return 0;
}

//  What a tree may not be
static int s_test_tree_errors(void)
{
    const char *head = "topology = t\npublisher = a\nhop\nproxy = b\n";
    char text[512];
    snprintf(text, sizeof text,
             "%sproxy = c\n    from = b,d\nproxy = d\n    from = c\n"
             "hop\nsubscriber = s\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:8: c -> d makes a cycle (d -> c -> "
                               "d)") == 0);
    snprintf(text, sizeof text,
             "%sproxy = c\n    from = a\nproxy = d\n    from = b,c\n"
             "hop\nsubscriber = s\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:8: c -> d makes a diamond: 'a' would "
                               "reach 's' through both 'c' and 'b'") == 0);
    snprintf(text, sizeof text, "%sproxy = c\n    from = x\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:6: from 'x': no stage called 'x'") == 0);
    snprintf(text, sizeof text, "%shop\nproxy = c\n    from = a\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:7: 'c' names its upstreams with from: "
                               "no 'hop' line before it (line 5") == 0);
    snprintf(text, sizeof text, "%spublisher = c\n    from = a\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:6: from: a publisher has no "
                               "upstream") == 0);
    snprintf(text, sizeof text, "%shop\nsubscriber = s\nproxy = c\n"
             "    from = s\nhop\nsubscriber = t\nsubscriber = u\n"
             "    from = b\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:8: subscriber 's' has a downstream "
                               "('c')") == 0);
    snprintf(text, sizeof text, "%shop\nsubscriber = s\nproxy = c\n"
             "    from = b\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:7: proxy 'c' feeds no stage") == 0);
    snprintf(text, sizeof text, "%spublisher = c\nhop\nsubscriber = s\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:4: proxy 'b' feeds no stage") == 0);
    snprintf(text, sizeof text, "%shop\nsubscriber = s\nsubscriber = t\n"
             "    from = b,b\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:8: from names 'b' twice") == 0);
    snprintf(text, sizeof text, "topology = t\n    pattern = pushpull\n"
             "pusher = a\nhop\nproxy = b\nhop\npuller = c\npuller = d\n"
             "    from = b\n");
    CHECK(s_expect(text, NULL, "t.cfg:9: a pushpull pipeline is a chain") == 0);
    snprintf(text, sizeof text, "%sproxy = c\n    from = b\n        hwm = 5\n"
             "hop\nsubscriber = s\nsubscriber = t\n    from = b\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:11: hop 3 asks for hwm 1000, hop 2 for "
                               "5: the hops out of 'b' share its socket") == 0);
    return 0;
}

int topology_test(bool verbose)
{
    (void)verbose;
    CHECK(s_test_load() == 0);
    CHECK(s_test_where() == 0);
    CHECK(s_test_controller() == 0);
    CHECK(s_test_tree() == 0);
    CHECK(s_test_tree_errors() == 0);
    const char *head = "topology = t\n";
    char text[512];
    snprintf(text, sizeof text, "%spublisher = a\nhop = tpc\nsubscriber = b\n",
             head);
    CHECK(s_expect(text, NULL, "t.cfg:3: unknown transport 'tpc'") == 0);
    snprintf(text, sizeof text, "%s    hwn = 5\npublisher = a\n", head);
    CHECK(s_expect(text, NULL,
                   "t.cfg:2: unknown key 'hwn' (did you mean "
                   "'hwm'?)") == 0);
    snprintf(text, sizeof text, "%s    sizes = 0..-5\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:2: sizes '0..-5'") == 0);
    snprintf(text, sizeof text, "%spublisher = a\nsubscriber = b\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:3: no hop between 'a'") == 0);
    snprintf(text, sizeof text, "%ssubscriber = a\nhop\npublisher = b\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:2: stage 1 of a pubsub pipeline") == 0);
    snprintf(text, sizeof text,
             "%spublisher = a\nhop\nproxy = p\n"
             "    count = 2\nhop\nsubscriber = b\n",
             head);
    CHECK(s_expect(text, NULL, "t.cfg:5: count is for the first") == 0);
    snprintf(text, sizeof text, "%spublisher = a\n    endpoint = x\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:3: 'endpoint' is a hop key") == 0);
    snprintf(text, sizeof text,
             "%spublisher = a\nhop = ipc\n    endpoint = "
             "tcp://127.0.0.1:1\nsubscriber = b\n",
             head);
    CHECK(s_expect(text, NULL, "t.cfg:4: hop 1 endpoint") == 0);
    snprintf(text, sizeof text, "%spublisher = a\nhop\nsubscriber = a\n", head);
    CHECK(s_expect(text, NULL, "t.cfg:4: a second stage called 'a'") == 0);
    snprintf(text, sizeof text, "%spublisher = a\nhop\nsubscriber = b\nhop\n",
             head);
    CHECK(s_expect(text, NULL, "t.cfg:5: a hop after the last stage") == 0);
    snprintf(text, sizeof text, "%spublisher = a\nhop\nsubscriber = b\n", head);
    CHECK(s_expect(text, "transport=tpc",
                   "--set transport=tpc: unknown "
                   "transport 'tpc'") == 0);
    CHECK(s_expect("publisher = a\n", NULL, "no 'topology = NAME'") == 0);
    CHECK(s_expect("topology = a b\n", NULL, "t.cfg:1: value 'a b'") == 0);
    CHECK(s_expect("bogus = 1\n", NULL, "t.cfg:1: unknown name 'bogus'") == 0);
    return 0;
}
