/*  search: bisection for the sustainable rate (see search.h).

    The rates are the offered load of all publishers together, split
    evenly among them (rate is per publisher).  Between two trials the
    pipeline settles for SEARCH_SETTLE_S: the last trial's drain has ended,
    but the kernel's and libzmq's queues may still be warm.
*/
#include "trial/search.h"

#include "base/check.h"
#include "base/mono.h"

#include <stdlib.h>
#include <string.h>

#define SEARCH_SETTLE_S 0.2  //  pause between trials
#define SEARCH_LIMITED  0.99 //  a trial counts when it sent this share
#define SEARCH_ROUNDS   7    //  confirmations, at most (back-offs to 50 %)
#define SEARCH_NARROW   4    //  more steps when nothing passed
#define SEARCH_BACKOFF  0.02 //  the first back-off after a failed confirmation

const char *const search_phase_names[] = {"bound", "step", "confirm", NULL};
const char *const search_verdict_names[] = {"pass", "fail", "generator-limited",
                                            NULL};

typedef struct {
    const params_t *p;
    int publishers;
    trial_spec_t base;
    const search_hooks_t *hooks;
    search_outcome_t *out;
    double lo, hi; //  highest pass, lowest fail; 0: none yet
} search_t;

//  What the publishers achieved, all of them
static double s_sent(const trial_result_t *result)
{
    return result->sources_rate;
}

//  What reached the slowest subscriber: the first guess
static double s_delivered(const trial_result_t *result)
{
    double least = 0;
    for (int l = 0; l < result->nlinks; l++)
        if (result->links[l].to_sink &&
            (least == 0 || link_rate(&result->links[l]) < least))
            least = link_rate(&result->links[l]);
    return least;
}

static double s_p99_us(const trial_result_t *result)
{
    for (int r = 0; r < result->nlatency; r++)
        if (strcmp(result->latency[r].hop, "e2e") == 0)
            return histogram_percentile(&result->latency[r].histogram, 99) /
                   1e3;
    return -1;
}

static void s_judge(const search_t *self, search_trial_t *trial)
{
    const trial_result_t *result = trial->result;
    trial->sent = s_sent(result);
    if (trial->phase == SEARCH_BOUND || trial->offered <= 0)
        trial->offered = trial->sent;
    trial->worst = -1;
    for (int l = 0; l < result->nlinks && trial->worst < 0; l++) {
        const link_row_t *row = &result->links[l];
        if (row->expected > 0 &&
            (double)link_lost(row) / (double)row->expected >
                self->p->loss_ratio)
            trial->worst = l;
    }
    trial->p99_us = s_p99_us(result);
    bool slow = self->p->p99_us > 0 && trial->p99_us > self->p->p99_us;
    if (trial->sent < SEARCH_LIMITED * trial->offered)
        trial->verdict = VERDICT_LIMITED;
    else
        trial->verdict =
            trial->worst >= 0 || slow ? VERDICT_FAIL : VERDICT_PASS;
}

//  One trial at 'offered' (0: flat out) for 'seconds'; its result is the
//  caller's to keep or free
static int s_trial(search_t *self, search_phase_t phase, double offered,
                   double seconds, search_trial_t *judged,
                   trial_result_t *result, errbuf_t *err)
{
    trial_spec_t spec = self->base;
    if (self->out->trials > 0)
        mono_sleep(SEARCH_SETTLE_S);
    spec.repeat = ++self->out->trials;
    spec.rate = offered > 0 ? offered / self->publishers : 0;
    spec.timed = self->p->p99_us > 0;
    spec.messages = 0;
    spec.duration = seconds;
    if (self->hooks->trial(self->hooks->ctx, &spec, result, err))
        return -1;
    *judged = (search_trial_t){.number = spec.repeat,
                               .phase = phase,
                               .offered = offered,
                               .result = result};
    s_judge(self, judged);
    self->hooks->judged(self->hooks->ctx, judged);
    return 0;
}

