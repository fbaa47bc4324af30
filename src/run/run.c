/*  run: combinations x sizes x repetitions (see run.h).

    Owns the run's files: results.csv, threads.csv and memory.csv (rows
    flushed per trial), latency.csv (latency workloads), search.csv (mode = search:
    every trial of the search), config.cfg (the effective
    topology), metadata.json (rewritten at the end with the status),
    results.json (--format json), and the private ipc directory, removed
    whatever happens.  Every pipeline is planned before anything runs, so
    a plan the machine cannot honour stops the run before its first trial.
*/
#include "run/run.h"

#include "crew/crew.h"
#include "base/interrupt.h"
#include "base/nofile.h"
#include "pipeline/pipeline.h"
#include "report/plot.h"
#include "report/progress.h"
#include "report/report.h"
#include "machine/syscalls.h"
#include "machine/tsc.h"
#include "report/resultsdir.h"
#include "trial/search.h"
#include "trial/summary.h"
#include "trial/trial.h"
#include "pipeline/zones.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    topology_t *const *topos;
    int ntopos;
    const machine_t *machine;
    const run_options_t *options;
    pipeline_t *pl[SWEEP_MAX_COMBOS];
    pipeline_t *current;
    crew_t *crew;   //  the current combination's stage threads
    zones_t *zones; //  and its network namespaces, if it has any
    char dir[512];
    char ipc_dir[256];
    FILE *results, *threads, *memory, *latency, *search, *syscalls;
    FILE *search_summary; //  mode = search: a row per size and loss ratio
    FILE *sockets; //  --per-socket: sockets.csv, opened at its first rows
    int size_index;  //  of the size being measured
    int combination; //  ...and of its combination
    int trials;     //  started so far: makes inproc names unique
    int stalled;    //  trials that stalled twice (trial_stall.c)
    run_meta_t meta;
    report_info_t info;
    progress_t progress;
} run_t;

static FILE *s_open(const run_t *self, const char *name, errbuf_t *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", self->dir, name);
    FILE *file = fopen(path, "w");
    if (!file)
        err_set(err, "cannot write %s: %s", path, strerror(errno));
    return file;
}

static int s_open_files(run_t *self, errbuf_t *err)
{
    const topology_t *topo = self->topos[0];
    if (resultsdir_create(self->options->output, topo->name, self->dir,
                          sizeof self->dir, err))
        return -1;
    FILE *config = s_open(self, "config.cfg", err);
    if (!config)
        return -1;
    if (self->ntopos > 1)
        fprintf(config, "# swept (%s): this is the first combination\n",
                self->meta.sweep);
    topology_save(topo, config);
    fclose(config);
    if (!(self->results = s_open(self, "results.csv", err)) ||
        !(self->threads = s_open(self, "threads.csv", err)) ||
        !(self->memory = s_open(self, "memory.csv", err)))
        return -1;
    report_csv_header(self->results, &self->info);
    report_threads_header(self->threads, &self->info);
    report_memory_header(self->memory, &self->info);
    return resultsdir_metadata(self->dir, &self->meta, self->machine, err);
}

static void s_add_warnings(run_t *self, const char *warnings)
{
    for (const char *p = warnings; *p;) {
        size_t len = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (!strstr(self->meta.warnings, line)) {
            progress_end(&self->progress);
            fprintf(stderr, "hopbench: warning: %s\n", line);
            size_t used = strlen(self->meta.warnings);
            snprintf(self->meta.warnings + used,
                     sizeof self->meta.warnings - used, "%s\n", line);
        }
        p += len + (p[len] == '\n');
    }
}

//  latency.csv exists for latency workloads only: opened with its first row
static int s_latency_rows(run_t *self, const trial_result_t *trial,
                          const char *repeat, errbuf_t *err)
{
    if (!self->latency) {
        if (!(self->latency = s_open(self, "latency.csv", err)))
            return -1;
        report_latency_header(self->latency, &self->info);
    }
    report_latency_rows(self->latency, &self->info, trial->size, repeat,
                        trial->latency, trial->nlatency);
    return 0;
}

