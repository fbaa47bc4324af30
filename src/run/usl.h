/*  usl: the Universal Scalability Law (Gunther) fitted to measured points
    of one resource (io_threads 1..K, a broker's count 1..K):

        X(k) = lambda k / (1 + sigma (k - 1) + kappa k (k - 1))

    lambda, sigma (contention) and kappa (coherency), sigma and kappa at
    least 0, by least squares on the capacities themselves: for given
    sigma and kappa the best lambda is a ratio of sums, and sigma and
    kappa are found on a logarithmic grid, then refined by a pattern
    search.  No point is taken as exact (the point at k = 1 is measured
    as noisily as the others, and need not be there).

    A fit is only worth its residuals: it takes more points than it has
    parameters, so that they say something.  With 4 points or more all
    three are fitted; with 3, kappa is held at 0 (Amdahl's law, two
    parameters); with fewer there is no fit.  Pure: no I/O.  Its
    predictions are extrapolations, never measurements: callers mark
    them so, and say when they leave the range of k fitted.
*/
#ifndef HOPBENCH_USL_H
#define HOPBENCH_USL_H

#include <stdbool.h>

#include "base/limits.h"

#define USL_MAX_POINTS LIMIT_SWEEP_VALUES
#define USL_MIN_POINTS 3 //  two parameters and one residual to judge them

typedef struct {
    double lambda, sigma, kappa;
    int params;                      //  3: the USL; 2: kappa held at 0
    int n;                           //  points fitted
    double residual[USL_MAX_POINTS]; //  measured - fitted, per point
    double se;                       //  residual standard error:
                                     //  sqrt(sum r^2 / (n - params))
    double kmin, kmax;               //  the range fitted: its validity
} usl_fit_t;

//  Points k[i] >= 1 (distinct), x[i] >= 0, USL_MIN_POINTS <= n <=
//  USL_MAX_POINTS.  -1: no fit (too few points, or nothing carried)
int usl_fit(const double *k, const double *x, int n, usl_fit_t *out);
double usl_predict(const usl_fit_t *fit, double k);
//  The smallest whole k <= kmax with X(k) >= x, or -1 (beyond the peak,
//  or past kmax)
int usl_needed(const usl_fit_t *fit, double x, int kmax);
//  The whole k <= kmax where X peaks
int usl_peak(const usl_fit_t *fit, int kmax);

int usl_test(bool verbose);

#endif
