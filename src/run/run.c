/*  run: combinations x sizes x repetitions (see run.h): the plan.

    Every combination's pipeline is planned and admitted by the session
    first (session_admit), so a plan the machine cannot honour stops the
    run before its first trial.  Then each combination's stages are
    brought up, each size gets its repeats (a cell: the trials so far,
    until `repeat`, or --precision is reached), and each size ends with
    its medians and its table; with order = interleave, round r runs
    repeat r of every size of every combination.  Mode = search hands a
    size to run_search.c.  Everything around the trials (files, stages,
    retries, warnings, the exit status) is the session's (session.h).
*/
#include "run/run_internal.h"

#include "base/text.h"
#include "pipeline/pipeline.h"
#include "trial/latency_at.h"

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
    session_t *session = self->session;
    if (self->current->params.profile == PROFILE_NONE)
        return session_trial(session, spec, plain, err);
    trial_spec_t twin = *spec;
    twin.profile = true;
    bool first = spec->repeat % 2 == 0;
    int rc = first ? session_trial(session, &twin, traced, err) : 0;
    if (rc == 0)
        rc = session_trial(session, spec, plain, err);
    if (rc == 0 && !first)
        rc = session_trial(session, &twin, traced, err);
    if (rc == 0)
        rc = session_rows_syscalls(session, traced, err);
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
    report_info_t *info = session_info(self->session);
    run_meta_t *meta = session_meta(self->session);
    progress_end(session_progress(self->session));
    report_table_size(stdout, info, summary);
    int pattern = self->current->params.pattern;
    report_table_latency(stdout, merged->latency, merged->nlatency, summary,
                         pattern == PATTERN_REQREP    ? "round trip"
                         : pattern == PATTERN_CONNECT ? "to 1st message"
                                                      : "end to end");
    if (merged->nlatency && s_one_way_across(self->current))
        report_table_clocks(stdout, meta->hosts, meta->nhosts);
    if (self->current->params.profile != PROFILE_NONE)
        report_syscalls_table(stdout, info, plain, traced, n);
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
        session_rows_medians(self->session, &summary);
    if (done > 1 && merged->nlatency)
        rc = session_rows_latency(self->session, merged, "all", err);
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

//  Its next repeat (the current combination's stages are up)
static int s_cell_repeat(run_t *self, cell_t *cell, int index, errbuf_t *err)
{
    const params_t *params = &self->current->params;
    uint32_t size = params->sizes.size[index];
    int r = cell->done + 1;
    progress_trial(session_progress(self->session), size, index + 1,
                   params->sizes.n, r, params_max_repeat(params));
    trial_spec_t spec = run_spec(self, size, r);
    int rc = s_trials(self, &spec, &cell->trials[cell->done],
                      &cell->traced[cell->done], err);
    if (rc == 0)
        rc = session_rows_trial(self->session, &cell->trials[cell->done++],
                                &cell->merged, err);
    if (rc == 0 && s_precise(params, cell->trials, cell->done, &cell->precise))
        rc = err_set(err, "size %u: out of memory", size);
    return rc;
}

