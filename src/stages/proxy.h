/*  proxy: the middle stages, forwarding data downstream and subscriptions
    (or replies) upstream.  Three engines, chosen per proxy with "engine":

        steerable  libzmq's zmq_proxy_steerable (proxy.c), what users deploy
        zproxy     czmq's zproxy actor (proxy_zproxy.c)
        forwarder  hopbench's own loop with batched non-blocking receives
                   (proxy_forwarder.c)

    Sockets by pattern: pubsub XSUB -> XPUB, pushpull PULL -> PUSH,
    reqrep ROUTER -> DEALER.  The controller reads every engine's counters
    and stops it through the functions below, whatever the engine.
*/
#ifndef HOPBENCH_PROXY_H
#define HOPBENCH_PROXY_H

#include <stdint.h>

#include "base/errbuf.h"
#include "stages/stage.h"

typedef struct {
    uint64_t received; //  messages taken from the frontend
    uint64_t sent;     //  messages handed to the backend
} proxy_counts_t;

//  The controller's end of a steerable proxy's control channel (NULL and
//  no error for the other engines, which need none)
void *proxy_control_open(stage_t *proxy, int timeout_ms, errbuf_t *err);
int proxy_counts(stage_t *proxy, void *control, proxy_counts_t *out,
                 errbuf_t *err);
int proxy_stop(stage_t *proxy, void *control, errbuf_t *err);

//  For the engines: open the frontend and backend and attach them
int proxy_open_sockets(stage_t *self, errbuf_t *err);

#endif
