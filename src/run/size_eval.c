/*  size_eval: one candidate measured, criterion by criterion (see
    size_eval.h), on the pipeline kept up between its trials; each
    trial's rows into the session's files.  A criterion takes trials
    until its evidence decides it (size_evidence.h) or its budget
    (size_budget trial-seconds) is spent:

        capacity  flat-out trials, search_trial long: 3 at least, 10 at
                  most; a clear shortfall ends the candidate
        loss      trials paced at rate x (1 + headroom), search_trial
                  long, until size_goal_seconds decide (MLRsearch's load
                  classification); the brokers' busy cores from those
                  that lost no more than allowed
        p99       open-loop windows at rate, size_window long, timed from
                  the intended send times: size_windows of them, then 5
                  more at a time while the interval straddles the bound

    The first criterion that fails, is undecided or inconclusive gives
    the verdict, with the figure, hop and reason; else it meets (and the
    answer is proven: size_eval_prove).  Its stages down whatever
    happens.
*/
#include "run/size_eval.h"

#include "run/size_evidence.h"
#include "trial/search.h"
#include "trial/trial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPACITY_MIN 3  //  flat-out trials before capacity is judged
#define CAPACITY_MAX 10 //  ...and at most
#define P99_MORE     5  //  windows added while a p99 straddles

//  One trial on the candidate's pipeline, kept up between its trials
//  where it may be (the session retries a stalled or void one); its rows
//  go to the session's files
static int s_trial(size_eval_t *self, const trial_spec_t *spec,
                   trial_result_t *result, errbuf_t *err)
{
    trial_spec_t kept = *spec;
    kept.keep_up = true;
    if (session_trial(self->session, &kept, result, err) ||
        session_rows_trial(self->session, result, NULL, err))
        return -1;
    if (result->starved == 1)
        self->row->starved = true;
    return 0;
}

static int s_hook_trial(void *ctx, const trial_spec_t *spec,
                        trial_result_t *result, errbuf_t *err)
{
    return s_trial(ctx, spec, result, err);
}

//  The largest share a link lost of what it should have taken, and the
//  upstream-most link that lost more than 'allowed' (-1: none)
static double s_lost(const trial_result_t *r, double allowed, int *worst)
{
    double most = 0;
    *worst = -1;
    for (int l = 0; l < r->nlinks; l++) {
        const link_row_t *link = &r->links[l];
        double lost = link->expected > 0
                          ? (double)link_lost(link) / (double)link->expected
                          : 0;
        if (lost > allowed && *worst < 0)
            *worst = l;
        most = fmax(most, lost);
    }
    return most;
}

//  What the publishers' offer came to at the sinks, as msgs/s offered:
//  the slowest sink link's rate over its share of the sources' messages
static double s_carried(const trial_result_t *r)
{
    double carried = -1;
    for (int l = 0; l < r->nlinks; l++) {
        const link_row_t *link = &r->links[l];
        double share = link->selectivity > 0 ? link->selectivity : 1;
        double rate = link_rate(link) / share;
        if (link->to_sink && (carried < 0 || rate < carried))
            carried = rate;
    }
    return carried < 0 ? 0 : fmin(carried, r->sources_rate);
}

//  A trial's window, seconds (its first link's, every link's alike)
static double s_window(const trial_result_t *r)
{
    return r->nlinks ? r->links[0].seconds : 0;
}

//  The hop a failure names, and the starved stage of the trial
static void s_hop(size_eval_t *self, const trial_result_t *r, int l)
{
    if (l >= 0 && l < r->nlinks)
        snprintf(self->row->hop, sizeof self->row->hop, "hop %d (%s -> %s)",
                 r->links[l].hop, r->links[l].from, r->links[l].to);
}

//  A failure on a trial whose starvation is not known (a stage on a host
//  that did not say) is no more the deployment's than a starved one's:
//  neither decides a "fails"
static bool s_starved(const trial_result_t *r)
{
    return r->starved != 0;
}

static void s_starved_note(const trial_result_t *r, char *note, size_t len)
{
    for (int l = 0; l < r->nlinks && !note[0]; l++)
        if (r->links[l].starved == 1 && r->links[l].starved_note[0])
            snprintf(note, len, "%s", r->links[l].starved_note);
    for (int l = 0; l < r->nlinks && !note[0]; l++)
        if (r->links[l].starved < 0)
            snprintf(note, len,
                     "not known: hop %d (%s -> %s) has a stage whose host "
                     "did not say how long its threads waited for a CPU",
                     r->links[l].hop, r->links[l].from, r->links[l].to);
}

