/*  compare_match: the rows of one comparison, base against other; see
    compare_internal.h.

    For a matched row: each side's median and its interval at 1 - alpha
    (order statistics), the delta of the medians b / a - 1, the Mann-
    Whitney p of the two sets of repeats, and the Hodges-Lehmann interval
    of the ratio b / a (on the logarithms, so a ratio's interval), also
    at 1 - alpha.  Geometric means go over the matched rows of one metric
    whose medians are both positive.  The notes name what differs between
    the two runs' metadata: topology, host, CPU, kernel, libzmq.
*/
#include "report/compare_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

//  n values, sorted into a copy: median and interval
static int s_side(const series_t *s, double confidence, side_stats_t *out)
{
    double *v = malloc((size_t)(s->n ? s->n : 1) * sizeof *v);
    if (!v)
        return -1;
    memcpy(v, s->values, (size_t)s->n * sizeof *v);
    stats_sort(v, s->n);
    out->n = s->n;
    out->median = stats_median_sorted(v, s->n);
    stats_median_ci(v, s->n, confidence, &out->ci);
    free(v);
    return 0;
}

static bool s_positive(const series_t *s)
{
    for (int i = 0; i < s->n; i++)
        if (!(s->values[i] > 0))
            return false;
    return s->n > 0;
}

//  The interval of b / a - 1, from the logarithms
static int s_shift(compare_row_t *row, double confidence)
{
    const series_t *a = row->a, *b = row->b;
    row->has_shift = s_positive(a) && s_positive(b);
    if (!row->has_shift)
        return 0;
    double *la = malloc((size_t)(a->n + b->n) * sizeof *la), *lb = la + a->n;
    if (!la)
        return -1;
    for (int i = 0; i < a->n; i++)
        la[i] = log(a->values[i]);
    for (int j = 0; j < b->n; j++)
        lb[j] = log(b->values[j]);
    int rc = stats_shift_ci(la, a->n, lb, b->n, confidence, &row->shift);
    row->shift.low = exp(row->shift.low) - 1;
    row->shift.high = exp(row->shift.high) - 1;
    free(la);
    return rc;
}

static int s_matched(compare_row_t *row, double alpha)
{
    if (s_side(row->a, 1 - alpha, &row->sa) ||
        s_side(row->b, 1 - alpha, &row->sb) ||
        stats_mann_whitney(row->a->values, row->a->n, row->b->values, row->b->n,
                           &row->mw) ||
        s_shift(row, 1 - alpha))
        return -1;
    row->delta = row->sa.median != 0 ? row->sb.median / row->sa.median - 1 : 0;
    row->significant = row->mw.p <= alpha;
    return 0;
}

static compare_row_t *s_row(comparison_t *self, const series_t *a,
                            const series_t *b)
{
    compare_row_t *row = &self->rows[self->nrows++];
    memset(row, 0, sizeof *row);
    row->a = a;
    row->b = b;
    return row;
}

//  Geometric means per metric, over the matched rows
static void s_geomeans(comparison_t *self)
{
    static const char *const metrics[] = {"msgs/s", "p50_us", "p99_us"};
    for (int m = 0; m < 3; m++) {
        double la = 0, lb = 0;
        int n = 0;
        for (int r = 0; r < self->nrows; r++) {
            const compare_row_t *row = &self->rows[r];
            if (!row->a || !row->b || strcmp(row->a->metric, metrics[m]) ||
                !(row->sa.median > 0 && row->sb.median > 0))
                continue;
            la += log(row->sa.median);
            lb += log(row->sb.median);
            n++;
        }
        if (n == 0)
            continue;
        compare_geomean_t *g = &self->geomean[self->ngeomean++];
        snprintf(g->metric, sizeof g->metric, "%s", metrics[m]);
        g->n = n;
        g->a = exp(la / n);
        g->b = exp(lb / n);
        g->delta = g->b / g->a - 1;
    }
}

static void s_note(comparison_t *self, const char *what, const char *a,
                   const char *b)
{
    if (!*a || !*b || strcmp(a, b) == 0)
        return;
    size_t used = strlen(self->notes);
    snprintf(self->notes + used, sizeof self->notes - used,
             "%s differs: %s in %s, %s in %s\n", what, a, self->base->label, b,
             self->other->label);
}

//  The first matched row whose hop ran between other hosts
static void s_host_note(comparison_t *self)
{
    for (int r = 0; r < self->nrows; r++) {
        const compare_row_t *row = &self->rows[r];
        if (!row->a || !row->b || strcmp(row->a->hosts, row->b->hosts) == 0)
            continue;
        size_t used = strlen(self->notes);
        snprintf(
            self->notes + used, sizeof self->notes - used,
            "hosts of a hop differ: size %u hop %s %s in %s, %s in %s "
            "(and maybe more)\n",
            row->a->size, row->a->hop,
            row->a->hosts[0] ? row->a->hosts : "one host", self->base->label,
            row->b->hosts[0] ? row->b->hosts : "one host", self->other->label);
        return;
    }
}

static void s_notes(comparison_t *self)
{
    s_host_note(self);
    const side_t *a = self->base, *b = self->other;
    if (strcmp(a->dir, b->dir) == 0)
        return; //  --by: one run
    s_note(self, "topology", a->topology, b->topology);
    s_note(self, "host", a->host, b->host);
    s_note(self, "CPU", a->cpu, b->cpu);
    s_note(self, "kernel", a->kernel, b->kernel);
    s_note(self, "libzmq", a->libzmq, b->libzmq);
}

int compare_match(comparison_t *self, const side_t *base, const side_t *other,
                  double alpha, bool by_mode, errbuf_t *err)
{
    memset(self, 0, sizeof *self);
    self->base = base;
    self->other = other;
    self->alpha = alpha;
    self->rows = calloc((size_t)(base->nseries + other->nseries + 1),
                        sizeof *self->rows);
    bool *used = calloc((size_t)other->nseries + 1, sizeof *used);
    int rc = self->rows && used ? 0 : -1;
    //  two runs of one shape list their series in one order: look after
    //  the last match first
    for (int i = 0, hint = 0; rc == 0 && i < base->nseries; i++) {
        const series_t *a = &base->series[i], *b = NULL;
        for (int k = 0; !b && k < other->nseries; k++) {
            int j = (hint + k) % other->nseries;
            if (!used[j] && compare_series_match(a, &other->series[j], by_mode))
                b = &other->series[j], used[j] = true, hint = j + 1;
        }
        compare_row_t *row = s_row(self, a, b);
        rc = b ? s_matched(row, alpha) : s_side(a, 1 - alpha, &row->sa);
    }
    for (int j = 0; rc == 0 && j < other->nseries; j++)
        if (!used[j])
            rc = s_side(&other->series[j], 1 - alpha,
                        &s_row(self, NULL, &other->series[j])->sb);
    free(used);
    if (rc)
        return err_set(err, "out of memory");
    s_geomeans(self);
    s_notes(self);
    return 0;
}

void compare_free(comparison_t *self)
{
    free(self->rows);
    self->rows = NULL;
    self->nrows = 0;
}
