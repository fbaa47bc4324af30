/*  size: the command's plan (see size.h): candidates made and planned,
    tried cheapest first, the answer, the table and its files.  Its trials
    run in a session (session.h), as run's do: the results directory with
    results.csv, latency.csv, threads.csv and memory.csv (every trial,
    with sweep_candidate), the stages, retries and warnings, the exit
    status; this file adds sizing.csv, sizing.json (--format json) and
    sizing.png to the directory.
*/
#include "run/size.h"

#include "base/interrupt.h"
#include "base/mono.h"
#include "base/outfile.h"
#include "base/readfile.h"
#include "base/text.h"
#include "config/topology.h"
#include "machine/machine.h"
#include "report/plot.h"
#include "run/assemble.h"
#include "run/session.h"
#include "run/size_cost.h"
#include "run/size_eval.h"
#include "run/size_extrapolate.h"
#include "run/size_target.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE_MAX_ROWS 256

typedef struct {
    const size_options_t *o;
    sizing_target_t target;
    sweep_t tries;
    topology_t *topo[SIZE_MAX_ROWS];
    pipeline_t *pl[SIZE_MAX_ROWS];
    size_cost_t cost[SIZE_MAX_ROWS];
    sizing_row_t row[SIZE_MAX_ROWS];
    int n;
    machine_t *machine;
    fleet_t *fleet;                //  agents, when a stage names a host
    errbuf_t unfit[SIZE_MAX_ROWS]; //  why a candidate's hosts cannot be
    session_t *session;            //  its trials, their files and stages
    bool stages_left;              //  a stage thread could not be ended
} size_t_;

//  One file x one combination of --try: its topology, or NULL and err
static topology_t *s_topology(size_t_ *self, const char *path, const char *text,
                              int c, errbuf_t *err)
{
    topology_t *topo = topology_load_text(path, text, err);
    for (int i = 0; topo && i < self->o->nsets; i++)
        if (topology_set(topo, self->o->sets[i], err))
            topology_destroy(&topo);
    if (topo && topology_set_as(topo, "mode=search", "size", err))
        topology_destroy(&topo);
    for (int k = 0; topo && k < self->tries.nkeys; k++) {
        char assignment[256];
        sweep_assignment(&self->tries, c, k, assignment, sizeof assignment);
        if (topology_set_as(topo, assignment, "--try", err))
            topology_destroy(&topo);
    }
    if (topo && topology_validate(topo, err))
        topology_destroy(&topo);
    return topo;
}

//  The agents of the hosts the candidates' stages name (host = NAME): a
//  candidate whose hosts the hosts file lacks does not fit (s_plan says
//  why); an agent that cannot be reached ends the run.  The exit status
static int s_fleet(size_t_ *self)
{
    const size_options_t *o = self->o;
    run_request_t req = {.command = "size",
                         .sets = o->sets,
                         .nsets = o->nsets,
                         .hosts = o->hosts,
                         .cert = o->cert,
                         .ssh = o->ssh,
                         .remote_hopbench = o->remote_hopbench,
                         .quiet = o->quiet};
    return assemble_fleet_fitting(&req, self->topo, self->n, self->unfit,
                                  &self->fleet);
}

//  Its plan, or "does not fit" and why
static void s_plan(size_t_ *self, int i)
{
    errbuf_t why;
    pipeline_machine_t machines[LIMIT_HOSTS + 1];
    int nmachines = fleet_machines(self->fleet, self->machine, machines,
                                   LIMIT_HOSTS + 1),
        nhosts;
    const pipeline_host_t *hosts = fleet_pipeline_hosts(self->fleet, &nhosts);
    if (self->unfit[i].msg[0] ||
        !(self->pl[i] =
              pipeline_new_on(self->topo[i], machines, nmachines, &why))) {
        self->row[i].verdict = SIZING_NOFIT;
        snprintf(self->row[i].why, sizeof self->row[i].why, "%.500s",
                 self->unfit[i].msg[0] ? self->unfit[i].msg : why.msg);
        return;
    }
    pipeline_set_hosts(self->pl[i], hosts, nhosts);
    for (int id = 0; id < self->pl[i]->n; id++)
        if (self->pl[i]->inst[id].role == ROLE_SUBSCRIBER)
            self->row[i].sockets += self->pl[i]->inst[id].params.sockets > 1
                                        ? self->pl[i]->inst[id].params.sockets
                                        : 1;
    if (session_admit(self->session, self->pl[i], self->row[i].tried, &why)) {
        self->row[i].verdict = SIZING_NOFIT;
        snprintf(self->row[i].why, sizeof self->row[i].why, "%.500s", why.msg);
        pipeline_destroy(&self->pl[i]);
        return;
    }
    size_cost_plan(self->pl[i], self->fleet, &self->cost[i]);
    self->row[i].cost = self->cost[i].cost;
    self->row[i].brokers = self->cost[i].brokers;
    self->row[i].generators = self->cost[i].generators;
}

