/*  run: sizes x repetitions of one topology (see run.h).

    Owns the run's files: results.csv and threads.csv (rows flushed per
    trial), config.cfg (the effective topology), metadata.json (rewritten
    at the end with the status), and the private ipc directory, removed
    whatever happens.
*/
#include "run.h"

#include "pipeline.h"
#include "plot.h"
#include "report.h"
#include "resultsdir.h"
#include "trial.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const topology_t *topo;
    const machine_t *machine;
    const run_options_t *options;
    pipeline_t *pl;
    char dir[512];
    char ipc_dir[256];
    FILE *results, *threads;
    int trials; //  started so far: makes inproc names unique
    run_meta_t meta;
    report_info_t info;
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
    if (resultsdir_create(self->options->output, self->topo->name, self->dir,
                          sizeof self->dir, err))
        return -1;
    FILE *config = s_open(self, "config.cfg", err);
    if (!config)
        return -1;
    topology_save(self->topo, config);
    fclose(config);
    if (!(self->results = s_open(self, "results.csv", err)) ||
        !(self->threads = s_open(self, "threads.csv", err)))
        return -1;
    report_csv_header(self->results, &self->info);
    report_threads_header(self->threads);
    return resultsdir_metadata(self->dir, &self->meta, self->machine, err);
}

static void s_add_warnings(run_t *self, const char *warnings)
{
    for (const char *p = warnings; *p;) {
        size_t len = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (!strstr(self->meta.warnings, line)) {
            fprintf(stderr, "hopbench: warning: %s\n", line);
            size_t used = strlen(self->meta.warnings);
            snprintf(self->meta.warnings + used,
                     sizeof self->meta.warnings - used, "%s\n", line);
        }
        p += len + (p[len] == '\n');
    }
}

//  All repetitions of one size; the table block when they are done
static int s_size(run_t *self, uint32_t size, errbuf_t *err)
{
    int repeat = self->pl->params.repeat;
    trial_result_t *trials = calloc((size_t)repeat, sizeof *trials);
    int done = 0, rc = 0;
    for (int r = 1; r <= repeat && rc == 0; r++) {
        char warnings[4096];
        rc = pipeline_resolve(self->pl, self->ipc_dir, ++self->trials, err);
        if (rc == 0)
            rc = trial_run(self->pl, self->machine, size, r, &trials[done],
                           warnings, sizeof warnings, err);
        if (rc)
            break;
        s_add_warnings(self, warnings);
        report_csv_rows(self->results, &self->info, &trials[done]);
        report_threads_rows(self->threads, &trials[done]);
        if (self->options->format == FORMAT_CSV)
            report_csv_rows(stdout, &self->info, &trials[done]);
        done++;
    }
    if (rc == 0 && self->options->format == FORMAT_TABLE)
        report_table_size(stdout, &self->info, trials, done);
    for (int t = 0; t < done; t++)
        trial_result_free(&trials[t]);
    free(trials);
    return rc;
}

static int s_sweep(run_t *self, errbuf_t *err)
{
    const sizes_t *sizes = &self->pl->params.sizes;
    if (self->options->format == FORMAT_CSV)
        report_csv_header(stdout, &self->info);
    for (int i = 0; i < sizes->n; i++) {
        if (!self->options->quiet)
            fprintf(stderr, "hopbench: %s size %u (%d/%d)\n", self->topo->name,
                    sizes->size[i], i + 1, sizes->n);
        if (s_size(self, sizes->size[i], err))
            return -1;
    }
    return 0;
}

static void s_init(run_t *self, const topology_t *topo,
                   const machine_t *machine, const run_options_t *options)
{
    memset(self, 0, sizeof *self);
    self->topo = topo;
    self->machine = machine;
    self->options = options;
    self->info.topology = topo->name;
    self->info.pattern = params_pattern_names[topo->params.pattern];
    snprintf(self->meta.command_line, sizeof self->meta.command_line, "%s",
             options->command_line);
    snprintf(self->meta.topology, sizeof self->meta.topology, "%s", topo->name);
    snprintf(self->meta.file, sizeof self->meta.file, "%s", topo->path);
    snprintf(self->meta.status, sizeof self->meta.status, "running");
    resultsdir_utc(self->meta.started, sizeof self->meta.started, false);
}

//  --plot: charts of a run that succeeded; without gnuplot, a note (the
//  measurement stands either way, and `hopbench plot DIR` can follow)
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

int run_topology(const topology_t *topo, const machine_t *machine,
                 const run_options_t *options)
{
    run_t self;
    errbuf_t err = {{0}};
    s_init(&self, topo, machine, options);
    self.pl = pipeline_new(topo, machine, &err);
    if (!self.pl) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        return 2;
    }
    int rc = resultsdir_ipc_create(self.ipc_dir, sizeof self.ipc_dir, &err);
    if (rc == 0 && (rc = s_open_files(&self, &err)) == 0) {
        if (!options->quiet)
            fprintf(stderr, "hopbench: results in %s\n", self.dir);
        rc = s_sweep(&self, &err);
    }
    if (rc)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    snprintf(self.meta.status, sizeof self.meta.status, rc ? "failed" : "ok");
    snprintf(self.meta.error, sizeof self.meta.error, "%s", rc ? err.msg : "");
    if (self.dir[0] && self.results)
        resultsdir_metadata(self.dir, &self.meta, machine, &err);
    if (self.results)
        fclose(self.results);
    if (self.threads)
        fclose(self.threads);
    if (self.ipc_dir[0])
        resultsdir_ipc_remove(self.ipc_dir);
    pipeline_destroy(&self.pl);
    if (rc == 0 && options->plot)
        s_plot(&self);
    return rc ? 1 : 0;
}
