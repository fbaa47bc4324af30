/*  roles: which ops table runs a stage instance, in one place.

        publisher, pusher         sender.c
        subscriber, puller        receiver.c (connector.c for connect)
        requester / replier       requester.c / replier.c
        proxy, engine = NAME      proxy_NAME.c (config/engines.h's rows:
                                  steerable, zproxy, forwarder)

    Each role file exports one stage_ops_t; nothing but roles_ops picks
    among them.  A proxy engine's is proxy_NAME_ops, found by the name on
    its row of the engine table: an engine is its file and that row.
*/
#ifndef HOPBENCH_ROLES_H
#define HOPBENCH_ROLES_H

#include "stages/stage.h"

extern const stage_ops_t sender_ops, receiver_ops, connector_ops, requester_ops,
    replier_ops;
#define DECLARE_OPS(id, name, traits, help)                                    \
    extern const stage_ops_t proxy_##name##_ops;
ENGINES(DECLARE_OPS)
#undef DECLARE_OPS

//  The ops of an instance: its role, and for a proxy its engine
const stage_ops_t *roles_ops(const instance_t *inst);

#endif
