/*  roles: the one choice of ops table per instance (roles.h).  */
#include "stages/roles.h"

//  Each engine's ops, in the order of its id
#define OPS(id, name, traits, help) &proxy_##name##_ops,
static const stage_ops_t *const s_engine_ops[] = {ENGINES(OPS)};
#undef OPS

const stage_ops_t *roles_ops(const instance_t *inst)
{
    switch (inst->role) {
    case ROLE_PUBLISHER:
    case ROLE_PUSHER:
        return &sender_ops;
    case ROLE_SUBSCRIBER:
        return inst->params.pattern == PATTERN_CONNECT ? &connector_ops
                                                       : &receiver_ops;
    case ROLE_PULLER:
        return &receiver_ops;
    case ROLE_REQUESTER:
        return &requester_ops;
    case ROLE_REPLIER:
        return &replier_ops;
    case ROLE_PROXY:
        break;
    }
    int engine = inst->params.engine;
    return s_engine_ops[engine >= 0 && engine < ENGINE_COUNT ? engine : 0];
}