//  Repetitions merge into one distribution per hop label
static void s_merge_latency(trial_result_t *merged, const trial_result_t *one)
{
    for (int r = 0; r < one->nlatency; r++) {
        int m = 0;
        while (m < merged->nlatency &&
               strcmp(merged->latency[m].hop, one->latency[r].hop))
            m++;
        if (m == merged->nlatency)
            merged->latency[merged->nlatency++] = one->latency[r];
        else
            histogram_merge(&merged->latency[m].histogram,
                            &one->latency[r].histogram);
    }
}

//  --per-socket: the trial's socket rows, in sockets.csv
static void s_socket_rows(run_t *self, const trial_result_t *trial)
{
    errbuf_t err;
    if (!self->options->per_socket || trial->nsockets == 0)
        return;
    if (!self->sockets && (self->sockets = s_open(self, "sockets.csv", &err)))
        report_sockets_header(self->sockets, &self->info);
    if (self->sockets)
        report_sockets_rows(self->sockets, &self->info, trial);
}

//  One trial's rows, everywhere they go
static int s_report_trial(run_t *self, trial_result_t *trial,
                          trial_result_t *merged, errbuf_t *err)
{
    char repeat[16];
    report_csv_rows(self->results, &self->info, trial);
    report_threads_rows(self->threads, &self->info, trial);
    report_memory_rows(self->memory, &self->info, trial);
    s_socket_rows(self, trial);
    if (self->options->format == FORMAT_CSV)
        report_csv_rows(stdout, &self->info, trial);
    if (trial->nlatency == 0)
        return 0;
    snprintf(repeat, sizeof repeat, "%d", trial->repeat);
    s_merge_latency(merged, trial);
    return s_latency_rows(self, trial, repeat, err);
}

//  A trial as the topology's keys say
static trial_spec_t s_spec(const run_t *self, uint32_t size, int repeat)
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
        s_add_warnings(self, line);
    }
}

//  One trial; one that stalled is run once more, and if it stalls again
//  it is kept, marked (run's status: stalled)
static int s_trial(run_t *self, const trial_spec_t *spec,
                   trial_result_t *result, errbuf_t *err)
{
    char warnings[4096];
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
                           sizeof warnings, err);
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
        s_add_warnings(self, warnings);
    else {
        trial_result_free(result); //  a failed trial's rows are not kept
        fleet_blame(self->options->fleet, pl, err);
    }
    return rc;
}

