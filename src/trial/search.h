/*  search: the highest rate a pipeline carries before it starts dropping
    (mode = search), per message size.

    RFC 2544's throughput test as RFC 9971 (MLRsearch) and TRex's
    ndr_bench refine it.  With PUB drop semantics and paced publishers:

        bound    one trial flat out: what the publishers can offer, and
                 what the last hop received (the first guess)
        steps    bisect between the highest rate that passed and the lowest
                 that failed, until (fail - pass) / fail <= search_precision
                 or search_trials trials have run; above a pass no further
                 than 10 % over it, twice as far after each pass that
                 raised it
        confirm  the rate found, once more for search_confirm seconds; a
                 failed confirmation backs off below it, 2 % then twice as
                 far each time (at least search_precision), and confirms
                 that, up to 10 confirmations (the back-off stops growing
                 at 50 %; a failing one ends at its first loss, below):
                 short trials that passed near a rate a long one failed
                 prove nothing there

    A trial's window ends early once a subscriber has proven more lost
    than a loss ratio allows of the whole trial (trial/trial_giveup.c):
    its verdict is known, and a failing confirmation costs the time to
    its first loss, not search_confirm.  The bound and the steps end
    once they have failed every ratio; a confirmation once it has failed
    its own (the larger ones are then unjudged), unless it could confirm
    a larger one for free (below).

    When no trial has passed by the end of the budget, the search halves
    on, a few trials more, for a rate that passes.

    A trial passes when no hop lost more than loss_ratio of what it was sent
    (0: NDR; e.g. 0.005: a PDR) and, with p99_us, the end-to-end p99 stays
    under it.  It counts only when the publishers sent at least 99 % of the
    offered rate; else it is "generator-limited", and is a failure for the
    bisection (that rate was not shown to pass).  A bound or step that
    passed but whose hop fell behind what was sent into it is "behind"
    (verdict_t), a failure for the bisection too.  The bottleneck is the hop
    that lost first (upstream-most) in the lowest failing trial.

    Several loss ratios (loss_ratio = 0,0.005), as RFC 9971's MLRsearch:
    one set of trials, each judged against every ratio, each ratio keeping
    its own bounds.  The steps bisect the smallest ratio's interval first
    (up to search_trials trials each), then the next one's, whose bounds
    the earlier trials already narrowed; trials are short while an
    interval is wide (MLRsearch: an eighth of search_trial above a
    relative width of 16 %, a quarter above 8 %, a half above 4 %).  Each
    ratio is confirmed on its own; a confirmation that passes also passes
    every larger ratio, so a larger ratio's rate is never below a smaller
    one's (a PDR is at least the NDR), and one that fails a ratio but
    passes a larger one within search_precision of that one's highest
    short pass confirms the larger one there.  A failing trial carries whether a
    stage was starved during it (trial/results.h): a ratio whose failures
    were all starved has a rate set by the machine, not the pipeline.

    The search runs its trials through the caller (hooks), which resolves
    endpoints, shows progress and writes each judged trial to search.csv.
*/
#ifndef HOPBENCH_SEARCH_H
#define HOPBENCH_SEARCH_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "config/params.h"
#include "trial/results.h"
#include "trial/trial.h"

typedef enum { SEARCH_BOUND, SEARCH_STEP, SEARCH_CONFIRM } search_phase_t;
//  unjudged: a confirmation cut short once it failed a smaller ratio was
//  too short to pass or fail this one.  behind: a step (or the bound) that
//  lost nothing
//  but whose hop took less than SEARCH_BEHIND of what was sent into it
//  in the window: its queues grew, and the rate held only while they
//  filled (deep buffers of large messages hide that from a short trial;
//  the confirmation, five seconds long, then failed and backed off, a
//  trial each time).  A failure for the bisection, never a
//  confirmation's verdict, which stays loss (and p99) alone
typedef enum {
    VERDICT_PASS,
    VERDICT_FAIL,
    VERDICT_LIMITED,
    VERDICT_UNJUDGED,
    VERDICT_BEHIND
} verdict_t;

extern const char *const search_phase_names[];
extern const char *const search_verdict_names[];

