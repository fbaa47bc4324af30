/*  report_search: what a search (mode = search) shows.

    search.csv, one row per trial and link, flushed per trial:

        topology,size,trial,offered_per_sec,sent_per_sec,hop,from,to,
        received_per_sec,lost,loss_ratio,p99_us,pass,phase,verdict,
        window,starved,passed,cut_short,setup_seconds,drain_seconds,
        pipeline

    then the sweep_KEY columns.  offered_per_sec is what the publishers
    were asked for (the bound trial, flat out: what they sent);
    received_per_sec the hop's rate in the window; lost and loss_ratio the
    hop's whole trial; p99_us the end-to-end p99 (empty when not timed);
    pass the trial's verdict against the smallest loss ratio (1 pass, 0
    fail, generator-limited, unjudged or behind), phase bound, step or confirm; window the
    trial's seconds (steps are shorter while the bounds are wide, and a
    trial cut short ends early); starved yes, no or unknown (a stage
    waited for a CPU during it); passed the loss ratios it passed,
    space-separated ("0 0.005", or empty); cut_short 1 when its window
    ended early, once it had lost more than a loss ratio allows of the
    whole trial (the bound and steps: the largest; a confirmation: its
    own, trial/search.h), else 0.  setup_seconds the trial's time before
    its window (set-up, handshake, warm-up), drain_seconds after it (the
    drain, the stops, the checks); pipeline fresh, reused (the one the
    size's last trial left up: search_reuse) or fallback:WHY (fresh, as
    the one left up could not serve: late, its messages met another
    trial's; verify, its counts did not add up; drain, it did not go
    still).

    search_summary.csv, one row per size and loss ratio, flushed per size:

        topology,size,loss_ratio,found,fail,best_step,trials,seconds,
        bottleneck,failures,starved_failures,starved_all,set_by

    then the sweep_KEY columns: the rate confirmed (0: none), the lowest
    failing rate, the highest short pass; trials and seconds of the search
    when this ratio was settled; bottleneck the hop that lost first
    (hop1, ...), p99 or publishers; starved_all yes when every failure was
    starved, unknown when some were not known, else no; set_by machine
    (every failure starved), publishers (they could not offer more, or
    nothing failed) or pipeline.  The table gets one line per ratio (NDR,
    PDR(0.005)) and one with the search's trials and wall time.  A ratio's
    line gives the rate offered (asked of the publishers); the rows above
    it are its confirmation's, each hop's msgs/s what it took in that
    window, near the rate offered but not it (an open-loop publisher
    catches up after a wait; the window's edges cut its schedule).
*/
#include "report/report.h"

#include "report/columns.h"

#include "base/limits.h"
#include "base/stats.h"

void report_search_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_search, info);
}

void report_search_rows(FILE *out, const report_info_t *info,
                        const search_trial_t *trial, const params_t *params)
{
    const trial_result_t *result = trial->result;
    column_ctx_t ctx = {
        .info = info, .size = result->size, .of = trial, .params = params};
    columns_rows(out, &columns_search, ctx, result->links, result->nlinks,
                 sizeof *result->links, false);
}

void report_search_summary_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_search_summary, info);
}

void report_search_summary_rows(FILE *out, const report_info_t *info,
                                uint32_t size, const search_outcome_t *outcome)
{
    column_ctx_t ctx = {.info = info, .size = size};
    columns_rows(out, &columns_search_summary, ctx, outcome->ratio,
                 outcome->nratios, sizeof *outcome->ratio, false);
}

//  "NDR: no hop lost anything" or "PDR(0.005): no hop lost more than
//  0.5 %"; with p99_us, ", p99 <= 100 us"
static void s_criterion(double ratio, const params_t *params, char *buf,
                        size_t len)
{
    int used = ratio > 0
                   ? snprintf(buf, len, "PDR(%g): no hop lost more than %g %%",
                              ratio, 100 * ratio)
                   : snprintf(buf, len, "NDR: no hop lost anything");
    if (params->p99_us > 0 && used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, ", p99 <= %g us",
                 params->p99_us);
}

//  The largest share of its messages a hop of the trial lost
static double s_worst_loss(const trial_result_t *trial)
{
    double worst = 0;
    for (int l = 0; l < trial->nlinks; l++) {
        const link_row_t *row = &trial->links[l];
        double share =
            row->sent ? (double)(row->sent - row->received) / (double)row->sent
                      : 0;
        worst = share > worst ? share : worst;
    }
    return worst;
}

//  Why the publishers were the limit: what they sent, and what was lost
static void s_publishers(const search_found_t *f, const trial_result_t *rows,
                         char *buf, size_t len)
{
    double worst = s_worst_loss(rows);
    if (f->limited)
        snprintf(buf, len,
                 "the publishers (they sent less than asked: "
                 "generator-limited)");
    else if (worst > 0)
        snprintf(buf, len,
                 "the publishers (they sent flat out; a hop lost %.3g %%, "
                 "within loss_ratio)",
                 100 * worst);
    else
        snprintf(buf, len,
                 "the publishers (they sent flat out and nothing was lost)");
}

