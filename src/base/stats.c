/*  stats: medians, their intervals, and two-sample comparisons; see
    stats.h for the methods.

    Binomial and rank-sum probabilities are computed in doubles: the
    binomial terms through lgamma, so N up to LIMIT_REPEAT does not
    overflow; the rank-sum counts (at most C(60, 30), about 1.2e17) by
    dynamic programming over the pooled values' doubled ranks, which
    keeps mid-ranks whole numbers.
*/
#include "base/stats.h"

#include "base/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int s_compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void stats_sort(double *values, int n)
{
    if (n > 1)
        qsort(values, (size_t)n, sizeof *values, s_compare);
}

double stats_median_sorted(const double *sorted, int n)
{
    if (n <= 0)
        return 0;
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

//  ---------------------------------------------------------------------
//  The median's interval

//  P(B <= k) for B ~ Binomial(n, 1/2)
static double s_binomial_cdf(int n, int k)
{
    if (k < 0)
        return 0;
    if (k >= n)
        return 1;
    double sum = 0, base = lgamma(n + 1.0) - n * log(2.0);
    for (int i = 0; i <= k; i++)
        sum += exp(base - lgamma(i + 1.0) - lgamma(n - i + 1.0));
    return sum < 1 ? sum : 1;
}

bool stats_median_ranks(int n, double confidence, int *lo, int *hi,
                        double *coverage)
{
    *lo = *hi = n > 0 ? (n + 1) / 2 : 0;
    *coverage = 0;
    if (n < 2)
        return false;
    //  symmetric pairs (l, n + 1 - l), narrowest first
    for (int l = n / 2; l >= 1; l--) {
        double c = 1 - 2 * s_binomial_cdf(n, l - 1);
        *lo = l, *hi = n + 1 - l, *coverage = c;
        if (c >= confidence - 1e-12)
            return true;
    }
    return false;
}

void stats_median_ci(const double *sorted, int n, double confidence,
                     stats_ci_t *ci)
{
    memset(ci, 0, sizeof *ci);
    if (n <= 0)
        return;
    ci->reached = stats_median_ranks(n, confidence, &ci->lo_rank, &ci->hi_rank,
                                     &ci->coverage);
    ci->low = sorted[ci->lo_rank - 1];
    ci->high = sorted[ci->hi_rank - 1];
}

//  ---------------------------------------------------------------------
//  Rank sums

//  ways[s]: in how many of the C(n, m) ways to take m of the n ranks r2
//  (doubled, whole) they add up to s, for s = 0..*total.  NULL when out
//  of memory; the caller frees it
static double *s_rank_sums(const int *r2, int n, int m, int *total)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += r2[i];
    *total = sum;
    size_t width = (size_t)sum + 1;
    double *table = calloc((size_t)(m + 1) * width, sizeof *table);
    if (!table)
        return NULL;
    table[0] = 1; //  none taken, sum 0
    for (int i = 0; i < n; i++)
        for (int j = (i + 1 < m ? i + 1 : m); j >= 1; j--)
            for (int s = sum; s >= r2[i]; s--)
                table[j * width + s] += table[(j - 1) * width + s - r2[i]];
    double *ways = malloc(width * sizeof *ways);
    if (ways)
        memcpy(ways, table + m * width, width * sizeof *ways);
    free(table);
    return ways;
}

//  Standard normal: P(Z > x), and the x with P(Z > x) = p
static double s_upper(double x)
{
    return 0.5 * erfc(x / sqrt(2.0));
}

