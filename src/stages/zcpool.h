/*  zcpool: message buffers for zero-copy sends (zerocopy = true).

    A fixed ring of buffers allocated once by the sending stage's thread
    (so its memory policy puts them on its node) and handed to libzmq with
    zmq_msg_init_data.  A buffer is reused only after libzmq's free
    callback has given it back, which happens in whichever thread drops
    the last reference (a receiver over inproc, an I/O thread over tcp, or
    the sender itself when PUB drops at the HWM), not always in the order
    the buffers went out.  When every buffer is in flight, the sender
    waits for one: that is back-pressure, and the table shows it as a
    lower rate.

    What a buffer costs the timed loop is what any sender that reuses its
    buffers must pay, and no more: its 8-byte header, and one byte per
    buffer that only the releasing thread writes (a count of its
    releases), which the sender compares with its own count of the
    buffer's uses.  The sender reads those bytes a cache line at a time,
    ZCPOOL_SCAN buffers ahead, and never writes them, so the line the
    receiver writes moves to the sender once per ZCPOOL_SCAN messages, not
    twice per message (as a busy flag per buffer, set by the sender and
    cleared by libzmq's callback, made it move).  The ring's own fields,
    which the sender writes on every message, are on a page of their own
    too (machine/pin.h), not on a malloc arena's line beside chunks that
    libzmq's other threads allocate and free.
*/
#ifndef HOPBENCH_ZCPOOL_H
#define HOPBENCH_ZCPOOL_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zmq.h>

#include "base/errbuf.h"

//  Buffers whose release counts the sender reads at once: one cache line
#define ZCPOOL_SCAN 64

//  The ring, open to the timed loop's inline zcpool_msg (as topic.h's
//  state is); zcpool.c and zcpool_msg set its fields, nothing else does
typedef struct zcpool_s {
    char *memory;
    size_t memory_len;
    size_t size, stride;
    int count;
    int next;  //  the ring's next buffer
    int ready; //  buffers from next on known to be free
    //  Per buffer, mod 256: the sender's uses, and libzmq's releases
    //  (written by the releasing thread only); equal when it is free
    uint8_t *uses;
    _Atomic uint8_t *released;
} zcpool_t;

zcpool_t *zcpool_new(size_t size, int count, errbuf_t *err);
//  Only once libzmq holds none of its buffers: after zcpool_wait_idle, or
//  after every context that may hold them has terminated
void zcpool_destroy(zcpool_t **self_p);
//  From the sending thread: wait up to timeout_ms until libzmq has given
//  back every buffer: 0, or -1 if some are still out
int zcpool_wait_idle(zcpool_t *self, int timeout_ms);
//  The buffers' memory, to count its pages by node
const void *zcpool_memory(const zcpool_t *self, size_t *len);
//  Where a buffer starts after the last: whole cache lines, and one more
//  when that is a whole number of pages, so that the headers do not all
//  fall in the same sets of the caches (64 KiB apart, they would)
size_t zcpool_stride(size_t size);
//  Buffers for a size and HWM: enough to keep the pipes full (an inproc
//  pipe holds 2 x HWM, and with back-pressure it stays full) with as many
//  again free, so that finding a free one takes a step or two; within 1 GiB
int zcpool_count(size_t size, int hwm);

int zcpool_test(bool verbose);

//  zcpool_msg's slow path, once per ZCPOOL_SCAN messages: a buffer from
//  next on known free, stepping over those in flight; -1 when none is
int zcpool_find(zcpool_t *self);
//  libzmq's free function for a buffer of the ring
void zcpool_release(void *data, void *hint);

//  From the sending thread: a message over a free buffer whose first 8
//  bytes are header; -1 with errno EAGAIN when every buffer is in flight
static inline int zcpool_msg(zcpool_t *self, zmq_msg_t *msg, uint64_t header)
{
    if (self->ready == 0 && zcpool_find(self)) {
        errno = EAGAIN;
        return -1;
    }
    int i = self->next;
    char *data = self->memory + self->stride * (size_t)i;
    self->next = i + 1 == self->count ? 0 : i + 1;
    self->ready--;
    self->uses[i]++;
    memcpy(data, &header, sizeof header); //  sequence.h's header
    if (zmq_msg_init_data(msg, data, self->size, zcpool_release,
                          (void *)&self->released[i]) == 0)
        return 0;
    self->uses[i]--; //  libzmq did not take it
    return -1;
}

#endif
