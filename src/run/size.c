/*  size: the command (see size.h): candidates made from the files and
    the --try values, planned and admitted (or "does not fit"), measured
    and answered size by size (size_answer.c), the table and its files.
    Its trials run in a session (session.h), as run's do: the results
    directory with results.csv, latency.csv, threads.csv and memory.csv
    (every trial, with sweep_candidate and sweep_criterion), the stages,
    retries and warnings; this file adds sizing.csv, sizing.json (--format
    json) and sizing.png to the directory, and gives the exit status.
*/
#include "run/size_internal.h"

#include "base/interrupt.h"
#include "base/outfile.h"
#include "base/readfile.h"
#include "base/text.h"
#include "config/topology.h"
#include "machine/machine.h"
#include "report/plot.h"
#include "run/assemble.h"
#include "run/inputs.h"
#include "run/size_extrapolate.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE_WARN_SECONDS 600 //  a sizing that may take longer says so

//  One file x one combination of --try: its topology, or NULL and err
//  (the run ends: a file, a --set or a --try value that cannot be
//  applied); a topology the checks refuse comes back with *why set: that
//  candidate does not fit, the others go on
static topology_t *s_topology(size_t_ *self, const char *path, const char *text,
                              int c, errbuf_t *why, errbuf_t *err)
{
    why->msg[0] = 0;
    topology_t *topo = topology_load_text(path, text, err);
    for (int i = 0; topo && i < self->o->nsets; i++)
        if (topology_set(topo, self->o->sets[i], err))
            topology_destroy(&topo);
    if (topo && topo->params.pattern != PATTERN_PUBSUB) {
        err_set(err,
                "%s: pattern %s: size measures pubsub pipelines (its "
                "trials offer a rate and count what each hop loses; "
                "pushpull never drops, reqrep and connect time themselves)",
                path, params_pattern_names[topo->params.pattern]);
        topology_destroy(&topo);
    }
    if (topo && topology_set_as(topo, "mode=search", "size", err))
        topology_destroy(&topo);
    for (int k = 0; topo && k < self->tries.nkeys; k++) {
        char assignment[256];
        sweep_assignment(&self->tries, c, k, assignment, sizeof assignment);
        if (topology_set_as(topo, assignment, "--try", err))
            topology_destroy(&topo);
    }
    if (topo && size_target_measurable(&self->target, topo->params.search_trial,
                                       topo->params.size_window, err))
        topology_destroy(&topo);
    if (topo)
        topology_validate(topo, why);
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
    if (!self->topo[i]) //  refused by the checks: s_file said why
        return;
    int room = fleet_size(self->fleet) + 1, nhosts;
    pipeline_machine_t *machines = calloc((size_t)room, sizeof *machines);
    int nmachines =
        machines ? fleet_machines(self->fleet, self->machine, machines, room)
                 : 0;
    const pipeline_host_t *hosts = fleet_pipeline_hosts(self->fleet, &nhosts);
    if (!machines)
        err_set(&why, "out of memory");
    if (self->unfit[i].msg[0] || !machines ||
        !(self->pl[i] =
              pipeline_new_on(self->topo[i], machines, nmachines, &why))) {
        free(machines);
        self->row[i].verdict = SIZING_NOFIT;
        snprintf(self->row[i].why, sizeof self->row[i].why, "%.500s",
                 self->unfit[i].msg[0] ? self->unfit[i].msg : why.msg);
        return;
    }
    free(machines);
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
    if (size_cost_plan(self->pl[i], self->fleet, &self->cost[i], &why)) {
        self->row[i].verdict = SIZING_NOFIT;
        snprintf(self->row[i].why, sizeof self->row[i].why, "%.500s", why.msg);
        pipeline_destroy(&self->pl[i]);
        return;
    }
    sizing_row_t *row = &self->row[i];
    row->cost = row->planned_cost = self->cost[i].planned;
    TEXT_SET(row->cost_unit, size_cost_units[self->cost[i].unit]);
    row->brokers = self->cost[i].reserved;
    row->generators = self->cost[i].generators;
}

//  Candidate c of file f at its size s: a row, "does not fit" when the
//  checks refused its topology (why says how)
static void s_row(size_t_ *self, const topology_t *topo, int f, int c, int s,
                  const errbuf_t *why)
{
    sizing_row_t *row = &self->row[self->n];
    row->number = self->n + 1;
    row->capacity = row->p99_us = (sizing_figure_t){-1, -1, -1};
    row->proof_p99_us = row->capacity;
    row->busy_cores = row->ndr = -1;
    row->seconds = row->confirmed = row->cost = -1;
    row->verdict = why->msg[0] ? SIZING_NOFIT : SIZING_UNTRIED;
    snprintf(row->why, sizeof row->why, "%.500s",
             why->msg[0] ? why->msg : "not measured");
    row->size = topo->params.sizes.size[s];
    snprintf(row->topology, sizeof row->topology, "%s", topo->name);
    snprintf(row->file, sizeof row->file, "%s", self->o->files[f]);
    sweep_describe(&self->tries, c, row->tried, sizeof row->tried);
    self->n++;
}