static double s_quantile(double p)
{
    double lo = -40, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (s_upper(mid) > p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

//  log C(n, k)
static double s_log_choose(int n, int k)
{
    return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

typedef struct {
    double value;
    int group; //  0: a, 1: b
} pooled_t;

static int s_compare_pooled(const void *a, const void *b)
{
    return s_compare(&((const pooled_t *)a)->value,
                     &((const pooled_t *)b)->value);
}

//  Doubled mid-ranks of the pooled values into r2 (in sorted order), the
//  doubled rank sum of a, and the ties' sum of t^3 - t
static void s_ranks(pooled_t *v, int n, int *r2, long *w2, double *ties)
{
    qsort(v, (size_t)n, sizeof *v, s_compare_pooled);
    *w2 = 0, *ties = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && v[j + 1].value == v[i].value)
            j++;
        double t = j - i + 1;
        *ties += t * t * t - t;
        for (int k = i; k <= j; k++) {
            r2[k] = i + j + 2; //  2 x the mean of ranks i+1 .. j+1
            if (v[k].group == 0)
                *w2 += r2[k];
        }
        i = j + 1;
    }
}

static int s_exact_p(const int *r2, int n, int na, long w2, double *p)
{
    int total;
    double *ways = s_rank_sums(r2, n, na, &total);
    if (!ways)
        return -1;
    long mean2 = (long)na * (n + 1), off = labs(w2 - mean2);
    double hit = 0, all = 0;
    for (int s = 0; s <= total; s++) {
        all += ways[s];
        if (labs(s - mean2) >= off)
            hit += ways[s];
    }
    free(ways);
    *p = all > 0 && hit < all ? hit / all : 1;
    return 0;
}

int stats_mann_whitney(const double *a, int na, const double *b, int nb,
                       stats_mw_t *out)
{
    int n = na + nb;
    pooled_t *v = malloc((size_t)n * sizeof *v);
    int *r2 = malloc((size_t)n * sizeof *r2);
    if (!v || !r2) {
        free(v), free(r2);
        return -1;
    }
    for (int i = 0; i < n; i++)
        v[i] = i < na ? (pooled_t){a[i], 0} : (pooled_t){b[i - na], 1};
    long w2;
    double ties;
    s_ranks(v, n, r2, &w2, &ties);
    memset(out, 0, sizeof *out);
    out->u = w2 / 2.0 - na * (na + 1) / 2.0;
    out->min_p = fmin(1, 2 * exp(-s_log_choose(n, na)));
    int rc = 0;
    if (n <= STATS_EXACT_MAX) {
        out->exact = true;
        rc = s_exact_p(r2, n, na, w2, &out->p);
    } else {
        double mu = na * (double)nb / 2;
        double var = na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1.0)));
        double z = (fabs(out->u - mu) - 0.5) / sqrt(var);
        out->p = var > 0 ? fmin(1, 2 * s_upper(fmax(z, 0))) : 1;
    }
    free(v), free(r2);
    return rc;
}

//  ---------------------------------------------------------------------
//  The shift's interval

//  k for the interval: the largest with 2 P(U <= k - 1) <= 1 - confidence
//  under no ties, exactly or by the normal approximation; its coverage
static int s_shift_k(int na, int nb, double confidence, int *k,
                     double *coverage)
{
    int n = na + nb, m = na * nb;
    double alpha = 1 - confidence;
    if (n > STATS_EXACT_MAX) {
        double mu = m / 2.0, sd = sqrt(m * (n + 1.0) / 12);
        *k = (int)floor(mu - s_quantile(alpha / 2) * sd + 0.5);
        *k = *k < 1 ? 1 : *k > (m + 1) / 2 ? (m + 1) / 2 : *k;
        *coverage = 1 - 2 * s_upper((mu - (*k - 0.5)) / sd);
        return 0;
    }
    int r2[STATS_EXACT_MAX], total;
    for (int i = 0; i < n; i++)
        r2[i] = 2 * (i + 1);
    double *ways = s_rank_sums(r2, n, na, &total);
    if (!ways)
        return -1;
    double all = exp(s_log_choose(n, na)), below = 0; //  P(U <= k - 1)
    int base = na * (na + 1);                         //  doubled min sum
    *k = 1, *coverage = 1 - 2 * ways[base] / all;
    for (int c = 1; c <= (m + 1) / 2; c++) {
        below += ways[base + 2 * (c - 1)] / all;
        if (2 * below > alpha + 1e-12)
            break;
        *k = c, *coverage = 1 - 2 * below;
    }
    free(ways);
    return 0;
}

int stats_shift_ci(const double *a, int na, const double *b, int nb,
                   double confidence, stats_ci_t *ci)
{
    int m = na * nb, k;
    double coverage;
    memset(ci, 0, sizeof *ci);
    double *d = malloc((size_t)m * sizeof *d);
    if (!d || s_shift_k(na, nb, confidence, &k, &coverage)) {
        free(d);
        return -1;
    }
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            d[i * nb + j] = b[j] - a[i];
    stats_sort(d, m);
    ci->lo_rank = k;
    ci->hi_rank = m + 1 - k;
    ci->low = d[k - 1];
    ci->high = d[m - k];
    ci->coverage = coverage;
    ci->reached = coverage >= confidence - 1e-12;
    free(d);
    return 0;
}

