/*  proxy: what the three proxy engines share.

        steerable  libzmq's zmq_proxy_steerable (proxy_steerable.c), what
                   users deploy
        zproxy     czmq's zproxy actor (proxy_zproxy.c)
        forwarder  hopbench's own loop with batched non-blocking receives
                   (proxy_forwarder.c)

    Sockets by pattern (config/pattern.h): pubsub XSUB -> XPUB, pushpull
    PULL -> PUSH, reqrep ROUTER -> DEALER.  An engine whose counters are
    not the shared atomics says so in its ops (counts, stop).
*/
#ifndef HOPBENCH_PROXY_H
#define HOPBENCH_PROXY_H

#include "base/errbuf.h"
#include "stages/stage.h"

//  Open the frontend and backend (each with its hop's HWM; XPUB_NODROP on
//  an XPUB backend when the pipeline asks for back-pressure) and attach them
int proxy_open_sockets(stage_t *self, errbuf_t *err);

#endif