//  File f's candidates: each --try combination x each size, within
//  LIMIT_SIZE_CANDIDATES; a file none of whose candidates passes the
//  checks is refused with the first one's reason
static int s_file(size_t_ *self, int f, const char *text, errbuf_t *err)
{
    const char *path = self->o->files[f];
    int combos = sweep_count(&self->tries), valid = 0;
    errbuf_t first = {0};
    for (int c = 0; c < combos; c++) {
        errbuf_t why;
        topology_t *topo = s_topology(self, path, text, c, &why, err);
        if (!topo)
            return -1;
        int sizes = topo->params.sizes.n; //  the same for every c
        if (c == 0 && self->n + combos * sizes > SIZE_MAX_ROWS) {
            topology_destroy(&topo);
            return err_set(err,
                           "%s: %d --try combinations x %d sizes make "
                           "%d candidates, more than %d in all "
                           "(LIMIT_SIZE_CANDIDATES, docs/LIMITS.md): try "
                           "fewer values or sizes",
                           path, combos, sizes, self->n + combos * sizes,
                           SIZE_MAX_ROWS);
        }
        if (why.msg[0] && !first.msg[0])
            first = why;
        valid += !why.msg[0];
        for (int s = 0; s < sizes; s++) {
            self->topo[self->n] = why.msg[0] ? NULL
                                  : s        ? topology_dup(topo)
                                             : topo;
            s_row(self, topo, f, c, s, &why);
        }
        if (why.msg[0])
            topology_destroy(&topo);
    }
    if (!valid)
        *err = first;
    return valid ? 0 : -1;
}

