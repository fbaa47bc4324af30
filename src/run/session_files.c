/*  session_files: the results directory of a session and every file in
    it.

    Opens results.csv, threads.csv and memory.csv (rows flushed per
    trial) and config.cfg (the effective topology, when the session has
    one; a sweep's other combinations config-2.cfg ..) with the directory; latency.csv, timeline.csv, search.csv,
    search_summary.csv, syscalls.csv and sockets.csv with their first
    rows; placements.csv,
    metadata.json (rewritten at the end with the status) and results.json
    (--format json) at the end, when every file is closed and the private
    ipc directory removed, whatever happened.  Plans hand it results; it
    decides nothing about what runs.
*/
#include "run/session_internal.h"

#include "base/outfile.h"

#include "report/plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

//  config.cfg: the effective topology (a sweep's first combination's),
//  and config-N.cfg each other combination's
static int s_config(session_t *self, errbuf_t *err)
{
    FILE *config = outfile_create(self->dir, "config.cfg", err);
    if (!config)
        return -1;
    if (self->o.config_note)
        fprintf(config, "# %s\n", self->o.config_note);
    if (self->o.ncombos < 2) { //  no sweep: the one topology
        topology_save(self->o.config, config);
        return outfile_close(config, self->dir, "config.cfg", 0, err);
    }
    for (int c = 0; c < self->o.ncombos; c++) {
        char name[32] = "config.cfg", what[1024];
        if (c)
            snprintf(name, sizeof name, "config-%d.cfg", c + 1);
        if (c && !(config = outfile_create(self->dir, name, err)))
            return -1;
        sweep_describe(self->o.sweep, c, what, sizeof what);
        fprintf(config, "# combination %d of %d: %s\n", c + 1, self->o.ncombos,
                what);
        topology_save(self->o.combos[c], config);
        if (outfile_close(config, self->dir, name, 0, err))
            return -1;
    }
    return 0;
}

int session_files_open(session_t *self, errbuf_t *err)
{
    if (resultsdir_create(self->o.output, self->o.name, self->dir,
                          sizeof self->dir, err))
        return -1;
    if (self->o.config && s_config(self, err))
        return -1;
    if (!(self->results = outfile_create(self->dir, "results.csv", err)) ||
        !(self->threads = outfile_create(self->dir, "threads.csv", err)) ||
        !(self->memory = outfile_create(self->dir, "memory.csv", err)))
        return -1;
    report_header(self->results, REPORT_RESULTS, &self->info);
    report_header(self->threads, REPORT_THREADS, &self->info);
    report_header(self->memory, REPORT_MEMORY, &self->info);
    return resultsdir_metadata(self->dir, &self->meta, self->o.machine, err);
}

//  latency.csv exists for latency workloads only: opened with its first row
int session_rows_latency(session_t *self, const trial_result_t *trial,
                         const char *repeat, errbuf_t *err)
{
    if (!self->latency) {
        if (!(self->latency = outfile_create(self->dir, "latency.csv", err)))
            return -1;
        report_header(self->latency, REPORT_LATENCY, &self->info);
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

//  A file opened with its first rows (*file NULL until then): timeline.csv
//  with the first trial that has steps (a reqrep run has none),
//  sockets.csv with --per-socket's first socket rows
static void s_rows_lazy(session_t *self, FILE **file, const char *name,
                        report_file_t which, const trial_result_t *trial)
{
    errbuf_t err;
    if (!*file && (*file = outfile_create(self->dir, name, &err)))
        report_header(*file, which, &self->info);
    if (*file)
        report_rows(*file, which, &self->info, trial);
}

static void s_sockets(session_t *self, const trial_result_t *trial)
{
    if (self->o.per_socket && trial->nsockets > 0)
        s_rows_lazy(self, &self->sockets, "sockets.csv", REPORT_SOCKETS, trial);
}

//  One trial's rows, everywhere they go
int session_rows_trial(session_t *self, trial_result_t *trial,
                       trial_result_t *merged, errbuf_t *err)
{
    char repeat[16];
    report_rows(self->results, REPORT_RESULTS, &self->info, trial);
    session_meta_published(self, trial);
    report_rows(self->threads, REPORT_THREADS, &self->info, trial);
    report_rows(self->memory, REPORT_MEMORY, &self->info, trial);
    if (trial->ntimeline > 0)
        s_rows_lazy(self, &self->timeline, "timeline.csv", REPORT_TIMELINE,
                    trial);
    if (self->o.per_socket && trial->nsockets > 0)
        s_rows_lazy(self, &self->sockets, "sockets.csv", REPORT_SOCKETS, trial);
    if (self->o.format == FORMAT_CSV)
        report_rows(stdout, REPORT_RESULTS, &self->info, trial);
    if (trial->nlatency == 0)
        return 0;
    snprintf(repeat, sizeof repeat, "%d", trial->repeat);
    if (merged)
        s_merge_latency(merged, trial);
    return session_rows_latency(self, trial, repeat, err);
}

//  placement = all: the summary, on stdout with the table, and in
//  placements.csv whatever the format (also after a failure: what ran)
void session_study(session_t *self, placements_t *study)
{
    self->study = study;
}

static void s_study_summary(session_t *self)
{
    placements_t *study = self->study;
    errbuf_t err;
    if (!study || !self->results)
        return;
    FILE *csv = outfile_create(self->dir, "placements.csv", &err);
    if (csv) {
        report_placements_csv(csv, study);
        fclose(csv);
    } else
        fprintf(stderr, "hopbench: %s\n", err.msg);
    if (self->o.format == FORMAT_TABLE) {
        progress_end(&self->progress);
        report_placements(stdout, study);
    }
}

void session_files_close(session_t *self)
{
    errbuf_t err;
    s_study_summary(self);
    FILE *files[] = {self->results,  self->threads, self->memory,
                     self->latency,  self->search,  self->search_summary,
                     self->syscalls, self->sockets, self->timeline};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i])
            fclose(files[i]);
    if (self->results) {
        if (resultsdir_metadata(self->dir, &self->meta, self->o.machine, &err))
            fprintf(stderr, "hopbench: %s\n", err.msg);
        if (self->o.results_json && report_json(self->dir, stdout, &err))
            fprintf(stderr, "hopbench: %s\n", err.msg);
    }
    if (self->ipc_dir[0])
        resultsdir_ipc_remove(self->ipc_dir);
}

