/*  trial_drain: when does a trial's drain end, and how?

    After the sources stop, the controller polls every link's counters
    until each has taken what it was sent.  Where messages can be dropped
    (flood, a paced PUB), a stretch with nothing moving ends it: what is
    left was dropped.  Where they cannot (capacity: back-pressure end to
    end), quiet proves nothing, so the drain waits while the queues keep
    emptying: it ends on completion, when nothing moved for a whole
    timeout (stuck), or at TRIAL_DRAIN_TIMEOUTS timeouts in all, so that
    a pipeline whose queues hold seconds of traffic (200 tcp sockets with
    the kernel's buffers) is not cut while it still delivers.  A drain
    that ended short of completion leaves the rest to be counted lost:
    the warning says so, and why.
*/
#ifndef HOPBENCH_TRIAL_DRAIN_H
#define HOPBENCH_TRIAL_DRAIN_H

#include <stdbool.h>

#define TRIAL_DRAIN_TIMEOUTS 3 //  a lossless drain's bound, in timeouts

typedef enum {
    DRAIN_GOING,    //  poll again
    DRAIN_COMPLETE, //  every link took all it was sent
    DRAIN_DROPPED,  //  lossy, quiet: what is left was dropped
    DRAIN_STUCK,    //  lossless, nothing moved for a timeout
    DRAIN_TOO_LONG  //  still moving at the bound
} trial_drain_end_t;

typedef struct {
    bool lossless;    //  back-pressure end to end (capacity)
    double quiet_s;   //  lossy: this long with nothing moving drops the rest
    double timeout_s; //  the topology's timeout
} trial_drain_rule_t;

//  The drain 'since_start' s after it began, the counters last moving
//  'since_moved' s ago, every link 'complete' or not
trial_drain_end_t trial_drain_judge(const trial_drain_rule_t *rule,
                                    bool complete, double since_start,
                                    double since_moved);

//  Its bound in seconds, for the warning
double trial_drain_bound(const trial_drain_rule_t *rule);

int trial_drain_test(bool verbose);

#endif