//  One ratio's line (and its notes)
static void s_ratio_line(FILE *out, const search_outcome_t *outcome, int k,
                         const params_t *params)
{
    const search_found_t *f = &outcome->ratio[k];
    char rate[32], criterion[96], where[2 * RESULTS_NAME_MAX + 40];
    char fail[32], best[32];
    s_criterion(f->ratio, params, criterion, sizeof criterion);
    if (f->limited || f->fail == 0)
        s_publishers(f, search_rows(outcome, k), where, sizeof where);
    else if (f->latency)
        snprintf(where, sizeof where, "end-to-end latency (p99)");
    else
        snprintf(where, sizeof where, "%s", f->bottleneck_name);
    report_grouped(f->fail, fail, sizeof fail);
    report_grouped(f->best_step, best, sizeof best);
    if (f->found > 0) {
        fprintf(out,
                "      search: %s msgs/s offered (%s), confirmed for %g s "
                "(the rows: what each hop took in that window); "
                "bottleneck %s; settled after %d trials, %.1f s\n",
                report_grouped(f->found, rate, sizeof rate), criterion,
                params->search_confirm, where, f->trials, f->seconds);
        if (f->fail > 0 &&
            (f->fail - f->found) / f->fail > params->search_precision)
            fprintf(out,
                    "      (not within search_precision: a trial at %s "
                    "msgs/s, above it, failed)\n",
                    fail);
    } else if (f->best_step > 0)
        fprintf(out,
                "      search: no rate held for %g s (%s): short trials "
                "passed up to %s msgs/s, confirmations failed down to %s "
                "msgs/s, bottleneck %s\n",
                params->search_confirm, criterion, best, fail, where);
    else
        fprintf(out,
                "      search: no offered rate passed (%s); lowest failure "
                "at %s msgs/s, bottleneck %s\n",
                criterion, fail, where);
    if (f->found > 0 && f->rows != k)
        fprintf(out,
                "      (the confirmation of loss_ratio %g, which passed this "
                "one too: none above it held)\n",
                outcome->ratio[f->rows].ratio);
    if (search_starved_all(f))
        fprintf(out,
                "      (every one of its %d failures was starved: a stage "
                "waited for a CPU; the rate is the machine's, not the "
                "pipeline's)\n",
                f->failures);
}

void report_search_summary(FILE *out, const search_outcome_t *outcome,
                           const params_t *params, int search)
{
    char which[40] = "the search";
    if (params->repeat > 1)
        snprintf(which, sizeof which, "search %d of %d", search,
                 params->repeat);
    for (int k = 0; k < outcome->nratios; k++)
        s_ratio_line(out, outcome, k, params);
    fprintf(out,
            "      wall time of %s: %.1f s (windows %.1f s, "
            "overhead %.1f s), %d trials",
            which, outcome->seconds, outcome->windows,
            outcome->seconds > outcome->windows
                ? outcome->seconds - outcome->windows
                : 0.0,
            outcome->trials);
    if (outcome->cut_short > 0)
        fprintf(out, " (%d cut short once they had failed)",
                outcome->cut_short);
    fputc('\n', out);
    fflush(out);
}

void report_search_repeats(FILE *out, const double *found, int n,
                           const ratios_t *ratios)
{
    double held[LIMIT_REPEAT];
    for (int k = 0; k < (ratios->n > 0 ? ratios->n : 1); k++) {
        int m = 0;
        for (int r = 0; r < n && m < LIMIT_REPEAT; r++)
            if (found[(size_t)r * PARAMS_MAX_RATIOS + k] > 0)
                held[m++] = found[(size_t)r * PARAMS_MAX_RATIOS + k];
        char name[40] = "NDR", median[32], lo[32], hi[32];
        if (ratios->n > 0 && ratios->ratio[k] > 0)
            snprintf(name, sizeof name, "PDR(%g)", ratios->ratio[k]);
        if (m == 0) {
            fprintf(out, "  %s over %d searches: none held\n", name, n);
            continue;
        }
        stats_sort(held, m);
        fprintf(
            out, "  %s over %d searches: median %s msgs/s (min %s, max %s)",
            name, n,
            report_grouped(stats_median_sorted(held, m), median, sizeof median),
            report_grouped(held[0], lo, sizeof lo),
            report_grouped(held[m - 1], hi, sizeof hi));
        if (m < n)
            fprintf(out, "; %d of them held none", n - m);
        fputc('\n', out);
    }
    fflush(out);
}

void report_latency_at_line(FILE *out, double fraction, double found,
                            double ratio, const trial_result_t *trial)
{
    const latency_row_t *e2e = NULL;
    for (int r = 0; r < trial->nlatency; r++)
        if (strcmp(trial->latency[r].hop, "e2e") == 0)
            e2e = &trial->latency[r];
    fprintf(out, "  latency at %.0f%% of %s %.0f msgs/s (%.0f offered): ",
            100 * fraction, ratio > 0 ? "PDR" : "NDR", found, fraction * found);
    if (!e2e || histogram_count(&e2e->histogram) == 0) {
        fputs("no samples\n", out);
        return;
    }
    const histogram_t *h = &e2e->histogram;
    fprintf(out, "p50 %.1f us, p90 %.1f, p99 %.1f, p99.9 %.1f, max %.1f\n",
            histogram_percentile(h, 50) / 1e3,
            histogram_percentile(h, 90) / 1e3,
            histogram_percentile(h, 99) / 1e3,
            histogram_percentile(h, 99.9) / 1e3, histogram_max(h) / 1e3);
}
