/*  session: a command's trials and what surrounds them (see session.h).

    This file holds the session's life: made, opened, a pipeline's stages
    brought up and down, its trials run (a stalled one again, a void one
    on a fresh pipeline), and the end with its exit status.  The files
    are session_files.c's, the metadata and warnings session_meta.c's,
    the checks before a pipeline runs session_admit.c's.
*/
#include "run/session_internal.h"

#include "base/interrupt.h"
#include "report/report_html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

session_t *session_new(const session_options_t *options)
{
    session_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->o = *options;
    session_meta_init(self);
    return self;
}

void session_destroy(session_t **self_p)
{
    session_t *self = *self_p;
    if (!self)
        return;
    resultsdir_meta_free(&self->meta);
    free(self);
    *self_p = NULL;
}

int session_open(session_t *self, int trials, bool bound, int ncombos,
                 errbuf_t *err)
{
    progress_init(&self->progress, self->o.quiet, trials, bound, ncombos);
    if (resultsdir_ipc_create(self->ipc_dir, sizeof self->ipc_dir, err) ||
        session_files_open(self, err))
        return -1;
    if (!self->o.quiet)
        fprintf(stderr, "hopbench: results in %s\n", self->dir);
    return 0;
}

//  ------------------------------------------------------------------------
//  The pipeline being measured

//  Its effective topology, for stages in their own process or on a host
static int s_write_config(session_t *self, const topology_t *topo, char *path,
                          size_t len, errbuf_t *err)
{
    snprintf(path, len, "%s/pipeline%d.cfg", self->ipc_dir, ++self->configs);
    FILE *file = fopen(path, "w");
    if (!file)
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    topology_save(topo, file);
    return fclose(file) ? err_set(err, "cannot write %s", path) : 0;
}

int session_up(session_t *self, pipeline_t *pl, errbuf_t *err)
{
    char config[512];
    self->current = pl;
    memset(&self->kept, 0, sizeof self->kept);
    if (zones_wanted(pl) && !(self->zones = zones_create(pl, err)))
        return -1;
    if (s_write_config(self, pl->topo, config, sizeof config, err))
        return -1;
    if (!(self->crew =
              crew_new(pl, config, self->ipc_dir, self->o.fleet, err))) {
        //  agents lost while their stages start: every one named (a
        //  host's own error, before any stage, names them already, unless
        //  it is a loss: SPEC's, while others were lost starting stages)
        if (err->stage[0] || err->lost)
            fleet_blame(self->o.fleet, pl, err);
        return -1;
    }
    return 0;
}

int session_close_kept(session_t *self, errbuf_t *err)
{
    return self->crew ? trial_kept_close(self->crew, &self->kept, err) : 0;
}

//  A stage on a host that cannot be ended (its host lost) fails the
//  pipeline's trials too
int session_down(session_t *self, int rc, errbuf_t *err)
{
    int timeout_ms = (int)(self->current->params.timeout * 1000);
    errbuf_t why;
    if (rc == 0 && self->kept.up && !self->crew->broken &&
        session_close_kept(self, err))
        rc = -1;
    if (self->crew && crew_end(self->crew, timeout_ms, &why) && rc == 0) {
        *err = why;
        rc = -1;
    }
    if (self->crew && crew_destroy(&self->crew, timeout_ms)) {
        if (self->o.stages_left)
            *self->o.stages_left = true;
        if (rc == 0)
            rc = err_set(err, "a stage thread did not end");
    }
    zones_destroy(&self->zones);
    return rc;
}

//  ------------------------------------------------------------------------
//  Its trials

//  "size 1024 B repeat 1: hop 2 (broker -> sub) stalled: 0 msgs/s for
//  0.30 s of its 1.00 s window (stall_ratio 0.1); retried" (the stretch
//  lies within the window: trial/trial_stall.h)
static void s_stall_warning(session_t *self, const trial_result_t *result,
                            bool again)
{
    for (int l = 0; l < result->nlinks; l++) {
        const link_row_t *row = &result->links[l];
        if (!row->stalled)
            continue;
        char line[600];
        snprintf(line, sizeof line,
                 "size %u B repeat %d: hop %d (%s -> %s) stalled: %.0f msgs/s "
                 "for %.2f s of its %.2f s window (stall_ratio %g)%s",
                 result->size, result->repeat, row->hop, row->from, row->to,
                 row->slowest_rate, row->slowest_seconds, row->seconds,
                 self->current->params.stall_ratio,
                 again ? "; stalled again when retried" : "; retried");
        session_warn(self, line);
    }
}

