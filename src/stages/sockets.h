/*  sockets: a subscriber of several SUB sockets (sockets = N), read by
    its one thread.

    Each socket is its own connection to the same upstream, subscribes as
    its instance does (the same topics, the same extra subscriptions),
    and has a guard topic of its own (0xFF 'R' id_hi id_lo socket_hi socket_lo), so
    that a publisher's handshake proves every socket's subscriptions
    arrived.  Each socket checks sequences per origin on its own: the
    state is N x origins slots, made at SETUP (before any window), and its
    count is the socket's in the shared block (stage.h).

    The loop visits the sockets in turn, taking up to a burst of messages
    from each without blocking (ZMQ_DONTWAIT); only after a pass that
    found nothing on any socket does it sleep, in epoll over the sockets'
    ZMQ_FDs (level-triggered: a receive that fails with EAGAIN has read
    the socket's mailbox dry, so its fd is quiet until a command, such as
    the reader's activation when a message reaches its empty pipe, comes
    in).  A busy pass costs one receive per socket that has a message:
    under fan-out every socket has one, so the cost is per message, not
    per socket; an idle pass costs N failed receives, then one epoll_wait
    of any N.  zmq_poll over N items would be O(N) per wake-up and
    allocate beyond 16 items.
*/
#ifndef HOPBENCH_SOCKETS_H
#define HOPBENCH_SOCKETS_H

#include "stages/stage.h"

//  The receiver's SETUP when it has several sockets: opened, subscribed,
//  connected; the state in self->engine
int sockets_setup(stage_t *self, errbuf_t *err);
//  RUN: until stopped and idle STAGE_IDLE_MS; then every socket's and
//  origin's final counts into the shared block
int sockets_run(stage_t *self, errbuf_t *err);
//  TEARDOWN: every socket closed (the state stays for the next trial)
void sockets_close(stage_t *self);
//  After the context's end
void sockets_free(stage_t *self);

//  The per-socket sequence check and the loop's end, without zmq
int sockets_test(bool verbose);

#endif
