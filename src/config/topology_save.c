/*  topology_save: the effective configuration written as ZPL, every key
    of every level with its value (but an inherited curve on a hop that
    is not tcp: s_saved_on_hop), so that it loads back to the same
    topology (a results directory's config.cfg; the file a stage in its
    own process loads, and an agent's spec).
*/
#include "config/topology_internal.h"

#include <stdlib.h>


//  One "    key = value" line; values are always quoted
static void s_save_key(FILE *out, const params_t *params, int k)
{
    char value[1024];
    params_format(params, &params_options[k], value, sizeof value);
    fprintf(out, "    %s = \"%s\"\n", params_options[k].name, value);
}

//  Is key k of hop h written below it?  Every key is, with its effective
//  value, but one whose meaning hangs on where it was set: the
//  topology-wide curve encrypts the tcp hops and passes over the others,
//  while a hop's own curve = true must be tcp.  A hop that is not tcp
//  keeps inheriting curve, or it would load back as a refused file
static bool s_saved_on_hop(const topology_t *self, int h,
                           const params_t *effective, int k)
{
    if (!(params_options[k].levels & LEVEL_HOP))
        return false;
    return k != KEY_CURVE || effective->transport == TRANSPORT_TCP ||
           self->hops[h].params.set[KEY_CURVE];
}

//  A link's keys, indented under its hop or from line
static void s_save_link(const topology_t *self, int h, const char *indent,
                        FILE *out)
{
    params_t effective;
    topology_hop_params(self, h, &effective);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if (s_saved_on_hop(self, h, &effective, k) &&
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
            topology_topic_key_fits(stage->role, k))
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


//  ------------------------------------------------------------------------
//  Selftest

//  What topology_save writes, loaded and validated again; NULL on failure
topology_t *topology_reloaded(const topology_t *topo)
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

