/*  hopbench: measure ZeroMQ messages per second per hop through
    publish/subscribe pipelines.  main only dispatches the commands; the
    work is in run (the sweep), trial (one measurement), stage and its
    roles (publisher, proxy, subscriber), placement and report_*.
*/
#include "agent/agent.h"
#include "agent/keys.h"
#include "app/cli.h"
#include "app/inputs.h"
#include "config/hosts.h"
#include "crew/fleet.h"
#include "machine/machine.h"
#include "config/params.h"
#include "pipeline/pipeline.h"
#include "pipeline/roster.h"
#include "report/compare.h"
#include "report/plot.h"
#include "report/report_placements.h"
#include "report/report_plan.h"
#include "report/report_tree.h"
#include "base/interrupt.h"
#include "crew/stage_process.h"
#include "run/run.h"
#include "run/size.h"
#include "run/study.h"
#include "config/sweep.h"
#include "config/topology.h"

#include <czmq.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//  A topology-level --set or --sweep that some stage or hop overrides in
//  the file would silently not reach it: say so
static void s_warn_shadowed(const topology_t *topo, const char *assignment,
                            const char *option)
{
    char names[512];
    errbuf_t line;
    topology_shadowed(topo, assignment, names, sizeof names);
    if (names[0]) {
        err_set(&line,
                "warning: %s %s does not reach %s, which set their own (use "
                "NAME.KEY=VALUE)",
                option, assignment, names);
        fprintf(stderr, "hopbench: %s\n", line.msg);
    }
}

//  The text of an input file, read once: NULL after printing why
static char *s_read(const cli_t *cli, const char *path)
{
    errbuf_t err;
    char *text = inputs_read(cli, path, &err);
    if (!text)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return text;
}

//  The name of the topology in messages: "-" is stdin
static const char *s_topology_name(const cli_t *cli)
{
    return streq(cli->target, "-") ? "stdin" : cli->target;
}

//  Load from the file's text, apply --set in order, validate: NULL after
//  printing why
static topology_t *s_topology(const cli_t *cli, const char *text, bool warn)
{
    errbuf_t err;
    topology_t *topo = topology_load_text(s_topology_name(cli), text, &err);
    for (int i = 0; topo && i < cli->nsets; i++) {
        if (topology_set(topo, cli->sets[i], &err))
            topology_destroy(&topo);
        else if (warn && !cli->quiet)
            s_warn_shadowed(topo, cli->sets[i], "--set");
    }
    if (topo && topology_validate(topo, &err))
        topology_destroy(&topo);
    if (!topo)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return topo;
}

static machine_t *s_machine(const cli_t *cli)
{
    errbuf_t err;
    machine_t *machine = cli->machine ? inputs_machine(cli, cli->machine, &err)
                                      : machine_new_live(&err);
    if (!machine)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return machine;
}

//  One topology per combination of the sweep, every one valid, or none
static int s_combinations(const cli_t *cli, const char *text,
                          const sweep_t *sweep, topology_t **topos)
{
    int n = sweep_count(sweep);
    for (int c = 0; c < n; c++) {
        errbuf_t err;
        if (!(topos[c] = s_topology(cli, text, c == 0)))
            return -1;
        for (int k = 0; k < sweep->nkeys; k++) {
            char assignment[256];
            sweep_assignment(sweep, c, k, assignment, sizeof assignment);
            if (c == 0 && !cli->quiet)
                s_warn_shadowed(topos[c], assignment, "--sweep");
            if (topology_set_as(topos[c], assignment, "--sweep", &err) ||
                topology_validate(topos[c], &err)) {
                fprintf(stderr, "hopbench: %s\n", err.msg);
                return -1;
            }
        }
    }
    return n;
}

//  The hosts the topologies' stages name (host = NAME), each through its
//  agent; *fleet stays NULL when none is named.  The exit status of a
//  failure (printed), or 0
static int s_fleet(const cli_t *cli, topology_t *const *topos, int n,
                   fleet_t **fleet)
{
    errbuf_t err;
    hosts_t *hosts = cli->hosts ? inputs_hosts(cli, &err) : NULL;
    enum { LIMIT_NAMES = 4096 }; //  more are duplicates: fleet_new skips them
    static const char *names[LIMIT_NAMES];
    int nnames = 0, rc = cli->hosts && !hosts ? 2 : 0;
    double timeout = 0;
    for (int c = 0; c < n && rc == 0; c++) {
        if (hosts_check_topology(hosts, topos[c], &err) ||
            (!cli->ssh && hosts_check_certs(hosts, topos[c], &err)))
            rc = 2;
        for (int i = 0; i < topos[c]->nstages && rc == 0; i++) {
            params_t stage;
            topology_stage_params(topos[c], i, &stage);
            for (int k = 0; k < stage.count && nnames < LIMIT_NAMES; k++) {
                char host[LIMIT_NAME + 1];
                topology_instance_host(&stage, k, host, sizeof host);
                if (host[0])
                    names[nnames++] = hosts_find(hosts, host)->name;
            }
        }
        if (topos[c]->params.timeout > timeout)
            timeout = topos[c]->params.timeout;
    }
    machine_t *machines[LIMIT_HOSTS] = {NULL};
    fleet_machine_file_t files[LIMIT_HOSTS];
    zcert_t *cert = NULL;
    for (int i = 0; i < cli->nmachine_files && rc == 0; i++) {
        errbuf_t why;
        machines[i] = inputs_machine(cli, cli->machine_files[i].path, &why);
        if (!machines[i]) {
            err_set(&err, "--machine %s=%s", cli->machine_files[i].host,
                    why.msg);
            rc = 2;
        }
        files[i] =
            (fleet_machine_file_t){cli->machine_files[i].host, machines[i]};
    }
    if (rc == 0 && nnames && inputs_cert(cli, &cert, &err))
        rc = 2;
    fleet_options_t options = {
        hosts,   cert,  cli->ssh,           cli->remote_hopbench,
        timeout, files, cli->nmachine_files};
    if (rc == 0 && nnames &&
        !(*fleet = fleet_new(&options, names, nnames, &err)))
        rc = 1;
    if (rc)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    for (int i = 0; i < cli->nmachine_files; i++)
        machine_destroy(&machines[i]);
    zcert_destroy(&cert);
    hosts_destroy(&hosts); //  the fleet keeps what it needs
    return rc;
}

