/*  roles: which ops table runs a stage instance, in one place.

        publisher, pusher         sender.c
        subscriber, puller        receiver.c (connector.c for connect)
        requester / replier       requester.c / replier.c
        proxy, engine = steerable proxy_steerable.c  (zmq_proxy_steerable)
        proxy, engine = zproxy    proxy_zproxy.c     (czmq's zproxy)
        proxy, engine = forwarder proxy_forwarder.c  (hopbench's own loop)

    Each role file exports one stage_ops_t; nothing but roles_ops picks
    among them.
*/
#ifndef HOPBENCH_ROLES_H
#define HOPBENCH_ROLES_H

#include "stages/stage.h"

extern const stage_ops_t sender_ops, receiver_ops, connector_ops, requester_ops,
    replier_ops, proxy_steerable_ops, proxy_zproxy_ops, proxy_forwarder_ops;

//  The ops of an instance: its role, and for a proxy its engine
const stage_ops_t *roles_ops(const instance_t *inst);

#endif
