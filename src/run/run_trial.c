/*  run_trial: one trial of the run, as the topology's keys say it: its
    spec, the trial run (once more if it stalled, once more on a fresh
    pipeline if it was void on a kept one), its warnings into the
    metadata, a failure's blame on the host it was on; and a size's
    figures into the study of placement = all.  run.c's cells and
    run_search.c's searches both run their trials through here.
*/
#include "run/run_internal.h"

#include <stdio.h>
#include <string.h>

//  A trial as the topology's keys say
trial_spec_t run_spec(const run_t *self, uint32_t size, int repeat)
{
    const params_t *p = &self->current->params;
    return (trial_spec_t){.size = size,
                          .repeat = repeat,
                          .rate = p->rate,
                          .timed = p->rate > 0,
                          .messages = p->messages,
                          .duration = p->duration,
                          .tsc_hz = self->meta.tsc_hz};
}

//  "size 1024 B repeat 1: hop 2 (broker -> sub) stalled: 0 msgs/s for
//  0.30 s, against the trial's median of 190,000 msgs/s"
static void s_stall_warning(run_t *self, const trial_result_t *result,
                            bool again)
{
    for (int l = 0; l < result->nlinks; l++) {
        const link_row_t *row = &result->links[l];
        if (!row->stalled)
            continue;
        char line[600];
        snprintf(line, sizeof line,
                 "size %u B repeat %d: hop %d (%s -> %s) stalled: %.0f msgs/s "
                 "for %.2f s of the window (stall_ratio %g)%s",
                 result->size, result->repeat, row->hop, row->from, row->to,
                 row->slowest_rate, row->slowest_seconds,
                 self->current->params.stall_ratio,
                 again ? "; stalled again when retried" : "; retried");
        run_meta_warn(self, line);
    }
}

//  One trial; one that stalled is run once more, and if it stalls again
//  it is kept, marked (run's status: stalled)
int run_trial(run_t *self, const trial_spec_t *spec, trial_result_t *result,
              errbuf_t *err)
{
    char *warnings = self->warnings;
    pipeline_t *pl = self->current;
    int rc = 0, retried = 0;
    for (int attempt = 0, voided = 0; attempt < 2 && rc == 0; attempt++) {
        if (attempt)
            trial_result_free(result);
        //  a pipeline left up keeps its endpoints
        rc = self->crew->up
                 ? 0
                 : pipeline_resolve(pl, self->ipc_dir, ++self->trials, err);
        if (rc == 0)
            rc = trial_run(self->crew, self->machine, spec, result, warnings,
                           sizeof self->warnings, err);
        if (rc == 1 && !voided++) { //  void: again, on a fresh pipeline
            trial_result_free(result);
            rc = 0, attempt--;
            continue;
        }
        if (rc == 1)
            rc = err_set(err, "a trial on a fresh pipeline was void");
        if (rc || !result->stalled)
            break;
        s_stall_warning(self, result, attempt == 1);
        retried = attempt + 1;
    }
    if (rc == 0) {
        result->retried = retried ? 1 : 0;
        self->stalled += result->stalled > 0;
    }
    progress_trial_done(&self->progress);
    if (rc == 0)
        run_meta_warn(self, warnings);
    else {
        trial_result_free(result); //  a failed trial's rows are not kept
        fleet_blame(self->options->fleet, pl, err);
    }
    return rc;
}

//  placement = all: the assignment a combination runs, and the group of
//  the other swept keys' values it belongs to (nodes varies fastest)
void run_study_add(run_t *self, const trial_result_t *trials, int n,
                   const trial_result_t *merged)
{
    placements_t *study = self->options->study;
    const sweep_t *sweep = self->options->sweep;
    if (!study || n <= 0)
        return;
    int c = self->combination, a = c % study->n, group = c / study->n;
    char text[256] = "";
    size_t used = 0;
    const char *values[SWEEP_MAX_KEYS];
    sweep_values(sweep, c, values);
    for (int k = 0; k < sweep->nkeys - 1 && used < sizeof text; k++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s=%s",
                                 k ? " " : "", sweep->key[k], values[k]);
    placements_add(study, a, group, text, trials, n, merged);
}
