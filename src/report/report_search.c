/*  report_search: what a search (mode = search) shows.

    search.csv, one row per trial and link, flushed per trial:

        topology,size,trial,offered_per_sec,sent_per_sec,hop,from,to,
        received_per_sec,lost,loss_ratio,p99_us,pass,phase,verdict

    then the sweep_KEY columns.  offered_per_sec is what the publishers
    were asked for (the bound trial, flat out: what they sent);
    received_per_sec the hop's rate in the window; lost and loss_ratio the
    hop's whole trial; p99_us the end-to-end p99 (empty when not timed);
    pass the trial's verdict (1 pass, 0 fail or generator-limited), phase
    bound, step or confirm.  The table gets one line per size: the rate
    found and the bottleneck hop.
*/
#include "report/report.h"

#include <ctype.h>

void report_search_header(FILE *out, const report_info_t *info)
{
    fputs("topology,size,trial,offered_per_sec,sent_per_sec,hop,from,to,"
          "received_per_sec,lost,loss_ratio,p99_us,pass,phase,verdict",
          out);
    for (int i = 0; i < info->nsweep; i++) {
        fputs(",sweep_", out);
        for (const char *p = info->sweep_key[i]; *p; p++)
            fputc(isalnum((unsigned char)*p) ? *p : '_', out);
    }
    fputc('\n', out);
    fflush(out);
}

void report_search_rows(FILE *out, const report_info_t *info,
                        const search_trial_t *trial)
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
        fprintf(out, ",%d,%s,%s", trial->verdict == VERDICT_PASS,
                search_phase_names[trial->phase],
                search_verdict_names[trial->verdict]);
        for (int i = 0; i < info->nsweep; i++)
            fprintf(out, ",%s", info->sweep_value[i]);
        fputc('\n', out);
    }
    fflush(out);
}

//  "NDR: no hop lost anything" or "PDR: no hop lost more than 0.5 %"
static void s_criterion(const params_t *params, char *buf, size_t len)
{
    int used = params->loss_ratio > 0
                   ? snprintf(buf, len, "PDR: no hop lost more than %g %%",
                              100 * params->loss_ratio)
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
static void s_publishers(const search_outcome_t *outcome, char *buf,
                         size_t len)
{
    double worst = s_worst_loss(&outcome->confirmed);
    if (outcome->limited)
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

void report_search_summary(FILE *out, const search_outcome_t *outcome,
                           const params_t *params)
{
    char rate[32], criterion[96], where[2 * RESULTS_NAME_MAX + 40];
    s_criterion(params, criterion, sizeof criterion);
    if (outcome->limited || outcome->fail == 0)
        s_publishers(outcome, where, sizeof where);
    else if (outcome->latency)
        snprintf(where, sizeof where, "end-to-end latency (p99)");
    else
        snprintf(where, sizeof where, "%s", outcome->bottleneck_name);
    char fail[32], best[32];
    report_grouped(outcome->fail, fail, sizeof fail);
    report_grouped(outcome->best_step, best, sizeof best);
    if (outcome->found > 0) {
        fprintf(out,
                "      search: %s msgs/s offered (%s), confirmed for %g s; "
                "bottleneck %s; %d trials in %.1f s\n",
                report_grouped(outcome->found, rate, sizeof rate), criterion,
                params->search_confirm, where, outcome->trials,
                outcome->seconds);
        if (outcome->fail > 0 && (outcome->fail - outcome->found) /
                                         outcome->fail >
                                     params->search_precision)
            fprintf(out,
                    "      (not within search_precision: a trial at %s "
                    "msgs/s, above it, failed)\n",
                    fail);
    } else if (outcome->best_step > 0)
        fprintf(out,
                "      search: no rate held for %g s (%s): short trials "
                "passed up to %s msgs/s, confirmations failed down to %s "
                "msgs/s, bottleneck %s; %d trials in %.1f s\n",
                params->search_confirm, criterion, best, fail, where,
                outcome->trials, outcome->seconds);
    else
        fprintf(out,
                "      search: no offered rate passed (%s); lowest failure "
                "at %s msgs/s, bottleneck %s; %d trials in %.1f s\n",
                criterion, fail, where, outcome->trials, outcome->seconds);
    fflush(out);
}
