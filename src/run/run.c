/*  run: combinations x sizes x repetitions (see run.h): the loop.

    Every combination's pipeline is planned first (run_prepare.c), so a
    plan the machine cannot honour stops the run before its first trial.
    Then each combination's stages (its crew, and its zones) are started,
    each size gets its repeats (a cell: the trials so far, until
    `repeat`, or --precision is reached), a stalled trial is run once
    more, and each size ends with its medians and its table; with order
    = interleave, round r runs repeat r of every size of every
    combination.  Mode = search hands a size to run_search.c.  What a
    trial gives goes to run_outputs.c, which alone holds the files; the
    run's status and error go into the metadata (run_meta.c).
*/
#include "run/run_internal.h"

#include "base/interrupt.h"
#include "pipeline/pipeline.h"
#include "report/report_html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//  --profile: a repeat's traced twin, before the untraced trial on even
//  repeats and after it on odd ones (alternating pairs), its rows into
//  syscalls.csv (opened with the first); the untraced one is the repeat
static int s_trials(run_t *self, const trial_spec_t *spec,
                    trial_result_t *plain, trial_result_t *traced,
                    errbuf_t *err)
{
    if (self->current->params.profile == PROFILE_NONE)
        return run_trial(self, spec, plain, err);
    trial_spec_t twin = *spec;
    twin.profile = true;
    bool first = spec->repeat % 2 == 0;
    int rc = first ? run_trial(self, &twin, traced, err) : 0;
    if (rc == 0)
        rc = run_trial(self, spec, plain, err);
    if (rc == 0 && !first)
        rc = run_trial(self, &twin, traced, err);
    if (rc == 0)
        rc = run_outputs_syscalls(self, traced, err);
    if (rc) {
        trial_result_free(plain);
        trial_result_free(traced);
    }
    return rc;
}

//  Is latency measured one way, from a host to another (a publisher's
//  send time read on another host's clock)?
static bool s_one_way_across(const pipeline_t *pl)
{
    if (pl->params.pattern == PATTERN_REQREP ||
        pl->params.pattern == PATTERN_CONNECT)
        return false;
    for (int i = 0; i < pl->n; i++)
        if (strcmp(pipeline_host(pl, i), pipeline_host(pl, 0)))
            return true;
    return false;
}

//  The table block of one size, once its repetitions are done (with
//  --profile, the traced twins' block under it)
static void s_table(run_t *self, const summary_t *summary,
                    const trial_result_t *merged, const trial_result_t *plain,
                    const trial_result_t *traced, int n)
{
    if (self->options->format != FORMAT_TABLE)
        return;
    progress_end(&self->progress);
    report_table_size(stdout, &self->info, summary);
    int pattern = self->current->params.pattern;
    report_table_latency(stdout, merged->latency, merged->nlatency, summary,
                         pattern == PATTERN_REQREP    ? "round trip"
                         : pattern == PATTERN_CONNECT ? "to 1st message"
                                                      : "end to end");
    if (merged->nlatency && s_one_way_across(self->current))
        report_table_clocks(stdout, self->meta.hosts, self->meta.nhosts);
    if (self->current->params.profile != PROFILE_NONE)
        report_syscalls_table(stdout, &self->info, plain, traced, n);
}

//  --precision: has every link of the repeats so far reached it?
static int s_precise(const params_t *params, const trial_result_t *trials,
                     int done, bool *precise)
{
    summary_t summary;
    *precise = false;
    if (params->precision <= 0 || done < params_min_repeat(params))
        return 0;
    if (summary_make(&summary, trials, done, params->confidence,
                     params->precision))
        return -1;
    *precise = summary.precise;
    summary_free(&summary);
    return 0;
}

