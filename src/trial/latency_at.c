/*  latency_at: open-loop trials at fractions of a found rate; see
    latency_at.h.  Owns only the loop and the specs; what a row becomes
    (latency.csv, the table) is the caller's.
*/
#include "trial/latency_at.h"

#include "base/check.h"

#include <unistd.h>

trial_spec_t latency_at_spec(const trial_spec_t *base, int publishers,
                             double offered, double seconds)
{
    trial_spec_t spec = *base;
    spec.rate = offered / (publishers > 0 ? publishers : 1);
    spec.timed = true;
    spec.messages = 0;
    spec.duration = seconds;
    spec.give_up.on = false;
    return spec;
}

int latency_at_budget(const params_t *params)
{
    int ratios = params->loss_ratio.n > 0 ? params->loss_ratio.n : 1;
    return ratios * params->latency_at.n;
}

//  One fraction of one ratio's rate
static int s_point(const params_t *params, int publishers,
                   const trial_spec_t *base, const search_found_t *found,
                   double fraction, int number, const search_hooks_t *hooks,
                   latency_at_fn row, void *ctx, errbuf_t *err)
{
    trial_spec_t spec = latency_at_spec(
        base, publishers, fraction * found->found, params->search_trial);
    spec.repeat = number;
    trial_result_t result = {0};
    if (hooks->settle_s > 0)
        usleep((useconds_t)(hooks->settle_s * 1e6));
    if (hooks->trial(hooks->ctx, &spec, &result, err))
        return -1;
    latency_at_t at = {fraction, found->found, found->ratio, &result};
    row(ctx, &at);
    trial_result_free(&result);
    return 0;
}

int latency_at_run(const params_t *params, int publishers,
                   const trial_spec_t *base, const search_outcome_t *outcome,
                   const search_hooks_t *hooks, latency_at_fn row, void *ctx,
                   errbuf_t *err)
{
    int number = 0;
    for (int k = 0; k < outcome->nratios; k++) {
        const search_found_t *found = &outcome->ratio[k];
        if (found->found <= 0)
            continue;
        for (int f = 0; f < params->latency_at.n; f++)
            if (s_point(params, publishers, base, found,
                        params->latency_at.ratio[f], ++number, hooks, row, ctx,
                        err))
                return -1;
    }
    return 0;
}

//  ---------------------------------------------------------------------
//  Selftest: fake trials record the rates they were asked for

typedef struct {
    double rates[16];
    int n, rows;
} fake_t;

static int s_fake_trial(void *ctx, const trial_spec_t *spec,
                        trial_result_t *result, errbuf_t *err)
{
    (void)err;
    fake_t *fake = ctx;
    fake->rates[fake->n++] = spec->rate;
    result->size = spec->size;
    return spec->timed && spec->messages == 0 ? 0 : -1;
}

static void s_fake_row(void *ctx, const latency_at_t *at)
{
    fake_t *fake = ctx;
    fake->rows += at->result != NULL && at->fraction > 0;
}

int latency_at_test(bool verbose)
{
    (void)verbose;
    params_t params;
    errbuf_t err;
    params_defaults(&params);
    params.latency_at = (ratios_t){3, {0.1, 0.5, 0.9}};
    params.loss_ratio = (ratios_t){2, {0, 0.005}};
    search_outcome_t outcome = {.nratios = 2};
    outcome.ratio[0].found = 10000;
    outcome.ratio[1].found = 0; //  nothing found: no trials for it
    fake_t fake = {0};
    search_hooks_t hooks = {s_fake_trial, NULL, &fake, 0};
    trial_spec_t base = {.size = 64, .messages = 1000};
    CHECK(latency_at_run(&params, 2, &base, &outcome, &hooks, s_fake_row, &fake,
                         &err) == 0);
    //  per publisher: half of each fraction of 10,000
    CHECK(fake.n == 3 && fake.rows == 3);
    CHECK(fake.rates[0] == 500 && fake.rates[1] == 2500 &&
          fake.rates[2] == 4500);
    CHECK(latency_at_budget(&params) == 6);
    params.latency_at.n = 0;
    fake.n = 0;
    CHECK(latency_at_run(&params, 2, &base, &outcome, &hooks, s_fake_row, &fake,
                         &err) == 0 &&
          fake.n == 0);
    return 0;
}