//  Did the machine set the stalls: every stalled row's stages waited for
//  a CPU (starved, or not known: as a sizing counts it)?
static bool s_stalls_starved(const trial_result_t *result)
{
    for (int l = 0; l < result->nlinks; l++)
        if (result->links[l].stalled && result->links[l].starved == 0)
            return false;
    return true;
}

//  One try: on the kept pipeline, or on a fresh one with new endpoints;
//  1 when void on the kept one (run it again, fresh)
static int s_try(session_t *self, const trial_spec_t *spec,
                 trial_result_t *result, errbuf_t *err)
{
    pipeline_t *pl = self->current;
    if (!self->kept.up &&
        pipeline_resolve(pl, self->ipc_dir, ++self->trials, err))
        return -1;
    return trial_run(self->crew, &self->kept, self->o.machine, spec, result,
                     self->warnings, sizeof self->warnings, err);
}

int session_trial(session_t *self, const trial_spec_t *spec,
                  trial_result_t *result, errbuf_t *err)
{
    trial_spec_t asked = *spec;
    asked.keep_up = spec->keep_up && trial_may_keep_up(self->current);
    int rc = 0, retried = 0;
    for (int attempt = 0, voided = 0; attempt < 2 && rc == 0; attempt++) {
        if (attempt)
            trial_result_free(result);
        rc = s_try(self, &asked, result, err);
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
        self->stalled_starved +=
            result->stalled > 0 && s_stalls_starved(result);
    }
    progress_trial_done(&self->progress);
    if (rc == 0)
        session_warn(self, self->warnings);
    else {
        trial_result_free(result); //  a failed trial's rows are not kept
        fleet_blame(self->o.fleet, self->current, err);
    }
    return rc;
}

//  ------------------------------------------------------------------------
//  The end

//  The exit status, and the status line of the metadata
static int s_status(session_t *self, int rc, const errbuf_t *err)
{
    int sig = interrupt_signal();
    progress_end(&self->progress);
    if (sig) {
        snprintf(self->meta.status, sizeof self->meta.status, "interrupted");
        snprintf(self->meta.error, sizeof self->meta.error, "interrupted by %s",
                 sig == 2 ? "SIGINT" : "SIGTERM");
        fprintf(stderr, "hopbench: %s; what finished is in %s\n",
                self->meta.error, self->dir[0] ? self->dir : "(nothing)");
        return 128 + sig;
    }
    //  stalls the machine set, every one: the run is inconclusive
    bool machine = self->stalled && self->stalled_starved == self->stalled;
    snprintf(self->meta.status, sizeof self->meta.status, "%s",
             rc              ? "failed"
             : machine       ? "inconclusive"
             : self->stalled ? "stalled"
                             : "ok");
    snprintf(self->meta.error, sizeof self->meta.error, "%s",
             rc ? err->msg : "");
    if (rc)
        fprintf(stderr, "hopbench: %s\n", err->msg);
    else if (self->stalled)
        fprintf(stderr,
                "hopbench: %d trial%s stalled twice (a link delivered next to "
                "nothing for a while: see the warnings)%s%s\n",
                self->stalled, self->stalled > 1 ? "s" : "",
                machine ? "; inconclusive: each stalled row's stages waited "
                          "for a CPU (starved), the machine's stall, not "
                          "the pipeline's"
                        : "",
                self->o.keep_going ? "; --keep-going" : "");
    if (rc || !self->stalled || self->o.keep_going)
        return rc ? 1 : 0;
    return machine ? SESSION_INCONCLUSIVE : 1;
}

int session_end(session_t *self, int rc, const errbuf_t *err)
{
    //  every agent freed for the next controller, failed or not; one that
    //  cannot be told fails the command (what it measured is kept)
    errbuf_t why;
    if (fleet_bye(self->o.fleet, &why) && rc == 0) {
        rc = -1;
        err = &why;
    }
    int status = s_status(self, rc, err);
    session_meta_end(self);
    session_files_close(self);
    if (status == 0 && self->o.plot)
        session_files_plot(self);
    if (self->o.report && self->dir[0])
        report_html_after_run(self->dir, stderr);
    return status;
}

//  ------------------------------------------------------------------------
//  What plans read and add to

report_info_t *session_info(session_t *self)
{
    return &self->info;
}

progress_t *session_progress(session_t *self)
{
    return &self->progress;
}

run_meta_t *session_meta(session_t *self)
{
    return &self->meta;
}

const char *session_dir(const session_t *self)
{
    return self->dir;
}

const char *session_ipc_dir(const session_t *self)
{
    return self->ipc_dir;
}

pipeline_t *session_pipeline(session_t *self)
{
    return self->current;
}

format_t session_format(const session_t *self)
{
    return self->o.format;
}

int session_stalled(const session_t *self)
{
    return self->stalled;
}