//  After the repeats: the median rows (3 or more), and the table
static int s_size_done(run_t *self, trial_result_t *trials,
                       const trial_result_t *traced, int done,
                       const trial_result_t *merged, errbuf_t *err)
{
    const params_t *params = &self->current->params;
    summary_t summary;
    if (summary_make(&summary, trials, done, params->confidence,
                     params->precision))
        return err_set(err, "size %u: out of memory", trials[0].size);
    int rc = 0;
    if (done >= SUMMARY_MIN_REPEATS)
        run_outputs_medians(self, &summary);
    if (rc == 0 && done > 1 && merged->nlatency)
        rc = run_outputs_latency(self, merged, "all", err);
    if (rc == 0)
        s_table(self, &summary, merged, trials, traced, done);
    summary_free(&summary);
    return rc;
}

//  One size of one combination while its repeats run: the trials so far
typedef struct {
    trial_result_t *trials, *traced;
    trial_result_t merged; //  their latency, one distribution per hop
    int done;
    bool precise; //  --precision reached: no more repeats
} cell_t;

static int s_cell_open(run_t *self, cell_t *cell, uint32_t size, errbuf_t *err)
{
    const params_t *params = &self->current->params;
    int most = params_max_repeat(params);
    memset(cell, 0, sizeof *cell);
    cell->merged.size = size;
    cell->trials = calloc((size_t)most, sizeof *cell->trials);
    cell->traced = calloc((size_t)most, sizeof *cell->traced);
    cell->merged.latency =
        calloc((size_t)self->current->nstages, sizeof(latency_row_t));
    if (!cell->trials || !cell->traced || !cell->merged.latency)
        return err_set(err, "size %u: out of memory", size);
    return 0;
}

//  Has the cell had all the repeats it gets?
static bool s_cell_full(const run_t *self, const cell_t *cell)
{
    return cell->precise ||
           cell->done >= params_max_repeat(&self->current->params);
}

//  Its next repeat (the current combination's crew is up)
static int s_cell_repeat(run_t *self, cell_t *cell, int index, errbuf_t *err)
{
    const params_t *params = &self->current->params;
    uint32_t size = params->sizes.size[index];
    int r = cell->done + 1;
    progress_trial(&self->progress, size, index + 1, params->sizes.n, r,
                   params_max_repeat(params));
    trial_spec_t spec = run_spec(self, size, r);
    int rc = s_trials(self, &spec, &cell->trials[cell->done],
                      &cell->traced[cell->done], err);
    if (rc == 0)
        rc = run_outputs_trial(self, &cell->trials[cell->done++], &cell->merged,
                               err);
    if (rc == 0 &&
        s_precise(params, cell->trials, cell->done, &cell->precise))
        rc = err_set(err, "size %u: out of memory", size);
    return rc;
}

//  Its repeats are over: median rows, table, study; then freed
static int s_cell_close(run_t *self, cell_t *cell, int index, bool ran,
                        errbuf_t *err)
{
    const params_t *params = &self->current->params;
    int rc = 0;
    if (ran && cell->done > 0)
        rc = s_size_done(self, cell->trials, cell->traced, cell->done,
                         &cell->merged, err);
    if (ran && rc == 0) {
        progress_repeats_saved(&self->progress,
                               (params_max_repeat(params) - cell->done) *
                                   run_twins(params));
        run_study_add(self, cell->trials, cell->done, &cell->merged);
        progress_size_done(&self->progress, params->sizes.size[index]);
    }
    for (int t = 0; t < cell->done; t++) {
        trial_result_free(&cell->trials[t]);
        trial_result_free(&cell->traced[t]);
    }
    free(cell->trials);
    free(cell->traced);
    free(cell->merged.latency);
    memset(cell, 0, sizeof *cell);
    return rc;
}

//  All repetitions of one size: repeat of them, or with --precision from
//  the fewest until every link is precise or max_repeat ran out
static int s_size(run_t *self, int index, errbuf_t *err)
{
    cell_t cell;
    int rc = s_cell_open(self, &cell, self->current->params.sizes.size[index],
                         err);
    while (rc == 0 && !s_cell_full(self, &cell))
        rc = s_cell_repeat(self, &cell, index, err);
    int closed = s_cell_close(self, &cell, index, rc == 0, err);
    return rc ? rc : closed;
}

