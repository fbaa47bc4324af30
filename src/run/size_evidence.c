/*  size_evidence: the criteria's verdicts from their trials; see
    size_evidence.h.
*/
#include "run/size_evidence.h"

#include "base/check.h"
#include "base/quantile_ci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const evidence_names[] = {"more", "meets", "fails", "undecided",
                                      "inconclusive: the machine"};

//  The mean of the values of trials (starved ones too, or not) and its
//  interval; false when fewer than two
static bool s_interval(const evidence_trial_t *t, int n, bool starved_too,
                       double confidence, double *mean, double *low,
                       double *high)
{
    double sum = 0, squares = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (starved_too || !t[i].starved)
            sum += t[i].value, m++;
    if (m < 2)
        return false;
    *mean = sum / m;
    for (int i = 0; i < n; i++)
        if (starved_too || !t[i].starved)
            squares += (t[i].value - *mean) * (t[i].value - *mean);
    double half = quantile_t(m - 1, confidence) * sqrt(squares / (m - 1) / m);
    *low = *mean - half > 0 ? *mean - half : 0; //  a rate is never below 0
    *high = *mean + half;
    return true;
}

static void s_count(const evidence_trial_t *t, int n, evidence_result_t *out)
{
    memset(out, 0, sizeof *out);
    out->estimate = out->low = out->high = -1;
    out->trials = n;
    for (int i = 0; i < n; i++) {
        out->seconds += t[i].seconds;
        out->starved += t[i].starved;
    }
}

void evidence_capacity(const evidence_trial_t *trials, int n, double need,
                       double confidence, bool last, evidence_result_t *out)
{
    double mean, low, high;
    s_count(trials, n, out);
    out->verdict = last ? EVIDENCE_UNDECIDED : EVIDENCE_MORE;
    if (s_interval(trials, n, true, confidence, &mean, &low, &high)) {
        out->estimate = mean, out->low = low, out->high = high;
        if (low >= need)
            out->verdict = EVIDENCE_MEETS;
    }
    if (out->verdict != EVIDENCE_MEETS &&
        s_interval(trials, n, false, confidence, &mean, &low, &high) &&
        high < need)
        out->verdict = EVIDENCE_FAILS;
    else if (last && out->verdict == EVIDENCE_UNDECIDED && n - out->starved < 2)
        out->verdict = EVIDENCE_MACHINE;
}

void evidence_loss(const evidence_trial_t *trials, int n,
                   const evidence_goal_t *goal, bool last,
                   evidence_result_t *out)
{
    s_count(trials, n, out);
    for (int i = 0; i < n; i++) {
        const evidence_trial_t *t = &trials[i];
        if (t->value <= goal->loss)
            out->good += t->seconds;
        else if (t->starved)
            out->starved_bad += t->seconds;
        else
            out->bad += t->seconds;
        out->worst = t->value > out->worst ? t->value : out->worst;
    }
    double whole = fmax(goal->goal_seconds, out->good + out->bad);
    double allowed = goal->exceed_ratio * whole;
    if (out->bad > allowed)
        out->verdict = EVIDENCE_FAILS;
    else if (whole - out->good <= allowed)
        out->verdict = EVIDENCE_MEETS;
    else if (!last)
        out->verdict = EVIDENCE_MORE;
    else
        out->verdict =
            out->starved_bad > 0 ? EVIDENCE_MACHINE : EVIDENCE_UNDECIDED;
}

//  The p99 interval of the windows (those not starved only, or all)
static int s_p99(const histogram_t *w, const bool *starved, int k, bool all,
                 double confidence, quantile_ci_t *ci)
{
    histogram_t *some = all ? NULL : malloc((size_t)k * sizeof *some);
    int m = 0;
    if (!all && !some)
        return -1;
    for (int i = 0; i < k && !all; i++)
        if (!starved[i])
            some[m++] = w[i];
    int rc = quantile_ci(all ? w : some, all ? k : m, 99, confidence, ci);
    free(some);
    return rc;
}

void evidence_p99(const histogram_t *windows, const bool *starved, int k,
                  double window_seconds, double bound_us, double confidence,
                  bool last, evidence_result_t *out)
{
    quantile_ci_t ci;
    memset(out, 0, sizeof *out);
    out->estimate = out->low = out->high = -1;
    out->trials = k;
    out->seconds = k * window_seconds;
    for (int i = 0; i < k; i++)
        out->starved += starved[i];
    out->verdict = last ? EVIDENCE_UNDECIDED : EVIDENCE_MORE;
    if (s_p99(windows, starved, k, true, confidence, &ci) == 0) {
        out->estimate = ci.estimate / 1e3;
        out->low = ci.low / 1e3, out->high = ci.high / 1e3;
        if (bound_us <= 0 || out->high <= bound_us)
            out->verdict = EVIDENCE_MEETS;
    }
    if (out->verdict == EVIDENCE_MEETS)
        return;
    bool clean = s_p99(windows, starved, k, false, confidence, &ci) == 0;
    if (clean && ci.low / 1e3 > bound_us)
        out->verdict = EVIDENCE_FAILS;
    else if (last && (!clean || (out->starved && out->low > bound_us)))
        out->verdict = EVIDENCE_MACHINE;
}

//  ------------------------------------------------------------------------
//  Selftest: made-up trials

