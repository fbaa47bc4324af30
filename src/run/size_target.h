/*  size_target: what `hopbench size` is asked to meet (--target) and the
    knobs it may turn (--try), parsed and checked before anything runs.

        --target rate=R,p99=L,loss=X,headroom=H
            rate      msgs/s the publishers offer together (required;
                      each trial must carry SIZE_TRIAL_MESSAGES at it)
            p99       end-to-end bound at that rate: 500us, 2ms, 1s, 800ns
                      (the unit is required); absent: any
            loss      the largest loss ratio allowed, 0 <= X < 1 (default 0)
            headroom  the margin carried above rate without loss, 0 <= H
                      <= 10 (default 0.2: it must pass at 1.2 x R)
        --try KEY=V1,V2,...   a key --sweep takes (engine, io_threads,
                      placement, hwm, ..., STAGE.KEY, hopN.KEY), not one
                      that size itself sets (sizes, mode, rate, ...)

    Every bad word is exit 2, naming the key and the option; so is a key
    given twice, and a --try value given twice (two candidates nobody
    could tell apart).
*/
#ifndef HOPBENCH_SIZE_TARGET_H
#define HOPBENCH_SIZE_TARGET_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "config/sweep.h"
#include "report/report_sizing.h"

//  --target into a target (report_sizing.h: what the rows are judged by)
int size_target_parse(const char *text, sizing_target_t *out, errbuf_t *err);
//  The fewest messages a trial at the target's rate must carry: a p99
//  of fewer is their largest, a loss ratio of fewer is coarser than 1 %
#define SIZE_TRIAL_MESSAGES 100
//  Can trials and p99 windows of these lengths (search_trial,
//  size_window seconds) measure the target's rate?  -1 with the rate and
//  the length it needs
int size_target_measurable(const sizing_target_t *t, double trial,
                           double window, errbuf_t *err);
//  --try specs into a sweep (the candidates' cross product)
int size_try_parse(const char *const *specs, int n, sweep_t *out,
                   errbuf_t *err);
//  "500us", "2ms", "1s", "800ns" -> microseconds (a bare number: -1)
int size_duration_us(const char *text, double *us);

int size_target_test(bool verbose);

#endif