//  A criterion's verdict into the row, unless it met
static void s_verdict(size_eval_t *self, const char *criterion,
                      evidence_t evidence, sizing_verdict_t fails,
                      double figure, const char *why, const char *starved)
{
    sizing_row_t *row = self->row;
    if (evidence == EVIDENCE_MEETS)
        return;
    row->verdict = evidence == EVIDENCE_FAILS     ? fails
                   : evidence == EVIDENCE_MACHINE ? SIZING_MACHINE
                                                  : SIZING_UNDECIDED;
    snprintf(row->decided_by, sizeof row->decided_by, "%s", criterion);
    row->figure = figure;
    snprintf(row->why, sizeof row->why, "%s%s%s%s", why,
             starved[0] && evidence != EVIDENCE_FAILS ? " (starved: " : "",
             starved[0] && evidence != EVIDENCE_FAILS ? starved : "",
             starved[0] && evidence != EVIDENCE_FAILS ? ")" : "");
}

//  ------------------------------------------------------------------------
//  (a) capacity: flat out

static int s_capacity(size_eval_t *self, trial_spec_t *spec, errbuf_t *err)
{
    evidence_trial_t t[CAPACITY_MAX];
    evidence_result_t e = {.verdict = EVIDENCE_MORE};
    const params_t *p = &self->pl->params;
    double need = sizing_offered(self->target), spent = 0;
    char starved[400] = "";
    int worst = -1, n = 0;
    spec->rate = 0, spec->timed = false, spec->duration = p->search_trial;
    while (e.verdict == EVIDENCE_MORE) {
        trial_result_t r = {0};
        spec->repeat++;
        if (s_trial(self, spec, &r, err))
            return -1;
        t[n] = (evidence_trial_t){s_carried(&r), s_window(&r), s_starved(&r)};
        spent += s_window(&r);
        if (s_starved(&r))
            s_starved_note(&r, starved, sizeof starved);
        if (t[n].value < need)
            s_lost(&r, 0, &worst), s_hop(self, &r, worst);
        trial_result_free(&r);
        bool last = ++n == CAPACITY_MAX || spent >= p->size_budget;
        if (n >= CAPACITY_MIN || last)
            evidence_capacity(t, n, need, p->confidence, last, &e);
    }
    sizing_row_t *row = self->row;
    row->capacity = (sizing_figure_t){e.estimate, e.low, e.high};
    row->capacity_trials = n;
    row->trial_seconds += e.seconds;
    char why[300];
    snprintf(why, sizeof why,
             "carried %.0f msgs/s flat out [%.0f, %.0f] over %d trials, "
             "against the %.0f needed",
             e.estimate, e.low, e.high, n, need);
    if (e.verdict == EVIDENCE_FAILS || e.verdict == EVIDENCE_MACHINE)
        s_verdict(self, "capacity", e.verdict, SIZING_CAPACITY, e.estimate, why,
                  starved);
    return 0;
}

//  ------------------------------------------------------------------------
//  (b) loss at rate x (1 + headroom), and the brokers' busy cores