//  Its repeats are over: median rows, table, study; then freed
static int s_cell_close(run_t *self, cell_t *cell, int index, bool ran,
                        errbuf_t *err)
{
    const params_t *params = &self->current->params;
    progress_t *progress = session_progress(self->session);
    int rc = 0;
    if (ran && cell->done > 0)
        rc = s_size_done(self, cell->trials, cell->traced, cell->done,
                         &cell->merged, err);
    if (ran && rc == 0) {
        progress_fewer(progress, (params_max_repeat(params) - cell->done) *
                                     run_twins(params));
        run_study_add(self, cell->trials, cell->done, &cell->merged);
        progress_size_done(progress, params->sizes.size[index]);
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
    int rc =
        s_cell_open(self, &cell, self->current->params.sizes.size[index], err);
    while (rc == 0 && !s_cell_full(self, &cell))
        rc = s_cell_repeat(self, &cell, index, err);
    int closed = s_cell_close(self, &cell, index, rc == 0, err);
    return rc ? rc : closed;
}

//  ------------------------------------------------------------------------
//  Combinations

//  Combination c becomes the current one (its sweep values, its mode)
static void s_select(run_t *self, int c)
{
    char text[256];
    report_info_t *info = session_info(self->session);
    sweep_values(self->options->sweep, c, info->sweep_value);
    sweep_describe(self->options->sweep, c, text, sizeof text);
    progress_combination(session_progress(self->session), c + 1, text);
    self->current = self->pl[c];
    self->combination = c;
    const params_t *params = &self->current->params;
    info->mode =
        params->pattern == PATTERN_PUBSUB || params->pattern == PATTERN_PUSHPULL
            ? params_mode_names[params->mode]
            : "";
}

//  Its stages (and zones) up
static int s_up(run_t *self, int c, errbuf_t *err)
{
    s_select(self, c);
    return session_up(self->session, self->current, err);
}

static int s_combination(run_t *self, int c, errbuf_t *err)
{
    int rc = s_up(self, c, err);
    const params_t *params = &self->current->params;
    for (int i = 0; i < params->sizes.n && rc == 0; i++)
        rc = params->mode == MODE_SEARCH ? run_search_size(self, i, err)
                                         : s_size(self, i, err);
    return session_down(self->session, rc, err);
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
        rc = s_up(self, c, err);
        for (int i = 0; i < sizes->n && rc == 0; i++)
            if (!s_cell_full(self, &row[i]))
                rc = s_cell_repeat(self, &row[i], i, err);
        rc = session_down(self->session, rc, err);
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
    cell_t *cells =
        calloc((size_t)self->ntopos * (size_t)nsizes, sizeof *cells);
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
    if (self->options->format == FORMAT_CSV)
        report_header(stdout, REPORT_RESULTS, session_info(self->session));
    if (s_interleaved(self))
        return s_interleave(self, err);
    for (int c = 0; c < self->ntopos; c++)
        if (s_combination(self, c, err))
            return -1;
    return 0;
}

//  ------------------------------------------------------------------------
//  The plan, before anything runs

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
                          .tsc_hz = session_meta(self->session)->tsc_hz};
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

//  Trials per repeat: 2 with a profile (its traced twin), else 1
int run_twins(const params_t *params)
{
    return params->profile != PROFILE_NONE ? 2 : 1;
}

//  The most trials a search may take (trial/search.h), and with a
//  profile its traced twin
int run_search_budget(const params_t *params)
{
    return search_most_trials(params) + run_twins(params) - 1;
}

//  The most trials one size of a combination may take: its searches, or
//  its repeats (--precision: max_repeat), each with its twin
int run_size_budget(const params_t *params)
{
    if (params->mode == MODE_SEARCH)
        return (run_search_budget(params) + latency_at_budget(params)) *
               (params->repeat > 1 ? params->repeat : 1);
    return params_max_repeat(params) * run_twins(params);
}

//  "transport=inproc,ipc,tcp hwm=10,1000": every swept key and value
static void s_sweep_text(const sweep_t *sweep, char *text, size_t len)
{
    size_t used = 0;
    text[0] = 0;
    for (int k = 0; k < sweep->nkeys && used < len; k++) {
        used += (size_t)snprintf(text + used, len - used, "%s%s=", k ? " " : "",
                                 sweep->key[k]);
        for (int v = 0; v < sweep->nvalues[k] && used < len; v++)
            used += (size_t)snprintf(text + used, len - used, "%s%s",
                                     v ? "," : "", sweep->value[k][v]);
    }
}

