/*  run_internal: what the run's files share (run.c, run_trial.c,
    run_outputs.c, run_search.c, run_prepare.c, run_meta.c): the run's
    state, and the functions one of them calls in another.  Private to src/run/run*.c.

    run.c owns the loop (combinations, sizes, repeats, interleaving, the
    crew); run_trial.c one trial of it; run_outputs.c every results file;
    run_search.c mode = search;
    run_prepare.c the pipelines planned and checked before anything runs
    (zones, tracing, file limits); run_meta.c metadata.json's fields and
    the warnings.
*/
#ifndef HOPBENCH_RUN_INTERNAL_H
#define HOPBENCH_RUN_INTERNAL_H

#include "crew/crew.h"
#include "pipeline/pipeline.h"
#include "pipeline/zones.h"
#include "report/progress.h"
#include "report/report.h"
#include "report/resultsdir.h"
#include "run/run.h"
#include "trial/search.h"
#include "trial/summary.h"
#include "trial/trial.h"

#include <stdint.h>
#include <stdio.h>

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
    //  the results files: run_outputs.c alone opens, writes and closes them
    FILE *results, *threads, *memory, *latency, *search, *syscalls;
    FILE *search_summary; //  mode = search: a row per size and loss ratio
    FILE *sockets;   //  --per-socket: sockets.csv, opened at its first rows
    int size_index;  //  of the size being measured
    int combination; //  ...and of its combination
    int trials;      //  started so far: makes inproc names unique
    int stalled;     //  trials that stalled twice (trial_stall.c)
    run_meta_t meta;
    char warnings[1 << 16]; //  a trial's, whole lines (base/lines.h)
    int warnings_more;      //  distinct warnings metadata had no room for
    int ndropped;           //  ...their hashes, to count each once
    uint64_t dropped[1024];
    report_info_t info;
    progress_t progress;
} run_t;

//  run_trial.c: a trial as the topology's keys say; one trial (retried
//  once if it stalls); a size's figures into the study (placement = all)
trial_spec_t run_spec(const run_t *self, uint32_t size, int repeat);
int run_trial(run_t *self, const trial_spec_t *spec, trial_result_t *result,
              errbuf_t *err);
void run_study_add(run_t *self, const trial_result_t *trials, int n,
                   const trial_result_t *merged);

//  run_outputs.c: the results directory and its files
int run_outputs_open(run_t *self, errbuf_t *err);
//  One trial's rows, everywhere they go (latency merged into 'merged')
int run_outputs_trial(run_t *self, trial_result_t *trial,
                      trial_result_t *merged, errbuf_t *err);
//  latency.csv's rows of one repeat ("1".."N") or all of them ("all")
int run_outputs_latency(run_t *self, const trial_result_t *trial,
                        const char *repeat, errbuf_t *err);
//  A size's median rows (results.csv, latency.csv, stdout with csv)
void run_outputs_medians(run_t *self, const summary_t *summary);
//  --profile: a repeat's traced twin's rows, syscalls.csv
int run_outputs_syscalls(run_t *self, const trial_result_t *traced,
                         errbuf_t *err);
//  --per-socket: a trial's socket rows, sockets.csv
void run_outputs_sockets(run_t *self, const trial_result_t *trial);
//  mode = search: a judged trial (search.csv, threads, memory, sockets),
//  a ratio's confirmed rows (results.csv), a size's summary rows
void run_outputs_judged(run_t *self, const search_trial_t *trial);
void run_outputs_rows(run_t *self, const trial_result_t *trial);
void run_outputs_search_summary(run_t *self, uint32_t size,
                                const search_outcome_t *outcome);
//  At the end: the study's summary, every file closed, metadata.json
//  rewritten, results.json, the ipc directory removed
void run_outputs_close(run_t *self);
//  --plot: charts of the finished run
void run_outputs_plot(const run_t *self);

//  run_search.c: mode = search
int run_search_size(run_t *self, int index, errbuf_t *err);

//  run_prepare.c: every combination's pipeline, placed and checked
int run_prepare(run_t *self, errbuf_t *err);

//  run_meta.c: metadata.json's fields at the start; warnings (stderr and
//  metadata, each once); the encrypted hops of a pipeline
void run_meta_init(run_t *self, const run_options_t *options);
void run_meta_warn(run_t *self, const char *warnings);
//  At the end: "... and N more warnings", on stderr and in metadata
void run_meta_end(run_t *self);
void run_meta_curve(run_t *self, const pipeline_t *pl);
//  What each publisher instance of a trial with rows sent ("published")
void run_meta_published(run_t *self, const trial_result_t *trial);
//  The trials a size takes: per repeat (2 with a profile: its traced
//  twin), and at most in a search (search_trials and a confirmation per
//  loss ratio)
int run_twins(const params_t *params);
int run_search_budget(const params_t *params);

#endif
