/*  sequence: the header every message carries, written by its source and
    checked by every receiving stage.

        bytes 0..7    origin << 48 | epoch << 40 | sequence (origin:
                      the publisher instance; epoch: the trial's, mod
                      256; sequence from 0 in each trial)
        bytes 8..15   timed trials: the intended send time, mono_ns (on
                      the publisher's host: a receiver on another host
                      adds its clock_ns)
        the rest      as zmq_msg_init_size gives it

    Per origin the receiver expects
    the next epoch << 40 | sequence, compared as one number: a jump counts
    the skipped messages as gaps (lost, and proven lost by the sequence); a
    step back counts as misordered; a message of another epoch (one an
    earlier trial on a pipeline that stays up left in a queue) counts as
    late, neither received nor lost.  The in-order case is the fast path,
    one compare; the rest goes to a function of its own.  The controller reads two stores while the stage runs, both
    relaxed: the origin's count, one store per message, which it adds up
    for the receiver's total (stage_received); and its gaps, which tell a
    search that a trial has already failed (trial/trial_giveup.c).
*/
#ifndef HOPBENCH_SEQUENCE_H
#define HOPBENCH_SEQUENCE_H

#include <stdbool.h>
#include <string.h>

#include "base/mono.h"
#include "stages/stage.h"

//  The header of a source instance's first message in a trial of epoch
static inline uint64_t sequence_base(int instance, uint32_t epoch)
{
    return (uint64_t)instance << STAGE_SEQ_BITS |
           (uint64_t)(epoch % STAGE_EPOCHS) << STAGE_EPOCH_SHIFT;
}

//  ...and of its message seq
static inline uint64_t sequence_header(uint64_t base, uint64_t seq)
{
    return base | (seq & STAGE_COUNT_MASK);
}

//  Is stamp (a header's low 48 bits) of another trial than next?
static inline bool sequence_other_trial(uint64_t stamp, uint64_t next)
{
    return (stamp ^ next) >> STAGE_EPOCH_SHIFT != 0;
}

//  The sequence in an expected 'next' (epoch << 40 | sequence)
static inline uint64_t sequence_number(uint64_t next)
{
    return next & STAGE_COUNT_MASK;
}

static inline void sequence_write(void *data, uint64_t header)
{
    memcpy(data, &header, sizeof header);
}

//  Timed trials: the send time the schedule intended
static inline void sequence_write_time(void *data, uint64_t intended_ns)
{
    memcpy((char *)data + 8, &intended_ns, sizeof intended_ns);
}

//  A sequence that is not the next one: a gap, a step back, or another
//  trial's (false: not this trial's to count)
__attribute__((noinline)) static bool
sequence_jump(stage_t *self, origin_t *from, uint64_t seq)
{
    if (sequence_other_trial(seq, from->next)) {
        self->shared->late++;
        return false;
    }
    if (seq > from->next) {
        __atomic_store_n(&from->gaps, from->gaps + (seq - from->next),
                         __ATOMIC_RELAXED);
        from->next = seq + 1;
    } else
        self->shared->misordered++;
    return true;
}

//  size is what zmq_msg_recv returned
static inline void sequence_count(stage_t *self, const void *data, size_t size)
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
    if (__builtin_expect(seq == from->next, 1))
        from->next = seq + 1;
    else if (!sequence_jump(self, from, seq))
        return;
    uint64_t n = atomic_load_explicit(&from->received, memory_order_relaxed);
    atomic_store_explicit(&from->received, n + 1, memory_order_relaxed);
}

//  Rate mode: bytes 8..15 hold the publisher's intended send time
static inline void sequence_latency(stage_t *self, const void *data,
                                    size_t size)
{
    uint64_t intended;
    if (size < 16)
        return;
    memcpy(&intended, (const char *)data + 8, sizeof intended);
    intended += (uint64_t)self->shared->clock_ns; //  another host's clock
    uint64_t now = mono_ns();
    histogram_record(&self->shared->latency,
                     now > intended ? now - intended : 0);
}

#endif