//  One judged trial
typedef struct {
    int number; //  1-based, within the size
    search_phase_t phase;
    double offered; //  msgs/s, all publishers (the bound: what they sent)
    double sent;    //  msgs/s the publishers achieved in the window
    double window;  //  seconds of its window (shorter while bounds are wide)
    bool cut_short; //  ...ended early: it had lost more than allowed
    verdict_t verdict; //  against the first (smallest) loss ratio
    int worst;     //  the link that failed it first, -1 (latency, or none)
    double p99_us; //  end to end, -1 when not timed
    int starved;   //  a stage waited for a CPU: 1 yes, 0 no, -1 unknown
    int nratios;
    verdict_t verdicts[PARAMS_MAX_RATIOS]; //  against each loss ratio
    int worsts[PARAMS_MAX_RATIOS];         //  ...and the link that failed it
    const trial_result_t *result;
} search_trial_t;

//  What one search found for one loss ratio
typedef struct {
    double ratio;     //  loss_ratio
    double found;     //  msgs/s offered that passed its confirmation, 0: none
    double fail;      //  the lowest failing rate, 0 when none failed
    double best_step; //  the highest rate a short trial passed, 0: none
    int trials;       //  trials of the search when this ratio was settled
    double seconds;   //  ...and its wall time then
    bool limited;   //  it ended where the publishers could not offer more
    int bottleneck; //  link (row) of the hop that lost first above found
    int bottleneck_hop; //  ...its hop column
    char bottleneck_name[2 * RESULTS_NAME_MAX + 24]; //  "hop 1 (pub -> b)"
    bool latency; //  ...or the p99 limit was what failed first
    int failures; //  trials that failed against it (generator-limited too)
    int starved;  //  ...of which a stage was starved during
    int unknown;  //  ...of which nobody knows
    int rows;     //  the ratio whose confirmed trial holds the rows: this
                  //  one, or a smaller one's (it passed this ratio too)
    trial_result_t confirmed; //  the confirming trial: the size's rows
    bool flat_out;            //  ...which ran flat out (found is what it sent)
} search_found_t;

typedef struct {
    int nratios;
    search_found_t ratio[PARAMS_MAX_RATIOS]; //  ascending loss ratio
    int trials;     //  every trial, confirmations included
    int cut_short;  //  ...of which ended early, failed (trial_giveup.c)
    double seconds; //  wall time of the search
    double windows; //  ...of which in the trials' windows (the rest:
                    //  set-up, drain, the search's own)
} search_outcome_t;

//  Was every failure against this ratio a starved one (the rate is the
//  machine's, not the pipeline's)?
static inline bool search_starved_all(const search_found_t *found)
{
    return found->failures > 0 && found->starved == found->failures;
}

//  The confirmed rows of ratio k (empty when nothing was confirmed)
static inline const trial_result_t *
search_rows(const search_outcome_t *outcome, int k)
{
    return &outcome->ratio[outcome->ratio[k].rows].confirmed;
}

typedef struct {
    //  Run one trial as spec says; its rows go into result
    int (*trial)(void *ctx, const trial_spec_t *spec, trial_result_t *result,
                 errbuf_t *err);
    //  A trial was judged (result is freed after this returns); NULL: no
    //  one asks (a sizing's --ndr)
    void (*judged)(void *ctx, const search_trial_t *trial);
    void *ctx;
    //  Seconds between trials, for the last one's drain to settle
    //  (SEARCH_SETTLE_S for real trials; the selftest's fakes need none)
    double settle_s;
} search_hooks_t;

#define SEARCH_SETTLE_S 0.2

//  Search one size; base: the trial spec of the size (size, tsc_hz); the
//  search's keys come from params.  The outcome's confirmed trials are
//  the caller's to free (search_outcome_free)
int search_run(const params_t *params, int publishers, const trial_spec_t *base,
               const search_hooks_t *hooks, search_outcome_t *outcome,
               errbuf_t *err);

void search_outcome_free(search_outcome_t *outcome);

//  The most trials search_run may take with these keys: the bound; per
//  loss ratio its steps (search_trials, the first ratio's one fewer: the
//  bound was one), the few more when none of them passed, and its
//  confirmations.  A plan's bound, never passed (the selftest holds it)
int search_most_trials(const params_t *params);

int search_test(bool verbose);

#endif
