/*  size_answer: each size's answer.  A size's candidates are measured
    cheapest (planned cost) first; once one meets at a measured cost C,
    those planned above C are not (without --all: a measured cost is never
    below the planned one, so none of them can be cheaper).  Of those
    that meet, the cheapest measured (the first given, on a tie) is
    proven at rate for --prove seconds (size_eval_prove): a proof that
    holds makes it the answer; one that fails or is undecided takes its
    "meets" away, and the candidates it had kept from being measured may
    now be, until one is proven or none is left.  The progress line says
    which candidate is measured, the time so far, and the most the rest
    can take (an upper bound: every criterion's budget, and each trial's
    overhead at its worst so far).
*/
#include "run/size_internal.h"

#include "base/interrupt.h"
#include "base/mono.h"
#include "run/size_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

//  Seconds: a candidate's stages up and its first trial set up; a kept
//  trial's set-up and drain, before any was timed
#define SETUP_FIRST    5.0
#define OVERHEAD_FIRST 0.3

//  The most trials and trial-seconds one candidate's criteria take
static void s_most(const params_t *p, int *trials, double *seconds)
{
    int loss = (int)ceil(p->size_budget / p->search_trial) + 1;
    int windows = (int)(p->size_budget / p->size_window);
    windows = windows > p->size_windows ? windows : p->size_windows;
    *trials = 10 + loss + windows;
    *seconds = 10 * p->search_trial + loss * p->search_trial +
               windows * p->size_window;
}

double size_answer_bound(const size_t_ *self, int i)
{
    const params_t *p = &self->topo[i]->params;
    int trials;
    double seconds,
        overhead = self->overhead > 0 ? self->overhead : OVERHEAD_FIRST;
    s_most(p, &trials, &seconds);
    double prove =
        self->o->prove > 0 ? self->o->prove + p->size_windows * overhead : 0;
    return SETUP_FIRST + seconds + trials * overhead + prove;
}

//  "candidate 2 of 4: ...", with the time so far and the most the
//  candidates left can take
static void s_progress(const size_t_ *self, int i, const char *what)
{
    double spent = 0, most = 0;
    int left = 0;
    for (int j = 0; j < self->n; j++)
        if (self->row[j].seconds >= 0)
            spent += self->row[j].seconds;
        else if (self->pl[j] && j != i)
            left++, most += size_answer_bound(self, j);
    fprintf(stderr,
            "hopbench: size: %s %d of %d: %s%s%s at %u B (%.0f s so "
            "far; %d more to measure, at most ~%.0f s)\n",
            what, i + 1, self->n, self->row[i].topology,
            self->row[i].tried[0] ? " " : "", self->row[i].tried,
            self->row[i].size, spent, left, most);
}

static size_eval_t s_evaluator(size_t_ *self, int i)
{
    report_info_t *info = session_info(self->session);
    snprintf(self->candidate, sizeof self->candidate, "%d", i + 1);
    info->topology = self->topo[i]->name;
    info->sweep_value[0] = self->candidate; //  the rows read it later
    return (size_eval_t){.session = self->session,
                         .pl = self->pl[i],
                         .target = &self->target,
                         .ndr = self->o->ndr,
                         .row = &self->row[i]};
}

//  A candidate whose trial ended the run (a failure, or Ctrl-C): not
//  judged, and why
static void s_unjudged(sizing_row_t *row)
{
    row->verdict = SIZING_UNTRIED;
    snprintf(row->why, sizeof row->why, "%s",
             interrupt_signal() ? "interrupted while it was measured"
                                : "a trial of it failed");
}

