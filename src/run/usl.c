/*  usl: least-squares fit of the Universal Scalability Law; see usl.h.  */
#include "run/usl.h"

#include "base/check.h"

#include <math.h>

double usl_predict(const usl_fit_t *fit, double k)
{
    return fit->lambda * k /
           (1 + fit->sigma * (k - 1) + fit->kappa * k * (k - 1));
}

//  The sum of squared residuals at sigma and kappa, with the lambda that
//  makes it least (linear in lambda: sum x g / sum g^2)
static double s_sse(const double *k, const double *x, int n, double sigma,
                    double kappa, double *lambda)
{
    double xg = 0, gg = 0, sse = 0;
    for (int i = 0; i < n; i++) {
        double g = k[i] / (1 + sigma * (k[i] - 1) + kappa * k[i] * (k[i] - 1));
        xg += x[i] * g, gg += g * g;
    }
    *lambda = gg > 0 ? xg / gg : 0;
    for (int i = 0; i < n; i++) {
        double g = k[i] / (1 + sigma * (k[i] - 1) + kappa * k[i] * (k[i] - 1));
        sse += (x[i] - *lambda * g) * (x[i] - *lambda * g);
    }
    return sse;
}

//  sigma in {0} and 1e-4..10, kappa in {0} and 1e-6..1 (or 0 alone),
//  logarithmically: the best pair
static void s_grid(const double *k, const double *x, int n, bool kappa_free,
                   double *sigma, double *kappa)
{
    enum { STEPS = 50 };
    double lambda, best = INFINITY;
    for (int i = -1; i <= STEPS; i++) {
        double s = i < 0 ? 0 : 1e-4 * pow(10, 5.0 * i / STEPS);
        for (int j = -1; j <= (kappa_free ? STEPS : -1); j++) {
            double c = j < 0 ? 0 : 1e-6 * pow(10, 6.0 * j / STEPS);
            double sse = s_sse(k, x, n, s, c, &lambda);
            if (sse < best)
                best = sse, *sigma = s, *kappa = c;
        }
    }
}

//  From the grid's best: each parameter above 0 multiplied and divided by
//  a factor while that helps, the factor shrinking towards 1
static void s_refine(const double *k, const double *x, int n, double *sigma,
                     double *kappa)
{
    double lambda, best = s_sse(k, x, n, *sigma, *kappa, &lambda);
    double *param[2] = {sigma, kappa};
    for (double f = 1.5; f > 1 + 1e-12;) {
        bool better = false;
        for (int p = 0; p < 2; p++)
            for (int m = 0; m < 2 && *param[p] > 0; m++) {
                double was = *param[p];
                *param[p] = m ? was / f : was * f;
                double sse = s_sse(k, x, n, *sigma, *kappa, &lambda);
                if (sse < best)
                    best = sse, better = true;
                else
                    *param[p] = was;
            }
        if (!better)
            f = sqrt(f);
    }
}

