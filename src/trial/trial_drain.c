/*  trial_drain: when a trial's drain ends (trial_drain.h).  A pure
    function of the rule and three facts about the latest poll; trial.c
    polls, this decides.
*/
#include "trial/trial_drain.h"
#include "base/check.h"

double trial_drain_bound(const trial_drain_rule_t *rule)
{
    return rule->lossless ? rule->timeout_s * TRIAL_DRAIN_TIMEOUTS
                          : rule->timeout_s;
}

trial_drain_end_t trial_drain_judge(const trial_drain_rule_t *rule,
                                    bool complete, double since_start,
                                    double since_moved)
{
    if (complete)
        return DRAIN_COMPLETE;
    if (!rule->lossless && since_moved >= rule->quiet_s)
        return DRAIN_DROPPED;
    if (rule->lossless && since_moved >= rule->timeout_s)
        return DRAIN_STUCK;
    if (since_start >= trial_drain_bound(rule))
        return DRAIN_TOO_LONG;
    return DRAIN_GOING;
}

int trial_drain_test(bool verbose)
{
    (void)verbose;
    trial_drain_rule_t lossy = {false, 0.25, 10}, lossless = {true, 0.25, 10};
    CHECK(trial_drain_judge(&lossy, true, 0.1, 0) == DRAIN_COMPLETE);
    CHECK(trial_drain_judge(&lossless, true, 29, 0) == DRAIN_COMPLETE);
    //  quiet drops what is left where it can be dropped, never elsewhere
    CHECK(trial_drain_judge(&lossy, false, 1, 0.3) == DRAIN_DROPPED);
    CHECK(trial_drain_judge(&lossless, false, 1, 0.3) == DRAIN_GOING);
    CHECK(trial_drain_judge(&lossless, false, 9.9, 9.8) == DRAIN_GOING);
    //  a lossless drain still moving goes on past one timeout...
    CHECK(trial_drain_judge(&lossless, false, 12, 0.02) == DRAIN_GOING);
    CHECK(trial_drain_judge(&lossy, false, 10, 0.02) == DRAIN_TOO_LONG);
    //  ...to its bound; one that stood still a timeout is stuck
    CHECK(trial_drain_judge(&lossless, false, 30, 0.02) == DRAIN_TOO_LONG);
    CHECK(trial_drain_judge(&lossless, false, 14, 10) == DRAIN_STUCK);
    CHECK(trial_drain_bound(&lossless) == 30 &&
          trial_drain_bound(&lossy) == 10);
    return 0;
}