//  What the run's rows and metadata say of its combinations (the swept
//  keys and values, the modes, latency_at's columns); the trials it may
//  take, and whether that is a bound (a search, --precision)
static int s_describe(run_t *self, bool *bound)
{
    const sweep_t *sweep = self->options->sweep;
    report_info_t *info = session_info(self->session);
    run_meta_t *meta = session_meta(self->session);
    info->topology = self->topos[0]->name;
    info->pattern = params_pattern_names[self->topos[0]->params.pattern];
    info->nsweep = sweep->nkeys;
    for (int k = 0; k < sweep->nkeys; k++)
        info->sweep_key[k] = sweep->key[k];
    s_sweep_text(sweep, meta->sweep, sizeof meta->sweep);
    TEXT_SET(meta->topology, self->topos[0]->name);
    TEXT_SET(meta->file, self->topos[0]->path);
    int trials = 0;
    *bound = false;
    for (int c = 0; c < self->ntopos; c++) {
        const params_t *p = &self->topos[c]->params;
        info->at.load |= p->mode == MODE_SEARCH && p->latency_at.n;
        trials += p->sizes.n * run_size_budget(p);
        *bound |= p->mode == MODE_SEARCH ||
                  params_max_repeat(p) > params_min_repeat(p);
        if (p->pattern == PATTERN_PUBSUB || p->pattern == PATTERN_PUSHPULL)
            session_note_mode(self->session, params_mode_names[p->mode]);
    }
    return trials;
}

//  Every combination's pipeline, placed and admitted, before anything
//  runs
static int s_plan(run_t *self, const machine_t *machine, errbuf_t *err)
{
    int room = fleet_size(self->options->fleet) + 1, nhosts, rc = 0;
    pipeline_machine_t *machines = calloc((size_t)room, sizeof *machines);
    if (!machines)
        return err_set(err, "out of memory");
    int nmachines =
        fleet_machines(self->options->fleet, machine, machines, room);
    const pipeline_host_t *hosts =
        fleet_pipeline_hosts(self->options->fleet, &nhosts);
    for (int c = 0; c < self->ntopos && rc == 0; c++) {
        errbuf_t why;
        char text[256];
        sweep_describe(self->options->sweep, c, text, sizeof text);
        if (!(self->pl[c] =
                  pipeline_new_on(self->topos[c], machines, nmachines, &why)))
            rc = err_set(err, "%s%s%s", text, text[0] ? ": " : "", why.msg);
        else {
            pipeline_set_hosts(self->pl[c], hosts, nhosts);
            rc = session_admit(self->session, self->pl[c], text, err);
        }
    }
    free(machines);
    return rc;
}

//  The session a run's options ask for; note: config.cfg's first line
static session_t *s_session(const run_t *self, const machine_t *machine,
                            char *note, size_t len)
{
    const run_options_t *o = self->options;
    size_t used = (size_t)snprintf(note, len, "swept (");
    s_sweep_text(o->sweep, note + used, len - used);
    used = strlen(note);
    snprintf(note + used, len - used,
             "): this is the first combination, config-N.cfg the Nth");
    session_options_t so = {.name = self->topos[0]->name,
                            .output = o->output,
                            .format = o->format,
                            .quiet = o->quiet,
                            .keep_going = o->keep_going,
                            .per_socket = o->per_socket,
                            .results_json = o->format == FORMAT_JSON,
                            .plot = o->plot,
                            .report = o->report,
                            .command_line = o->command_line,
                            .fleet = o->fleet,
                            .machine = machine,
                            .config = self->topos[0],
                            .config_note = self->ntopos > 1 ? note : NULL,
                            .combos = self->topos,
                            .ncombos = self->ntopos,
                            .sweep = o->sweep,
                            .stages_left = o->stages_left};
    return session_new(&so);
}

int run_topologies(topology_t *const *topos, int ntopos,
                   const machine_t *machine, const run_options_t *options)
{
    run_t self = {.topos = topos, .ntopos = ntopos, .options = options};
    errbuf_t err = {0};
    char note[sizeof((run_meta_t *)0)->sweep + 64];
    if (!(self.session = s_session(&self, machine, note, sizeof note))) {
        fprintf(stderr, "hopbench: out of memory\n");
        return 1;
    }
    session_study(self.session, options->study);
    bool bound;
    int trials = s_describe(&self, &bound), status;
    if (s_plan(&self, machine, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        status = 2;
    } else {
        int rc = session_open(self.session, trials, bound, ntopos, &err);
        if (rc == 0)
            rc = s_run(&self, &err);
        status = session_end(self.session, rc, &err);
    }
    for (int c = 0; c < ntopos; c++)
        pipeline_destroy(&self.pl[c]);
    session_destroy(&self.session);
    return status;
}