int usl_fit(const double *k, const double *x, int n, usl_fit_t *out)
{
    if (n < USL_MIN_POINTS || n > USL_MAX_POINTS)
        return -1;
    for (int i = 0; i < n; i++)
        if (!(k[i] >= 1) || !(x[i] >= 0))
            return -1;
    usl_fit_t fit = {.params = n > USL_MIN_POINTS ? 3 : 2, .n = n};
    s_grid(k, x, n, fit.params == 3, &fit.sigma, &fit.kappa);
    s_refine(k, x, n, &fit.sigma, &fit.kappa);
    double sse = s_sse(k, x, n, fit.sigma, fit.kappa, &fit.lambda);
    if (!(fit.lambda > 0))
        return -1;
    fit.se = sqrt(sse / (n - fit.params));
    fit.kmin = fit.kmax = k[0];
    for (int i = 0; i < n; i++) {
        fit.residual[i] = x[i] - usl_predict(&fit, k[i]);
        fit.kmin = fmin(fit.kmin, k[i]), fit.kmax = fmax(fit.kmax, k[i]);
    }
    *out = fit;
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

int usl_peak(const usl_fit_t *fit, int kmax)
{
    int peak = 1;
    for (int k = 2; k <= kmax; k++)
        if (usl_predict(fit, k) > usl_predict(fit, peak))
            peak = k;
    return peak;
}

static bool s_near(double a, double b, double tolerance)
{
    return fabs(a - b) <= tolerance * fmax(fabs(b), 1e-12);
}

int usl_test(bool verbose)
{
    (void)verbose;
    //  points made by the law itself come back, with no residual
    usl_fit_t truth = {.lambda = 1000, .sigma = 0.1, .kappa = 0.01}, fit;
    double k[5] = {1, 2, 3, 4, 6}, x[5];
    for (int i = 0; i < 5; i++)
        x[i] = usl_predict(&truth, k[i]);
    CHECK(usl_fit(k, x, 5, &fit) == 0 && fit.params == 3 && fit.n == 5);
    CHECK(s_near(fit.sigma, 0.1, 1e-4) && s_near(fit.kappa, 0.01, 1e-4) &&
          s_near(fit.lambda, 1000, 1e-5));
    CHECK(fit.se < 1e-3 && fabs(fit.residual[4]) < 1e-3);
    CHECK(fit.kmin == 1 && fit.kmax == 6);
    //  X(4) = 2817, X(5) = 3125; X peaks near sqrt((1 - sigma) / kappa)
    CHECK(usl_needed(&fit, 3000, 64) == 5);
    CHECK(usl_needed(&fit, 1e6, 64) == -1);
    int peak = usl_peak(&fit, 64);
    CHECK(peak >= 9 && peak <= 10 &&
          usl_predict(&fit, peak) >= usl_predict(&fit, 8) &&
          usl_predict(&fit, peak) >= usl_predict(&fit, 11));
    //  without the point at 1: lambda is fitted, not read off a point
    double k4[4] = {2, 3, 4, 6}, x4[4] = {x[1], x[2], x[3], x[4]};
    CHECK(usl_fit(k4, x4, 4, &fit) == 0 && s_near(fit.lambda, 1000, 1e-4) &&
          fit.kmin == 2 && fit.kmax == 6);
    //  three points: kappa held at 0 (Amdahl), one residual's freedom
    double k3[3] = {1, 2, 3}, lin[3] = {100, 200, 300};
    CHECK(usl_fit(k3, lin, 3, &fit) == 0 && fit.params == 2 && fit.kappa == 0 &&
          fit.sigma < 1e-9 && s_near(fit.lambda, 100, 1e-9));
    CHECK(usl_needed(&fit, 1000, 64) == 10 && fit.se < 1e-6);
    usl_fit_t amdahl = {.lambda = 500, .sigma = 0.25};
    double xa[3];
    for (int i = 0; i < 3; i++)
        xa[i] = usl_predict(&amdahl, k3[i]);
    CHECK(usl_fit(k3, xa, 3, &fit) == 0 && s_near(fit.sigma, 0.25, 1e-6) &&
          s_near(fit.lambda, 500, 1e-6));
    //  noisy points: the residuals are what the law misses, and se their
    //  root mean square over the degrees of freedom
    double noisy[4] = {1000, 1900, 2500, 2700}, sum = 0;
    CHECK(usl_fit(k, noisy, 4, &fit) == 0 && fit.se > 0);
    for (int i = 0; i < 4; i++)
        sum += fit.residual[i] * fit.residual[i];
    CHECK(s_near(fit.se, sqrt(sum / (4 - 3)), 1e-9));
    //  too few points, a k below 1, or nothing carried: no fit
    CHECK(usl_fit(k3, lin, 2, &fit) == -1);
    double k0[3] = {0, 1, 2}, zero[3] = {0, 0, 0};
    CHECK(usl_fit(k0, lin, 3, &fit) == -1);
    CHECK(usl_fit(k3, zero, 3, &fit) == -1);
    return 0;
}
