/*  session: what every command that measures does around its trials.

    A session owns the results directory and its metadata, the output
    files and their writers (session_files.c), the crew and zones of the
    pipeline being measured, the pipeline kept up between trials, the
    retries of stalled and void trials, the warnings (each said once,
    session_meta.c), the file limit and the checks a pipeline must pass
    before it runs (session_admit.c), the progress line, and how the
    command ends (interrupted, stalled, failed).  run (run.c), the search
    (run_search.c) and size (size.c, size_eval.c) are plans over it: each
    says which trials to run and what to conclude, nothing else.

        session_new -> session_admit (each pipeline) -> session_open
          -> [session_up -> session_trial ... -> session_down] ...
          -> session_end -> session_destroy

    What a plan reads of the session (the row's shared columns, the
    progress line, the metadata it adds to) it reaches through the
    accessors below; the session's own state stays in session_internal.h.
*/
#ifndef HOPBENCH_SESSION_H
#define HOPBENCH_SESSION_H

#include <stdbool.h>

#include "config/sweep.h"
#include "crew/fleet.h"
#include "machine/machine.h"
#include "pipeline/pipeline.h"
#include "report/progress.h"
#include "report/report_placements.h"
#include "report/report.h"
#include "report/resultsdir.h"
#include "trial/search.h"
#include "trial/summary.h"
#include "trial/trial.h"

typedef enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } format_t;

typedef struct {
    const char *name;   //  results/<UTC>-NAME, when output is NULL
    const char *output; //  --output DIR, or NULL
    format_t format;
    bool quiet;
    bool keep_going;   //  a trial that stalled twice does not fail it
    bool per_socket;   //  --per-socket: sockets.csv
    bool results_json; //  results.json at the end (--format json)
    bool plot;         //  charts after a successful run (--plot)
    bool report;       //  report.html at the end, also after Ctrl-C
    const char *command_line;
    fleet_t *fleet;           //  the hosts stages name, or NULL
    const machine_t *machine; //  this one
    const topology_t *config; //  config.cfg (NULL: none is written)
    const char *config_note;  //  ...its first line, a comment, or NULL
    //  a sweep of 2 or more combinations (combos[0] is config):
    //  config-N.cfg the Nth's, N from 2, each with a line "# combination N
    //  of M: KEY=VALUE ..." (config.cfg's second)
    topology_t *const *combos;
    int ncombos;
    const sweep_t *sweep;
    bool *stages_left; //  out: a stage thread could not be ended
} session_options_t;

typedef struct session_s session_t;

//  A session for these options: the metadata's first fields (command
//  line, TSC, hosts, start time); NULL when out of memory
session_t *session_new(const session_options_t *options);
void session_destroy(session_t **self_p);

//  May this pipeline run here?  Zones need root; --profile syscalls a
//  host that can trace; every subscription a publisher; the files it
//  opens room under RLIMIT_NOFILE (the soft limit raised for it).  Its
//  warnings are said (once).  what: how errors name it ("" or the
//  combination, "engine=forwarder")
int session_admit(session_t *self, const pipeline_t *pl, const char *what,
                  errbuf_t *err);

//  The results directory, its first files and metadata ("running"), the
//  private ipc directory; the progress line for 'trials' trials over
//  'ncombos' combinations ('bound': at most that many, report/progress.h)
int session_open(session_t *self, int trials, bool bound, int ncombos,
                 errbuf_t *err);

//  The pipeline the next trials measure: its stages (crew) and zones up
//  (its effective topology written for stages in processes of their own
//  and on other hosts)
int session_up(session_t *self, pipeline_t *pl, errbuf_t *err);
//  ...and down (the kept pipeline closed first), also after session_up
//  failed; rc: how its trials went
int session_down(session_t *self, int rc, errbuf_t *err);
//  Close the pipeline a trial left up (spec.keep_up), if one is
int session_close_kept(session_t *self, errbuf_t *err);

//  One trial on the current pipeline.  spec.keep_up asks that the
//  pipeline stay up after it (granted where the pipeline may: trial.h).
//  A trial that stalls is run once more (stalled twice: kept, marked, the
//  session's status "stalled"); one that was void on a kept pipeline runs
//  again on a fresh one.  Its warnings are said; a failure is blamed on
//  the host it came from.  -1: failed (err), result freed
int session_trial(session_t *self, const trial_spec_t *spec,
                  trial_result_t *result, errbuf_t *err);

//  The exit status of a run whose every stall the machine set (each
//  stalled row starved): inconclusive, as a sizing's undecided (size.h)
#define SESSION_INCONCLUSIVE 4

//  The end: the exit status (0; 1 failed, or stalled without
//  keep_going; SESSION_INCONCLUSIVE when every stall was starved; 128 +
//  signal when interrupted) from rc and err, said on stderr;
//  metadata.json's status; every file closed; results.json, charts and
//  the report page as the options ask
int session_end(session_t *self, int rc, const errbuf_t *err);

//  What plans read and add to
report_info_t *session_info(session_t *self);
progress_t *session_progress(session_t *self);
run_meta_t *session_meta(session_t *self);
const char *session_dir(const session_t *self);
const char *session_ipc_dir(const session_t *self);
pipeline_t *session_pipeline(session_t *self);
format_t session_format(const session_t *self);
//  Trials that stalled twice, so far
int session_stalled(const session_t *self);

//  session_files.c: the rows of results files, each where it goes
//  One trial's rows everywhere (latency merged into 'merged', NULL: not)
int session_rows_trial(session_t *self, trial_result_t *trial,
                       trial_result_t *merged, errbuf_t *err);
//  latency.csv's rows of one repeat ("1".."N") or all of them ("all")
int session_rows_latency(session_t *self, const trial_result_t *trial,
                         const char *repeat, errbuf_t *err);
//  A size's median rows (results.csv, latency.csv, stdout with csv)
void session_rows_medians(session_t *self, const summary_t *summary);
//  --profile: a traced twin's rows, syscalls.csv
int session_rows_syscalls(session_t *self, const trial_result_t *traced,
                          errbuf_t *err);
//  mode = search: a judged trial (search.csv, threads, memory, sockets),
//  confirmed rows (results.csv), a size's summary rows
void session_rows_judged(session_t *self, const search_trial_t *trial);
void session_rows_results(session_t *self, const trial_result_t *trial);
void session_rows_search_summary(session_t *self, uint32_t size,
                                 const search_outcome_t *outcome);
//  placement = all: placements.csv and its table at the end
void session_study(session_t *self, placements_t *study);

//  session_meta.c: a warning (or several lines of them), each said once
void session_warn(session_t *self, const char *warnings);
//  The hops of a pipeline that are encrypted, into the metadata
void session_note_curve(session_t *self, const pipeline_t *pl);
//  A mode the session measures in, into metadata's "mode" (each once)
void session_note_mode(session_t *self, const char *mode);

int session_meta_test(bool verbose);

#endif