//  ------------------------------------------------------------------------
//  mode = search: the search's trials come through here

//  The combination's effective topology, for stages in their own process
static int s_write_config(run_t *self, int c, char *path, size_t len,
                          errbuf_t *err)
{
    snprintf(path, len, "%s/combination%d.cfg", self->ipc_dir, c + 1);
    FILE *file = fopen(path, "w");
    if (!file)
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    topology_save(self->topos[c], file);
    return fclose(file) ? err_set(err, "cannot write %s", path) : 0;
}

//  Combination c becomes the current one (its sweep values, its mode)
static void s_select(run_t *self, int c)
{
    char text[256];
    sweep_values(self->options->sweep, c, self->info.sweep_value);
    sweep_describe(self->options->sweep, c, text, sizeof text);
    progress_combination(&self->progress, c + 1, text);
    self->current = self->pl[c];
    self->combination = c;
    const params_t *params = &self->current->params;
    self->info.mode =
        params->pattern == PATTERN_PUBSUB || params->pattern == PATTERN_PUSHPULL
            ? params_mode_names[params->mode]
            : "";
}

//  Its stages (and zones) up
static int s_crew_up(run_t *self, int c, errbuf_t *err)
{
    char config[512];
    s_select(self, c);
    if (zones_wanted(self->current) &&
        !(self->zones = zones_create(self->current, err)))
        return -1;
    if (s_write_config(self, c, config, sizeof config, err) ||
        !(self->crew = crew_new(self->current, config, self->ipc_dir,
                                self->options->fleet, err)))
        return -1;
    return 0;
}

//  ...and down; rc: how the combination's trials went
static int s_crew_down(run_t *self, int rc, errbuf_t *err)
{
    if (crew_destroy(&self->crew,
                     (int)(self->current->params.timeout * 1000))) {
        *self->options->stages_left = true;
        if (rc == 0)
            rc = err_set(err, "a stage thread did not end");
    }
    zones_destroy(&self->zones);
    return rc;
}

static int s_combination(run_t *self, int c, errbuf_t *err)
{
    int rc = s_crew_up(self, c, err);
    const params_t *params = &self->current->params;
    for (int i = 0; i < params->sizes.n && rc == 0; i++)
        rc = params->mode == MODE_SEARCH ? run_search_size(self, i, err)
                                         : s_size(self, i, err);
    return s_crew_down(self, rc, err);
}

//  order = interleave: round r runs repeat r of every size of every
//  combination that still wants one, each combination's stages started
//  for its turn and ended after it; the sizes' medians and tables come
//  once every round has run
static int s_round(run_t *self, cell_t *cells, int nsizes, bool *more,
                   errbuf_t *err)
{
    int rc = 0;
    *more = false;
    for (int c = 0; c < self->ntopos && rc == 0; c++) {
        cell_t *row = cells + (size_t)c * (size_t)nsizes;
        const sizes_t *sizes = &self->pl[c]->params.sizes;
        self->current = self->pl[c];
        bool wants = false;
        for (int i = 0; i < sizes->n; i++)
            wants |= !s_cell_full(self, &row[i]);
        if (!wants)
            continue;
        rc = s_crew_up(self, c, err);
        for (int i = 0; i < sizes->n && rc == 0; i++)
            if (!s_cell_full(self, &row[i]))
                rc = s_cell_repeat(self, &row[i], i, err);
        rc = s_crew_down(self, rc, err);
        for (int i = 0; i < sizes->n; i++)
            *more |= !s_cell_full(self, &row[i]);
    }
    return rc;
}