//  Candidate i measured: its verdict, cost and figures
static int s_measure(size_t_ *self, int i, errbuf_t *err)
{
    size_eval_t eval = s_evaluator(self, i);
    if (!self->o->quiet)
        s_progress(self, i, "candidate");
    double start = mono_seconds();
    int rc = size_eval(&eval, err);
    sizing_row_t *row = &self->row[i];
    row->seconds = mono_seconds() - start;
    int trials =
        row->capacity_trials + (row->p99_windows > 0 ? row->p99_windows : 0) +
        (int)ceil((row->loss_good + row->loss_bad + row->loss_starved) /
                  self->topo[i]->params.search_trial);
    if (trials > 0 && row->seconds > row->trial_seconds)
        self->overhead =
            fmax(self->overhead, (row->seconds - row->trial_seconds) / trials);
    if (rc) {
        s_unjudged(row);
        return -1;
    }
    if (row->busy_cores >= 0)
        row->cost = size_cost_measured(self->pl[i], &self->cost[i], eval.busy);
    return 0;
}

//  The cheapest measured of a size's that meet and are not disproven
static int s_best(const size_t_ *self, uint32_t size)
{
    int best = -1;
    for (int i = 0; i < self->n; i++)
        if (self->row[i].size == size && self->row[i].verdict == SIZING_MEETS &&
            (best < 0 || self->row[i].cost < self->row[best].cost))
            best = i;
    return best;
}

//  The size's candidates not yet measured, cheapest planned first, that
//  may still be cheaper than the best so far
static int s_measure_size(size_t_ *self, uint32_t size, const int *order,
                          errbuf_t *err)
{
    for (int j = 0; j < self->n; j++) {
        int i = order[j], best = s_best(self, size);
        sizing_row_t *row = &self->row[i];
        if (row->size != size || !self->pl[i] || row->seconds >= 0)
            continue;
        if (best >= 0 && !self->o->all &&
            self->cost[i].planned > self->row[best].cost) {
            row->verdict = SIZING_UNTRIED;
            snprintf(row->why, sizeof row->why,
                     "dearer than #%d, which meets at cost %g (--all "
                     "measures it)",
                     self->row[best].number, self->row[best].cost);
            continue;
        }
        if (s_measure(self, i, err))
            return -1;
    }
    return 0;
}

//  The answer of a size: measure, prove the best, again while a proof
//  takes one away
static int s_answer(size_t_ *self, uint32_t size, const int *order,
                    errbuf_t *err)
{
    for (;;) {
        if (s_measure_size(self, size, order, err))
            return -1;
        int best = s_best(self, size);
        if (best < 0)
            return 0;
        if (self->o->prove <= 0) {
            self->row[best].answer = true;
            return 0;
        }
        size_eval_t eval = s_evaluator(self, best);
        if (!self->o->quiet)
            s_progress(self, best, "proving candidate");
        double start = mono_seconds();
        int rc = size_eval_prove(&eval, self->o->prove, err);
        self->row[best].seconds += mono_seconds() - start;
        if (rc) {
            s_unjudged(&self->row[best]);
            return -1;
        }
        if (self->row[best].verdict == SIZING_MEETS) {
            self->row[best].answer = true;
            return 0;
        }
    }
}

int size_answer_all(size_t_ *self, errbuf_t *err)
{
    int order[SIZE_MAX_ROWS];
    size_cost_order(self->cost, self->n, order);
    for (int i = 0; i < self->n; i++) {
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = self->row[j].size != self->row[i].size;
        if (first && s_answer(self, self->row[i].size, order, err))
            return -1;
    }
    return 0;
}

size_outcome_t size_answer_outcome(const size_t_ *self, uint32_t size)
{
    size_outcome_t outcome = SIZE_NONE;
    for (int i = 0; i < self->n; i++) {
        const sizing_row_t *row = &self->row[i];
        if (row->size != size)
            continue;
        if (row->answer)
            return SIZE_ANSWERED;
        if (row->verdict == SIZING_UNDECIDED ||
            row->verdict == SIZING_MACHINE ||
            (row->verdict == SIZING_UNTRIED && row->seconds >= 0))
            outcome = SIZE_OPEN;
    }
    return outcome;
}
