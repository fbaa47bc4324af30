/*  size_evidence: a sizing criterion judged from the trials measured for
    it so far: meets, fails, or not yet (measure more); once the budget is
    spent, undecided (the interval straddles the bound) or inconclusive
    (what would fail it was starved: the machine's, not the deployment's).
    Pure functions of the trials' figures, tested on made-up ones.

        capacity  flat-out trials' msgs/s: the mean and its interval
                  (t, from the trials not starved); fails when the
                  interval's top is below the need, meets when the
                  interval of every trial clears it (starvation only
                  lowers a rate)
        loss      trials paced at rate x (1 + headroom), their loss
                  ratios and seconds, as MLRsearch classifies a load
                  (draft-ietf-bmwg-mlrsearch, its goal duration sum D and
                  goal exceed ratio E): a trial that lost more than
                  allowed is bad, else good; a starved bad trial counts
                  as neither.  With W = max(D, good + bad) trial-seconds,
                  fails when bad > E W (more good seconds cannot save
                  it), meets when good >= (1 - E) W (more bad seconds
                  cannot sink it)
        p99       windows of an open-loop trial at rate, each its own
                  latency histogram: the p99 of them all with its
                  interval (base/quantile_ci.h); meets when the
                  interval's top is within the bound, fails when the
                  interval of the windows that were not starved lies
                  above it
*/
#ifndef HOPBENCH_SIZE_EVIDENCE_H
#define HOPBENCH_SIZE_EVIDENCE_H

#include <stdbool.h>

#include "base/histogram.h"

typedef enum {
    EVIDENCE_MORE,      //  not decided yet: measure more
    EVIDENCE_MEETS,     //  decided: within the bound
    EVIDENCE_FAILS,     //  decided: beyond it, on trials not starved
    EVIDENCE_UNDECIDED, //  the budget spent, the evidence straddles
    EVIDENCE_MACHINE    //  the budget spent, what fails it was starved
} evidence_t;

extern const char *const evidence_names[];

//  One trial's figure: msgs/s (capacity) or a loss ratio (loss)
typedef struct {
    double value;
    double seconds; //  its window
    bool starved;
} evidence_trial_t;

typedef struct {
    evidence_t verdict;
    double estimate, low, high; //  capacity msgs/s, p99 us; -1: none
    double seconds;             //  trial-seconds measured
    int trials;                 //  trials, or windows
    int starved;                //  ...of them starved
    //  loss: trial-seconds that lost at most the ratio allowed, more
    //  (not starved), more but starved; the worst ratio of all
    double good, bad, starved_bad, worst;
} evidence_result_t;

//  Capacity against 'need' msgs/s; 'last': no more trials may be run
void evidence_capacity(const evidence_trial_t *trials, int n, double need,
                       double confidence, bool last, evidence_result_t *out);

typedef struct {
    double loss;         //  the loss ratio allowed
    double goal_seconds; //  D: the trial-seconds that decide
    double exceed_ratio; //  E: the share of them that may be bad
} evidence_goal_t;

void evidence_loss(const evidence_trial_t *trials, int n,
                   const evidence_goal_t *goal, bool last,
                   evidence_result_t *out);

//  p99 of k windows (windows[i] ns, starved[i], seconds each) against
//  bound_us (0: any bound, it meets once it has an interval)
void evidence_p99(const histogram_t *windows, const bool *starved, int k,
                  double window_seconds, double bound_us, double confidence,
                  bool last, evidence_result_t *out);

int size_evidence_test(bool verbose);

#endif