static int s_test_capacity(void)
{
    evidence_result_t r;
    evidence_trial_t t[4] = {
        {1000, 1, false}, {1100, 1, false}, {1050, 1, false}, {0, 1, true}};
    evidence_capacity(t, 3, 500, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_MEETS && r.estimate == 1050 && r.low > 500);
    evidence_capacity(t, 3, 2000, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_FAILS && r.high < 2000);
    //  the need inside the interval: more, then undecided
    evidence_capacity(t, 3, 1050, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_MORE);
    evidence_capacity(t, 3, 1050, 0.95, true, &r);
    CHECK(r.verdict == EVIDENCE_UNDECIDED && r.trials == 3);
    //  a starved trial lowers the mean, but fails nothing alone
    evidence_trial_t s[3] = {{100, 1, true}, {90, 1, true}, {1200, 1, false}};
    evidence_capacity(s, 3, 1000, 0.95, true, &r);
    CHECK(r.verdict == EVIDENCE_MACHINE && r.starved == 2);
    evidence_capacity(t, 1, 500, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_MORE && r.estimate == -1);
    return 0;
}

static int s_test_loss(void)
{
    evidence_result_t r;
    evidence_goal_t strict = {0, 5, 0}, half = {0.01, 5, 0.5};
    evidence_trial_t t[6] = {{0, 1, false},  {0, 1, false}, {0, 1, false},
                             {0.2, 1, true}, {0, 1, false}, {0, 1, false}};
    //  a pass needs its goal duration of passing seconds
    evidence_loss(t, 3, &strict, false, &r);
    CHECK(r.verdict == EVIDENCE_MORE && r.good == 3);
    //  a starved failure decides nothing: five good seconds meet
    evidence_loss(t, 6, &strict, false, &r);
    CHECK(r.verdict == EVIDENCE_MEETS && r.good == 5 && r.starved_bad == 1 &&
          r.bad == 0 && r.worst == 0.2);
    //  ...and the budget spent with it: the machine's
    evidence_loss(t, 4, &strict, true, &r);
    CHECK(r.verdict == EVIDENCE_MACHINE);
    //  a proof's goal is all its windows' seconds: a starved lossy one
    //  among them leaves it to the machine, never met
    evidence_goal_t proof = {0, 6, 0};
    evidence_loss(t, 6, &proof, true, &r);
    CHECK(r.verdict == EVIDENCE_MACHINE);
    //  a bad second not starved fails a strict goal at once
    t[1] = (evidence_trial_t){0.5, 1, false};
    evidence_loss(t, 2, &strict, false, &r);
    CHECK(r.verdict == EVIDENCE_FAILS && r.bad == 1);
    //  with E = 0.5: one bad of five is tolerated; three are not
    evidence_loss(t, 6, &half, false, &r);
    CHECK(r.verdict == EVIDENCE_MEETS && r.bad == 1 && r.good == 4);
    evidence_trial_t bad[3] = {
        {0.5, 1, false}, {0.5, 1, false}, {0.5, 1, false}};
    evidence_loss(bad, 2, &half, false, &r);
    CHECK(r.verdict == EVIDENCE_MORE);
    evidence_loss(bad, 3, &half, false, &r);
    CHECK(r.verdict == EVIDENCE_FAILS);
    evidence_loss(bad, 1, &half, true, &r);
    CHECK(r.verdict == EVIDENCE_UNDECIDED);
    return 0;
}

//  k windows, each of n latencies spread evenly over [base, base + span]
//  ns, window i shifted by i * step
static void s_windows(histogram_t *w, int k, int n, double base, double span,
                      double step)
{
    for (int i = 0; i < k; i++) {
        histogram_reset(&w[i]);
        for (int j = 0; j < n; j++)
            histogram_record(&w[i], (uint64_t)(base + i * step + span * j / n));
    }
}

static int s_test_p99(void)
{
    enum { K = 12 };
    histogram_t *w = calloc(K, sizeof *w);
    bool starved[K] = {false};
    evidence_result_t r;
    CHECK(w != NULL);
    //  p99 about 99 us, windows a little apart: within 200, above 50
    s_windows(w, K, 1000, 0, 100000, 1000);
    evidence_p99(w, starved, K, 1, 200, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_MEETS && r.high <= 200 && r.trials == K);
    CHECK(r.estimate > 99 && r.estimate < 110 && r.seconds == K);
    evidence_p99(w, starved, K, 1, 50, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_FAILS && r.low > 50);
    //  a bound inside the interval: more, then undecided
    evidence_p99(w, starved, K, 1, r.estimate, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_MORE && r.low < r.estimate);
    evidence_p99(w, starved, K, 1, r.estimate, 0.95, true, &r);
    CHECK(r.verdict == EVIDENCE_UNDECIDED);
    //  windows far above the bound, but starved: not the deployment's
    for (int i = 0; i < K - 1; i++)
        starved[i] = true;
    evidence_p99(w, starved, K, 1, 50, 0.95, true, &r);
    CHECK(r.verdict == EVIDENCE_MACHINE && r.starved == K - 1);
    //  no bound: it meets once it has an interval
    evidence_p99(w, starved, K, 1, 0, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_MEETS);
    evidence_p99(w, starved, 1, 1, 0, 0.95, false, &r);
    CHECK(r.verdict == EVIDENCE_MORE && r.estimate == -1);
    free(w);
    return 0;
}

int size_evidence_test(bool verbose)
{
    (void)verbose;
    return s_test_capacity() || s_test_loss() || s_test_p99() ? 1 : 0;
}
