/*  search: bisection for the sustainable rate (see search.h).

    The rates are the offered load of all publishers together, split
    evenly among them (rate is per publisher).  Between two trials the
    pipeline settles for the hooks' settle_s (SEARCH_SETTLE_S): the last
    trial's drain has ended, but the kernel's and libzmq's queues may
    still be warm.
*/
#include "trial/search.h"

#include "base/check.h"
#include "base/mono.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEARCH_LIMITED  0.99 //  a trial counts when it sent this share
#define SEARCH_ROUNDS   10   //  confirmations, at most (back-offs to 50 %)
#define SEARCH_NARROW   4    //  more steps when nothing passed
#define SEARCH_BACKOFF  0.02 //  the first back-off after a failed confirmation
#define SEARCH_WIDE     0.1  //  above a pass: at first no further (widen)
#define SEARCH_SHORT    0.25 //  the cut: not before this share of search_trial
#define SEARCH_SHORTEST 0.05 //  a trial never shorter than this (seconds)
#define SEARCH_BEHIND   0.95 //  a hop took less in a step's window: behind
#define SEARCH_BEHIND_SLACK  16   //  ...by more than this many messages
#define SEARCH_BEHIND_SIGMAS 4    //  ...and than a topic share's chance

const char *const search_phase_names[] = {"bound", "step", "confirm", NULL};
const char *const search_verdict_names[] = {
    "pass", "fail", "generator-limited", "unjudged", "behind", NULL};

typedef struct {
    double lo, hi; //  highest pass, lowest fail; 0: none yet
    double widen;  //  how far above lo the next step may go (s_next)
    bool settled;  //  confirmed (or given up): trials and seconds taken
} bounds_t;

