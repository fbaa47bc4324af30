/*  topology: load a pipeline from ZPL into the model (topology.h).

    Loading walks the file's top-level names in order.  "topology" holds
    topology-level keys; a stage name starts a stage; "hop" joins the stage
    before it to the stage after it.  Each key is checked against the level
    where it appears (params' table says where a key may go), and every
    error carries file:line.  The shape (first stage a source, last a sink,
    proxies between, a hop between each two) is checked by
    topology_validate (topology_validate.c), after --set overrides
    (topology_set.c), since those can change it.
*/
#include "config/topology_internal.h"

#include "base/check.h"
#include "config/hostlist.h"
#include "config/zpl.h"

#include <ctype.h>
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
int topology_set_key(params_t *params, unsigned level, const char *key,
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
    return topology_set_key(params, level, key, zconfig_value(child),
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
    if (*transport && topology_set_key(&hop->params, LEVEL_HOP, "transport", transport,
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

//  The hops in the shape's order: hop k is the one added perm[k]th.  A
//  file without hops has none to move (and no array to move them in)
static int s_renumber(topology_t *self, const int *added, const int *perm,
                      errbuf_t *err)
{
    if (self->nhops == 0)
        return 0;
    topo_hop_t *sorted = malloc((size_t)self->nhops * sizeof *sorted);
    if (!sorted)
        return err_set(err, "%s: out of memory", self->path);
    for (int k = 0; k < self->nhops; k++)
        sorted[k] = self->hops[added[perm[k]]];
    memcpy(self->hops, sorted, (size_t)self->nhops * sizeof *sorted);
    free(sorted);
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
    return s_renumber(self, added, perm, err);
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


void topology_stage_params(const topology_t *self, int stage, params_t *out)
{
    params_overlay(out, &self->params, &self->stages[stage].params);
}

void topology_hop_params(const topology_t *self, int hop, params_t *out)
{
    params_overlay(out, &self->params, &self->hops[hop].params);
}

void topology_instance_host(const params_t *stage, int i, char *out, size_t len)
{
    hostlist_name(stage->host, i, out, len);
}

//  ------------------------------------------------------------------------
//  Where a key took its value: every message about a key starts with it

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

int topology_key_error(const topology_t *self, unsigned level, int index,
                       param_key_t key, errbuf_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = topology_key_verror(self, level, index, key, err, fmt, ap);
    va_end(ap);
    return rc;
}

//  An error about a key, after where it took its value (topology_where)
int topology_key_verror(const topology_t *self, unsigned level, int index,
                        param_key_t key, errbuf_t *err, const char *fmt,
                        va_list ap)
{
    char where[300];
    errbuf_t text;
    topology_where(self, level, index, key, where, sizeof where);
    err_vset(&text, fmt, ap);
    return err_set(err, "%s%s", where, text.msg);
}
