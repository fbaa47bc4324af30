/*  command: the commands that take a topology (see command.h).  Each
    reads the topology's text once, assembles (run/assemble) and hands
    what it made to the run (run.c) or to the plan's reports; the exit
    status comes back to main.
*/
#include "run/command.h"

#include "base/nofile.h"
#include "pipeline/pipeline.h"
#include "pipeline/roster.h"
#include "pipeline/slow_warn.h"
#include "pipeline/traffic.h"
#include "pipeline/traffic_warn.h"
#include "report/report_plan.h"
#include "report/report_tree.h"
#include "run/assemble.h"
#include "run/inputs.h"
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//  The text of an input file, read once: NULL after printing why
static char *s_read(const run_request_t *req, const char *path)
{
    errbuf_t err;
    char *text = inputs_read(req, path, &err);
    if (!text)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return text;
}

static int s_run(const run_request_t *req, const char *text,
                 const machine_t *machine)
{
    static topology_t *topos[SWEEP_MAX_COMBOS];
    static placements_t study;
    sweep_t sweep;
    errbuf_t err;
    if (sweep_parse(&sweep, req->sweeps, req->nsweeps, "--sweep", &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        return 2;
    }
    int studied = assemble_study(req, text, machine, &study, &sweep);
    if (studied < 0)
        return 2;
    int n = assemble_combinations(req, text, &sweep, topos), rc = 2;
    fleet_t *fleet = NULL;
    if (n > 0 && (rc = assemble_fleet(req, topos, n, &fleet)) == 0 &&
        (rc = assemble_study_here(studied, fleet)) == 0) {
        bool stages_left = false;
        run_options_t options = {.format = req->format,
                                 .output = req->output,
                                 .quiet = req->quiet,
                                 .command_line = req->command_line,
                                 .sweep = &sweep,
                                 .stages_left = &stages_left,
                                 .plot = req->plot,
                                 .report = req->report,
                                 .keep_going = req->keep_going,
                                 .per_socket = req->per_socket,
                                 .fleet = fleet,
                                 .study = studied == 0 ? &study : NULL};
        rc = run_topologies(topos, n, machine, &options);
        fleet_destroy(&fleet);
        if (stages_left) {
            //  a stage thread is stuck: czmq's exit handler would wait
            //  for it, or trip over its pipe
            fflush(NULL);
            _exit(rc);
        }
    }
    fleet_destroy(&fleet);
    for (int c = 0; c < SWEEP_MAX_COMBOS && topos[c]; c++)
        topology_destroy(&topos[c]);
    if (studied == 0) {
        topology_t *topo = (topology_t *)study.topo;
        topology_destroy(&topo);
        placements_free(&study);
    }
    return rc;
}

//  What check says of a valid file: the threads are the plan's rows
static void s_check_ok(const topology_t *topo, const pipeline_t *pl,
                       const placements_t *study)
{
    if (topo->bom)
        printf("%s:1: note: skipped the UTF-8 byte-order mark at the start\n",
               topo->path);
    printf("%s: ok (%s, %d stages, %d hops, %d threads", topo->path,
           params_pattern_names[topo->params.pattern], topo->nstages,
           topo->nhops, roster_list(pl, NULL, 0));
    if (study)
        printf(" in the first of %d assignments (placement all)", study->n);
    printf(")\n");
}

static void s_warn_lines(const char *text)
{
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(stderr, "hopbench: warning: %.*s\n", (int)len, p);
        p += len + (p[len] == '\n');
    }
}

//  check: what the topics and a slow subscriber do that the file does not
//  show, on stderr
static void s_check_traffic(const pipeline_t *pl)
{
    char text[4096];
    if (traffic_warnings(pl, text, sizeof text) == 0)
        s_warn_lines(text);
    slow_warnings(pl, text, sizeof text);
    s_warn_lines(text);
}