typedef struct {
    const params_t *p;
    int publishers;
    trial_spec_t base;
    const search_hooks_t *hooks;
    search_outcome_t *out;
    bounds_t b[PARAMS_MAX_RATIOS];
    double start;
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

//  The first link (upstream-most) that lost more than ratio of what it
//  was sent, times 'share', or -1
static int s_worst(const trial_result_t *result, double ratio, double share)
{
    for (int l = 0; l < result->nlinks; l++) {
        const link_row_t *row = &result->links[l];
        if (row->expected > 0 &&
            (double)link_lost(row) / (double)row->expected * share > ratio)
            return l;
    }
    return -1;
}

//  The first link (upstream-most) that took, in its window, less than
//  SEARCH_BEHIND of what was sent into it in the sender's (times what it
//  should carry of that: a share with topics, N copies with sockets =
//  N; times the share of it that was not dropped, whole trial: what it
//  lost is loss, judged as such, not a queue), or -1.  And by more than
//  chance: the messages in flight at the window's edges, and where a
//  link takes a share of the topics, how far a window's count of them
//  strays from that share (a binomial count's SEARCH_BEHIND_SIGMAS
//  deviations: at a few messages per window, as a topic's subscriber
//  gets at low rates, 5 % is noise)
static int s_behind(const trial_result_t *result)
{
    for (int l = 0; l < result->nlinks; l++) {
        const link_row_t *row = &result->links[l];
        if (row->sent == 0 || row->expected == 0 || row->seconds <= 0 ||
            row->sent_seconds <= 0 || row->window_sent == 0)
            continue;
        //  (expected / sent) x (received / expected), messages in its window
        double share = (double)row->received / (double)row->sent;
        double due =
            (double)row->window_sent / row->sent_seconds * share * row->seconds;
        double took = (double)row->window_received;
        double chance = SEARCH_BEHIND_SIGMAS * sqrt(due * fmax(0, 1 - share)) +
                        SEARCH_BEHIND_SLACK;
        if (took < SEARCH_BEHIND * due && due - took > chance)
            return l;
    }
    return -1;
}

//  A trial cut short once it failed cut_ratio, for a larger ratio: a pass
//  so far proves nothing; a failure stands where the loss is already
//  beyond that ratio's share of the whole window ('planned' seconds);
//  else the trial was too short to say
static void s_judge_cut(const search_t *self, search_trial_t *trial,
                        double cut_ratio, double planned)
{
    double share = planned > 0 ? trial->window / planned : 1;
    for (int k = 0; k < trial->nratios; k++) {
        double ratio = self->out->ratio[k].ratio;
        if (trial->verdicts[k] == VERDICT_LIMITED)
            continue;
        //  a window cut short passes nothing, its own ratio either: the
        //  cut projected more lost than it allows, and what came in the
        //  drain after can bring the measured loss under it (0.00486 of
        //  0.005)
        if (ratio <= cut_ratio) {
            if (trial->verdicts[k] == VERDICT_PASS)
                trial->verdicts[k] = VERDICT_UNJUDGED;
            continue;
        }
        if (trial->verdicts[k] == VERDICT_FAIL)
            trial->worsts[k] = s_worst(trial->result, ratio, share);
        if (trial->verdicts[k] == VERDICT_PASS || trial->worsts[k] < 0)
            trial->verdicts[k] = VERDICT_UNJUDGED;
    }
}

static void s_judge(const search_t *self, search_trial_t *trial,
                    double cut_ratio, double planned)
{
    const trial_result_t *result = trial->result;
    trial->sent = s_sent(result);
    if (trial->phase == SEARCH_BOUND || trial->offered <= 0)
        trial->offered = trial->sent;
    trial->p99_us = s_p99_us(result);
    trial->starved = result->starved;
    bool slow = self->p->p99_us > 0 && trial->p99_us > self->p->p99_us;
    bool limited = trial->sent < SEARCH_LIMITED * trial->offered;
    trial->nratios = self->out->nratios;
    for (int k = 0; k < trial->nratios; k++) {
        trial->worsts[k] = s_worst(result, self->out->ratio[k].ratio, 1);
        trial->verdicts[k] = limited ? VERDICT_LIMITED
                             : trial->worsts[k] >= 0 || slow ? VERDICT_FAIL
                                                             : VERDICT_PASS;
    }
    int behind = trial->phase != SEARCH_CONFIRM ? s_behind(result) : -1;
    for (int k = 0; k < trial->nratios && behind >= 0; k++)
        if (trial->verdicts[k] == VERDICT_PASS) {
            trial->verdicts[k] = VERDICT_BEHIND;
            trial->worsts[k] = behind;
        }
    if (trial->cut_short)
        s_judge_cut(self, trial, cut_ratio, planned);
    trial->worst = trial->worsts[0];
    trial->verdict = trial->verdicts[0];
}

//  Could a trial at rate, passing ratio j, be j's confirmation?  Not yet
//  confirmed, and within search_precision of j's own highest pass
static bool s_free_for(const search_t *self, int j, double rate)
{
    return self->out->ratio[j].found == 0 && rate > 0 &&
           rate >= self->b[j].lo * (1 - self->p->search_precision);
}

//  The loss ratio whose failure ends a trial's window (trial_giveup.c).
//  The bound's and a step's narrow every ratio's bounds: only failing
//  them all ends them.  A confirmation of ratio k (k >= 0) ends once it
//  has failed k, and says nothing then of the larger ratios; unless one
//  of them could take it as its own confirmation (s_confirms_larger):
//  then it too ends only once it has failed them all
static double s_cut_ratio(const search_t *self, int k, double offered)
{
    const int last = self->out->nratios - 1;
    for (int j = k + 1; k >= 0 && j <= last; j++)
        if (s_free_for(self, j, offered))
            return self->out->ratio[last].ratio;
    return self->out->ratio[k >= 0 ? k : last].ratio;
}

//  One trial at 'offered' (0: flat out) for 'seconds', confirming ratio k
//  (-1: the bound or a step); its result is the caller's to keep or free
static int s_trial(search_t *self, search_phase_t phase, int k, double offered,
                   double seconds, search_trial_t *judged,
                   trial_result_t *result, errbuf_t *err)
{
    trial_spec_t spec = self->base;
    if (self->out->trials > 0 && self->hooks->settle_s > 0)
        mono_sleep(self->hooks->settle_s);
    spec.repeat = ++self->out->trials;
    spec.rate = offered > 0 ? offered / self->publishers : 0;
    spec.timed = self->p->p99_us > 0;
    spec.messages = 0;
    spec.duration = seconds;
    spec.give_up.on = true;
    spec.give_up.ratio = s_cut_ratio(self, k, offered);
    spec.give_up.after = fmax(self->p->search_trial * SEARCH_SHORT,
                              SEARCH_SHORTEST);
    if (self->hooks->trial(self->hooks->ctx, &spec, result, err))
        return -1;
    bool cut = result->cut_short && result->nlinks > 0;
    self->out->cut_short += cut;
    *judged = (search_trial_t){.number = spec.repeat,
                               .phase = phase,
                               .offered = offered,
                               .window = cut ? result->links[0].seconds
                                             : seconds,
                               .cut_short = cut,
                               .result = result};
    s_judge(self, judged, spec.give_up.ratio, seconds);
    self->out->windows += judged->window;
    if (self->hooks->judged)
        self->hooks->judged(self->hooks->ctx, judged);
    return 0;
}

//  A failure of ratio k at rate: the lowest yet says where the
//  bottleneck is
static void s_failed(search_t *self, int k, const search_trial_t *trial)
{
    search_found_t *f = &self->out->ratio[k];
    bounds_t *b = &self->b[k];
    f->failures++;
    f->starved += trial->starved == 1;
    f->unknown += trial->starved < 0;
    if (b->hi > 0 && trial->offered > b->hi)
        return;
    b->hi = f->fail = trial->offered;
    f->limited = trial->verdicts[k] == VERDICT_LIMITED;
    f->bottleneck = trial->worsts[k];
    f->latency = trial->verdicts[k] == VERDICT_FAIL && trial->worsts[k] < 0;
    f->bottleneck_name[0] = 0;
    if (trial->worsts[k] >= 0) {
        const link_row_t *row = &trial->result->links[trial->worsts[k]];
        f->bottleneck_hop = row->hop;
        snprintf(f->bottleneck_name, sizeof f->bottleneck_name,
                 "hop %d (%s -> %s)", row->hop, row->from, row->to);
    }
}

static void s_passed(search_t *self, int k, double rate)
{
    bounds_t *b = &self->b[k];
    if (rate > b->lo) {
        b->lo = rate;
        b->widen = b->widen > 0 ? b->widen * 2 : SEARCH_WIDE;
    }
    if (rate > self->out->ratio[k].best_step)
        self->out->ratio[k].best_step = rate;
}

//  A step's or the bound's trial, for every ratio's bounds
static void s_record(search_t *self, const search_trial_t *trial, double rate)
{
    for (int k = 0; k < self->out->nratios; k++)
        if (trial->verdicts[k] == VERDICT_PASS)
            s_passed(self, k, rate);
        else
            s_failed(self, k, trial);
}

//  (fail - pass) / fail, 1 while a bound is missing
static double s_width(const bounds_t *b)
{
    return b->lo > 0 && b->hi > 0 ? (b->hi - b->lo) / b->hi : 1;
}

//  Nothing more to bisect: precise, or never failed (flat out passed)
static bool s_precise(const search_t *self, int k)
{
    const bounds_t *b = &self->b[k];
    return (b->lo > 0 && b->hi == 0) ||
           s_width(b) <= self->p->search_precision;
}

//  The next rate to try: the guess first, then the middle, but no
//  further above a pass than 'widen' of it (10 %, twice that after each
//  pass that raised it): the bound fails flat out, often far above what
//  the pipeline carries, and halving down from there costs a step each
//  time (RFC 9971's search widens from the last pass the same way)
static double s_next(const bounds_t *b, double guess)
{
    if (guess > b->lo && (b->hi == 0 || guess < b->hi))
        return guess;
    double middle = (b->lo + b->hi) / 2, above = b->lo * (1 + b->widen);
    return b->lo > 0 && above < middle ? above : middle;
}

//  A step's window, as MLRsearch sizes it: short while the interval is
//  wide (its relative width over 16 %: an eighth of search_trial; over
//  8 %: a quarter; over 4 %: a half), the whole as it narrows; a part
//  shorter than SEARCH_SHORTEST is too short to judge: the whole then
static double s_window(const search_t *self, const bounds_t *b)
{
    double full = self->p->search_trial, width = s_width(b);
    double part = width > 0.16   ? full / 8
                  : width > 0.08 ? full / 4
                  : width > 0.04 ? full / 2
                                 : full;
    return part < SEARCH_SHORTEST ? full : part;
}

//  Bisect ratio k until precise or out of trials (up to 'budget' more)
static int s_steps(search_t *self, int k, double guess, int budget,
                   errbuf_t *err)
{
    for (int n = 0; n < budget && !s_precise(self, k); n++) {
        search_trial_t trial;
        trial_result_t result;
        double rate = s_next(&self->b[k], n == 0 ? guess : 0);
        if (s_trial(self, SEARCH_STEP, -1, rate, s_window(self, &self->b[k]),
                    &trial, &result, err))
            return -1;
        s_record(self, &trial, rate);
        trial_result_free(&result);
    }
    return 0;
}

//  Ratio k settled: its trials and time so far
static void s_settle(search_t *self, int k)
{
    if (self->b[k].settled)
        return;
    self->b[k].settled = true;
    self->out->ratio[k].trials = self->out->trials;
    self->out->ratio[k].seconds = mono_seconds() - self->start;
}

//  A confirmation that failed ratio k and passed a larger one, at a rate
//  within search_precision of that one's own highest pass: that ratio's
//  confirmation, for free (the first such ratio; -1: none)
static int s_confirms_larger(const search_t *self, int k,
                             const search_trial_t *trial, double rate)
{
    for (int j = k + 1; j < self->out->nratios; j++)
        if (trial->verdicts[j] == VERDICT_PASS && s_free_for(self, j, rate))
            return j;
    return -1;
}

//  Ratio k confirmed at rate (0: flat out, found then what was sent) by
//  trial, whose result becomes its rows
static void s_confirmed(search_t *self, int k, double rate,
                        const search_trial_t *trial, trial_result_t *result)
{
    search_found_t *f = &self->out->ratio[k];
    f->found = rate > 0 ? rate : trial->sent;
    f->flat_out = rate <= 0;
    f->confirmed = *result;
    f->rows = k;
    s_settle(self, k);
}

//  Confirm ratio k's lo once; 1 when it held (its confirmed kept).  The
//  trial counts for the larger ratios too: what passes k passes them
static int s_confirm(search_t *self, int k, errbuf_t *err)
{
    search_trial_t trial;
    trial_result_t result;
    //  flat out when even that passed: the publishers were the limit
    double rate = self->b[k].hi > 0 ? self->b[k].lo : 0;
    if (s_trial(self, SEARCH_CONFIRM, k, rate, self->p->search_confirm, &trial,
                &result, err))
        return -1;
    for (int j = k + 1; j < self->out->nratios; j++)
        if (trial.verdicts[j] == VERDICT_FAIL ||
            trial.verdicts[j] == VERDICT_LIMITED)
            s_failed(self, j, &trial);
    if (trial.verdicts[k] == VERDICT_PASS) {
        s_confirmed(self, k, rate, &trial, &result);
        return 1;
    }
    s_failed(self, k, &trial);
    int j = s_confirms_larger(self, k, &trial, rate);
    if (j > k)
        s_confirmed(self, j, rate, &trial, &result);
    else
        trial_result_free(&result);
    return 0;
}

//  After a failed confirmation: below it by a step that doubles each
//  round (2 %, 4 %, 8 %, ...).  Not by more short trials: they passed up
//  there, and a long one did not, so near it they prove nothing
static void s_back_off(search_t *self, int k, int round)
{
    double step = SEARCH_BACKOFF * (double)(1 << round);
    if (step < self->p->search_precision)
        step = self->p->search_precision;
    self->b[k].lo = self->b[k].hi * (1 - (step < 0.5 ? step : 0.5));
}

//  Ratio k's confirmations; a smaller ratio's confirmed rate, passed
//  with less loss, is a floor (and its rows stand when it is higher)
static int s_confirm_ratio(search_t *self, int k, errbuf_t *err)
{
    search_found_t *f = &self->out->ratio[k];
    const search_found_t *below = k > 0 ? &self->out->ratio[k - 1] : NULL;
    bounds_t *b = &self->b[k];
    int rc = 0;
    if (f->found == 0 && b->hi > 0 && b->lo >= b->hi)
        s_back_off(self, k, 0); //  a longer trial failed below a short pass
    //  unless a smaller ratio's confirmation passed this one; and never
    //  below the smaller ratio's rate, which its confirmation proved
    double floor = below ? below->found : 0;
    for (int round = 0; f->found == 0 && rc == 0 && round < SEARCH_ROUNDS &&
                        b->lo > floor;
         round++)
        if ((rc = s_confirm(self, k, err)) == 0)
            s_back_off(self, k, round);
    if (rc >= 0 && below && below->found > 0 && f->found <= below->found) {
        trial_result_free(&f->confirmed);
        f->found = below->found;
        f->rows = below->rows;
    }
    s_settle(self, k);
    return rc < 0 ? -1 : 0;
}

//  The bound, flat out: every ratio's first pass or fail, and the guess
static int s_bound(search_t *self, double *guess, errbuf_t *err)
{
    search_trial_t bound;
    trial_result_t result;
    bounds_t wide = {0};
    if (s_trial(self, SEARCH_BOUND, -1, 0, s_window(self, &wide), &bound, &result,
                err))
        return -1;
    *guess = s_delivered(&result);
    s_record(self, &bound, bound.sent);
    trial_result_free(&result);
    return 0;
}

static void s_begin(search_t *self, search_outcome_t *outcome)
{
    memset(outcome, 0, sizeof *outcome);
    const ratios_t *ratios = &self->p->loss_ratio;
    outcome->nratios = ratios->n > 0 ? ratios->n : 1;
    for (int k = 0; k < outcome->nratios; k++) {
        outcome->ratio[k].ratio = ratios->n > 0 ? ratios->ratio[k] : 0;
        outcome->ratio[k].bottleneck = -1;
        outcome->ratio[k].rows = k;
    }
    self->start = mono_seconds();
}

int search_run(const params_t *params, int publishers, const trial_spec_t *base,
               const search_hooks_t *hooks, search_outcome_t *outcome,
               errbuf_t *err)
{
    search_t self = {.p = params,
                     .publishers = publishers > 0 ? publishers : 1,
                     .base = *base,
                     .hooks = hooks,
                     .out = outcome};
    double guess = 0;
    s_begin(&self, outcome);
    int rc = s_bound(&self, &guess, err);
    for (int k = 0; rc == 0 && k < outcome->nratios; k++) {
        int budget = params->search_trials - (k == 0);
        if (self.b[k].hi > 0)
            rc = s_steps(&self, k, k == 0 ? guess : 0, budget, err);
        if (rc == 0 && self.b[k].lo == 0) //  nothing passed yet
            rc = s_steps(&self, k, 0, SEARCH_NARROW, err);
    }
    for (int k = 0; rc == 0 && k < outcome->nratios; k++)
        rc = s_confirm_ratio(&self, k, err);
    outcome->seconds = mono_seconds() - self.start;
    return rc;
}

int search_most_trials(const params_t *params)
{
    int ratios = params->loss_ratio.n > 0 ? params->loss_ratio.n : 1;
    //  the bound and the first ratio's steps: search_trials together
    return ratios * (params->search_trials + SEARCH_NARROW + SEARCH_ROUNDS);
}

void search_outcome_free(search_outcome_t *outcome)
{
    for (int k = 0; k < outcome->nratios; k++)
        trial_result_free(&outcome->ratio[k].confirmed);
}

//  ------------------------------------------------------------------------
//  Selftest: a pretend pipeline that carries 'capacity' msgs/s on hop 2,
//  whose publisher can offer 'most'

typedef struct {
    double capacity, most;
    int trials, fails_left; //  confirmations that fail on purpose
    int worst_seen;
    bool starved; //  every trial starved, else unknown
    int spoil;    //  a spoiled confirmation loses 1 / spoil (0: 10)
    double spoil_above; //  ...and every confirmation above this is spoiled
    int confirms, cut;
    bool buffered; //  short trials above capacity lose nothing: queued
} fake_t;

static int s_fake_trial(void *ctx, const trial_spec_t *spec,
                        trial_result_t *result, errbuf_t *err)
{
    (void)err;
    fake_t *fake = ctx;
    double offered = spec->rate > 0 ? spec->rate : fake->most;
    double sent = offered < fake->most ? offered : fake->most;
    double through = sent < fake->capacity ? sent : fake->capacity;
    bool spoil = spec->duration > 1.5 &&
                 ((fake->spoil_above > 0 && offered > fake->spoil_above) ||
                  fake->fails_left-- > 0);
    fake->confirms += spec->duration > 1.5;
    memset(result, 0, sizeof *result);
    //  a spoiled trial loses at once: cut short where that fails the
    //  ratio the search cuts at, as trial_giveup.c would
    result->cut_short = spoil && spec->give_up.on &&
                        1.0 / (fake->spoil ? fake->spoil : 10) >
                            spec->give_up.ratio;
    fake->cut += result->cut_short;
    result->starved = fake->starved ? 1 : -1;
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
            row->received =
                row->sent - row->sent / (uint64_t)(fake->spoil ? fake->spoil : 10);
        row->window_received = row->received;
        //  deep queues: a short trial's excess arrives after its window
        if (fake->buffered && l == 1 && spec->duration <= 1.5)
            row->received = row->sent;
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

//  'Behind' is a queue that grew, never a window's few messages: a
//  topic subscriber that got none of the 1 it was due, a plain hop that
//  took 1,300 of 1,500
static int s_test_behind(void)
{
    link_row_t rows[2] = {{.sent = 100,
                           .received = 7,
                           .expected = 7,
                           .window_sent = 14,
                           .window_received = 0,
                           .seconds = 0.15,
                           .sent_seconds = 0.15},
                          {.sent = 1500,
                           .received = 1500,
                           .expected = 1500,
                           .window_sent = 1500,
                           .window_received = 1460,
                           .seconds = 0.125,
                           .sent_seconds = 0.125}};
    trial_result_t result = {.links = rows, .nlinks = 2};
    CHECK(s_behind(&result) == -1); //  1 due: chance; 40 of 1,500: under 5 %
    rows[1].window_received = 1300;
    CHECK(s_behind(&result) == 1);
    //  16 short of 200: 8 %, but as many as may be in flight
    rows[0] = (link_row_t){.sent = 200,
                           .received = 200,
                           .expected = 200,
                           .window_sent = 200,
                           .window_received = 200 - SEARCH_BEHIND_SLACK,
                           .seconds = 0.1,
                           .sent_seconds = 0.1};
    CHECK(s_behind(&result) == 1);
    rows[0].window_received--;
    CHECK(s_behind(&result) == 0);
    return 0;
}

int search_test(bool verbose)
{
    (void)verbose;
    CHECK(s_test_behind() == 0);
    params_t p;
    params_defaults(&p);
    p.search_confirm = 2; //  the fake spoils confirmations on request
    errbuf_t err;
    search_outcome_t out;
    fake_t fake = {.capacity = 500000, .most = 3000000, .worst_seen = -1};
    search_hooks_t hooks = {s_fake_trial, s_fake_judged, &fake, 0};
    trial_spec_t base = {.size = 64};
    //  The rate found is within the precision below the capacity, hop 2
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[0].found <= 500000 && out.ratio[0].found >= 500000 * 0.99);
    CHECK(out.ratio[0].bottleneck == 1 && !out.ratio[0].limited && out.trials == fake.trials);
    CHECK(!out.ratio[0].flat_out);
    CHECK(out.trials <= p.search_trials + 1);
    search_outcome_free(&out);
    //  Queues that hide the excess from short trials (even flat out):
    //  the bound and the steps more than 5 % above the capacity fall
    //  behind (nothing lost), the bisection narrows to within that, and
    //  a back-off or two finds the capacity (without 'behind' the bound
    //  passed, and ten confirmations backed off from flat out)
    fake = (fake_t){.capacity = 500000, .most = 3000000, .buffered = true};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[0].found <= 500000 && out.ratio[0].found >= 500000 * 0.95);
    CHECK(fake.confirms <= 3 && out.ratio[0].bottleneck == 1);
    search_outcome_free(&out);
    //  A publisher slower than the pipeline: found flat out, limited
    fake = (fake_t){.capacity = 500000, .most = 200000, .worst_seen = -1};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[0].found == 200000 && out.ratio[0].fail == 0 && out.trials == 2);
    CHECK(out.ratio[0].flat_out);
    search_outcome_free(&out);
    //  Two confirmations that fail back off below them, 2 % then 4 %
    fake = (fake_t){.capacity = 500000, .most = 3000000, .fails_left = 2};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[0].found > 0 && out.ratio[0].found < out.ratio[0].fail && out.ratio[0].fail < 500000);
    CHECK(out.ratio[0].found >= out.ratio[0].fail * (1 - 0.04) * 0.999);
    CHECK(out.ratio[0].best_step >= out.ratio[0].fail && out.ratio[0].best_step <= 500000);
    search_outcome_free(&out);
    //  Confirmations that never hold: no rate found, the short passes said
    fake = (fake_t){.capacity = 500000, .most = 3000000, .fails_left = 99};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[0].found == 0 && out.ratio[0].best_step > 0 && out.ratio[0].confirmed.nlinks == 0);
    search_outcome_free(&out);
    //  PDR: 20 % loss allowed passes what NDR fails
    p.loss_ratio = (ratios_t){1, {0.2}};
    fake = (fake_t){.capacity = 500000, .most = 550000};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[0].found == 550000);
    search_outcome_free(&out);
    //  NDR and a 10 % PDR from one search: hop 2 carries 500000, so 10 %
    //  loss passes up to 555556; every failure unknown as to starvation
    p.loss_ratio = (ratios_t){2, {0, 0.1}};
    fake = (fake_t){.capacity = 500000, .most = 3000000};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.nratios == 2 && out.ratio[1].ratio == 0.1);
    CHECK(out.ratio[0].found <= 500000 && out.ratio[0].found >= 500000 * 0.99);
    CHECK(out.ratio[1].found <= 555556 && out.ratio[1].found >= 555556 * 0.99);
    CHECK(out.ratio[1].found >= out.ratio[0].found);
    CHECK(out.ratio[0].failures > 0 &&
          out.ratio[0].unknown == out.ratio[0].failures &&
          !search_starved_all(&out.ratio[0]));
    CHECK(out.ratio[1].trials == out.trials && out.ratio[0].trials < out.trials);
    CHECK(search_rows(&out, 1)->nlinks == 2);
    search_outcome_free(&out);
    //  An NDR confirmation that loses 0.1 % confirms the PDR(0.005) there
    p.loss_ratio = (ratios_t){2, {0, 0.005}};
    fake = (fake_t){.capacity = 500000, .most = 3000000, .fails_left = 1,
                    .spoil = 1000};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[1].rows == 1 && out.ratio[0].rows == 0);
    CHECK(out.ratio[1].found > out.ratio[0].found && out.ratio[0].found > 0);
    CHECK(out.ratio[1].trials < out.trials && out.trials == fake.trials);
    search_outcome_free(&out);
    //  An NDR confirmation that loses 0.1 %, far below the 10 % PDR's
    //  highest pass (555556): cut short once it failed the NDR, it says
    //  nothing of the PDR, which is confirmed on its own
    p.loss_ratio = (ratios_t){2, {0, 0.1}};
    fake = (fake_t){.capacity = 500000, .most = 3000000, .fails_left = 1,
                    .spoil = 1000};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(fake.cut == 1 && out.cut_short == 1 && fake.confirms == 3);
    CHECK(out.ratio[0].found > 0 && out.ratio[0].found <= 500000);
    CHECK(out.ratio[1].found > out.ratio[0].found && out.ratio[1].rows == 1);
    search_outcome_free(&out);
    //  Every confirmation above 490000 loses 25 %: the NDR's first, cut
    //  short in half its window (the fake's rows say 1 s of 2), has lost
    //  more than 10 % of the whole already: it fails both ratios, so the
    //  PDR's bounds fall to where the NDR's confirmation (no loss) stands
    //  for it, with none of its own
    p.loss_ratio = (ratios_t){2, {0, 0.1}};
    fake = (fake_t){
        .capacity = 500000, .most = 3000000, .spoil_above = 490000, .spoil = 4};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(out.ratio[0].found > 0 && out.ratio[0].found <= 490000);
    if (verbose)
        printf("search: ndr %.0f pdr %.0f rows %d, %d confirmations\n",
               out.ratio[0].found, out.ratio[1].found, out.ratio[1].rows,
               fake.confirms);
    CHECK(out.ratio[1].found == out.ratio[0].found && out.ratio[1].rows == 0);
    CHECK(search_rows(&out, 1) == &out.ratio[0].confirmed);
    CHECK(fake.confirms == 2); //  the NDR's two: the PDR needs none of its own
    search_outcome_free(&out);
    //  The most trials: nothing passes in the budget (a pipeline that
    //  carries 1,000 msgs/s of 3,000,000 halves down to it), one of the
    //  few more does, and every confirmation fails
    p.loss_ratio = (ratios_t){1, {0}};
    fake = (fake_t){.capacity = 1000, .most = 3000000, .fails_left = 99};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(fake.trials > p.search_trials + 1 && out.ratio[0].found == 0);
    if (verbose)
        printf("search: %d trials, at most %d\n", fake.trials,
               search_most_trials(&p));
    search_outcome_free(&out);
    p.loss_ratio = (ratios_t){2, {0, 0.1}};
    //  Every failure starved: the rates are the machine's
    fake = (fake_t){.capacity = 500000, .most = 3000000, .starved = true};
    CHECK(search_run(&p, 1, &base, &hooks, &out, &err) == 0);
    CHECK(out.trials == fake.trials && fake.trials <= search_most_trials(&p));
    CHECK(search_starved_all(&out.ratio[0]) &&
          search_starved_all(&out.ratio[1]));
    search_outcome_free(&out);
    return 0;
}
