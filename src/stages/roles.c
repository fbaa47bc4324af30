/*  roles: the one choice of ops table per instance (roles.h).  */
#include "stages/roles.h"

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
    switch (inst->params.engine) {
    case ENGINE_ZPROXY:
        return &proxy_zproxy_ops;
    case ENGINE_FORWARDER:
        return &proxy_forwarder_ops;
    default:
        return &proxy_steerable_ops;
    }
}
