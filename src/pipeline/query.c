/*  query: questions about a planned pipeline (pipeline.h declares them):
    where an instance runs, which end of a hop binds, an instance's hops,
    its role, what it reaches and tells apart, its sockets.  They read the
    plan alone, so the plan's makers (pipeline.c), its rows (links.c) and
    its files (files.c) all ask them, and none asks back.
*/
#include "pipeline/pipeline.h"

const char *pipeline_host(const pipeline_t *self, int id)
{
    return self->inst[id].host;
}

bool pipeline_binds(const pipeline_t *self, int h, int id, int *endpoint)
{
    const instance_t *inst = &self->inst[id];
    const hop_plan_t *hop = &self->hops[h];
    int side = hop->upstream_binds ? hop->up : hop->down;
    if (inst->stage != side)
        return false;
    *endpoint = inst->instance;
    return true;
}

int pipeline_next_hop_in(const pipeline_t *self, int id, int after)
{
    for (int h = after + 1; h < self->nhops; h++)
        if (self->hops[h].down == self->inst[id].stage)
            return h;
    return -1;
}

int pipeline_next_hop_out(const pipeline_t *self, int id, int after)
{
    for (int h = after + 1; h < self->nhops; h++)
        if (self->hops[h].up == self->inst[id].stage)
            return h;
    return -1;
}

int pipeline_hop_in(const pipeline_t *self, int id)
{
    return pipeline_next_hop_in(self, id, -1);
}

int pipeline_hop_out(const pipeline_t *self, int id)
{
    return pipeline_next_hop_out(self, id, -1);
}

bool pipeline_is_source(const pipeline_t *self, int id)
{
    return pattern_is_source(self->inst[id].role);
}

bool pipeline_is_sink(const pipeline_t *self, int id)
{
    return pattern_is_sink(self->inst[id].role);
}

bool pipeline_reaches(const pipeline_t *self, int a, int b)
{
    return a == b || (self->inst[a].stage != self->inst[b].stage &&
                      shape_reaches(&self->topo->shape, self->inst[a].stage,
                                    self->inst[b].stage));
}

int pipeline_origin_instance(const pipeline_t *self, int origin)
{
    for (int i = 0; i < self->n; i++)
        if (self->inst[i].origin == origin && origin >= 0)
            return i;
    return -1;
}

//  Is instance id a proxy whose engine has the trait?
static bool s_proxy_can(const pipeline_t *self, int id, engine_trait_t trait)
{
    const instance_t *inst = &self->inst[id];
    return inst->role == ROLE_PROXY && engine_can(inst->params.engine, trait);
}

bool pipeline_sees_origins(const pipeline_t *self, int id)
{
    if (self->params.pattern == PATTERN_CONNECT)
        return s_proxy_can(self, id, TRAIT_TELLS_SENDERS_APART);
    return pipeline_is_sink(self, id) ||
           s_proxy_can(self, id, TRAIT_TELLS_SENDERS_APART);
}

int pipeline_sockets(const pipeline_t *self, int id)
{
    const instance_t *inst = &self->inst[id];
    if (self->params.pattern != PATTERN_PUBSUB || !pipeline_is_sink(self, id) ||
        inst->params.sockets < 1)
        return 1;
    return inst->params.sockets;
}

long pipeline_total_sockets(const pipeline_t *self)
{
    long sum = 0;
    for (int i = 0; i < self->n; i++)
        if (self->params.pattern == PATTERN_PUBSUB && pipeline_is_sink(self, i))
            sum += pipeline_sockets(self, i);
    return sum;
}

bool pipeline_backpressure(const pipeline_t *self)
{
    return self->params.pattern == PATTERN_PUBSUB &&
           self->params.mode == MODE_CAPACITY;
}
