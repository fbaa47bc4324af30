/*  size_extrapolate: --extrapolate over size's rows; see
    size_extrapolate.h.
*/
#include "run/size_extrapolate.h"

#include "run/usl.h"

#include <stdlib.h>
#include <string.h>

void size_extrapolate(const size_extrapolate_t *in, FILE *out)
{
    double k[16] = {0}, x[16] = {0};
    int n = 0;
    if (in->tries->nkeys != 1 || in->nfiles != 1) {
        fprintf(out, "extrapolate: needs one file and one --try key whose "
                     "values are counts (io_threads=1,2,3 or count=1,2,3)\n");
        return;
    }
    for (int i = 0; i < in->n && n < 16; i++) {
        const char *eq = strchr(in->rows[i].tried, '=');
        if (eq && in->rows[i].capacity.value > 0 && i < in->tries->nvalues[0])
            k[n] = atof(eq + 1), x[n++] = in->rows[i].capacity.value;
    }
    usl_fit_t fit;
    if (usl_fit(k, x, n, &fit)) {
        fprintf(out, "extrapolate: no fit (it needs the point at 1 and one "
                     "more, measured)\n");
        return;
    }
    fprintf(out,
            "extrapolated (USL, %s): lambda %.0f msgs/s, sigma %.4f, "
            "kappa %.5f; residuals",
            in->tries->key[0], fit.lambda, fit.sigma, fit.kappa);
    for (int i = 0; i < n; i++)
        fprintf(out, " %g:%+.0f", k[i], fit.residual[i]);
    double need = sizing_offered(in->target);
    int kneed = usl_needed(&fit, need, 1024);
    if (kneed > 0)
        fprintf(out,
                "\nextrapolated: %s = %d would carry %.0f msgs/s "
                "(predicted %.0f; not measured)\n",
                in->tries->key[0], kneed, need, usl_predict(&fit, kneed));
    else
        fprintf(out,
                "\nextrapolated: no %s carries %.0f msgs/s: the law "
                "peaks below it\n",
                in->tries->key[0], need);
}