//  ---------------------------------------------------------------------
//  Selftest: known inputs

#define NEAR(x, y) (fabs((x) - (y)) < 1e-9 * (1 + fabs((double)(y))))

static int s_test_median(void)
{
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
    stats_sort(odd, 3);
    stats_sort(even, 4);
    CHECK(stats_median_sorted(odd, 3) == 2);
    CHECK(stats_median_sorted(even, 4) == 2.5);
    int lo, hi;
    double c;
    //  n = 3 and 5: min-max is all there is, and it falls short of 0.95
    CHECK(!stats_median_ranks(3, 0.95, &lo, &hi, &c));
    CHECK(lo == 1 && hi == 3 && NEAR(c, 0.75));
    CHECK(!stats_median_ranks(5, 0.95, &lo, &hi, &c));
    CHECK(lo == 1 && hi == 5 && NEAR(c, 0.9375));
    CHECK(stats_median_ranks(3, 0.75, &lo, &hi, &c) && lo == 1 && hi == 3);
    //  the textbook pairs: n = 6 (1, 6), 9 (2, 8), 12 (3, 10)
    CHECK(stats_median_ranks(6, 0.95, &lo, &hi, &c));
    CHECK(lo == 1 && hi == 6 && NEAR(c, 1 - 2.0 / 64));
    CHECK(stats_median_ranks(9, 0.95, &lo, &hi, &c));
    CHECK(lo == 2 && hi == 8 && NEAR(c, 1 - 2 * 10.0 / 512));
    CHECK(stats_median_ranks(12, 0.95, &lo, &hi, &c));
    CHECK(lo == 3 && hi == 10 && NEAR(c, 1 - 2 * 79.0 / 4096));
    CHECK(stats_median_ranks(1000, 0.95, &lo, &hi, &c) && hi == 1001 - lo);
    CHECK(c >= 0.95 && c < 0.96 && lo > 460 && lo < 480);
    //  ties and identical values: the interval is made of values
    double same[] = {7, 7, 7, 7, 7, 7};
    stats_ci_t ci;
    stats_median_ci(same, 6, 0.95, &ci);
    CHECK(ci.low == 7 && ci.high == 7 && ci.reached);
    double v[] = {1, 2, 2, 2, 3, 4, 5, 9, 10};
    stats_median_ci(v, 9, 0.95, &ci);
    CHECK(ci.low == 2 && ci.high == 9 && ci.lo_rank == 2 && ci.hi_rank == 8);
    return 0;
}

//  The two-sided permutation p of a rank-sum statistic, by visiting every
//  split of the pooled values (n <= 16): what the counting must agree with
static double s_brute_p(const double *a, int na, const double *b, int nb)
{
    int n = na + nb;
    pooled_t v[16];
    int r2[16];
    for (int i = 0; i < n; i++)
        v[i] = i < na ? (pooled_t){a[i], 0} : (pooled_t){b[i - na], 1};
    long w2;
    double ties;
    s_ranks(v, n, r2, &w2, &ties);
    long mean2 = (long)na * (n + 1), hit = 0, all = 0;
    for (unsigned mask = 0; mask < 1u << n; mask++) {
        if (__builtin_popcount(mask) != na)
            continue;
        long s = 0;
        for (int i = 0; i < n; i++)
            s += mask >> i & 1 ? r2[i] : 0;
        all++;
        hit += labs(s - mean2) >= labs(w2 - mean2);
    }
    return (double)hit / (double)all;
}