//  placement = all: the study, made a sweep of nodes; 1 when there is
//  none (another placement), 0 when there is, -1 after saying why not
static int s_study(const cli_t *cli, const char *text, const machine_t *machine,
                   placements_t *study, sweep_t *sweep)
{
    errbuf_t err;
    topology_t *topo = s_topology(cli, text, false);
    int rc = topo ? 1 : -1;
    if (topo && topo->params.placement == PLACEMENT_ALL)
        rc = study_plan(topo, machine, study, &err) ||
                     (sweep && study_sweep(study, sweep, &err))
                 ? -1
                 : 0;
    if (rc < 0 && topo)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    if (rc == 0 && study->note[0] && !cli->quiet && sweep)
        fprintf(stderr, "hopbench: placement all: %s\n", study->note);
    //  the summary names the study's topology: keep it until the end
    if (rc != 0)
        topology_destroy(&topo);
    return rc;
}

//  placement = all plans on this machine's nodes: not with stages on
//  other hosts.  The exit status (printed), or 0
static int s_study_here(int studied, const fleet_t *fleet)
{
    if (studied != 0 || !fleet)
        return 0;
    fprintf(stderr, "hopbench: placement all studies this machine's nodes; "
                    "it does not take stages on other hosts (host = ...)\n");
    return 2;
}

