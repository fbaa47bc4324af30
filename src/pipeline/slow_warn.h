/*  slow_warn: a slow subscriber that can hold its broker's counters back.

        pub --> broker (steerable) --> sub (consume_ns = 200000)

    Under back-pressure (capacity mode) a steerable broker's send waits for
    the subscriber to take a message from a full pipe, and the broker
    answers STATISTICS (its counters) only between bursts of up to
    SLOW_BURST messages (libzmq's proxy_burst_size): SLOW_BURST x
    consume_ns can pass before the counters come.  Where that is a tenth
    of the timeout or more (SLOW_MARGIN: on a machine whose CPUs are
    shared the subscriber takes far longer than its consume_ns; measured
    on 2 CPUs, timeout 2 s: 200 us failed, 100 us passed), the run can
    fail with "no COUNTS within N s": one warning per broker and
    subscriber stage, naming the key, both stages and what to change.

    Warnings only, from the plan; nothing is measured.
*/
#ifndef HOPBENCH_SLOW_WARN_H
#define HOPBENCH_SLOW_WARN_H

#include <stdbool.h>
#include <stddef.h>

#include "pipeline/pipeline.h"

#define SLOW_BURST  1000
#define SLOW_MARGIN 10

//  The warnings, one line each ("" for none) into out
void slow_warnings(const pipeline_t *pl, char *out, size_t len);

int slow_warn_test(bool verbose);

#endif