static int s_test_mann_whitney(void)
{
    stats_mw_t mw;
    double a3[] = {1, 2, 3}, b3[] = {4, 5, 6};
    //  n = 3 against 3: the most extreme split has p = 2 / C(6, 3)
    CHECK(stats_mann_whitney(a3, 3, b3, 3, &mw) == 0);
    CHECK(mw.exact && mw.u == 0 && NEAR(mw.p, 0.1) && NEAR(mw.min_p, 0.1));
    CHECK(stats_mann_whitney(b3, 3, a3, 3, &mw) == 0 && mw.u == 9);
    CHECK(NEAR(mw.p, 0.1));
    double a5[] = {1, 2, 3, 4, 5}, b5[] = {6, 7, 8, 9, 10};
    CHECK(stats_mann_whitney(a5, 5, b5, 5, &mw) == 0);
    CHECK(NEAR(mw.p, 2.0 / 252));
    //  identical samples: nothing to tell apart
    double same[] = {5, 5, 5};
    CHECK(stats_mann_whitney(same, 3, same, 3, &mw) == 0);
    CHECK(mw.p == 1 && mw.u == 4.5);
    //  interleaved: p = 1 as well (the rank sums are equal)
    double x[] = {1, 4}, y[] = {2, 3};
    CHECK(stats_mann_whitney(x, 2, y, 2, &mw) == 0 && NEAR(mw.p, 1));
    //  ties across the samples: mid-ranks, and the count agrees with
    //  every split visited
    double ta[] = {1, 2, 2, 3, 3}, tb[] = {2, 3, 3, 4, 4, 5};
    CHECK(stats_mann_whitney(ta, 5, tb, 6, &mw) == 0 && mw.exact);
    CHECK(mw.u == 5 && NEAR(mw.p, 19.0 / 231)); //  0.0823, as counted by hand
    CHECK(NEAR(mw.p, s_brute_p(ta, 5, tb, 6)));
    double tc[] = {10, 10, 11, 12}, td[] = {10, 11, 11, 13};
    CHECK(stats_mann_whitney(tc, 4, td, 4, &mw) == 0);
    CHECK(mw.u == 6 && NEAR(mw.p, 46.0 / 70));
    CHECK(NEAR(mw.p, s_brute_p(tc, 4, td, 4)));
    //  past STATS_EXACT_MAX: the normal approximation
    double big_a[50], big_b[50];
    for (int i = 0; i < 50; i++)
        big_a[i] = i, big_b[i] = 50 + i;
    CHECK(stats_mann_whitney(big_a, 50, big_b, 50, &mw) == 0);
    CHECK(!mw.exact && mw.u == 0 && mw.p < 1e-15);
    CHECK(stats_mann_whitney(big_a, 50, big_a, 50, &mw) == 0 && mw.p == 1);
    return 0;
}

static int s_test_shift(void)
{
    stats_ci_t ci;
    double a[] = {1, 2, 3, 4, 5}, b[] = {11, 12, 13, 14, 15};
    //  5 against 5 at 0.95: k = 3 (2 P(U <= 2) = 8 / 252), so of the 25
    //  differences 10 + (j - i) the 3rd and the 23rd: 7 and 13
    CHECK(stats_shift_ci(a, 5, b, 5, 0.95, &ci) == 0);
    CHECK(ci.lo_rank == 3 && ci.hi_rank == 23 && ci.low == 7 && ci.high == 13);
    CHECK(ci.reached && NEAR(ci.coverage, 1 - 8.0 / 252));
    //  3 against 3 cannot reach 0.95: the whole range, coverage 0.9
    double c[] = {1, 2, 3}, d[] = {2, 3, 4};
    CHECK(stats_shift_ci(c, 3, d, 3, 0.95, &ci) == 0);
    CHECK(!ci.reached && ci.low == -1 && ci.high == 3 &&
          NEAR(ci.coverage, 0.9));
    //  identical samples: an interval around 0
    CHECK(stats_shift_ci(a, 5, a, 5, 0.95, &ci) == 0);
    CHECK(ci.low < 0 && ci.high > 0 && NEAR(ci.low, -ci.high));
    double big_a[40], big_b[40];
    for (int i = 0; i < 40; i++)
        big_a[i] = i, big_b[i] = i + 100;
    CHECK(stats_shift_ci(big_a, 40, big_b, 40, 0.95, &ci) == 0);
    CHECK(ci.reached && ci.low > 80 && ci.high < 120 && ci.low < 100);
    return 0;
}

int stats_test(bool verbose)
{
    (void)verbose;
    return s_test_median() || s_test_mann_whitney() || s_test_shift() ? -1 : 0;
}
