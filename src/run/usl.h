/*  usl: the Universal Scalability Law (Gunther) fitted to measured points
    of one dimension (io_threads 1..K, brokers 1..K):

        X(k) = lambda k / (1 + sigma (k - 1) + kappa k (k - 1))

    lambda is X(1) (the point at k = 1 must be measured); sigma
    (contention) and kappa (coherency) by least squares on the linear
    form k / C(k) - 1 = sigma (k - 1) + kappa k (k - 1), C = X / lambda,
    both clamped at 0.  Pure: no I/O.  Its predictions are extrapolations,
    never measurements: callers mark them so.
*/
#ifndef HOPBENCH_USL_H
#define HOPBENCH_USL_H

#include <stdbool.h>

typedef struct {
    double lambda, sigma, kappa;
    double residual[16]; //  measured - fitted, per point
    int n;
} usl_fit_t;

//  Points k[i] (whole, one of them 1), x[i] > 0; n >= 2.  -1: no fit
int usl_fit(const double *k, const double *x, int n, usl_fit_t *out);
double usl_predict(const usl_fit_t *fit, double k);
//  The smallest whole k <= kmax with X(k) >= x, or -1 (beyond the peak)
int usl_needed(const usl_fit_t *fit, double x, int kmax);

int usl_test(bool verbose);

#endif
