/*  sequence: the check every receiving stage does per message.

    A header is origin << 48 | sequence.  Per origin the receiver expects
    the next sequence: a jump counts the skipped messages as gaps (lost,
    and proven lost by the sequence); a step back counts as misordered.
    The counts are published with relaxed atomic stores so the controller
    can read them at any time: two plain stores per message, no more.
*/
#ifndef HOPBENCH_SEQUENCE_H
#define HOPBENCH_SEQUENCE_H

#include <string.h>

#include "stage.h"

static inline void sequence_count(stage_t *self, const void *data, size_t size,
                                  uint64_t *total)
{
    uint64_t header = 0;
    if (size >= sizeof header)
        memcpy(&header, data, sizeof header);
    uint64_t origin = header >> STAGE_SEQ_BITS, seq = header & STAGE_SEQ_MASK;
    if (origin >= STAGE_MAX_ORIGINS) {
        self->shared->misordered++; //  not a header hopbench wrote
        return;
    }
    origin_t *from = &self->shared->origins[origin];
    if (seq > from->next)
        from->gaps += seq - from->next;
    if (seq >= from->next)
        from->next = seq + 1;
    else
        self->shared->misordered++;
    uint64_t n = atomic_load_explicit(&from->received, memory_order_relaxed);
    atomic_store_explicit(&from->received, n + 1, memory_order_relaxed);
    atomic_store_explicit(&self->shared->received, ++*total,
                          memory_order_relaxed);
}

//  Rate mode: bytes 8..15 hold the publisher's intended send time
static inline void sequence_latency(stage_t *self, const void *data,
                                    size_t size)
{
    uint64_t intended;
    if (size < 16)
        return;
    memcpy(&intended, (const char *)data + 8, sizeof intended);
    uint64_t now = stage_now_ns();
    histogram_record(&self->shared->latency,
                     now > intended ? now - intended : 0);
}

#endif