//  Every file x --try combination x size: a row
static int s_candidates(size_t_ *self, errbuf_t *err)
{
    if (inputs_distinct(self->o->files, self->o->nfiles, err))
        return -1;
    for (int f = 0; f < self->o->nfiles; f++) {
        char *text = readfile(self->o->files[f], 5, NULL, err);
        int rc = text ? s_file(self, f, text, err) : -1;
        free(text);
        if (rc)
            return -1;
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
    info->nsweep = 2;
    info->sweep_key[0] = "candidate";
    info->sweep_key[1] = "criterion";
    info->pattern = "pubsub";
    info->mode = "search";
    run_meta_t *meta = session_meta(self->session);
    TEXT_SET(meta->topology, self->n ? self->row[0].topology : "");
    TEXT_SET(meta->file, o->files[0]);
    TEXT_SET(meta->mode, "size");
    return 0;
}

//  Did some candidate carry the target's rate and headroom (so what
//  failed was its latency, its loss or the machine, not its capacity)?
static bool s_carried(const size_t_ *self)
{
    double need = sizing_offered(&self->target);
    for (int i = 0; i < self->n; i++)
        if (self->row[i].capacity.value >= need)
            return true;
    return false;
}

//  Is any size without an answer?
static bool s_unanswered(const size_t_ *self)
{
    for (int i = 0; i < self->n; i++)
        if (size_answer_outcome(self, self->row[i].size) != SIZE_ANSWERED)
            return true;
    return false;
}

//  The Pareto front: cost against capacity, of those that meet
static void s_pareto(size_t_ *self)
{
    double cost[SIZE_MAX_ROWS], rate[SIZE_MAX_ROWS];
    bool front[SIZE_MAX_ROWS];
    for (int i = 0; i < self->n; i++) {
        cost[i] = self->row[i].cost;
        rate[i] = self->row[i].verdict == SIZING_MEETS
                      ? self->row[i].capacity.value
                      : 0;
    }
    size_cost_pareto(cost, rate, self->n, front);
    for (int i = 0; i < self->n; i++)
        self->row[i].pareto = front[i];
}

static void s_report(size_t_ *self)
{
    errbuf_t err = {0};
    const sizing_target_t *t = &self->target;
    const char *dir = session_dir(self->session);
    bool stopped = interrupt_signal() != 0;
    s_pareto(self);
    sizing_fit_t *fits = NULL; //  --extrapolate's, a fit per size
    int nfits = self->o->extrapolate
                    ? size_extrapolate_fit(
                          &(size_extrapolate_t){.tries = &self->tries,
                                                .nfiles = self->o->nfiles,
                                                .rows = self->row,
                                                .n = self->n,
                                                .target = t},
                          &fits)
                    : 0;
    FILE *csv = outfile_create(dir, "sizing.csv", &err);
    if (csv) {
        report_sizing_csv(csv, self->row, self->n, t);
        outfile_close(csv, dir, "sizing.csv", 0, &err);
    }
    FILE *json = self->o->format == FORMAT_JSON
                     ? outfile_create(dir, "sizing.json", &err)
                     : NULL;
    if (json) {
        report_sizing_json(json, self->row, self->n, t, stopped, fits, nfits);
        outfile_close(json, dir, "sizing.json", 0, &err);
    }
    if (err.msg[0])
        fprintf(stderr, "hopbench: size: %s\n", err.msg);
    if (self->o->format == FORMAT_JSON)
        report_sizing_json(stdout, self->row, self->n, t, stopped, fits, nfits);
    else if (self->o->format == FORMAT_CSV)
        report_sizing_csv(stdout, self->row, self->n, t);
    else
        report_sizing_table(stdout, self->row, self->n, t, self->o->all,
                            stopped);
    FILE *notes = self->o->format == FORMAT_TABLE ? stdout : stderr;
    if (self->o->extrapolate &&
        (nfits < 0 || size_extrapolate_report(fits, nfits, notes, dir, &err)))
        fprintf(stderr, "hopbench: size: --extrapolate: %s\n",
                nfits < 0 ? "out of memory" : err.msg);
    else if (!self->o->extrapolate && !stopped && s_unanswered(self) &&
             !s_carried(self))
        fprintf(notes, "the target is beyond what was measured here "
                       "(--extrapolate fits a scalability law to it)\n");
    free(fits);
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

//  --try io_threads (the topology's) reaches every stage's context: said,
//  with the key that reaches a broker's alone
static void s_warn_io_threads(size_t_ *self)
{
    for (int k = 0; k < self->tries.nkeys; k++)
        if (strcmp(self->tries.key[k], "io_threads") == 0)
            session_warn(self->session,
                         "size: --try io_threads sets the I/O threads of "
                         "every stage's context, the load generators' too; "
                         "--try BROKER.io_threads sets a broker's alone (the "
                         "cost counts the brokers' either way)");
}

//  A sizing that may take long says so before it starts, and how to
//  shorten it
static void s_warn_long(size_t_ *self)
{
    double most = 0;
    int measured = 0;
    for (int i = 0; i < self->n; i++)
        if (self->pl[i])
            most += size_answer_bound(self, i), measured++;
    if (most <= SIZE_WARN_SECONDS)
        return;
    char line[400];
    snprintf(line, sizeof line,
             "size: %d candidates may take up to ~%.0f minutes (each at most "
             "~%.0f s: every criterion's size_budget and a proof); fewer "
             "--try values or sizes, --prove 0, or a smaller size_budget "
             "shorten it",
             measured, most / 60, most / measured);
    session_warn(self->session, line);
}

//  The candidates planned in a session, and measured: 0, or -1 (err)
static int s_size(size_t_ *self, errbuf_t *err)
{
    if (s_session(self, err))
        return -1;
    for (int i = 0; i < self->n; i++)
        s_plan(self, i);
    s_warn_long(self);
    s_warn_io_threads(self);
    return session_open(self->session, 0, false, 1, err) ||
                   size_answer_all(self, err)
               ? -1
               : 0;
}

//  The exit status of a finished sizing: 0 every size answered; 3 a size
//  none of whose candidates meets, decided; 4 a size undecided
static int s_status(const size_t_ *self)
{
    int status = 0;
    for (int i = 0; i < self->n; i++) {
        size_outcome_t o = size_answer_outcome(self, self->row[i].size);
        if (o == SIZE_NONE)
            return SIZE_NOT_MET;
        if (o == SIZE_OPEN)
            status = SIZE_UNDECIDED;
    }
    return status;
}

int size_main(const size_options_t *o)
{
    size_t_ *self = calloc(1, sizeof *self);
    errbuf_t err;
    int rc = 2, fleet = 0;
    if (!self)
        return 1;
    self->o = o;
    if (size_target_parse(o->target, &self->target, &err) == 0 &&
        size_try_parse(o->tries, o->ntries, &self->tries, &err) == 0 &&
        (self->machine = machine_new_live(&err)) &&
        s_candidates(self, &err) == 0 &&
        (!o->extrapolate ||
         size_extrapolate_check(&self->tries, o->nfiles, self->topo, self->n,
                                &err) == 0) &&
        (fleet = s_fleet(self)) == 0) {
        int measured = s_size(self, &err);
        if (self->session && session_dir(self->session)[0]) {
            s_report(self);
            rc = session_end(self->session, measured, &err);
            if (rc == 0)
                rc = s_status(self);
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
