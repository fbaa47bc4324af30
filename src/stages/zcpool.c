/*  zcpool: zero-copy send buffers (see zcpool.h).  */
#include "stages/zcpool.h"

#include "base/check.h"
#include "machine/pin.h"
#include "stages/sequence.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    _Alignas(64) _Atomic int busy; //  1 from init_data to libzmq's free
    char *data;
} slot_t;

struct zcpool_s {
    size_t size;
    int count;
    int next;
    slot_t *slots;
    char *memory;
    size_t memory_len;
};

zcpool_t *zcpool_new(size_t size, int count, errbuf_t *err)
{
    zcpool_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "zerocopy: out of memory");
        return NULL;
    }
    size_t stride = (size + 63) & ~(size_t)63;
    self->size = size;
    self->count = count;
    //  fresh pages, zeroed here: on this thread's node, whatever arena
    //  glibc gave it (pin.h)
    self->memory_len = stride * (size_t)count;
    self->slots = pin_memory_new(sizeof(slot_t) * (size_t)count, -1);
    self->memory = pin_memory_new(self->memory_len, -1);
    if (!self->slots || !self->memory) {
        err_set(err, "zerocopy: cannot allocate %d buffers of %zu bytes", count,
                size);
        zcpool_destroy(&self);
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        atomic_init(&self->slots[i].busy, 0);
        self->slots[i].data = self->memory + stride * (size_t)i;
    }
    return self;
}

void zcpool_destroy(zcpool_t **self_p)
{
    zcpool_t *self = *self_p;
    if (self) {
        pin_memory_free(self->slots, sizeof(slot_t) * (size_t)self->count);
        pin_memory_free(self->memory, self->memory_len);
        free(self);
        *self_p = NULL;
    }
}

const void *zcpool_memory(const zcpool_t *self, size_t *len)
{
    *len = self->memory_len;
    return self->memory;
}

int zcpool_wait_idle(zcpool_t *self, int timeout_ms)
{
    for (int waited = 0;; waited++) {
        int busy = 0;
        for (int i = 0; i < self->count; i++)
            busy += atomic_load_explicit(&self->slots[i].busy,
                                         memory_order_acquire);
        if (busy == 0)
            return 0;
        if (waited >= timeout_ms)
            return -1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

static void s_release(void *data, void *hint)
{
    (void)data;
    atomic_store_explicit(&((slot_t *)hint)->busy, 0, memory_order_release);
}

int zcpool_msg(zcpool_t *self, zmq_msg_t *msg, uint64_t header)
{
    for (int tried = 0; tried < self->count; tried++) {
        slot_t *slot = &self->slots[self->next];
        self->next = self->next + 1 == self->count ? 0 : self->next + 1;
        if (atomic_load_explicit(&slot->busy, memory_order_acquire))
            continue;
        atomic_store_explicit(&slot->busy, 1, memory_order_relaxed);
        sequence_write(slot->data, header);
        return zmq_msg_init_data(msg, slot->data, self->size, s_release, slot);
    }
    errno = EAGAIN;
    return -1;
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
    CHECK(zcpool_count(131072, 1000) == 4064);
    CHECK(zcpool_count(64 << 20, 1000) == 16);
    return 0;
}
