/*  columns_fit: the table of sizing_fit.csv (columns.h), what `hopbench
    size --extrapolate` fitted.  A row is a point of a size's fit or its
    answer (sizing_fit_point_t); what is the fit's (sizing_fit_t: the
    law, its parameters, its range) is taken from ctx->of, and repeated
    on each of its rows.
*/
#include "report/columns.h"

#include "report/sizing_fit.h"

static void s_kind(const column_ctx_t *ctx, column_value_t *v)
{
    const sizing_fit_point_t *p = ctx->row;
    column_text(v, sizing_fit_kinds[p->kind]);
}
//  Only a fitted point has one; it may be negative
static void s_residual(const column_ctx_t *ctx, column_value_t *v)
{
    const sizing_fit_point_t *p = ctx->row;
    if (p->kind == FIT_FITTED)
        column_real(v, p->residual);
}
static void s_beyond(const column_ctx_t *ctx, column_value_t *v)
{
    column_int(v, ((const sizing_fit_point_t *)ctx->row)->beyond);
}

#define POINT(f, fmt, fl) COLUMN_ROW_FIELD(sizing_fit_point_t, f, fmt, fl)
#define FIT(f, fmt, fl)   COLUMN_ROW_FIELD(sizing_fit_t, f, fmt, COLUMN_OF | (fl))
#define FN(f, fmt)        COLUMN_ROW_COMPUTED(f, fmt, 0)
#define NONE              COLUMN_OPTIONAL //  empty: none

static const column_t s_fit[] = {
    {COLUMN_SIZE, FIT(size, NULL, 0), "the message size in bytes: a fit each"},
    {"key", FIT(key, NULL, COLUMN_QUOTED),
     "the --try key fitted, a resource: \"broker.io_threads\""},
    {"kind", FN(s_kind, NULL),
     "fitted; left out: starved, or: not measured; then the size's answer: "
     "predicted, answered by a measured row, beyond the peak, or no fit"},
    {"k", POINT(k, "%g", NONE), "the key's value"},
    {"candidate", POINT(candidate, NULL, NONE),
     "its row in sizing.csv (answered: the row that answers)"},
    {"capacity_per_sec", POINT(capacity, "%.1f", NONE),
     "a point: what it carried flat out; predicted: what the law gives at "
     "k; answered: the measured row's"},
    {"fitted_per_sec", POINT(fitted, "%.1f", NONE),
     "the law at k (beyond the peak: the law's peak)"},
    {"residual_per_sec", FN(s_residual, "%.1f"),
     "a fitted point: measured minus the law"},
    {"beyond_range", FN(s_beyond, NULL),
     "1: predicted for a k outside the range fitted (k_min..k_max)"},
    {"law", FIT(law, NULL, 0),
     "USL, or Amdahl (kappa held at 0: 3 points); empty: no fit"},
    {"points", FIT(nfitted, NULL, 0), "the points fitted"},
    {"params", FIT(params, NULL, 0), "the parameters fitted (2 or 3)"},
    {"lambda", FIT(lambda, "%.1f", NONE), "msgs/s at k = 1, as fitted"},
    {"sigma", FIT(sigma, "%.6g", NONE), "contention"},
    {"kappa", FIT(kappa, "%.6g", NONE), "coherency"},
    {"residual_se", FIT(se, "%.1f", NONE),
     "the residuals' standard error: sqrt(sum r^2 / (points - params))"},
    {"k_min", FIT(kmin, "%g", NONE), "the range fitted: where it holds"},
    {"k_max", FIT(kmax, "%g", NONE), "...to"},
    {"need_per_sec", FIT(need, "%.1f", 0),
     "what the target needs: rate x (1 + headroom)"},
    {"why", POINT(why, NULL, COLUMN_QUOTED), "the reason, in words"},
};

const column_table_t columns_sizing_fit = {
    .file = "sizing_fit.csv",
    .columns = s_fit,
    .ncolumns = (int)(sizeof s_fit / sizeof *s_fit)};
