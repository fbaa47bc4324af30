/*  raw_work: what raw's loops do to a message besides libzmq's calls: the
    work hopbench's contract makes every pipeline do, each the cheapest way
    (raw.c says why each is there).

        sequence   8 bytes the sender writes; the receiver reads and checks
                   them against the next it expects
        topics     a topic before it, from a table of text offsets, as
                   hopbench's publishers have (stages/topic.h): a load, a
                   wrap and a copy per message.  The table is round robin
                   over the topics: what an order puts in it does not
                   change what a step costs
        ring       zero-copy buffers, each reused only once libzmq has
                   given it back: per buffer a count of releases that only
                   the freeing thread writes, and the sender's count of
                   uses; the sender compares them a cache line at a time
                   (hopbench's stages/zcpool.h does the same)

    Static functions in a header: raw is one program, raw.c with this.
*/
#ifndef RAW_WORK_H
#define RAW_WORK_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zmq.h>

#define WORK_TOPICS_ROUND (1u << 18) //  table length, as hopbench's
#define WORK_RING_SCAN    64         //  release counts read at once

//  ------------------------------------------------------------------------
//  Topics

typedef struct {
    uint32_t *offsets; //  per table position: its topic's text offset
    uint32_t len, pos;
    char *text;  //  every topic's text, size bytes each ("00000042")
    size_t size; //  bytes of a topic; 0: no topics
} topics_t;

//  n topics of size bytes; 0, or -1 out of memory
static int topics_init(topics_t *self, int n, size_t size)
{
    uint32_t len =
        (uint32_t)n * ((WORK_TOPICS_ROUND + (uint32_t)n - 1) / (uint32_t)n);
    *self = (topics_t){malloc(len * sizeof(uint32_t)), len, 0,
                       malloc((size_t)n * size + 1), size};
    if (!self->offsets || !self->text)
        return -1;
    for (int t = 0; t < n; t++) {
        char digits[32];
        int w = snprintf(digits, sizeof digits, "%0*d", (int)size, t);
        memcpy(self->text + (size_t)t * size, digits + (w - (int)size), size);
    }
    for (uint32_t i = 0; i < len; i++)
        self->offsets[i] = i % (uint32_t)n * (uint32_t)size;
    return 0;
}

static void topics_free(topics_t *self)
{
    free(self->offsets);
    free(self->text);
    *self = (topics_t){0};
}

//  The message's topic at data, and the table one step on
static inline void topics_write(topics_t *self, char *data)
{
    memcpy(data, self->text + self->offsets[self->pos], self->size);
    if (++self->pos == self->len)
        self->pos = 0;
}

//  ------------------------------------------------------------------------
//  Zero-copy ring

typedef struct {
    char *memory;
    size_t size, stride;
    int count, next, ready;    //  ready: buffers from next on known free
    uint8_t *uses;             //  per buffer, mod 256: the sender's uses
    _Atomic uint8_t *released; //  ...and libzmq's releases
} ring_t;

//  Buffers to keep the pipes full with as many again free, as hopbench's
//  zcpool_count: 4 x HWM + 64, within 1 GiB, 16 to 65536
static int ring_count(size_t size, int hwm)
{
    size_t count = hwm > 0 ? (size_t)hwm * 4 + 64 : 4096;
    size_t limit = ((size_t)1 << 30) / (size ? size : 1);
    count = count > limit ? limit : count;
    count = count > 65536 ? 65536 : count;
    return count < 16 ? 16 : (int)count;
}

//  Whole cache lines, and one more when that is a whole number of pages
//  (as hopbench's zcpool_stride), so that the headers do not all fall in
//  the same sets of the caches
static size_t ring_stride(size_t size)
{
    size_t stride = (size + 63) & ~(size_t)63;
    return stride % 4096 ? stride : stride + 64;
}

//  From the sending thread (its memory, every page of it touched); 0, or
//  -1 out of memory
static int ring_init(ring_t *self, size_t size, int hwm)
{
    int count = ring_count(size, hwm);
    size_t stride = ring_stride(size),
           line = ((size_t)count + 63) & ~(size_t)63;
    //  Fresh pages, every one written, as hopbench's pool is (pin.h) and
    //  a sender's that writes its messages: mmap, not malloc, whose
    //  memset after it the compiler makes a calloc, which writes nothing
    //  and leaves the pages nobody writes unmapped (then only the headers'
    //  pages are real, one in 16 at 64 KiB)
    void *memory = mmap(NULL, (size_t)count * stride, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *self = (ring_t){.memory = memory == MAP_FAILED ? NULL : memory,
                     .size = size,
                     .stride = stride,
                     .count = count,
                     .uses = aligned_alloc(64, line),
                     .released = aligned_alloc(64, line)};
    if (!self->memory || !self->uses || !self->released)
        return -1;
    memset(self->memory, 0, (size_t)count * stride);
    memset(self->uses, 0, line);
    memset((void *)self->released, 0, line);
    return 0;
}

//  Once no context holds a buffer
static void ring_free(ring_t *self)
{
    if (self->memory)
        munmap(self->memory, (size_t)self->count * self->stride);
    free(self->uses);
    free((void *)self->released);
    *self = (ring_t){0};
}

//  libzmq's free function: a buffer's releases never overlap (its next use
//  starts after the sender saw this one), so a plain increment
static void ring_released(void *data, void *hint)
{
    (void)data;
    _Atomic uint8_t *released = hint;
    uint8_t n = atomic_load_explicit(released, memory_order_relaxed);
    atomic_store_explicit(released, (uint8_t)(n + 1), memory_order_release);
}

static inline bool ring_free_at(const ring_t *self, int i)
{
    return atomic_load_explicit(&self->released[i], memory_order_acquire) ==
           self->uses[i];
}

//  Up to WORK_RING_SCAN free buffers from next on, stepping over those in
//  flight; false after a whole round found none
static bool ring_find(ring_t *self)
{
    for (int tried = 0; tried < self->count; tried++) {
        int i = self->next, end = self->count - i < WORK_RING_SCAN
                                      ? self->count
                                      : i + WORK_RING_SCAN;
        while (i < end && ring_free_at(self, i))
            i++;
        if ((self->ready = i - self->next) > 0)
            return true;
        self->next = self->next + 1 == self->count ? 0 : self->next + 1;
    }
    return false;
}

//  A message over the next free buffer, its data in *data: 0; -1 with
//  errno EAGAIN when every buffer is in flight, or as zmq_msg_init_data
static inline int ring_msg(ring_t *self, zmq_msg_t *msg, char **data)
{
    if (self->ready == 0 && !ring_find(self)) {
        errno = EAGAIN;
        return -1;
    }
    int i = self->next;
    self->next = i + 1 == self->count ? 0 : i + 1;
    self->ready--;
    self->uses[i]++;
    *data = self->memory + self->stride * (size_t)i;
    if (zmq_msg_init_data(msg, *data, self->size, ring_released,
                          (void *)&self->released[i]) == 0)
        return 0;
    self->uses[i]--;
    return -1;
}

#endif
