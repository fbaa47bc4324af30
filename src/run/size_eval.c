/*  size_eval: one candidate measured, step by step (see size.h): its
    stages up, the capacity, loss and p99 trials (and --ndr's search) on
    the pipeline kept up between them, each trial's rows into the
    session's files, the verdict and the figure and hop that set it.
    Its stages down whatever happens.
*/
#include "run/size_eval.h"

#include "trial/search.h"
#include "trial/trial.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

//  The share of what the sinks should have had that they got (1: all),
//  and the upstream-most link that lost more than 'allowed'
static double s_delivered(const trial_result_t *r, double allowed, int *worst)
{
    double share = 1;
    *worst = -1;
    for (int l = 0; l < r->nlinks; l++) {
        const link_row_t *link = &r->links[l];
        double lost = link->expected > 0
                          ? (double)link_lost(link) / (double)link->expected
                          : 0;
        if (lost > allowed && *worst < 0)
            *worst = l;
        if (link->to_sink && link->expected > 0)
            share = fmin(share, (double)link->received / link->expected);
    }
    return share;
}

static void s_hop(size_eval_t *self, const trial_result_t *r, int l)
{
    if (l >= 0 && l < r->nlinks)
        snprintf(self->row->hop, sizeof self->row->hop, "hop %d (%s -> %s)",
                 r->links[l].hop, r->links[l].from, r->links[l].to);
}

//  The verdict of a failed step: the deployment's, or the machine's
static void s_fail(size_eval_t *self, const trial_result_t *r,
                   sizing_verdict_t verdict, double figure, const char *why)
{
    sizing_row_t *row = self->row;
    row->figure = figure;
    row->verdict = r->starved == 1 ? SIZING_MACHINE : verdict;
    snprintf(row->why, sizeof row->why, "%s", why);
    for (int l = 0; l < r->nlinks && r->starved == 1; l++)
        if (r->links[l].starved == 1 && r->links[l].starved_note[0]) {
            size_t used = strlen(row->why);
            snprintf(row->why + used, sizeof row->why - used,
                     " (%s; starved: %s)", sizing_verdict_names[verdict],
                     r->links[l].starved_note);
            break;
        }
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

//  (a) flat out: what got through
static int s_capacity(size_eval_t *self, trial_spec_t spec, errbuf_t *err)
{
    trial_result_t r = {0};
    spec.rate = 0, spec.timed = false;
    spec.duration = self->pl->params.search_trial;
    if (s_trial(self, &spec, &r, err))
        return -1;
    int worst;
    s_delivered(&r, 0, &worst);
    self->row->capacity = s_carried(&r);
    double need = sizing_offered(self->target);
    if (self->row->capacity < need) {
        char why[200];
        snprintf(why, sizeof why,
                 "carried %.0f msgs/s flat out, %.0f%% short "
                 "of %.0f",
                 self->row->capacity, 100 * (1 - self->row->capacity / need),
                 need);
        s_hop(self, &r, worst);
        s_fail(self, &r, SIZING_CAPACITY, self->row->capacity, why);
    }
    trial_result_free(&r);
    return 0;
}

//  (b) paced at rate x (1 + headroom) for search_confirm: loss
static int s_loss(size_eval_t *self, trial_spec_t spec, errbuf_t *err)
{
    trial_result_t r = {0};
    double offered = sizing_offered(self->target);
    spec.rate = offered / self->pl->norigins, spec.timed = false;
    spec.duration = self->pl->params.search_confirm;
    if (s_trial(self, &spec, &r, err))
        return -1;
    int worst;
    double share = s_delivered(&r, self->target->loss, &worst);
    char why[200];
    if (r.sources_rate < 0.99 * offered) {
        snprintf(why, sizeof why,
                 "the publishers sent only %.0f of %.0f "
                 "msgs/s",
                 r.sources_rate, offered);
        s_fail(self, &r, SIZING_CAPACITY, r.sources_rate, why);
    } else if (worst >= 0) {
        const link_row_t *l = &r.links[worst];
        double lost = (double)link_lost(l) / (double)l->expected;
        snprintf(why, sizeof why,
                 "lost %.4g of its messages at %.0f msgs/s "
                 "(allowed %g)",
                 lost, offered, self->target->loss);
        s_hop(self, &r, worst);
        s_fail(self, &r, SIZING_LOSS, lost, why);
    } else
        self->row->confirmed = offered;
    (void)share;
    trial_result_free(&r);
    return 0;
}

//  The brokers' CPU at this trial's rate: ns per message x msgs/s
static double s_busy(const trial_result_t *r)
{
    double cores = 0;
    for (int l = 0; l < r->nlinks; l++)
        if (!r->links[l].to_sink && r->links[l].to_cpu_ns >= 0)
            cores += r->links[l].to_cpu_ns * link_rate(&r->links[l]) / 1e9;
    return cores;
}

//  (c) open loop at rate: p99 end to end, busy cores
static int s_p99(size_eval_t *self, trial_spec_t spec, errbuf_t *err)
{
    trial_result_t r = {0};
    spec.rate = self->target->rate / self->pl->norigins, spec.timed = true;
    spec.duration = self->pl->params.search_trial;
    if (s_trial(self, &spec, &r, err))
        return -1;
    self->row->busy_cores = s_busy(&r);
    for (int i = 0; i < r.nlatency; i++)
        if (strcmp(r.latency[i].hop, "e2e") == 0 &&
            histogram_count(&r.latency[i].histogram))
            self->row->p99_us =
                histogram_percentile(&r.latency[i].histogram, 99) / 1e3;
    double bound = self->target->p99_us;
    if (bound > 0 && !(self->row->p99_us >= 0 && self->row->p99_us <= bound)) {
        char why[200];
        snprintf(why, sizeof why, "p99 %.1f us at %.0f msgs/s, above %.1f us",
                 self->row->p99_us, self->target->rate, bound);
        snprintf(self->row->hop, sizeof self->row->hop, "end to end");
        s_fail(self, &r, SIZING_P99, self->row->p99_us, why);
    }
    trial_result_free(&r);
    return 0;
}

//  (d) --ndr: the search
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

static int s_steps(size_eval_t *self, errbuf_t *err)
{
    trial_spec_t spec = {.size = self->row->size,
                         .repeat = 1,
                         .tsc_hz = session_meta(self->session)->tsc_hz};
    int (*steps[])(size_eval_t *, trial_spec_t, errbuf_t *) = {s_capacity,
                                                               s_loss, s_p99};
    self->row->verdict = SIZING_MEETS;
    for (int s = 0; s < 3; s++) {
        spec.repeat = s + 1;
        if (steps[s](self, spec, err))
            return -1;
        if (self->row->verdict != SIZING_MEETS)
            return 0;
    }
    return self->ndr ? s_ndr(self, &spec, err) : 0;
}

int size_eval(size_eval_t *self, errbuf_t *err)
{
    sizing_row_t *row = self->row;
    row->capacity = row->p99_us = row->busy_cores = row->ndr = -1;
    row->confirmed = 0, row->why[0] = 0; //  measured from here on
    int rc = session_up(self->session, self->pl, err);
    if (rc == 0)
        rc = s_steps(self, err);
    return session_down(self->session, rc, err);
}