static int s_loss(size_eval_t *self, trial_spec_t *spec, errbuf_t *err)
{
    const params_t *p = &self->pl->params;
    int most = (int)ceil(p->size_budget / p->search_trial) + 1;
    evidence_trial_t *t = calloc((size_t)most, sizeof *t);
    evidence_goal_t goal = {self->target->loss, p->size_goal_seconds,
                            p->size_exceed_ratio};
    evidence_result_t e = {.verdict = EVIDENCE_MORE};
    double offered = sizing_offered(self->target), spent = 0;
    double busy[PIPELINE_MAX_INSTANCES];
    char starved[400] = "";
    int n = 0, good = 0;
    if (!t)
        return err_set(err, "size: out of memory");
    spec->rate = offered / self->pl->norigins, spec->timed = false;
    spec->duration = p->search_trial;
    while (e.verdict == EVIDENCE_MORE) {
        trial_result_t r = {0};
        spec->repeat++;
        if (s_trial(self, spec, &r, err)) {
            free(t);
            return -1;
        }
        int bad;
        double lost = s_lost(&r, goal.loss, &bad);
        //  publishers that could not send the offer: what they missed
        lost = fmax(lost, 1 - r.sources_rate / offered > 0.01
                              ? 1 - r.sources_rate / offered
                              : 0);
        t[n] = (evidence_trial_t){lost, s_window(&r), s_starved(&r)};
        spent += s_window(&r);
        if (lost > goal.loss) {
            s_hop(self, &r, bad);
            if (s_starved(&r))
                s_starved_note(&r, starved, sizeof starved);
        } else {
            size_eval_busy(self->pl, &r, busy);
            for (int i = 0; i < self->pl->n; i++)
                self->busy[i] += (busy[i] - self->busy[i]) / (good + 1);
            good++;
        }
        trial_result_free(&r);
        n++;
        bool stuck = n >= 3; //  the last 3 lost, starved: the machine
        for (int i = n - 3; i < n && stuck; i++)
            stuck = t[i].starved && t[i].value > goal.loss;
        evidence_loss(t, n, &goal,
                      n >= most || spent >= p->size_budget || stuck, &e);
    }
    free(t);
    sizing_row_t *row = self->row;
    row->loss_good = e.good, row->loss_bad = e.bad;
    row->loss_starved = e.starved_bad, row->loss_worst = e.worst;
    row->trial_seconds += e.seconds;
    row->busy_cores = 0;
    for (int i = 0; i < self->pl->n; i++)
        row->busy_cores += self->busy[i];
    row->confirmed = e.verdict == EVIDENCE_MEETS ? offered : 0;
    char why[300];
    snprintf(why, sizeof why,
             "at %.0f msgs/s: %.1f trial-seconds lost at most %g, %.1f lost "
             "more, %.1f lost more starved (not counted); worst %.4g; the "
             "goal %g s, at most %g %% of them losing more",
             offered, e.good, goal.loss, e.bad, e.starved_bad, e.worst,
             goal.goal_seconds, 100 * goal.exceed_ratio);
    s_verdict(self, "loss", e.verdict, SIZING_LOSS, e.worst, why, starved);
    return 0;
}

double size_eval_busy(const pipeline_t *pl, const trial_result_t *r,
                      double *busy)
{
    double total = 0;
    for (int i = 0; i < pl->n; i++) {
        double cpu = -1, rate = 0;
        for (int l = 0; l < r->nlinks && pl->inst[i].role == ROLE_PROXY; l++)
            if (strcmp(r->links[l].to, pl->inst[i].name) == 0) {
                cpu = r->links[l].to_cpu_ns;
                rate += link_rate(&r->links[l]);
            }
        busy[i] = cpu > 0 ? cpu * rate / 1e9 : 0;
        total += busy[i];
    }
    return total;
}

//  ------------------------------------------------------------------------
//  (c) p99 at rate, windows of an open-loop trial

typedef struct {
    histogram_t *window;
    bool *starved;
    evidence_trial_t *loss; //  each window's loss ratio, as evidence
    int n, most;
    char starved_note[400];
} windows_t;

//  Windows at rate until k of them are measured, each's e2e latency
static int s_windows(size_eval_t *self, trial_spec_t *spec, windows_t *w, int k,
                     errbuf_t *err)
{
    while (w->n < k && w->n < w->most) {
        trial_result_t r = {0};
        spec->repeat++;
        if (s_trial(self, spec, &r, err))
            return -1;
        histogram_reset(&w->window[w->n]);
        for (int i = 0; i < r.nlatency; i++)
            if (strcmp(r.latency[i].hop, "e2e") == 0)
                w->window[w->n] = r.latency[i].histogram;
        int worst;
        w->loss[w->n] = (evidence_trial_t){s_lost(&r, 1, &worst), s_window(&r),
                                           s_starved(&r)};
        w->starved[w->n++] = s_starved(&r);
        if (s_starved(&r) && !w->starved_note[0])
            s_starved_note(&r, w->starved_note, sizeof w->starved_note);
        trial_result_free(&r);
    }
    return 0;
}

//  Were the windows from 'from' on all starved?  More of them on this
//  machine as it is now would not decide more: the verdict is given
static bool s_all_starved(const windows_t *w, int from)
{
    for (int i = from; i < w->n; i++)
        if (!w->starved[i])
            return false;
    return w->n > from;
}

