/*  run_search: mode = search, a size at a time.  The search itself
    (trial/search.c) chooses each trial's rate; this file gives it the
    run's trials (the session's, a stall's retry included), takes each judged
    trial to the files (search.csv and the rest, session_files.c), and
    ends the size with each ratio's confirmed rows (results.csv, with
    their loss_ratio), search_summary.csv and the table's lines.  With
    --profile syscalls, a size's search has one traced twin: a trial at
    the rate the table's rows confirmed, as long as the confirmation, on
    the same pipeline, after the search (syscalls.csv, the table's
    block); the search's own trials are never traced.
*/
#include "run/run_internal.h"

#include "base/mono.h"
#include "trial/latency_at.h"

#include <stdio.h>
#include <stdlib.h>

static int s_search_trial(void *ctx, const trial_spec_t *spec,
                          trial_result_t *result, errbuf_t *err)
{
    run_t *self = ctx;
    const params_t *params = &self->current->params;
    progress_trial(session_progress(self->session), spec->size,
                   self->size_index + 1, params->sizes.n, spec->repeat,
                   run_search_budget(params));
    trial_spec_t kept = *spec;
    kept.keep_up = true;
    return session_trial(self->session, &kept, result, err);
}

static void s_search_judged(void *ctx, const search_trial_t *trial)
{
    run_t *self = ctx;
    session_rows_judged(self->session, trial);
}

//  Each ratio's confirmed rows, in results.csv with its loss_ratio
static void s_search_rows(run_t *self, search_outcome_t *outcome)
{
    report_info_t *info = session_info(self->session);
    for (int k = 0; k < outcome->nratios; k++) {
        trial_result_t found = *search_rows(outcome, k);
        if (!found.nlinks)
            continue;
        found.repeat = info->search;
        snprintf(info->loss_ratio, sizeof info->loss_ratio, "%g",
                 outcome->ratio[k].ratio);
        session_rows_results(self->session, &found);
    }
    info->loss_ratio[0] = 0;
}

//  The confirmation whose rows the table shows: the smallest ratio's
//  of those confirmed (NULL when none was)
static const search_found_t *s_shown(const search_outcome_t *outcome)
{
    for (int k = 0; k < outcome->nratios; k++) {
        const search_found_t *f = &outcome->ratio[outcome->ratio[k].rows];
        if (f->confirmed.nlinks)
            return f;
    }
    return NULL;
}

//  The table: the smallest ratio's confirmed rows (of those confirmed),
//  a line per ratio
static void s_search_table(run_t *self, const search_outcome_t *outcome)
{
    const search_found_t *found = s_shown(outcome);
    report_info_t *info = session_info(self->session);
    summary_t summary;
    if (self->options->format != FORMAT_TABLE)
        return;
    progress_end(session_progress(self->session));
    if (found && summary_make(&summary, &found->confirmed, 1, 0.95, 0) == 0) {
        report_table_size(stdout, info, &summary);
        summary_free(&summary);
    }
    report_search_summary(stdout, outcome, &self->current->params,
                          info->search);
}

//  --profile: the search's traced twin, on the pipeline it kept up
static int s_traced_twin(run_t *self, const trial_spec_t *base,
                         const search_outcome_t *outcome, errbuf_t *err)
{
    const params_t *params = &self->current->params;
    const search_found_t *shown = s_shown(outcome);
    if (params->profile == PROFILE_NONE || !shown)
        return 0;
    int publishers = self->current->norigins > 0 ? self->current->norigins : 1;
    trial_spec_t twin = *base;
    twin.repeat = outcome->trials + 1;
    twin.rate = shown->flat_out ? 0 : shown->found / publishers;
    twin.timed = params->p99_us > 0;
    twin.messages = 0;
    twin.duration = params->search_confirm;
    twin.profile = true;
    progress_trial(session_progress(self->session), twin.size,
                   self->size_index + 1, params->sizes.n, twin.repeat,
                   run_search_budget(params));
    trial_result_t traced;
    twin.keep_up = true;
    if (!trial_may_keep_up(self->current)) //  as between the search's trials
        mono_sleep(SEARCH_SETTLE_S);
    if (session_trial(self->session, &twin, &traced, err))
        return -1;
    report_info_t *info = session_info(self->session);
    traced.repeat = info->search;
    int rc = session_rows_syscalls(self->session, &traced, err);
    if (rc == 0 && self->options->format == FORMAT_TABLE)
        report_syscalls_table(stdout, info, &shown->confirmed, &traced, 1);
    trial_result_free(&traced);
    return rc;
}

