/*  proxy: a middle stage of a pubsub pipeline: XSUB frontend, XPUB
    backend, forwarding data down and subscriptions up.

    Engine "steerable" is libzmq's own zmq_proxy_steerable with a PAIR
    control socket (a REP one wedges on PAUSE in 4.3.4).  Its counters come
    from the STATISTICS command: eight uint64 frames, frontend msgs_in,
    bytes_in, msgs_out, bytes_out, then the same for the backend.  Only the
    fixed commands below are ever sent: an unknown command aborts libzmq.
*/
#ifndef HOPBENCH_PROXY_H
#define HOPBENCH_PROXY_H

#include <stdint.h>

#include "errbuf.h"
#include "stage.h"

typedef struct {
    uint64_t received; //  data messages taken from the frontend
    uint64_t sent;     //  data messages handed to the backend
} proxy_counts_t;

//  The controller's end of a proxy's control channel, in its context
void *proxy_control_open(stage_t *proxy, int timeout_ms, errbuf_t *err);
int proxy_statistics(stage_t *proxy, void *control, proxy_counts_t *out,
                     errbuf_t *err);
int proxy_terminate(stage_t *proxy, void *control, errbuf_t *err);

#endif