static int s_run(const cli_t *cli, const char *text, const machine_t *machine)
{
    static topology_t *topos[SWEEP_MAX_COMBOS];
    static placements_t study;
    sweep_t sweep;
    errbuf_t err;
    if (sweep_parse(&sweep, cli->sweeps, cli->nsweeps, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        return 2;
    }
    int studied = s_study(cli, text, machine, &study, &sweep);
    if (studied < 0)
        return 2;
    int n = s_combinations(cli, text, &sweep, topos), rc = 2;
    fleet_t *fleet = NULL;
    if (n > 0 && (rc = s_fleet(cli, topos, n, &fleet)) == 0 &&
        (rc = s_study_here(studied, fleet)) == 0) {
        bool stages_left = false;
        run_options_t options = {.format = cli->format,
                                 .output = cli->output,
                                 .quiet = cli->quiet,
                                 .command_line = cli->command_line,
                                 .sweep = &sweep,
                                 .stages_left = &stages_left,
                                 .plot = cli->plot,
                                 .keep_going = cli->keep_going,
                                 .per_socket = cli->per_socket,
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

//  plan, check: a valid topology and its placed pipeline (or study)
static int s_plan(const cli_t *cli, const char *text, const machine_t *machine)
{
    static placements_t study;
    errbuf_t err;
    int studied = s_study(cli, text, machine, &study, NULL);
    if (studied < 0)
        return 2;
    topology_t *topo = s_topology(cli, text, studied != 0);
    fleet_t *fleet = NULL;
    int rc = topo ? s_fleet(cli, &topo, 1, &fleet) : 2;
    if (rc == 0)
        rc = s_study_here(studied, fleet);
    bool csv = cli->format == FORMAT_CSV;
    if (rc == 0 && studied == 0 && strcmp(cli->command, "plan") == 0)
        report_placements_plan(stdout, &study, machine, csv);
    pipeline_machine_t machines[LIMIT_HOSTS + 1];
    int n = fleet_machines(fleet, machine, machines, LIMIT_HOSTS + 1);
    const placements_t *all = studied == 0 ? &study : NULL;
    pipeline_t *pl =
        rc == 0 ? s_pipeline(topo, machines, n, all, &err) : NULL;
    if (rc == 0 && !pl)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    else if (pl && strcmp(cli->command, "plan") == 0 && studied != 0) {
        if (!csv && !shape_is_chain(&topo->shape))
            report_tree(stdout, topo);
        report_plan_on(stdout, pl, machines, n, csv);
    } else if (pl && strcmp(cli->command, "check") == 0) {
        if (cli->verbose)
            report_tree(stdout, topo);
        s_check_ok(topo, pl, all);
    }
    rc = pl ? 0 : rc ? rc : 2;
    pipeline_destroy(&pl);
    fleet_destroy(&fleet);
    topology_destroy(&topo);
    if (studied == 0) {
        topology_t *base = (topology_t *)study.topo;
        topology_destroy(&base);
        placements_free(&study);
    }
    return rc;
}

//  agent: --bind and --allow are required
static int s_agent(const cli_t *cli)
{
    if (!cli->bind || !cli->allow) {
        fprintf(stderr, "hopbench: agent needs --bind tcp://ADDR:PORT and "
                        "--allow CERTS (the controllers it serves)\n");
        return 2;
    }
    agent_options_t options = {cli->bind, cli->allow, cli->cert, cli->once};
    return agent_main(&options);
}

static int s_keygen(const cli_t *cli)
{
    char name[KEYS_NAME_MAX + 1] = "hopbench", path[700];
    errbuf_t err;
    if (!cli->name)
        gethostname(name, sizeof name - 1);
    if (keys_generate(cli->target, cli->name ? cli->name : name, path,
                      sizeof path, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        return 2;
    }
    printf("%s: public certificate (for a hosts file's cert, or an agent's "
           "--allow)\n%s_secret: its secret twin (for --cert; keep it "
           "private)\n",
           path, path);
    return 0;
}

static int s_topology_command(const cli_t *cli)
{
    //  the topology first: a FIFO's writer may be waiting for that
    char *text = s_read(cli, cli->target);
    //  run takes no --machine (cli): it runs on this machine
    machine_t *machine = text ? s_machine(cli) : NULL;
    int rc = !machine                           ? 2
             : strcmp(cli->command, "run") == 0 ? s_run(cli, text, machine)
                                                : s_plan(cli, text, machine);
    machine_destroy(&machine);
    free(text);
    return rc;
}

static int s_compare(const cli_t *cli)
{
    errbuf_t err;
    compare_options_t options = {
        .dirs = cli->targets,
        .ndirs = cli->ntargets,
        .by = cli->by,
        .alpha = cli->alpha,
        .format = cli->format == FORMAT_CSV    ? COMPARE_CSV
                  : cli->format == FORMAT_JSON ? COMPARE_JSON
                                               : COMPARE_TABLE,
        .output = cli->output,
        .plot = cli->plot};
    int rc = compare_results(&options, stdout, &err);
    if (rc)
        fprintf(stderr, "hopbench: compare: %s\n", err.msg);
    return rc;
}

static int s_dispatch(const cli_t *cli)
{
    if (strcmp(cli->command, "help") == 0) {
        cli_usage(stdout);
        return 0;
    }
    if (strcmp(cli->command, "version") == 0) {
        int major, minor, patch;
        zmq_version(&major, &minor, &patch);
        printf("hopbench %s (libzmq %d.%d.%d)\n", HOPBENCH_VERSION, major,
               minor, patch);
        return 0;
    }
    if (strcmp(cli->command, "help-keys") == 0) {
        params_print_reference(stdout);
        return 0;
    }
    if (strcmp(cli->command, "machine") == 0) {
        machine_t *machine = s_machine(cli);
        int rc = machine ? 0 : 2;
        if (machine)
            machine_print(machine, stdout);
        machine_destroy(&machine); //  sets machine to NULL
        return rc;
    }
    if (strcmp(cli->command, "agent") == 0)
        return s_agent(cli);
    if (strcmp(cli->command, "keygen") == 0)
        return s_keygen(cli);
    if (strcmp(cli->command, "plot") == 0) {
        errbuf_t err;
        int rc = plot_results(cli->target, stdout, &err);
        if (rc)
            fprintf(stderr, "hopbench: %s\n", err.msg);
        return rc;
    }
    if (strcmp(cli->command, "compare") == 0)
        return s_compare(cli);
    if (strcmp(cli->command, "size") == 0)
        return size_main(&(size_options_t){
            cli->targets, cli->ntargets, cli->sets, cli->nsets,
            cli->size_target, cli->tries, cli->ntries, cli->all, cli->ndr,
            cli->extrapolate, cli->quiet, cli->format, cli->output,
            cli->command_line});
    return s_topology_command(cli);
}

int main(int argc, char **argv)
{
    //  czmq: logs to stderr, and no signal handler of its own
    zsys_handler_set(NULL);
    zsys_init();
    interrupt_install();
    zsys_set_logstream(stderr);
    zsys_set_linger(0);
    //  a stage in its own process (crew/stage_child.c), started by a run
    if (argc > 1 && strcmp(argv[1], "stage") == 0)
        return stage_process_main(argc, argv);
    static cli_t cli;
    errbuf_t err;
    if (cli_parse(argc, argv, &cli, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        return 2;
    }
    int rc = s_dispatch(&cli);
    //  a signal that ended a wait (reading a FIFO, say) is the status
    if (rc && interrupt_signal())
        rc = 128 + interrupt_signal();
    zsys_shutdown();
    return rc;
}