//  latency_at: an open-loop trial's rows in latency.csv, a table line
static void s_latency_at_row(void *ctx, const latency_at_t *at)
{
    run_t *self = ctx;
    report_info_t *info = session_info(self->session);
    errbuf_t err;
    info->at.fraction = at->fraction;
    info->at.found = at->found;
    info->at.ratio = at->ratio;
    char repeat[16];
    snprintf(repeat, sizeof repeat, "%d", info->search);
    if (session_rows_latency(self->session, at->result, repeat, &err))
        fprintf(stderr, "hopbench: %s\n", err.msg);
    if (self->options->format == FORMAT_TABLE) {
        progress_end(session_progress(self->session));
        report_latency_at_line(stdout, at->fraction, at->found, at->ratio,
                               at->result);
    }
}

//  One search of the size (the info's search of its repeat); its
//  confirming trials' rows are the size's rows in results.csv, and what
//  each ratio found goes to found[k]
static int s_search_once(run_t *self, int index, double *found_rates,
                         errbuf_t *err)
{
    const params_t *params = &self->current->params;
    trial_spec_t spec = run_spec(self, params->sizes.size[index], 1);
    //  a pipeline that stays up is drained and checked: nothing to settle
    search_hooks_t hooks = {s_search_trial, s_search_judged, self,
                            trial_may_keep_up(self->current) ? 0
                                                             : SEARCH_SETTLE_S};
    search_outcome_t outcome;
    if (search_run(params, self->current->norigins, &spec, &hooks, &outcome,
                   err)) {
        search_outcome_free(&outcome);
        return -1;
    }
    const trial_result_t *found = search_rows(&outcome, 0);
    //  placement = all: the first search of a size stands for it
    if (found->nlinks && session_info(self->session)->search == 1)
        run_study_add(self, found, 1, found);
    for (int k = 0; k < outcome.nratios; k++)
        found_rates[k] = outcome.ratio[k].found;
    s_search_rows(self, &outcome);
    session_rows_search_summary(self->session, spec.size, &outcome);
    s_search_table(self, &outcome);
    //  the twin's block goes under the table; then the pipeline closes
    if (s_traced_twin(self, &spec, &outcome, err) ||
        session_close_kept(self->session, err)) {
        search_outcome_free(&outcome);
        return -1;
    }
    int rc = latency_at_run(params, self->current->norigins, &spec, &outcome,
                            &hooks, s_latency_at_row, self, err);
    session_info(self->session)->at.fraction = 0;
    search_outcome_free(&outcome);
    return rc;
}

//  repeat = N: N searches of the size, one after another, each on its
//  own pipeline; their found rates' median and range in the table
int run_search_size(run_t *self, int index, errbuf_t *err)
{
    const params_t *params = &self->current->params;
    int n = params->repeat > 1 ? params->repeat : 1, rc = 0, done = 0;
    double *found = calloc((size_t)n * PARAMS_MAX_RATIOS, sizeof *found);
    if (!found)
        return err_set(err, "size %u: out of memory",
                       params->sizes.size[index]);
    report_info_t *info = session_info(self->session);
    progress_t *progress = session_progress(self->session);
    int before = progress->done;
    self->size_index = index;
    for (; done < n && rc == 0; done += rc == 0) {
        info->search = done + 1;
        rc = s_search_once(self, index,
                           found + (size_t)done * PARAMS_MAX_RATIOS, err);
    }
    info->search = 0;
    if (rc == 0 && n > 1 && self->options->format == FORMAT_TABLE)
        report_search_repeats(stdout, found, n, &params->loss_ratio);
    free(found);
    if (rc == 0) {
        //  the rest of the size's bound, which its searches did not take
        progress_fewer(progress,
                       run_size_budget(params) - (progress->done - before));
        progress_size_done(progress, params->sizes.size[index]);
    }
    return rc;
}