//  --profile: a repeat's traced twin, before the untraced trial on even
//  repeats and after it on odd ones (alternating pairs), its rows into
//  syscalls.csv (opened with the first); the untraced one is the repeat
static int s_trials(run_t *self, const trial_spec_t *spec,
                    trial_result_t *plain, trial_result_t *traced,
                    errbuf_t *err)
{
    if (self->current->params.profile == PROFILE_NONE)
        return s_trial(self, spec, plain, err);
    trial_spec_t twin = *spec;
    twin.profile = true;
    bool first = spec->repeat % 2 == 0;
    int rc = first ? s_trial(self, &twin, traced, err) : 0;
    if (rc == 0)
        rc = s_trial(self, spec, plain, err);
    if (rc == 0 && !first)
        rc = s_trial(self, &twin, traced, err);
    if (rc == 0 && !self->syscalls &&
        (self->syscalls = s_open(self, "syscalls.csv", err)))
        report_syscalls_header(self->syscalls, &self->info);
    if (rc == 0 && !self->syscalls)
        rc = -1;
    if (rc == 0)
        report_syscalls_rows(self->syscalls, &self->info, traced);
    else {
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

//  placement = all: the assignment a combination runs, and the group of
//  the other swept keys' values it belongs to (nodes varies fastest)
static void s_study_add(run_t *self, const trial_result_t *trials, int n,
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
    if (done >= SUMMARY_MIN_REPEATS) {
        report_csv_median_rows(self->results, &self->info, &summary);
        if (self->options->format == FORMAT_CSV)
            report_csv_median_rows(stdout, &self->info, &summary);
        if (summary.nlatency && self->latency)
            report_latency_median_rows(self->latency, &self->info, &summary);
    }
    if (rc == 0 && done > 1 && merged->nlatency)
        rc = s_latency_rows(self, merged, "all", err);
    if (rc == 0)
        s_table(self, &summary, merged, trials, traced, done);
    summary_free(&summary);
    return rc;
}

//  Trials per repeat: 2 with a profile (its traced twin), else 1
static int s_twins(const params_t *params)
{
    return params->profile != PROFILE_NONE ? 2 : 1;
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
    trial_spec_t spec = s_spec(self, size, r);
    int rc = s_trials(self, &spec, &cell->trials[cell->done],
                      &cell->traced[cell->done], err);
    if (rc == 0)
        rc = s_report_trial(self, &cell->trials[cell->done++], &cell->merged,
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
        progress_repeats_saved(&self->progress, (params_max_repeat(params) -
                                                 cell->done) *
                                                    s_twins(params));
        s_study_add(self, cell->trials, cell->done, &cell->merged);
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

//  Trials a search may take: search_trials and a confirmation per ratio
static int s_search_budget(const params_t *params)
{
    int ratios = params->loss_ratio.n > 0 ? params->loss_ratio.n : 1;
    return ratios * (params->search_trials + 1);
}

//  May a size's trials run on one pipeline that stays up between them?
//  Streams only (a requester's round trips end its trial; a client of
//  pattern = connect times out), and no zproxy (its counting thread
//  would see between trials what nobody counts)
static bool s_search_reuse(const pipeline_t *pl)
{
    const params_t *params = &pl->params;
    if (!params->search_reuse || (params->pattern != PATTERN_PUBSUB &&
                                  params->pattern != PATTERN_PUSHPULL))
        return false;
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].role == ROLE_PROXY &&
            pl->inst[i].params.engine == ENGINE_ZPROXY)
            return false;
    return true;
}

static int s_search_trial(void *ctx, const trial_spec_t *spec,
                          trial_result_t *result, errbuf_t *err)
{
    run_t *self = ctx;
    const params_t *params = &self->current->params;
    progress_trial(&self->progress, spec->size, self->size_index + 1,
                   params->sizes.n, spec->repeat, s_search_budget(params));
    trial_spec_t kept = *spec;
    kept.keep_up = s_search_reuse(self->current);
    return s_trial(self, &kept, result, err);
}

//  Every judged trial into search.csv (opened with its first row)
static void s_search_judged(void *ctx, const search_trial_t *trial)
{
    run_t *self = ctx;
    errbuf_t err;
    if (!self->search && (self->search = s_open(self, "search.csv", &err)))
        report_search_header(self->search, &self->info);
    if (self->search)
        report_search_rows(self->search, &self->info, trial,
                           &self->current->params);
    report_threads_rows(self->threads, &self->info, trial->result);
    report_memory_rows(self->memory, &self->info, trial->result);
    s_socket_rows(self, trial->result);
}

//  Each ratio's confirmed rows, in results.csv with its loss_ratio
static void s_search_rows(run_t *self, search_outcome_t *outcome)
{
    for (int k = 0; k < outcome->nratios; k++) {
        trial_result_t found = *search_rows(outcome, k);
        if (!found.nlinks)
            continue;
        found.repeat = 1;
        snprintf(self->info.loss_ratio, sizeof self->info.loss_ratio, "%g",
                 outcome->ratio[k].ratio);
        report_csv_rows(self->results, &self->info, &found);
        if (self->options->format == FORMAT_CSV)
            report_csv_rows(stdout, &self->info, &found);
    }
    self->info.loss_ratio[0] = 0;
}

static void s_search_summary(run_t *self, uint32_t size,
                             const search_outcome_t *outcome)
{
    errbuf_t err;
    if (!self->search_summary &&
        (self->search_summary = s_open(self, "search_summary.csv", &err)))
        report_search_summary_header(self->search_summary, &self->info);
    if (self->search_summary)
        report_search_summary_rows(self->search_summary, &self->info, size,
                                   outcome);
}

//  The table: the smallest ratio's confirmed rows (of those confirmed),
//  a line per ratio
static void s_search_table(run_t *self, const search_outcome_t *outcome)
{
    const trial_result_t *found = search_rows(outcome, 0);
    for (int k = 1; k < outcome->nratios && !found->nlinks; k++)
        found = search_rows(outcome, k);
    summary_t summary;
    if (self->options->format != FORMAT_TABLE)
        return;
    progress_end(&self->progress);
    if (found->nlinks && summary_make(&summary, found, 1, 0.95, 0) == 0) {
        report_table_size(stdout, &self->info, &summary);
        summary_free(&summary);
    }
    report_search_summary(stdout, outcome, &self->current->params);
}

//  The confirming trials' rows are the size's rows in results.csv
static int s_search_size(run_t *self, int index, errbuf_t *err)
{
    const params_t *params = &self->current->params;
    trial_spec_t spec = s_spec(self, params->sizes.size[index], 1);
    //  a pipeline that stays up is drained and checked: nothing to settle
    search_hooks_t hooks = {s_search_trial, s_search_judged, self,
                            s_search_reuse(self->current) ? 0
                                                          : SEARCH_SETTLE_S};
    search_outcome_t outcome;
    self->size_index = index;
    if (search_run(params, self->current->norigins, &spec, &hooks, &outcome,
                   err) ||
        trial_session_end(self->crew, err)) {
        search_outcome_free(&outcome);
        return -1;
    }
    const trial_result_t *found = search_rows(&outcome, 0);
    if (found->nlinks)
        s_study_add(self, found, 1, found);
    s_search_rows(self, &outcome);
    s_search_summary(self, spec.size, &outcome);
    s_search_table(self, &outcome);
    progress_size_done(&self->progress, spec.size);
    search_outcome_free(&outcome);
    return 0;
}

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
        rc = params->mode == MODE_SEARCH ? s_search_size(self, i, err)
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

//  metadata's "mode": every mode the run's combinations measure in
static void s_note_mode(run_t *self, const params_t *p)
{
    if (p->pattern != PATTERN_PUBSUB && p->pattern != PATTERN_PUSHPULL)
        return;
    const char *name = params_mode_names[p->mode];
    char *list = self->meta.mode;
    size_t used = strlen(list);
    char padded[80];
    snprintf(padded, sizeof padded, ",%s,", list);
    char want[24];
    snprintf(want, sizeof want, ",%s,", name);
    if (!strstr(padded, want))
        snprintf(list + used, sizeof self->meta.mode - used, "%s%s",
                 used ? "," : "", name);
}

//  metadata's "hosts": each host's agent as it described itself
static void s_note_hosts(run_t *self, const fleet_t *fleet)
{
    for (int i = 0; i < fleet_size(fleet) && i < LIMIT_HOSTS; i++) {
        agent_link_t *link = fleet_link(fleet, fleet_name(fleet, i));
        if (!link)
            continue;
        run_host_t *h = &self->meta.hosts[self->meta.nhosts++];
        const agent_info_t *info = agent_link_info(link);
        snprintf(h->name, sizeof h->name, "%s", fleet_name(fleet, i));
        snprintf(h->agent, sizeof h->agent, "%s", fleet_host(fleet, i)->agent);
        snprintf(h->hopbench, sizeof h->hopbench, "%s", info->hopbench);
        snprintf(h->libzmq, sizeof h->libzmq, "%s", info->libzmq);
        snprintf(h->czmq, sizeof h->czmq, "%s", info->czmq);
        snprintf(h->hostname, sizeof h->hostname, "%s", info->hostname);
        snprintf(h->kernel, sizeof h->kernel, "%s", info->kernel);
        snprintf(h->cpu_model, sizeof h->cpu_model, "%s", info->cpu_model);
        h->protocol = info->protocol;
        h->numa_nodes = info->numa_nodes;
        h->clock_offset_ns = info->offset_ns;
        h->clock_uncertainty_ns = info->uncertainty_ns;
    }
}

static void s_init(run_t *self, const run_options_t *options)
{
    const topology_t *topo = self->topos[0];
    const sweep_t *sweep = options->sweep;
    self->info.topology = topo->name;
    self->info.pattern = params_pattern_names[topo->params.pattern];
    self->info.nsweep = sweep->nkeys;
    int trials = 0;
    for (int k = 0; k < sweep->nkeys; k++) {
        self->info.sweep_key[k] = sweep->key[k];
        size_t used = strlen(self->meta.sweep);
        snprintf(self->meta.sweep + used, sizeof self->meta.sweep - used,
                 "%s%s=", k ? " " : "", sweep->key[k]);
        for (int v = 0; v < sweep->nvalues[k]; v++) {
            used = strlen(self->meta.sweep);
            snprintf(self->meta.sweep + used, sizeof self->meta.sweep - used,
                     "%s%s", v ? "," : "", sweep->value[k][v]);
        }
    }
    for (int c = 0; c < self->ntopos; c++) {
        const params_t *p = &self->topos[c]->params;
        trials += p->sizes.n * (p->mode == MODE_SEARCH
                                    ? s_search_budget(p)
                                    : params_max_repeat(p) * s_twins(p));
        s_note_mode(self, p);
    }
    self->meta.tsc_hz =
        tsc_hz(self->meta.tsc_source, sizeof self->meta.tsc_source);
    s_note_hosts(self, options->fleet);
    progress_init(&self->progress, options->quiet, trials, self->ntopos);
    snprintf(self->meta.command_line, sizeof self->meta.command_line, "%s",
             options->command_line);
    snprintf(self->meta.topology, sizeof self->meta.topology, "%s", topo->name);
    snprintf(self->meta.file, sizeof self->meta.file, "%s", topo->path);
    snprintf(self->meta.status, sizeof self->meta.status, "running");
    resultsdir_utc(self->meta.started, sizeof self->meta.started, false);
}

//  Is 'word' one of the space-separated words of 'text'?
static bool s_has_word(const char *text, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
            return true;
    return false;
}

//  metadata's "curve": the hops that are encrypted ("hop2 hop3")
static void s_note_curve(run_t *self, const pipeline_t *pl)
{
    for (int h = 0; h < pl->nhops; h++) {
        char hop[16];
        snprintf(hop, sizeof hop, "hop%d", h + 1);
        if (pl->hops[h].server_public[0] && !s_has_word(self->meta.curve, hop))
            snprintf(self->meta.curve + strlen(self->meta.curve),
                     sizeof self->meta.curve - strlen(self->meta.curve), "%s%s",
                     self->meta.curve[0] ? " " : "", hop);
    }
}

//  Room for the files the largest pipeline opens: libzmq and czmq abort
//  when they cannot make a socket, so the soft limit is raised up to the
//  hard one first, and a run that would not fit even then is refused
static int s_files(run_t *self, errbuf_t *err)
{
    long need = 0;
    int which = 0;
    for (int c = 0; c < self->ntopos; c++)
        if (pipeline_files(self->pl[c]) > need)
            need = pipeline_files(self->pl[c]), which = c;
    unsigned long long soft, hard;
    int rc = nofile_raise(need, &soft, &hard);
    if (rc > 0) {
        char text[256];
        sweep_describe(self->options->sweep, which, text, sizeof text);
        return err_set(err,
                       "%s%s%s: the pipeline would open about %ld files, "
                       "more than this process may (ulimit -Hn: %llu): "
                       "RLIMIT_NOFILE (ulimit -n %llu) is too low for "
                       "%ld SUB sockets and their stages; raise it (as "
                       "root: ulimit -n %ld), or use fewer instances or "
                       "sockets",
                       self->topos[which]->path, text[0] ? " " : "", text, need,
                       hard, soft, pipeline_total_sockets(self->pl[which]),
                       need);
    }
    return rc ? err_set(err, "setrlimit (RLIMIT_NOFILE, %ld): %s", need,
                        strerror(errno))
              : 0;
}

//  --profile syscalls: every host with a stage of a combination that
//  traces must be able to (here: the probe; a host: its agent's WELCOME)
static int s_can_trace(run_t *self, const pipeline_t *pl, errbuf_t *err)
{
    errbuf_t why;
    int probed = 0; //  this host, once
    if (pl->params.profile == PROFILE_NONE)
        return 0;
    for (int i = 0; i < pl->n; i++) {
        const char *host = pipeline_host(pl, i);
        agent_link_t *link =
            host[0] ? fleet_link(self->options->fleet, host) : NULL;
        if (!host[0] && !probed++ && syscalls_probe(&why))
            return err_set(err,
                           "profile = syscalls: this host cannot trace "
                           "system calls: %s",
                           why.msg);
        if (link && agent_link_info(link)->syscalls[0])
            return err_set(err,
                           "profile = syscalls: host %s cannot trace system "
                           "calls: %s",
                           host, agent_link_info(link)->syscalls);
    }
    return 0;
}

//  Every combination's pipeline, placed, before anything runs
static int s_plan(run_t *self, errbuf_t *err)
{
    pipeline_machine_t machines[LIMIT_HOSTS + 1];
    int nmachines = fleet_machines(self->options->fleet, self->machine,
                                   machines, LIMIT_HOSTS + 1),
        nhosts;
    const pipeline_host_t *hosts =
        fleet_pipeline_hosts(self->options->fleet, &nhosts);
    for (int c = 0; c < self->ntopos; c++) {
        errbuf_t why;
        if (!(self->pl[c] =
                  pipeline_new_on(self->topos[c], machines, nmachines, &why))) {
            char text[256];
            sweep_describe(self->options->sweep, c, text, sizeof text);
            return err_set(err, "%s%s%s", text, text[0] ? ": " : "", why.msg);
        }
        pipeline_set_hosts(self->pl[c], hosts, nhosts);
        s_note_curve(self, self->pl[c]);
        if (zones_wanted(self->pl[c]) && geteuid() != 0)
            return err_set(err, "zones (netns = ...) need root: hopbench "
                                "makes network namespaces and veth links");
        if (s_can_trace(self, self->pl[c], err))
            return -1;
    }
    return s_files(self, err);
}

static int s_run(run_t *self, errbuf_t *err)
{
    if (resultsdir_ipc_create(self->ipc_dir, sizeof self->ipc_dir, err) ||
        s_open_files(self, err))
        return -1;
    if (!self->options->quiet)
        fprintf(stderr, "hopbench: results in %s\n", self->dir);
    if (self->options->format == FORMAT_CSV)
        report_csv_header(stdout, &self->info);
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

//  placement = all: the summary, on stdout with the table, and in
//  placements.csv whatever the format (also after a failure: what ran)
static void s_study_summary(run_t *self)
{
    placements_t *study = self->options->study;
    errbuf_t err;
    if (!study || !self->results)
        return;
    FILE *csv = s_open(self, "placements.csv", &err);
    if (csv) {
        report_placements_csv(csv, study);
        fclose(csv);
    } else
        fprintf(stderr, "hopbench: %s\n", err.msg);
    if (self->options->format == FORMAT_TABLE) {
        progress_end(&self->progress);
        report_placements(stdout, study);
    }
}

static void s_finish(run_t *self)
{
    errbuf_t err;
    s_study_summary(self);
    FILE *files[] = {self->results, self->threads,  self->memory,
                     self->latency, self->search,   self->search_summary,
                     self->syscalls, self->sockets};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i])
            fclose(files[i]);
    if (self->results) {
        if (resultsdir_metadata(self->dir, &self->meta, self->machine, &err))
            fprintf(stderr, "hopbench: %s\n", err.msg);
        char path[700];
        snprintf(path, sizeof path, "%s/results.json", self->dir);
        FILE *json =
            self->options->format == FORMAT_JSON ? fopen(path, "w") : NULL;
        if (json && (report_json(json, self->dir, &err) ||
                     report_json(stdout, self->dir, &err)))
            fprintf(stderr, "hopbench: %s\n", err.msg);
        if (json)
            fclose(json);
    }
    if (self->ipc_dir[0])
        resultsdir_ipc_remove(self->ipc_dir);
}

//  --plot: charts of the finished run; never changes the run's status
static void s_plot(const run_t *self)
{
    errbuf_t err;
    if (!plot_have_gnuplot())
        fprintf(stderr,
                "hopbench: --plot: no gnuplot on PATH (Debian: gnuplot-nox); "
                "later: hopbench plot %s\n",
                self->dir);
    else if (plot_results(self->dir, self->options->quiet ? NULL : stderr,
                          &err))
        fprintf(stderr, "hopbench: --plot: %s\n", err.msg);
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
    s_init(self, options);
    int status;
    if (s_plan(self, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        status = 2;
    } else {
        int rc = s_run(self, &err);
        status = s_status(self, rc, &err);
        s_finish(self);
        if (status == 0 && options->plot)
            s_plot(self);
    }
    for (int c = 0; c < ntopos; c++)
        pipeline_destroy(&self->pl[c]);
    free(self);
    return status;
}
