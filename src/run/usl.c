/*  usl: least-squares fit of the Universal Scalability Law; see usl.h.  */
#include "run/usl.h"

#include "base/check.h"

#include <math.h>

double usl_predict(const usl_fit_t *fit, double k)
{
    return fit->lambda * k /
           (1 + fit->sigma * (k - 1) + fit->kappa * k * (k - 1));
}

int usl_fit(const double *k, const double *x, int n, usl_fit_t *out)
{
    double lambda = 0;
    if (n < 2 || n > 16)
        return -1;
    for (int i = 0; i < n; i++)
        if (k[i] == 1)
            lambda = x[i];
    if (!(lambda > 0))
        return -1;
    //  normal equations of y = sigma a + kappa b, no intercept
    double aa = 0, ab = 0, bb = 0, ay = 0, by = 0;
    for (int i = 0; i < n; i++) {
        if (!(x[i] > 0))
            return -1;
        double a = k[i] - 1, b = k[i] * (k[i] - 1);
        double y = k[i] / (x[i] / lambda) - 1;
        aa += a * a, ab += a * b, bb += b * b, ay += a * y, by += b * y;
    }
    double det = aa * bb - ab * ab, sigma, kappa;
    if (fabs(det) > 1e-12) {
        sigma = (ay * bb - by * ab) / det;
        kappa = (aa * by - ab * ay) / det;
    } else { //  two points: contention alone
        sigma = aa > 0 ? ay / aa : 0;
        kappa = 0;
    }
    if (kappa < 0) //  refit sigma alone
        kappa = 0, sigma = aa > 0 ? ay / aa : 0;
    if (sigma < 0) //  refit kappa alone
        sigma = 0, kappa = bb > 0 && by > 0 ? by / bb : 0;
    *out = (usl_fit_t){.lambda = lambda, .sigma = sigma, .kappa = kappa, .n = n};
    for (int i = 0; i < n; i++)
        out->residual[i] = x[i] - usl_predict(out, k[i]);
    return 0;
}

int usl_needed(const usl_fit_t *fit, double x, int kmax)
{
    for (int k = 1; k <= kmax; k++) {
        if (usl_predict(fit, k) >= x)
            return k;
        if (k > 1 && usl_predict(fit, k) < usl_predict(fit, k - 1))
            return -1; //  past the peak: more only costs
    }
    return -1;
}

int usl_test(bool verbose)
{
    (void)verbose;
    //  points made by the law itself come back
    usl_fit_t truth = {.lambda = 1000, .sigma = 0.1, .kappa = 0.01}, fit;
    double k[5] = {1, 2, 3, 4, 6}, x[5];
    for (int i = 0; i < 5; i++)
        x[i] = usl_predict(&truth, k[i]);
    CHECK(usl_fit(k, x, 5, &fit) == 0);
    CHECK(fabs(fit.sigma - 0.1) < 1e-6 && fabs(fit.kappa - 0.01) < 1e-6);
    CHECK(fabs(fit.residual[4]) < 1e-6);
    //  X(k) peaks at sqrt((1 - sigma) / kappa) ~ 9.5
    CHECK(usl_needed(&fit, 3000, 64) == 5);
    CHECK(usl_needed(&fit, 1e6, 64) == -1);
    //  linear scaling: sigma = kappa = 0
    double lin[3] = {100, 200, 300}, k3[3] = {1, 2, 3};
    CHECK(usl_fit(k3, lin, 3, &fit) == 0 && fit.sigma < 1e-9 &&
          fit.kappa < 1e-9 && usl_needed(&fit, 1000, 64) == 10);
    //  no k = 1: no fit
    double k2[2] = {2, 3};
    CHECK(usl_fit(k2, lin, 2, &fit) == -1);
    return 0;
}
