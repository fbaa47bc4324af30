/*  stats: the statistics of repeated measurements, distribution-free.

    A figure measured N times (a hop's msgs/s over the repeats of one size)
    is summed up by its median and a confidence interval of the median made
    of two order statistics: with the values sorted, x(l) <= median <=
    x(u) holds for the true median with probability

        coverage(l, u) = P(l <= B <= u - 1),   B ~ Binomial(N, 1/2)

    whatever the distribution (continuous, or ties counted as they fall).
    stats_median_ci takes the narrowest symmetric pair, u = N + 1 - l with
    l as large as it can be, whose coverage is at least the confidence
    asked for.  Coverage comes in steps: at 0.95 the widest pair, min and
    max, covers only 1 - 2 / 2^N, 0.75 at N = 3 and 0.9375 at N = 5, so
    N >= 6 is needed; below that the interval is min-max, its coverage
    says what it is worth, and 'reached' is false.

    Two sets of repeats (A, B) are compared by the Mann-Whitney U test
    (Wilcoxon rank-sum): exact, by counting the rank sums of every way to
    split the pooled values (ties take mid-ranks, so the count is the
    permutation distribution of the data as they are), while the pooled
    sample has at most STATS_EXACT_MAX values; past that, the normal
    approximation with the tie correction and a continuity correction.
    With identical samples p = 1.  The smallest p the sizes allow is
    2 / C(na + nb, na): 0.1 for 3 against 3, so at alpha = 0.05 a
    difference needs 4 repeats a side to show.  The shift between them
    has the Hodges-Lehmann interval: of the sorted na x nb differences
    b_j - a_i, the k-th from each end, with k from the same U
    distribution (no ties), so that an interval at 1 - alpha leaves out 0
    exactly when the test finds the difference significant at alpha (for
    samples without ties).  Given logarithms it is an interval of the
    ratio B / A.

    Pure functions over arrays: no globals; those that need memory
    return -1 when they cannot have it.
*/
#ifndef HOPBENCH_STATS_H
#define HOPBENCH_STATS_H

#include <stdbool.h>

#define STATS_EXACT_MAX 60 //  pooled values up to which U is exact

typedef struct {
    double low, high; //  the interval
    int lo_rank;      //  1-based ranks of the order statistics used:
    int hi_rank;      //  x(lo_rank) .. x(hi_rank)
    double coverage;  //  its exact (or approximated) coverage
    bool reached;     //  coverage >= the confidence asked for
} stats_ci_t;

typedef struct {
    double u;     //  U of A: pairs with a > b, ties counted one half
    double p;     //  two-sided
    double min_p; //  the smallest p these sizes allow (without ties)
    bool exact;   //  p by counting, not by the normal approximation
} stats_mw_t;

//  Sort ascending, in place
void stats_sort(double *values, int n);
//  The median of sorted values (the mean of the middle two when n is even)
double stats_median_sorted(const double *sorted, int n);

//  The order statistics of the interval for n values at confidence:
//  1-based ranks and their coverage; false when even min-max falls short
bool stats_median_ranks(int n, double confidence, int *lo, int *hi,
                        double *coverage);
//  The interval itself, from sorted values (n >= 1)
void stats_median_ci(const double *sorted, int n, double confidence,
                     stats_ci_t *ci);

//  Mann-Whitney U of a against b (na, nb >= 1); -1 when out of memory
int stats_mann_whitney(const double *a, int na, const double *b, int nb,
                       stats_mw_t *out);
//  The Hodges-Lehmann interval of the shift b - a at confidence; -1 when
//  out of memory
int stats_shift_ci(const double *a, int na, const double *b, int nb,
                   double confidence, stats_ci_t *ci);

int stats_test(bool verbose);

#endif
