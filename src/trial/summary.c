/*  summary: medians and intervals over a size's repeats; see summary.h.

    Every figure is taken out of the trials by a small getter, sorted in
    one scratch array, and its median kept; the rate also keeps its
    interval.  Latency distributions are matched across the trials by
    their label (e2e, or a hop), since a trial may lack one.
*/
#include "trial/summary.h"

#include "base/check.h"
#include "base/text.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef double (*getter_t)(const trial_result_t *trial, int index);

static double s_rate(const trial_result_t *t, int l)
{
    return link_rate(&t->links[l]);
}
static double s_mbps(const trial_result_t *t, int l)
{
    return link_rate(&t->links[l]) * t->size / 1e6;
}
static double s_sent_rate(const trial_result_t *t, int l)
{
    return link_sent_rate(&t->links[l]);
}

//  The figures of LINK_MEDIANS: a getter each, and where its median goes
#define S_GETTER(field, flags)                                                 \
    static double s_##field(const trial_result_t *t, int l)                    \
    {                                                                          \
        return (double)t->links[l].field;                                      \
    }
LINK_MEDIANS(S_GETTER)
#undef S_GETTER

static const struct {
    size_t offset; //  in link_summary_t
    getter_t get;
    bool optional;
} s_medians[] = {
#define S_MEDIAN(field, flags)                                                 \
    {offsetof(link_summary_t, field), s_##field, (flags)&LINK_OPTIONAL},
    LINK_MEDIANS(S_MEDIAN)
#undef S_MEDIAN
};

//  The median of one figure over the trials, sorted into scratch; -1 when
//  'optional' and some trial has none (a negative value)
static double s_median(const trial_result_t *trials, int n, int l, getter_t get,
                       bool optional, double *scratch)
{
    for (int t = 0; t < n; t++) {
        scratch[t] = get(&trials[t], l);
        if (optional && scratch[t] < 0)
            return -1;
    }
    stats_sort(scratch, n);
    return stats_median_sorted(scratch, n);
}

//  The first trial's CPUs or nodes when all agree, else "-1" (the field
//  at offset in link_row_t, a string of RESULTS_WHERE_MAX)
static void s_agreed(char *out, const trial_result_t *trials, int n, int l,
                     size_t offset)
{
    const char *first = (const char *)&trials[0].links[l] + offset;
    snprintf(out, RESULTS_WHERE_MAX, "%s", first);
    for (int t = 1; t < n; t++)
        if (strcmp((const char *)&trials[t].links[l] + offset, first) != 0)
            snprintf(out, RESULTS_WHERE_MAX, "-1");
}

//  The most of a figure over the repeats, -1 if one did not know it
static double s_most(double most, double value)
{
    return most < 0 || value < 0 ? -1 : value > most ? value : most;
}

static void s_starved(link_summary_t *s, const trial_result_t *trials, int n,
                      int l)
{
    double worst = -1;
    s->starved = s->stalled = 0;
    s->from_wait_pct = s->to_wait_pct = s->steal_pct = 0;
    for (int t = 0; t < n; t++) {
        const link_row_t *row = &trials[t].links[l];
        s->stalled += row->stalled;
        s->from_wait_pct = s_most(s->from_wait_pct, row->from_wait_pct);
        s->to_wait_pct = s_most(s->to_wait_pct, row->to_wait_pct);
        s->steal_pct = s_most(s->steal_pct, row->steal_pct);
        if (row->starved < 0 && s->starved == 0)
            s->starved = -1;
        if (row->starved != 1)
            continue;
        s->starved = s->starved > 0 ? s->starved + 1 : 1;
        double wait = row->from_wait_pct > row->to_wait_pct ? row->from_wait_pct
                                                            : row->to_wait_pct;
        if (wait > worst) {
            worst = wait;
            snprintf(s->starved_note, sizeof s->starved_note, "%s",
                     row->starved_note);
        }
    }
}

static void s_link_figures(link_summary_t *s, const trial_result_t *trials,
                           int n, int l, double *v)
{
    for (size_t m = 0; m < sizeof s_medians / sizeof s_medians[0]; m++)
        *(double *)((char *)s + s_medians[m].offset) =
            s_median(trials, n, l, s_medians[m].get, s_medians[m].optional, v);
    s->lost = s->expected - s->received; //  as on every row
    s->sockets = trials[0].links[l].sockets;
    s->mbps = s_median(trials, n, l, s_mbps, false, v);
    s->sent_rate = s_median(trials, n, l, s_sent_rate, false, v);
    s_agreed(s->from_cpu, trials, n, l, offsetof(link_row_t, from_cpu));
    s_agreed(s->to_cpu, trials, n, l, offsetof(link_row_t, to_cpu));
    s_agreed(s->from_node, trials, n, l, offsetof(link_row_t, from_node));
    s_agreed(s->to_node, trials, n, l, offsetof(link_row_t, to_node));
    int bound = 0;
    for (int t = 0; t < n; t++) {
        const link_row_t *row = &trials[t].links[l];
        bound += row->hwm_bound;
        s->sent_all += row->sent;
        s->expected_all += row->expected;
        s->lost_all += (uint64_t)link_lost(row);
    }
    s->hwm_bound = 2 * bound > n;
    s_starved(s, trials, n, l);
}

static void s_link(summary_t *self, const trial_result_t *trials, int l,
                   double *v)
{
    link_summary_t *s = &self->links[l];
    const link_row_t *first = &trials[0].links[l];
    int n = self->n;
    s->hop = first->hop;
    TEXT_SET(s->from, first->from);
    TEXT_SET(s->to, first->to);
    TEXT_SET(s->from_host, first->from_host);
    TEXT_SET(s->to_host, first->to_host);
    TEXT_SET(s->transport, first->transport);
    s->bound_rate = first->bound_rate;
    s_link_figures(s, trials, n, l, v);
    s->rate = s_median(trials, n, l, s_rate, false, v); //  v sorted
    s->rate_min = v[0];
    s->rate_max = v[n - 1];
    stats_median_ci(v, n, self->confidence, &s->ci);
    double below = s->rate - s->ci.low, above = s->ci.high - s->rate;
    s->spread = s->rate > 0 ? (below > above ? below : above) / s->rate : 0;
    s->precise = self->precision <= 0                            ? -1
                 : s->ci.reached && s->spread <= self->precision ? 1
                                                                 : 0;
}

//  ---------------------------------------------------------------------
//  Latency

static const latency_row_t *s_find(const trial_result_t *trial, const char *hop)
{
    for (int r = 0; r < trial->nlatency; r++)
        if (strcmp(trial->latency[r].hop, hop) == 0)
            return &trial->latency[r];
    return NULL;
}

//  The median over the trials that have it of one percentile (0: mean,
//  > 100: max), in microseconds; v is left sorted
static double s_percentile(const trial_result_t *trials, int n, const char *hop,
                           double which, double *v, int *got)
{
    *got = 0;
    for (int t = 0; t < n; t++) {
        const latency_row_t *row = s_find(&trials[t], hop);
        if (!row)
            continue;
        const histogram_t *h = &row->histogram;
        v[(*got)++] = (which == 0    ? histogram_mean(h)
                       : which > 100 ? (double)histogram_max(h)
                                     : histogram_percentile(h, which)) /
                      1e3;
    }
    stats_sort(v, *got);
    return stats_median_sorted(v, *got);
}

static void s_latency(latency_summary_t *s, const summary_t *self,
                      const trial_result_t *trials, const char *hop, double *v)
{
    int n = self->n, got;
    TEXT_SET(s->hop, hop);
    for (int t = 0; t < n; t++) {
        const latency_row_t *row = s_find(&trials[t], hop);
        s->samples += row ? histogram_count(&row->histogram) : 0;
    }
    s->mean = s_percentile(trials, n, hop, 0, v, &got);
    s->p90 = s_percentile(trials, n, hop, 90, v, &got);
    s->p999 = s_percentile(trials, n, hop, 99.9, v, &got);
    s->p9999 = s_percentile(trials, n, hop, 99.99, v, &got);
    s->max = s_percentile(trials, n, hop, 101, v, &got);
    s->p50 = s_percentile(trials, n, hop, 50, v, &got);
    stats_median_ci(v, got, self->confidence, &s->p50_ci);
    s->p99 = s_percentile(trials, n, hop, 99, v, &got);
    stats_median_ci(v, got, self->confidence, &s->p99_ci);
    s->n = got;
}

//  Every label any trial has, in first-seen order
static int s_latencies(summary_t *self, const trial_result_t *trials, double *v)
{
    int most = 0;
    for (int t = 0; t < self->n; t++)
        most += trials[t].nlatency;
    if (most == 0)
        return 0;
    if (!(self->latency = calloc((size_t)most, sizeof *self->latency)))
        return -1;
    for (int t = 0; t < self->n; t++)
        for (int r = 0; r < trials[t].nlatency; r++) {
            const char *hop = trials[t].latency[r].hop;
            int k = 0;
            while (k < self->nlatency && strcmp(self->latency[k].hop, hop))
                k++;
            if (k == self->nlatency)
                s_latency(&self->latency[self->nlatency++], self, trials, hop,
                          v);
        }
    return 0;
}

int summary_make(summary_t *self, const trial_result_t *trials, int n,
                 double confidence, double precision)
{
    memset(self, 0, sizeof *self);
    if (n < 1)
        return 0;
    self->size = trials[0].size;
    self->n = n;
    self->confidence = confidence;
    self->precision = precision;
    self->nlinks = trials[0].nlinks;
    double *v = malloc((size_t)n * sizeof *v);
    self->links =
        calloc((size_t)(self->nlinks ? self->nlinks : 1), sizeof *self->links);
    if (!v || !self->links || s_latencies(self, trials, v)) {
        free(v);
        summary_free(self);
        return -1;
    }
    self->precise = precision > 0;
    for (int l = 0; l < self->nlinks; l++) {
        s_link(self, trials, l, v);
        self->precise &= self->links[l].precise == 1;
    }
    free(v);
    return 0;
}

void summary_free(summary_t *self)
{
    free(self->links);
    free(self->latency);
    self->links = NULL;
    self->latency = NULL;
    self->nlinks = self->nlatency = 0;
}

//  ---------------------------------------------------------------------
//  Selftest: made-up trials of one link

static void s_fake(trial_result_t *t, link_row_t *link, double rate)
{
    memset(link, 0, sizeof *link);
    link->hop = 1;
    link->seconds = 1;
    link->sent = link->received = link->window_received = (uint64_t)rate;
    link->expected = link->sent;
    link->selectivity = 1;
    link->from_cpu_ns = link->to_cpu_ns = -1;
    link->seq_lost = -1;
    *t = (trial_result_t){.size = 64, .repeat = 1, .nlinks = 1, .links = link};
}

int summary_test(bool verbose)
{
    (void)verbose;
    static const double rates[] = {100, 104, 98, 101, 99, 102, 103, 97, 150};
    trial_result_t trials[9];
    link_row_t links[9];
    for (int i = 0; i < 9; i++)
        s_fake(&trials[i], &links[i], rates[i]);
    summary_t s;
    //  3 repeats: min-max, short of 0.95, so never precise
    CHECK(summary_make(&s, trials, 3, 0.95, 0.5) == 0);
    CHECK(s.n == 3 && s.links[0].rate == 100 && s.links[0].ci.low == 98);
    CHECK(s.links[0].ci.high == 104 && !s.links[0].ci.reached);
    CHECK(s.links[0].precise == 0 && !s.precise);
    summary_free(&s);
    //  6 repeats reach 0.95 (min-max); spread 3.5 / 100.5 is within 5 %
    CHECK(summary_make(&s, trials, 6, 0.95, 0.05) == 0);
    CHECK(s.links[0].rate == 100.5 && s.links[0].ci.reached);
    CHECK(s.links[0].precise == 1 && s.precise);
    CHECK(s.links[0].spread > 0.034 && s.links[0].spread < 0.035);
    summary_free(&s);
    //  9 repeats: x(2)..x(8), so the outlier 150 is outside; but not 2 %
    CHECK(summary_make(&s, trials, 9, 0.95, 0.02) == 0);
    CHECK(s.links[0].ci.low == 98 && s.links[0].ci.high == 104);
    CHECK(s.links[0].precise == 0 && !s.precise);
    summary_free(&s);
    //  no precision asked: precise is -1
    CHECK(summary_make(&s, trials, 9, 0.95, 0) == 0);
    CHECK(s.links[0].precise == -1 && !s.precise);
    summary_free(&s);
    //  CPUs and nodes: the repeats' when they agree ("0+1" as well)
    for (int i = 0; i < 3; i++) {
        snprintf(links[i].from_cpu, RESULTS_WHERE_MAX, "0+1");
        snprintf(links[i].to_cpu, RESULTS_WHERE_MAX, "%d", i == 2 ? 3 : 2);
        snprintf(links[i].from_node, RESULTS_WHERE_MAX, "-1");
    }
    CHECK(summary_make(&s, trials, 3, 0.95, 0) == 0);
    CHECK(strcmp(s.links[0].from_cpu, "0+1") == 0);
    CHECK(strcmp(s.links[0].to_cpu, "-1") == 0);
    CHECK(strcmp(s.links[0].from_node, "-1") == 0);
    summary_free(&s);
    CHECK(summary_repeats_needed(0.95) == 6 &&
          summary_repeats_needed(0.99) == 8);
    return 0;
}

int summary_repeats_needed(double confidence)
{
    int lo, hi;
    double coverage;
    for (int n = 2; n < 64; n++)
        if (stats_median_ranks(n, confidence, &lo, &hi, &coverage))
            return n;
    return 64;
}