//  A failure at rate: the lowest yet says where the bottleneck is
static void s_failed(search_t *self, const search_trial_t *trial)
{
    if (self->hi > 0 && trial->offered > self->hi)
        return;
    self->hi = trial->offered;
    self->out->fail = trial->offered;
    self->out->limited = trial->verdict == VERDICT_LIMITED;
    self->out->bottleneck = trial->worst;
    self->out->latency = trial->verdict == VERDICT_FAIL && trial->worst < 0;
    self->out->bottleneck_name[0] = 0;
    if (trial->worst >= 0) {
        const link_row_t *row = &trial->result->links[trial->worst];
        snprintf(self->out->bottleneck_name, sizeof self->out->bottleneck_name,
                 "hop %d (%s -> %s)", row->hop, row->from, row->to);
    }
}

static void s_passed(search_t *self, double rate)
{
    if (rate > self->lo)
        self->lo = rate;
    if (rate > self->out->best_step)
        self->out->best_step = rate;
}

static bool s_precise(const search_t *self)
{
    return self->lo > 0 && self->hi > 0 &&
           (self->hi - self->lo) / self->hi <= self->p->search_precision;
}

//  The next rate to try: the guess first, then the middle
static double s_next(const search_t *self, double guess)
{
    if (guess > self->lo && (self->hi == 0 || guess < self->hi))
        return guess;
    return (self->lo + self->hi) / 2;
}

//  Bisect until precise or out of trials (up to 'budget' more)
static int s_steps(search_t *self, double guess, int budget, errbuf_t *err)
{
    for (int n = 0; n < budget && !s_precise(self); n++) {
        search_trial_t trial;
        trial_result_t result;
        double rate = s_next(self, n == 0 ? guess : 0);
        if (s_trial(self, SEARCH_STEP, rate, self->p->search_trial, &trial,
                    &result, err))
            return -1;
        if (trial.verdict == VERDICT_PASS)
            s_passed(self, rate);
        else
            s_failed(self, &trial);
        trial_result_free(&result);
    }
    return 0;
}

//  Confirm lo once; 1 when it held (outcome->confirmed kept)
static int s_confirm(search_t *self, errbuf_t *err)
{
    search_trial_t trial;
    trial_result_t result;
    //  flat out when even that passed: the publishers were the limit
    double rate = self->hi > 0 ? self->lo : 0;
    if (s_trial(self, SEARCH_CONFIRM, rate, self->p->search_confirm, &trial,
                &result, err))
        return -1;
    if (trial.verdict == VERDICT_PASS) {
        self->out->found = rate > 0 ? rate : trial.sent;
        self->out->confirmed = result;
        return 1;
    }
    s_failed(self, &trial);
    trial_result_free(&result);
    return 0;
}

//  After a failed confirmation: below it by a step that doubles each
//  round (2 %, 4 %, 8 %, ...).  Not by more short trials: they passed up
//  there, and a long one did not, so near it they prove nothing
static void s_back_off(search_t *self, int round)
{
    double step = SEARCH_BACKOFF * (double)(1 << round);
    if (step < self->p->search_precision)
        step = self->p->search_precision;
    self->lo = self->hi * (1 - (step < 0.5 ? step : 0.5));
}

int search_run(const params_t *params, int publishers, const trial_spec_t *base,
               const search_hooks_t *hooks, search_outcome_t *outcome,
               errbuf_t *err)
{
    search_t self = {params, publishers > 0 ? publishers : 1, *base, hooks,
                     outcome, 0, 0};
    double start = mono_seconds();
    memset(outcome, 0, sizeof *outcome);
    outcome->bottleneck = -1;
    search_trial_t bound;
    trial_result_t result;
    if (s_trial(&self, SEARCH_BOUND, 0, params->search_trial, &bound, &result,
                err))
        return -1;
    double guess = s_delivered(&result);
    if (bound.verdict == VERDICT_PASS)
        s_passed(&self, bound.sent);
    else
        s_failed(&self, &bound);
    trial_result_free(&result);
    int rc =
        self.hi > 0 ? s_steps(&self, guess, params->search_trials - 1, err) : 0;
    if (rc == 0 && self.lo == 0)
        rc = s_steps(&self, 0, SEARCH_NARROW, err); //  nothing passed yet
    for (int round = 0; rc == 0 && round < SEARCH_ROUNDS && self.lo > 0;
         round++)
        if ((rc = s_confirm(&self, err)) == 0)
            s_back_off(&self, round);
    outcome->seconds = mono_seconds() - start;
    return rc < 0 ? -1 : 0;
}

