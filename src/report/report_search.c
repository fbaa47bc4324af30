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
    fail or generator-limited), phase bound, step or confirm; window the
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
    PDR(0.005)) and one with the search's trials and wall time.
*/
#include "report/report.h"

#include <ctype.h>

static void s_sweep_header(FILE *out, const report_info_t *info)
{
    for (int i = 0; i < info->nsweep; i++) {
        fputs(",sweep_", out);
        for (const char *p = info->sweep_key[i]; *p; p++)
            fputc(isalnum((unsigned char)*p) ? *p : '_', out);
    }
    fputc('\n', out);
    fflush(out);
}

static void s_sweep_values(FILE *out, const report_info_t *info)
{
    for (int i = 0; i < info->nsweep; i++)
        fprintf(out, ",%s", info->sweep_value[i]);
    fputc('\n', out);
}

static const char *s_yes_no(int starved)
{
    return starved > 0 ? "yes" : starved == 0 ? "no" : "unknown";
}

void report_search_header(FILE *out, const report_info_t *info)
{
    fputs("topology,size,trial,offered_per_sec,sent_per_sec,hop,from,to,"
          "received_per_sec,lost,loss_ratio,p99_us,pass,phase,verdict,"
          "window,starved,passed,cut_short,setup_seconds,drain_seconds,"
          "pipeline",
          out);
    s_sweep_header(out, info);
}

//  "0 0.005": the ratios the trial passed
static void s_passed(FILE *out, const search_trial_t *trial,
                     const params_t *params)
{
    const char *sep = "";
    fputc(',', out);
    for (int k = 0; k < trial->nratios; k++)
        if (trial->verdicts[k] == VERDICT_PASS) {
            fprintf(out, "%s%g", sep, params->loss_ratio.ratio[k]);
            sep = " ";
        }
}

void report_search_rows(FILE *out, const report_info_t *info,
                        const search_trial_t *trial, const params_t *params)
{
    const trial_result_t *result = trial->result;
    for (int l = 0; l < result->nlinks; l++) {
        const link_row_t *row = &result->links[l];
        uint64_t lost = (uint64_t)link_lost(row);
        fprintf(out, "%s,%u,%d,%.1f,%.1f,%d,%s,%s,%.1f,%llu,%.6f,",
                info->topology, result->size, trial->number, trial->offered,
                trial->sent, row->hop, row->from, row->to, link_rate(row),
                (unsigned long long)lost,
                row->expected ? (double)lost / (double)row->expected : 0.0);
        if (trial->p99_us >= 0)
            fprintf(out, "%.3f", trial->p99_us);
        fprintf(out, ",%d,%s,%s,%g,%s", trial->verdict == VERDICT_PASS,
                search_phase_names[trial->phase],
                search_verdict_names[trial->verdict], trial->window,
                s_yes_no(trial->starved));
        s_passed(out, trial, params);
        fprintf(out, ",%d,%.3f,%.3f,%s", trial->cut_short,
                result->setup_seconds, result->drain_seconds, result->pipeline);
        s_sweep_values(out, info);
    }
    fflush(out);
}

static const char *s_starved_all(const search_found_t *f)
{
    if (search_starved_all(f))
        return "yes";
    return f->failures > 0 && f->starved + f->unknown == f->failures
               ? "unknown"
               : "no";
}

static const char *s_set_by(const search_found_t *f)
{
    if (f->limited || f->fail == 0)
        return "publishers";
    return search_starved_all(f) ? "machine" : "pipeline";
}

void report_search_summary_header(FILE *out, const report_info_t *info)
{
    fputs("topology,size,loss_ratio,found,fail,best_step,trials,seconds,"
          "bottleneck,failures,starved_failures,starved_all,set_by",
          out);
    s_sweep_header(out, info);
}

void report_search_summary_rows(FILE *out, const report_info_t *info,
                                uint32_t size, const search_outcome_t *outcome)
{
    for (int k = 0; k < outcome->nratios; k++) {
        const search_found_t *f = &outcome->ratio[k];
        char bottleneck[24] = "publishers";
        if (!(f->limited || f->fail == 0) && f->latency)
            snprintf(bottleneck, sizeof bottleneck, "p99");
        else if (!(f->limited || f->fail == 0) && f->bottleneck >= 0)
            snprintf(bottleneck, sizeof bottleneck, "hop%d",
                     f->bottleneck_hop);
        fprintf(out, "%s,%u,%g,%.1f,%.1f,%.1f,%d,%.3f,%s,%d,%d,%s,%s",
                info->topology, size, f->ratio, f->found, f->fail,
                f->best_step, f->trials, f->seconds, bottleneck, f->failures,
                f->starved, s_starved_all(f), s_set_by(f));
        s_sweep_values(out, info);
    }
    fflush(out);
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
        double share = row->sent ? (double)(row->sent - row->received) /
                                       (double)row->sent
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
        snprintf(buf, len, "the publishers (they sent less than asked: "
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
                "      search: %s msgs/s offered (%s), confirmed for %g s; "
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
                           const params_t *params)
{
    for (int k = 0; k < outcome->nratios; k++)
        s_ratio_line(out, outcome, k, params);
    fprintf(out,
            "      wall time of the search: %.1f s (windows %.1f s, "
            "overhead %.1f s), %d trials",
            outcome->seconds, outcome->windows,
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