//  The windows' end-to-end latency merged, starved ones too: the
//  criterion's "all" row in latency.csv (the report's quantile chart)
static int s_windows_all(size_eval_t *self, const trial_spec_t *spec,
                         const windows_t *w, errbuf_t *err)
{
    if (w->n == 0)
        return 0;
    latency_row_t *all = calloc(1, sizeof *all);
    if (!all)
        return err_set(err, "size: out of memory");
    snprintf(all->hop, sizeof all->hop, "e2e");
    histogram_reset(&all->histogram);
    for (int i = 0; i < w->n; i++)
        histogram_merge(&all->histogram, &w->window[i]);
    trial_result_t merged = {.size = spec->size, .nlatency = 1, .latency = all};
    int rc = all->histogram.count
                 ? session_rows_latency(self->session, &merged, "all", err)
                 : 0;
    free(all);
    return rc;
}

//  Windows at rate, as many as decide the p99 within 'most' of them; their
//  latency merged into latency.csv
static int s_p99_windows(size_eval_t *self, trial_spec_t *spec, int first,
                         int most, bool fixed, windows_t *w,
                         evidence_result_t *e, errbuf_t *err)
{
    const params_t *p = &self->pl->params;
    memset(w, 0, sizeof *w);
    w->most = most;
    w->window = calloc((size_t)most, sizeof *w->window);
    w->starved = calloc((size_t)most, sizeof *w->starved);
    w->loss = calloc((size_t)most, sizeof *w->loss);
    if (!w->window || !w->starved || !w->loss)
        return err_set(err, "size: out of memory");
    spec->rate = self->target->rate / self->pl->norigins, spec->timed = true;
    e->verdict = EVIDENCE_MORE;
    for (int k = first < most ? first : most; e->verdict == EVIDENCE_MORE;
         k = k + P99_MORE < most ? k + P99_MORE : most) {
        int from = w->n;
        if (s_windows(self, spec, w, k, err))
            return -1;
        evidence_p99(w->window, w->starved, w->n, spec->duration,
                     self->target->p99_us, p->confidence,
                     fixed || w->n >= most || s_all_starved(w, from), e);
    }
    return s_windows_all(self, spec, w, err);
}

static void s_windows_free(windows_t *w)
{
    free(w->window);
    free(w->starved);
    free(w->loss);
}

static int s_p99(size_eval_t *self, trial_spec_t *spec, errbuf_t *err)
{
    const params_t *p = &self->pl->params;
    windows_t w;
    evidence_result_t e;
    spec->duration = p->size_window;
    int most = (int)(p->size_budget / p->size_window);
    most = most > p->size_windows ? most : p->size_windows;
    int rc =
        s_p99_windows(self, spec, p->size_windows, most, false, &w, &e, err);
    if (rc == 0) {
        sizing_row_t *row = self->row;
        row->p99_us = (sizing_figure_t){e.estimate, e.low, e.high};
        row->p99_windows = e.trials;
        row->trial_seconds += e.seconds;
        char why[300], bound[48] = "any bound";
        if (self->target->p99_us > 0)
            snprintf(bound, sizeof bound, "%.1f us", self->target->p99_us);
        snprintf(why, sizeof why,
                 "p99 %.1f us [%.1f, %.1f] at %.0f msgs/s over %d windows "
                 "(%.1f trial-seconds, %d starved), against %s",
                 e.estimate, e.low, e.high, self->target->rate, e.trials,
                 e.seconds, e.starved, bound);
        self->row->hop[0] = 0; //  end to end: the why says it
        s_verdict(self, "p99", e.verdict, SIZING_P99, e.estimate, why,
                  w.starved_note);
    }
    s_windows_free(&w);
    return rc;
}

//  ------------------------------------------------------------------------
//  (d) --ndr: the search; then the criteria in order

static int s_ndr(size_eval_t *self, const trial_spec_t *spec, errbuf_t *err)
{
    search_hooks_t hooks = {s_hook_trial, NULL, self,
                            trial_may_keep_up(self->pl) ? 0 : SEARCH_SETTLE_S};
    search_outcome_t outcome;
    int rc = search_run(&self->pl->params, self->pl->norigins, spec, &hooks,
                        &outcome, err);
    if (rc == 0)
        self->row->ndr = outcome.ratio[0].found;
    search_outcome_free(&outcome);
    return rc;
}