//  ------------------------------------------------------------------------
//  Selftest: a pretend pipeline that carries 'capacity' msgs/s on hop 2,
//  whose publisher can offer 'most'

typedef struct {
    double capacity, most;
    int trials, fails_left; //  confirmations that fail on purpose
    int worst_seen;
} fake_t;

static int s_fake_trial(void *ctx, const trial_spec_t *spec,
                        trial_result_t *result, errbuf_t *err)
{
    (void)err;
    fake_t *fake = ctx;
    double offered = spec->rate > 0 ? spec->rate : fake->most;
    double sent = offered < fake->most ? offered : fake->most;
    double through = sent < fake->capacity ? sent : fake->capacity;
    bool spoil = spec->duration > 1.5 && fake->fails_left-- > 0;
    memset(result, 0, sizeof *result);
    if (!(result->links = calloc(2, sizeof *result->links)))
        return -1;
    result->nlinks = 2;
    result->sources_rate = (uint64_t)sent;
    for (int l = 0; l < 2; l++) {
        link_row_t *row = &result->links[l];
        *row = (link_row_t){.hop = l + 1,
                            .seconds = 1,
                            .sent_seconds = 1,
                            .from_source = l == 0,
                            .to_sink = l == 1};
        snprintf(row->from, sizeof row->from, "%s", l ? "broker" : "pub");
        row->window_sent = (uint64_t)sent;
        row->sent = row->expected = row->window_sent;
        row->received = (uint64_t)(l ? through : sent);
        if (spoil && l == 0)
            row->received = row->sent - row->sent / 10;
        row->window_received = row->received;
    }
    fake->trials++;
    return 0;
}

static void s_fake_judged(void *ctx, const search_trial_t *trial)
{
    fake_t *fake = ctx;
    if (trial->verdict == VERDICT_FAIL && trial->worst >= 0)
        fake->worst_seen = trial->worst;
}

int search_test(bool verbose)
{
    (void)verbose;
    params_t p;
    params_defaults(&p);
    p.search_confirm = 2; //  the fake spoils confirmations on request
    errbuf_t err;
    search_outcome_t out;
    fake_t fake = {.capacity = 500000, .most = 3000000, .worst_seen = -1};
    search_hooks_t hooks = {s_fake_trial, s_fake_judged, &fake};
    trial_spec_t base = {.size = 64};
    //  The rate found is within the precision below the capacity, hop 2
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.found <= 500000 && out.found >= 500000 * 0.99);
    CHECK(out.bottleneck == 1 && !out.limited && out.trials == fake.trials);
    CHECK(out.trials <= p.search_trials + 1);
    trial_result_free(&out.confirmed);
    //  A publisher slower than the pipeline: found flat out, limited
    fake = (fake_t){.capacity = 500000, .most = 200000, .worst_seen = -1};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.found == 200000 && out.fail == 0 && out.trials == 2);
    trial_result_free(&out.confirmed);
    //  Two confirmations that fail back off below them, 2 % then 4 %
    fake = (fake_t){.capacity = 500000, .most = 3000000, .fails_left = 2};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.found > 0 && out.found < out.fail && out.fail < 500000);
    CHECK(out.found >= out.fail * (1 - 0.04) * 0.999);
    CHECK(out.best_step >= out.fail && out.best_step <= 500000);
    trial_result_free(&out.confirmed);
    //  Confirmations that never hold: no rate found, the short passes said
    fake = (fake_t){.capacity = 500000, .most = 3000000, .fails_left = 99};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.found == 0 && out.best_step > 0 && out.confirmed.nlinks == 0);
    trial_result_free(&out.confirmed);
    //  PDR: 20 % loss allowed passes what NDR fails
    p.loss_ratio = 0.2;
    fake = (fake_t){.capacity = 500000, .most = 550000};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.found == 550000);
    trial_result_free(&out.confirmed);
    return 0;
}
