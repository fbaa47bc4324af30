/*  quantile_ci: a percentile's interval from the windows of a
    measurement (see quantile_ci.h).  Student's t comes from its
    distribution function (the regularized incomplete beta function, by
    its continued fraction), inverted by bisection.
*/
#include "base/quantile_ci.h"

#include "base/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

//  ------------------------------------------------------------------------
//  Student's t

//  The continued fraction of the incomplete beta function (modified
//  Lentz), for x below (a + 1) / (a + b + 2), where it converges fast
static double s_beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double steps[2] = {m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                           -(a + m) * (a + b + m) * x /
                               ((a + 2 * m) * (a + 2 * m + 1))};
        double last = 1;
        for (int s = 0; s < 2; s++) {
            d = 1 + steps[s] * d;
            c = 1 + steps[s] / c;
            d = 1 / (fabs(d) < tiny ? tiny : d);
            c = fabs(c) < tiny ? tiny : c;
            last = d * c;
            h *= last;
        }
        if (fabs(last - 1) < 1e-13)
            break;
    }
    return h;
}

//  The regularized incomplete beta function I_x(a, b)
static double s_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
                       b * log(1 - x));
    if (x < (a + 1) / (a + b + 2))
        return front * s_beta_fraction(a, b, x) / a;
    return 1 - front * s_beta_fraction(b, a, 1 - x) / b;
}

//  P(T > t) for t >= 0, T of Student's t with df degrees of freedom
static double s_t_above(double t, int df)
{
    return 0.5 * s_beta(df / 2.0, 0.5, df / (df + t * t));
}

double quantile_t(int df, double confidence)
{
    double tail = (1 - confidence) / 2, low = 0, high = 1;
    if (df < 1 || !(tail > 0 && tail < 0.5))
        return NAN;
    while (s_t_above(high, df) > tail && high < 1e12)
        low = high, high *= 2;
    for (int i = 0; i < 200 && high - low > 1e-12 * high; i++) {
        double mid = (low + high) / 2;
        if (s_t_above(mid, df) > tail)
            low = mid;
        else
            high = mid;
    }
    return (low + high) / 2;
}

//  ------------------------------------------------------------------------
//  The interval

int quantile_ci(const histogram_t *windows, int k, double pct,
                double confidence, quantile_ci_t *out)
{
    histogram_t *all = malloc(sizeof *all);
    double *value = calloc((size_t)(k > 0 ? k : 1), sizeof *value);
    int n = 0;
    if (!all || !value) {
        free(all);
        free(value);
        return -1;
    }
    histogram_reset(all);
    for (int i = 0; i < k; i++)
        if (histogram_count(&windows[i])) {
            value[n++] = (double)histogram_percentile(&windows[i], pct);
            histogram_merge(all, &windows[i]);
        }
    double mean = 0, squares = 0;
    for (int i = 0; i < n; i++)
        mean += value[i] / n;
    for (int i = 0; i < n; i++)
        squares += (value[i] - mean) * (value[i] - mean);
    double half =
        n >= 2 ? quantile_t(n - 1, confidence) * sqrt(squares / (n - 1) / n)
               : 0;
    *out = (quantile_ci_t){.estimate = (double)histogram_percentile(all, pct),
                           .confidence = confidence,
                           .windows = n,
                           .samples = (long)histogram_count(all)};
    out->low = out->estimate - half;
    out->high = out->estimate + half;
    free(all);
    free(value);
    return n >= 2 ? 0 : -1;
}

//  ------------------------------------------------------------------------
//  Selftest: Student's t against its tables, and the interval's coverage
//  over draws from known distributions

//  splitmix64, and a uniform in (0, 1) from it
static double s_uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double s_normal(uint64_t *state)
{
    double u = s_uniform(state), v = s_uniform(state);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

//  A source of latencies, ns: exponential with mean 'mean' in the
//  long run (its p99 mean x ln 100), drawn independently, or from a
//  Gaussian AR(1) of coefficient phi mapped through the normal and
//  exponential distribution functions (each value still exponential,
//  but phi of it carried into the next: queues that last ~1/(1-phi)
//  messages)
typedef struct {
    uint64_t state;
    double phi, x, mean;
} source_t;

static uint64_t s_next(source_t *s)
{
    double u;
    if (s->phi > 0) {
        s->x = s->phi * s->x + sqrt(1 - s->phi * s->phi) * s_normal(&s->state);
        u = 0.5 * erfc(-s->x / sqrt(2));
    } else
        u = s_uniform(&s->state);
    return (uint64_t)(-s->mean * log1p(-u));
}

//  Of 'draws' measurements of k windows of n samples, the share whose
//  p99 interval at 0.95 covers the true p99
static double s_coverage(double phi, int draws, int k, int n)
{
    histogram_t *w = malloc((size_t)k * sizeof *w);
    source_t s = {.state = 42, .phi = phi, .mean = 100000};
    double truth = s.mean * log(100.0);
    int covered = 0;
    for (int d = 0; d < draws && w; d++) {
        s.x = s_normal(&s.state); //  a measurement starts anywhere
        for (int i = 0; i < k; i++) {
            histogram_reset(&w[i]);
            for (int j = 0; j < n; j++)
                histogram_record(&w[i], s_next(&s));
        }
        quantile_ci_t ci;
        if (quantile_ci(w, k, 99, 0.95, &ci) == 0 && ci.low <= truth &&
            truth <= ci.high)
            covered++;
    }
    free(w);
    return (double)covered / draws;
}

int quantile_ci_test(bool verbose)
{
    //  two-sided 95 % and 99 % points of t (any table)
    CHECK(fabs(quantile_t(1, 0.95) - 12.706) < 1e-3);
    CHECK(fabs(quantile_t(9, 0.95) - 2.262) < 1e-3);
    CHECK(fabs(quantile_t(30, 0.95) - 2.042) < 1e-3);
    CHECK(fabs(quantile_t(9, 0.99) - 3.250) < 1e-3);
    CHECK(fabs(quantile_t(1000, 0.95) - 1.962) < 1e-3);
    CHECK(isnan(quantile_t(0, 0.95)) && isnan(quantile_t(5, 1)));
    //  fewer than two windows with samples: no interval
    histogram_t *w = calloc(3, sizeof *w);
    CHECK(w != NULL);
    for (int i = 0; i < 3; i++)
        histogram_reset(&w[i]);
    quantile_ci_t ci;
    histogram_record(&w[1], 1000);
    CHECK(quantile_ci(w, 3, 99, 0.95, &ci) == -1 && ci.windows == 1);
    //  identical windows: no spread, the interval is the estimate
    histogram_record(&w[2], 1000);
    CHECK(quantile_ci(w, 3, 99, 0.95, &ci) == 0 && ci.windows == 2 &&
          ci.low == ci.estimate && ci.high == ci.estimate && ci.samples == 2);
    free(w);
    //  1000 measurements of 10 windows of 1000 latencies: the interval
    //  covers the true p99 95 % of the time, +- 2 %, whether the
    //  latencies are independent or carry 90 % of one into the next
    double iid = s_coverage(0, 1000, 10, 1000);
    double ar = s_coverage(0.9, 1000, 10, 1000);
    if (verbose)
        printf("# quantile_ci: coverage of p99 at 0.95: independent %.3f, "
               "AR(1) 0.9 %.3f\n",
               iid, ar);
    CHECK(iid >= 0.93 && iid <= 0.97);
    CHECK(ar >= 0.93 && ar <= 0.97);
    return 0;
}