//  The criteria in order, each trial numbered on from the last, and its
//  criterion in results.csv's sweep_criterion column
static int s_steps(size_eval_t *self, errbuf_t *err)
{
    static const struct {
        const char *name;
        int (*step)(size_eval_t *, trial_spec_t *, errbuf_t *);
    } steps[] = {{"capacity", s_capacity}, {"loss", s_loss}, {"p99", s_p99}};
    trial_spec_t spec = {.size = self->row->size,
                         .tsc_hz = session_meta(self->session)->tsc_hz};
    self->row->verdict = SIZING_MEETS;
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        session_info(self->session)->sweep_value[1] = steps[s].name;
        if (steps[s].step(self, &spec, err))
            return -1;
        if (self->row->verdict != SIZING_MEETS)
            return 0;
    }
    session_info(self->session)->sweep_value[1] = "ndr";
    return self->ndr ? s_ndr(self, &spec, err) : 0;
}

int size_eval(size_eval_t *self, errbuf_t *err)
{
    sizing_row_t *row = self->row;
    row->capacity = row->p99_us = (sizing_figure_t){-1, -1, -1};
    row->busy_cores = row->ndr = -1;
    row->confirmed = 0, row->why[0] = row->hop[0] = 0;
    row->trial_seconds = 0;
    memset(self->busy, 0, sizeof self->busy);
    int rc = session_up(self->session, self->pl, err);
    if (rc == 0)
        rc = s_steps(self, err);
    return session_down(self->session, rc, err);
}

//  ------------------------------------------------------------------------
//  The proof

//  The proof's verdict: no window may lose more than allowed (a lossy
//  window starved leaves it inconclusive, never proven), and its p99
static evidence_t s_proof(const size_eval_t *self, const windows_t *w,
                          const evidence_result_t *p99, double *worst)
{
    //  the goal: all its seconds, starved ones too (the p99's are only
    //  those not starved: a starved lossy window was left out, and nine
    //  clean ones "met" it)
    double seconds = 0;
    for (int i = 0; i < w->n; i++)
        seconds += w->loss[i].seconds;
    evidence_goal_t goal = {self->target->loss, seconds, 0};
    evidence_result_t loss;
    evidence_loss(w->loss, w->n, &goal, true, &loss);
    *worst = loss.worst;
    if (loss.verdict == EVIDENCE_FAILS || p99->verdict == EVIDENCE_FAILS)
        return EVIDENCE_FAILS;
    if (loss.verdict == EVIDENCE_MEETS)
        return p99->verdict;
    return p99->verdict == EVIDENCE_MEETS ? loss.verdict : p99->verdict;
}

int size_eval_prove(size_eval_t *self, double seconds, errbuf_t *err)
{
    const params_t *p = &self->pl->params;
    sizing_row_t *row = self->row;
    trial_spec_t spec = {.size = row->size,
                         .repeat = 1000,
                         .tsc_hz = session_meta(self->session)->tsc_hz,
                         .duration =
                             fmin(p->size_window, seconds / p->size_windows)};
    int k = (int)ceil(seconds / spec.duration - 1e-9);
    windows_t w = {0};
    evidence_result_t e;
    session_info(self->session)->sweep_value[1] = "proof";
    int rc = session_up(self->session, self->pl, err);
    if (rc == 0)
        rc = s_p99_windows(self, &spec, k, k, true, &w, &e, err);
    rc = session_down(self->session, rc, err);
    if (rc) {
        s_windows_free(&w);
        return rc;
    }
    double worst;
    evidence_t verdict = s_proof(self, &w, &e, &worst);
    row->proof_seconds = e.seconds;
    row->proof_loss = worst;
    row->proof_p99_us = (sizing_figure_t){e.estimate, e.low, e.high};
    char why[300];
    snprintf(why, sizeof why,
             "its proof at %.0f msgs/s for %.1f s: lost %.4g at worst, p99 "
             "%.1f us [%.1f, %.1f] over %d windows",
             self->target->rate, e.seconds, worst, e.estimate, e.low, e.high,
             e.trials);
    s_verdict(self, "proof", verdict, SIZING_PROOF, e.estimate, why,
              w.starved_note);
    s_windows_free(&w);
    return 0;
}