static int s_interleave(run_t *self, errbuf_t *err)
{
    int nsizes = 0, rc = 0;
    for (int c = 0; c < self->ntopos; c++)
        if (self->pl[c]->params.sizes.n > nsizes)
            nsizes = self->pl[c]->params.sizes.n;
    cell_t *cells = calloc((size_t)self->ntopos * (size_t)nsizes, sizeof *cells);
    if (!cells)
        return err_set(err, "out of memory");
    for (int c = 0; c < self->ntopos && rc == 0; c++) {
        self->current = self->pl[c];
        const sizes_t *sizes = &self->pl[c]->params.sizes;
        for (int i = 0; i < sizes->n && rc == 0; i++)
            rc = s_cell_open(self, &cells[(size_t)c * nsizes + i],
                             sizes->size[i], err);
    }
    for (bool more = rc == 0; more && rc == 0;)
        rc = s_round(self, cells, nsizes, &more, err);
    for (int c = 0; c < self->ntopos; c++) {
        s_select(self, c);
        for (int i = 0; i < self->pl[c]->params.sizes.n; i++) {
            int closed = s_cell_close(self, &cells[(size_t)c * nsizes + i], i,
                                      rc == 0, err);
            rc = rc ? rc : closed;
        }
    }
    free(cells);
    return rc;
}

//  Interleaved: asked for, or by default when a sweep repeats (never a
//  search: it has no repeats)
static bool s_interleaved(const run_t *self)
{
    bool repeats = false;
    for (int c = 0; c < self->ntopos; c++) {
        const params_t *p = &self->pl[c]->params;
        if (p->mode == MODE_SEARCH)
            return false;
        repeats |= params_max_repeat(p) >= 2;
    }
    int order = self->pl[0]->params.order;
    if (order == ORDER_AUTO)
        return self->ntopos > 1 && repeats;
    return order == ORDER_INTERLEAVE;
}

static int s_run(run_t *self, errbuf_t *err)
{
    if (resultsdir_ipc_create(self->ipc_dir, sizeof self->ipc_dir, err) ||
        run_outputs_open(self, err))
        return -1;
    if (!self->options->quiet)
        fprintf(stderr, "hopbench: results in %s\n", self->dir);
    if (self->options->format == FORMAT_CSV)
        report_header(stdout, REPORT_RESULTS, &self->info);
    if (s_interleaved(self))
        return s_interleave(self, err);
    for (int c = 0; c < self->ntopos; c++)
        if (s_combination(self, c, err))
            return -1;
    return 0;
}

//  The exit status, and the status line of the metadata
static int s_status(run_t *self, int rc, const errbuf_t *err)
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
    snprintf(self->meta.status, sizeof self->meta.status, "%s",
             rc ? "failed" : self->stalled ? "stalled" : "ok");
    snprintf(self->meta.error, sizeof self->meta.error, "%s",
             rc ? err->msg : "");
    if (rc)
        fprintf(stderr, "hopbench: %s\n", err->msg);
    else if (self->stalled)
        fprintf(stderr,
                "hopbench: %d trial%s stalled twice (a link delivered next to "
                "nothing for a while: see the warnings)%s\n",
                self->stalled, self->stalled > 1 ? "s" : "",
                self->options->keep_going ? "; --keep-going" : "");
    return rc || (self->stalled && !self->options->keep_going) ? 1 : 0;
}

int run_topologies(topology_t *const *topos, int ntopos,
                   const machine_t *machine, const run_options_t *options)
{
    run_t *self = calloc(1, sizeof *self);
    errbuf_t err = {{0}};
    if (!self) {
        fprintf(stderr, "hopbench: out of memory\n");
        return 1;
    }
    self->topos = topos;
    self->ntopos = ntopos;
    self->machine = machine;
    self->options = options;
    run_meta_init(self, options);
    int status;
    if (run_prepare(self, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        status = 2;
    } else {
        int rc = s_run(self, &err);
        status = s_status(self, rc, &err);
        run_meta_end(self);
        run_outputs_close(self);
        if (status == 0 && options->plot)
            run_outputs_plot(self);
        if (options->report && self->dir[0])
            report_html_after_run(self->dir, stderr);
    }
    for (int c = 0; c < ntopos; c++)
        pipeline_destroy(&self->pl[c]);
    free(self->meta.published);
    free(self);
    return status;
}
