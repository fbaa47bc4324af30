/*  zcpool: zero-copy send buffers (see zcpool.h).  */
#include "stages/zcpool.h"

#include "base/check.h"
#include "machine/pin.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

zcpool_t *zcpool_new(size_t size, int count, errbuf_t *err)
{
    //  next and ready change on every message: a page of their own, as
    //  the counts have (calloc put them beside libzmq's chunks)
    zcpool_t *self = pin_memory_new(sizeof *self, -1);
    if (!self) {
        err_set(err, "zerocopy: out of memory");
        return NULL;
    }
    self->size = size;
    self->stride = zcpool_stride(size);
    self->count = count;
    //  fresh pages, zeroed here: on this thread's node, whatever arena
    //  glibc gave it (pin.h); the two counts on pages of their own
    self->memory_len = self->stride * (size_t)count;
    self->uses = pin_memory_new((size_t)count, -1);
    self->released = pin_memory_new((size_t)count, -1);
    self->memory = pin_memory_new(self->memory_len, -1);
    if (!self->uses || !self->released || !self->memory) {
        err_set(err, "zerocopy: cannot allocate %d buffers of %zu bytes", count,
                size);
        zcpool_destroy(&self);
        return NULL;
    }
    return self;
}

void zcpool_destroy(zcpool_t **self_p)
{
    zcpool_t *self = *self_p;
    if (self) {
        pin_memory_free(self->uses, (size_t)self->count);
        pin_memory_free((void *)self->released, (size_t)self->count);
        pin_memory_free(self->memory, self->memory_len);
        pin_memory_free(self, sizeof *self);
        *self_p = NULL;
    }
}

const void *zcpool_memory(const zcpool_t *self, size_t *len)
{
    *len = self->memory_len;
    return self->memory;
}

static bool s_free(const zcpool_t *self, int i)
{
    return atomic_load_explicit(&self->released[i], memory_order_acquire) ==
           self->uses[i];
}

int zcpool_wait_idle(zcpool_t *self, int timeout_ms)
{
    for (int waited = 0;; waited++) {
        int busy = 0;
        for (int i = 0; i < self->count; i++)
            busy += !s_free(self, i);
        if (busy == 0)
            return 0;
        if (waited >= timeout_ms)
            return -1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

//  libzmq is done with a buffer.  A plain increment, not an atomic one:
//  a buffer's releases never overlap (the next use starts only after the
//  sender saw this one), so only one thread writes its count at a time
void zcpool_release(void *data, void *hint)
{
    (void)data;
    _Atomic uint8_t *released = hint;
    uint8_t n = atomic_load_explicit(released, memory_order_relaxed);
    atomic_store_explicit(released, (uint8_t)(n + 1), memory_order_release);
}

//  How many buffers from next on are free: up to ZCPOOL_SCAN of them, not
//  past the ring's end
static int s_scan(const zcpool_t *self)
{
    int i = self->next,
        end = self->count - i < ZCPOOL_SCAN ? self->count : i + ZCPOOL_SCAN;
    while (i < end && s_free(self, i))
        i++;
    return i - self->next;
}

int zcpool_find(zcpool_t *self)
{
    for (int tried = 0; tried < self->count; tried++) {
        if ((self->ready = s_scan(self)) > 0)
            return 0;
        self->next = self->next + 1 == self->count ? 0 : self->next + 1;
    }
    return -1;
}

size_t zcpool_stride(size_t size)
{
    size_t stride = (size + 63) & ~(size_t)63;
    return stride % 4096 ? stride : stride + 64;
}

int zcpool_count(size_t size, int hwm)
{
    size_t count = hwm > 0 ? (size_t)hwm * 4 + 64 : 4096;
    size_t limit = ((size_t)1 << 30) / (size ? size : 1);
    if (count > limit)
        count = limit;
    if (count > 65536)
        count = 65536;
    return count < 16 ? 16 : (int)count;
}

//  ------------------------------------------------------------------------
//  Selftest

//  Buffers given back in any order: the pool never hands out one that is
//  in flight, and says EAGAIN only when all are
static int s_test_shuffled(void)
{
    enum { COUNT = 150, STEPS = 20000 };
    zcpool_t *pool = zcpool_new(24, COUNT, &(errbuf_t){0});
    CHECK(pool);
    zmq_msg_t out[COUNT];
    int n = 0;
    uint64_t x = 88172645463325252ULL; //  xorshift
    for (uint64_t step = 0; step < STEPS; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (n > 0 && (n == COUNT || x % 3 == 0)) { //  one comes back
            int k = (int)(x / 3 % (uint64_t)n);
            zmq_msg_close(&out[k]);
            zmq_msg_init(&out[k]);
            zmq_msg_move(&out[k], &out[--n]);
            continue;
        }
        CHECK(zcpool_msg(pool, &out[n], step) == 0);
        uint64_t header;
        memcpy(&header, zmq_msg_data(&out[n]), sizeof header);
        CHECK(header == step);
        for (int k = 0; k < n; k++)
            CHECK(zmq_msg_data(&out[k]) != zmq_msg_data(&out[n]));
        n++;
    }
    zmq_msg_t extra;
    while (n < COUNT)
        CHECK(zcpool_msg(pool, &out[n++], 0) == 0);
    CHECK(zcpool_msg(pool, &extra, 0) == -1 && errno == EAGAIN);
    CHECK(zcpool_wait_idle(pool, 0) == -1);
    while (n > 0)
        zmq_msg_close(&out[--n]);
    CHECK(zcpool_wait_idle(pool, 0) == 0);
    zcpool_destroy(&pool);
    return 0;
}

int zcpool_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    zcpool_t *pool = zcpool_new(100, 2, &err);
    CHECK(pool);
    zmq_msg_t a, b, c;
    CHECK(zcpool_msg(pool, &a, 7) == 0);
    CHECK(zcpool_msg(pool, &b, 8) == 0);
    uint64_t header;
    memcpy(&header, zmq_msg_data(&b), sizeof header);
    CHECK(header == 8 && zmq_msg_size(&b) == 100);
    //  Both in flight: no buffer until libzmq gives one back
    CHECK(zcpool_msg(pool, &c, 9) == -1 && errno == EAGAIN);
    zmq_msg_close(&a); //  runs the free callback
    CHECK(zcpool_msg(pool, &c, 9) == 0);
    CHECK(zmq_msg_data(&c) != zmq_msg_data(&b));
    zmq_msg_close(&b);
    zmq_msg_close(&c);
    zcpool_destroy(&pool);
    CHECK(zcpool_stride(100) == 128 && zcpool_stride(1024) == 1024);
    CHECK(zcpool_stride(65536) == 65600 && zcpool_stride(4096) == 4160);
    CHECK(zcpool_stride(4000) == 4032);
    CHECK(zcpool_count(131072, 1000) == 4064);
    CHECK(zcpool_count(64 << 20, 1000) == 16);
    return s_test_shuffled();
}