//  Every file x --try combination x size: a row
static int s_candidates(size_t_ *self, errbuf_t *err)
{
    int combos = sweep_count(&self->tries);
    for (int f = 0; f < self->o->nfiles; f++) {
        char *text = readfile(self->o->files[f], 5, NULL, err);
        if (!text)
            return -1;
        for (int c = 0; c < combos; c++) {
            topology_t *topo =
                s_topology(self, self->o->files[f], text, c, err);
            if (!topo) {
                free(text);
                return -1;
            }
            for (int s = 0; s < topo->params.sizes.n; s++) {
                if (self->n == SIZE_MAX_ROWS) {
                    free(text);
                    topology_destroy(&topo);
                    return err_set(err, "more than %d candidates and sizes",
                                   SIZE_MAX_ROWS);
                }
                sizing_row_t *row = &self->row[self->n];
                row->number = self->n + 1;
                row->capacity = row->p99_us = row->busy_cores = row->ndr = -1;
                row->seconds = row->confirmed = -1;
                row->verdict = SIZING_UNTRIED; //  until it is measured
                snprintf(row->why, sizeof row->why, "not measured");
                row->size = topo->params.sizes.size[s];
                snprintf(row->topology, sizeof row->topology, "%s", topo->name);
                sweep_describe(&self->tries, c, row->tried, sizeof row->tried);
                self->topo[self->n++] = s ? topology_dup(topo) : topo;
            }
        }
        free(text);
    }
    return 0;
}

//  The session of the candidates' trials: its rows' columns and its
//  metadata's, then its directory and files
static int s_session(size_t_ *self, errbuf_t *err)
{
    const size_options_t *o = self->o;
    session_options_t so = {.name = "size",
                            .output = o->output,
                            .format = FORMAT_TABLE, //  stdout: sizing's
                            .quiet = o->quiet,
                            .keep_going = true, //  a stall: the verdict's
                            .command_line = o->command_line,
                            .fleet = self->fleet,
                            .machine = self->machine,
                            .stages_left = &self->stages_left};
    if (!(self->session = session_new(&so)))
        return err_set(err, "out of memory");
    report_info_t *info = session_info(self->session);
    info->nsweep = 1;
    info->sweep_key[0] = "candidate";
    info->pattern = "pubsub";
    info->mode = "search";
    run_meta_t *meta = session_meta(self->session);
    TEXT_SET(meta->topology, self->n ? self->topo[0]->name : "");
    TEXT_SET(meta->file, o->files[0]);
    TEXT_SET(meta->mode, "size");
    return 0;
}

//  "candidate 2 of 4: ...", with the time so far and, from the candidates
//  measured, the most the rest can take (they may not all be measured)
static void s_progress(const size_t_ *self, int i)
{
    double spent = 0;
    int measured = 0, left = 0;
    for (int j = 0; j < self->n; j++)
        if (self->row[j].seconds >= 0)
            spent += self->row[j].seconds, measured++;
        else if (self->row[j].verdict != SIZING_NOFIT)
            left++;
    fprintf(stderr, "hopbench: size: candidate %d of %d: %s %s at %u B", i + 1,
            self->n, self->row[i].topology, self->row[i].tried,
            self->row[i].size);
    if (measured)
        fprintf(stderr, " (%.0f s so far; %d to go, at most ~%.0f s)", spent,
                left, left * spent / measured);
    fputc('\n', stderr);
}

static int s_eval(size_t_ *self, int i, errbuf_t *err)
{
    char number[16];
    report_info_t *info = session_info(self->session);
    snprintf(number, sizeof number, "%d", i + 1);
    info->topology = self->topo[i]->name;
    info->sweep_value[0] = number;
    size_eval_t eval = {.session = self->session,
                        .pl = self->pl[i],
                        .target = &self->target,
                        .ndr = self->o->ndr,
                        .row = &self->row[i]};
    if (!self->o->quiet)
        s_progress(self, i);
    double start = mono_seconds();
    int rc = size_eval(&eval, err);
    self->row[i].seconds = mono_seconds() - start;
    if (rc) { //  not a verdict: what it had measured stays, unjudged
        self->row[i].verdict = SIZING_UNTRIED;
        snprintf(self->row[i].why, sizeof self->row[i].why, "%s",
                 interrupt_signal() ? "interrupted while it was measured"
                                    : "a trial of it failed");
    }
    return rc;
}

//  Cheapest first; after one meets, those that cost more only with --all
//  (those that cost the same are measured: the table should say whether
//  they meet too; the answer stays the first that met)
static int s_measure(size_t_ *self, int *best, errbuf_t *err)
{
    int order[SIZE_MAX_ROWS];
    size_cost_order(self->cost, self->n, order);
    *best = -1;
    for (int j = 0; j < self->n; j++) {
        int i = order[j];
        if (self->row[i].verdict == SIZING_NOFIT && !self->pl[i])
            continue;
        if (*best >= 0 && !self->o->all &&
            self->cost[i].cost > self->cost[*best].cost) {
            self->row[i].verdict = SIZING_UNTRIED;
            snprintf(self->row[i].why, sizeof self->row[i].why,
                     "dearer than #%d, which meets (--all measures it)",
                     self->row[*best].number);
            continue;
        }
        if (s_eval(self, i, err))
            return -1;
        if (self->row[i].verdict == SIZING_MEETS && *best < 0)
            *best = i;
    }
    return 0;
}