//  The pipeline plan and check look at, each host's stages on that host's
//  machine: the study's first assignment for placement = all
static pipeline_t *s_pipeline(topology_t *topo,
                              const pipeline_machine_t *machines, int n,
                              const placements_t *study, errbuf_t *err)
{
    char nodes[LIMIT_SWEEP_VALUE + 16];
    if (study) {
        snprintf(nodes, sizeof nodes, "nodes=%.*s", LIMIT_SWEEP_VALUE,
                 study->placement[0].nodes);
        if (topology_set_as(topo, nodes, "--placement all", err) ||
            topology_validate(topo, err))
            return NULL;
    }
    return pipeline_new_on(topo, machines, n, err);
}

//  check on this machine: the files the pipeline opens fit the hard
//  RLIMIT_NOFILE (run raises the soft one up to it, and refuses beyond)
static int s_files_here(const topology_t *topo, const pipeline_t *pl,
                        errbuf_t *err)
{
    unsigned long long soft, hard;
    long need = pipeline_files(pl);
    if (nofile_room(need, &soft, &hard) == 0)
        return 0;
    return err_set(err,
                   "%s: the pipeline would open about %ld files, more than "
                   "this process may (ulimit -Hn: %llu): RLIMIT_NOFILE is too "
                   "low for %ld SUB sockets and their stages; raise it (as "
                   "root: ulimit -n %ld), or use fewer instances or sockets",
                   topo->path, need, hard, pipeline_total_sockets(pl), need);
}

//  plan, check: a valid topology and its placed pipeline (or study)
static int s_plan(const run_request_t *req, const char *text,
                  const machine_t *machine)
{
    static placements_t study;
    errbuf_t err;
    int studied = assemble_study(req, text, machine, &study, NULL);
    if (studied < 0)
        return 2;
    topology_t *topo = assemble_topology(req, text, studied != 0);
    fleet_t *fleet = NULL;
    int rc = topo ? assemble_fleet(req, &topo, 1, &fleet) : 2;
    if (rc == 0)
        rc = assemble_study_here(studied, fleet);
    bool csv = req->format == FORMAT_CSV;
    if (rc == 0 && studied == 0 && strcmp(req->command, "plan") == 0)
        report_placements_plan(stdout, &study, machine, csv);
    int room = fleet_size(fleet) + 1;
    pipeline_machine_t *machines = calloc((size_t)room, sizeof *machines);
    int n = machines ? fleet_machines(fleet, machine, machines, room) : 0;
    const placements_t *all = studied == 0 ? &study : NULL;
    if (!machines)
        err_set(&err, "out of memory");
    pipeline_t *pl =
        rc == 0 && machines ? s_pipeline(topo, machines, n, all, &err) : NULL;
    if (pl && strcmp(req->command, "check") == 0 &&
        ((!req->machine && s_files_here(topo, pl, &err)) ||
         traffic_check_reached(pl, &err)))
        pipeline_destroy(&pl);
    if (rc == 0 && !pl)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    else if (pl && strcmp(req->command, "plan") == 0 && studied != 0) {
        if (!csv && !shape_is_chain(&topo->shape))
            report_tree(stdout, topo);
        report_plan_on(stdout, pl, machines, n, csv);
    } else if (pl && strcmp(req->command, "check") == 0) {
        if (req->verbose)
            report_tree(stdout, topo);
        s_check_traffic(pl);
        s_check_ok(topo, pl, all);
    }
    rc = pl ? 0 : rc ? rc : 2;
    pipeline_destroy(&pl);
    free(machines);
    fleet_destroy(&fleet);
    topology_destroy(&topo);
    if (studied == 0) {
        topology_t *base = (topology_t *)study.topo;
        topology_destroy(&base);
        placements_free(&study);
    }
    return rc;
}

//  The topology first: a FIFO's writer may be waiting for that; then the
//  machine (run takes no --machine: it runs on this machine)
static int s_topology_command(const run_request_t *req,
                              int (*what)(const run_request_t *req,
                                          const char *text,
                                          const machine_t *machine))
{
    char *text = s_read(req, req->target);
    machine_t *machine = text ? assemble_machine(req) : NULL;
    int rc = machine ? what(req, text, machine) : 2;
    machine_destroy(&machine);
    free(text);
    return rc;
}

int command_run(const run_request_t *req)
{
    return s_topology_command(req, s_run);
}

int command_plan(const run_request_t *req)
{
    return s_topology_command(req, s_plan);
}