//  --plot: charts of the finished run; never changes the run's status
void session_files_plot(const session_t *self)
{
    errbuf_t err;
    if (!plot_have_gnuplot())
        fprintf(stderr,
                "hopbench: --plot: no gnuplot on PATH (Debian: gnuplot-nox); "
                "later: hopbench plot %s\n",
                self->dir);
    else if (plot_results(self->dir, self->o.quiet ? NULL : stderr, &err))
        fprintf(stderr, "hopbench: --plot: %s\n", err.msg);
}

//  The medians' rows (latency.csv's only when it has rows)
void session_rows_medians(session_t *self, const summary_t *summary)
{
    report_median_rows(self->results, REPORT_RESULTS, &self->info, summary);
    if (self->o.format == FORMAT_CSV)
        report_median_rows(stdout, REPORT_RESULTS, &self->info, summary);
    if (summary->nlatency && self->latency)
        report_median_rows(self->latency, REPORT_LATENCY, &self->info, summary);
}

//  syscalls.csv, opened with its first rows
int session_rows_syscalls(session_t *self, const trial_result_t *traced,
                          errbuf_t *err)
{
    if (!self->syscalls &&
        (self->syscalls = outfile_create(self->dir, "syscalls.csv", err)))
        report_syscalls_header(self->syscalls, &self->info);
    if (!self->syscalls)
        return -1;
    report_syscalls_rows(self->syscalls, &self->info, traced);
    return 0;
}

//  A judged trial's steps in timeline.csv: repeat the search of the
//  size, trial its number (search.csv's)
static void s_judged_timeline(session_t *self, const search_trial_t *trial)
{
    if (trial->result->ntimeline == 0)
        return;
    trial_result_t steps = *trial->result;
    steps.repeat = self->info.search;
    self->info.trial = trial->number;
    s_rows_lazy(self, &self->timeline, "timeline.csv", REPORT_TIMELINE, &steps);
    self->info.trial = 0;
}

//  Every judged trial into search.csv (opened with its first row), its
//  steps into timeline.csv as a run's trials' are
void session_rows_judged(session_t *self, const search_trial_t *trial)
{
    errbuf_t err;
    if (!self->search &&
        (self->search = outfile_create(self->dir, "search.csv", &err)))
        report_search_header(self->search, &self->info);
    if (self->search)
        report_search_rows(self->search, &self->info, trial,
                           &self->current->params);
    report_rows(self->threads, REPORT_THREADS, &self->info, trial->result);
    report_rows(self->memory, REPORT_MEMORY, &self->info, trial->result);
    s_sockets(self, trial->result);
    s_judged_timeline(self, trial);
}

//  Rows in results.csv (and on stdout with --format csv)
void session_rows_results(session_t *self, const trial_result_t *trial)
{
    report_rows(self->results, REPORT_RESULTS, &self->info, trial);
    session_meta_published(self, trial);
    if (self->o.format == FORMAT_CSV)
        report_rows(stdout, REPORT_RESULTS, &self->info, trial);
}

void session_rows_search_summary(session_t *self, uint32_t size,
                                 const search_outcome_t *outcome)
{
    errbuf_t err;
    if (!self->search_summary && (self->search_summary = outfile_create(
                                      self->dir, "search_summary.csv", &err)))
        report_search_summary_header(self->search_summary, &self->info);
    if (self->search_summary)
        report_search_summary_rows(self->search_summary, &self->info, size,
                                   outcome);
}