//  Did some candidate carry the target's rate and headroom (so what
//  failed was its latency, its loss or the machine, not its capacity)?
static bool s_carried(const size_t_ *self)
{
    double need = sizing_offered(&self->target);
    for (int i = 0; i < self->n; i++)
        if (self->row[i].capacity >= need)
            return true;
    return false;
}

static void s_report(size_t_ *self, int best)
{
    errbuf_t err = {0};
    const sizing_target_t *t = &self->target;
    const char *dir = session_dir(self->session);
    double cost[SIZE_MAX_ROWS], rate[SIZE_MAX_ROWS];
    bool front[SIZE_MAX_ROWS];
    for (int i = 0; i < self->n; i++)
        cost[i] = self->row[i].cost, rate[i] = self->row[i].confirmed;
    size_cost_pareto(cost, rate, self->n, front);
    for (int i = 0; i < self->n; i++)
        self->row[i].pareto = front[i];
    FILE *csv = outfile_create(dir, "sizing.csv", &err);
    if (csv) {
        report_sizing_csv(csv, self->row, self->n);
        outfile_close(csv, dir, "sizing.csv", 0, &err);
    }
    FILE *json = self->o->format == FORMAT_JSON
                     ? outfile_create(dir, "sizing.json", &err)
                     : NULL;
    if (json) {
        report_sizing_json(json, self->row, self->n, best, t);
        outfile_close(json, dir, "sizing.json", 0, &err);
    }
    if (err.msg[0])
        fprintf(stderr, "hopbench: size: %s\n", err.msg);
    if (self->o->format == FORMAT_JSON) {
        report_sizing_json(stdout, self->row, self->n, best, t);
    } else if (self->o->format == FORMAT_CSV)
        report_sizing_csv(stdout, self->row, self->n);
    else
        report_sizing_table(stdout, self->row, self->n, best, t, self->o->all);
    FILE *notes = self->o->format == FORMAT_TABLE ? stdout : stderr;
    if (self->o->extrapolate)
        size_extrapolate(&(size_extrapolate_t){.tries = &self->tries,
                                               .nfiles = self->o->nfiles,
                                               .rows = self->row,
                                               .n = self->n,
                                               .target = t},
                         notes);
    else if (best < 0 && !s_carried(self))
        fprintf(notes, "the target is beyond what was measured here "
                       "(--extrapolate fits a scalability law to it)\n");
    if (plot_have_gnuplot() &&
        report_sizing_chart(dir, self->row, self->n, t, &err))
        fprintf(stderr, "hopbench: size: chart: %s\n", err.msg);
    if (!self->o->quiet)
        fprintf(stderr, "hopbench: size: files in %s\n", dir);
}

static void s_free(size_t_ *self)
{
    for (int i = 0; i < self->n; i++) {
        pipeline_destroy(&self->pl[i]);
        topology_destroy(&self->topo[i]);
    }
    session_destroy(&self->session);
    fleet_destroy(&self->fleet);
    machine_destroy(&self->machine);
    free(self);
}

//  The candidates planned in a session, and measured: 0, or -1 (err)
static int s_size(size_t_ *self, int *best, errbuf_t *err)
{
    if (s_session(self, err))
        return -1;
    for (int i = 0; i < self->n; i++)
        s_plan(self, i);
    return session_open(self->session, 0, 1, err) || s_measure(self, best, err)
               ? -1
               : 0;
}

int size_main(const size_options_t *o)
{
    size_t_ *self = calloc(1, sizeof *self);
    errbuf_t err;
    int rc = 2, best = -1, fleet = 0;
    if (!self)
        return 1;
    self->o = o;
    if (size_target_parse(o->target, &self->target, &err) == 0 &&
        size_try_parse(o->tries, o->ntries, &self->tries, &err) == 0 &&
        (self->machine = machine_new_live(&err)) &&
        s_candidates(self, &err) == 0 && (fleet = s_fleet(self)) == 0) {
        int measured = s_size(self, &best, &err);
        if (self->session && session_dir(self->session)[0]) {
            s_report(self, best);
            rc = session_end(self->session, measured, &err);
            if (rc == 0 && best < 0)
                rc = SIZE_NOT_MET;
        } else
            rc = 1;
    }
    if (fleet) //  said already, as run says it
        rc = fleet;
    else if (rc == 2 ||
             (rc == 1 && !(self->session && session_dir(self->session)[0])))
        fprintf(stderr, "hopbench: size: %s\n", err.msg);
    bool stages_left = self->stages_left;
    s_free(self);
    if (stages_left) { //  a stage thread is stuck, as run.c says
        fflush(NULL);
        _exit(rc);
    }
    return rc;
}
