/*  zcpool: message buffers for zero-copy sends (zerocopy = true).

    A fixed set of buffers allocated once by the sending stage's thread (so
    its memory policy puts them on its node) and handed to libzmq with
    zmq_msg_init_data.  A buffer is reused only after libzmq's free
    callback has given it back, which happens in whichever thread drops
    the last reference (a receiver over inproc, an I/O thread over tcp, or
    the sender itself when PUB drops at the HWM).  When every buffer is in
    flight, the sender waits for one: that is back-pressure, and the table
    shows it as a lower rate.
*/
#ifndef HOPBENCH_ZCPOOL_H
#define HOPBENCH_ZCPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

#include "base/errbuf.h"

typedef struct zcpool_s zcpool_t;

zcpool_t *zcpool_new(size_t size, int count, errbuf_t *err);
//  Only once libzmq holds none of its buffers: after zcpool_wait_idle, or
//  after every context that may hold them has terminated
void zcpool_destroy(zcpool_t **self_p);
//  Wait up to timeout_ms until libzmq has given back every buffer: 0, or
//  -1 if some are still out
int zcpool_wait_idle(zcpool_t *self, int timeout_ms);
//  A message over a free buffer whose first 8 bytes are header; -1 with
//  errno EAGAIN when every buffer is in flight
int zcpool_msg(zcpool_t *self, zmq_msg_t *msg, uint64_t header);
//  The buffers' memory, to count its pages by node
const void *zcpool_memory(const zcpool_t *self, size_t *len);
//  Buffers for a size and HWM: enough to keep the pipes full (an inproc
//  pipe holds 2 x HWM, and with back-pressure it stays full) with as many
//  again free, so that finding a free one takes a step or two; within 1 GiB
int zcpool_count(size_t size, int hwm);

int zcpool_test(bool verbose);

#endif
