/*  topology_set: --set and --sweep assignments applied to a loaded
    topology (each remembered, for where a key took its value:
    topology_where, topology.c), and which stages and hops a
    topology-wide assignment does not reach.
*/
#include "config/topology_internal.h"

#include <stdlib.h>
#include <string.h>

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
    return topology_set_key(params, level, name, eq + 1, origin, where, err);
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
