/*  hopbench: measure ZeroMQ messages per second per hop through
    publish/subscribe pipelines.  main only dispatches the commands; the
    work is in run (the sweep), trial (one measurement), stage and its
    roles (publisher, proxy, subscriber), placement and report_*.
*/
#include "cli.h"
#include "machine.h"
#include "params.h"
#include "pipeline.h"
#include "report_plan.h"
#include "run.h"
#include "topology.h"

#include <czmq.h>
#include <stdio.h>
#include <string.h>

//  Load, apply --set in order, validate: NULL after printing why
static topology_t *s_topology(const cli_t *cli)
{
    errbuf_t err;
    topology_t *topo = topology_load(cli->target, &err);
    for (int i = 0; topo && i < cli->nsets; i++)
        if (topology_set(topo, cli->sets[i], &err))
            topology_destroy(&topo);
    if (topo && topology_validate(topo, &err))
        topology_destroy(&topo);
    if (!topo)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return topo;
}

static machine_t *s_machine(const cli_t *cli)
{
    errbuf_t err;
    machine_t *machine = cli->machine ? machine_new_file(cli->machine, &err)
                                      : machine_new_live(&err);
    if (!machine)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return machine;
}

//  run, plan, check: everything starts from a valid topology and machine
static int s_topology_command(const cli_t *cli)
{
    topology_t *topo = s_topology(cli);
    machine_t *machine = topo ? s_machine(cli) : NULL;
    int rc = 2;
    if (machine && strcmp(cli->command, "run") == 0) {
        if (cli->machine)
            fprintf(stderr, "hopbench: --machine plans for a described "
                            "machine; run uses this one (try plan)\n");
        else {
            run_options_t options = {cli->format, cli->output, cli->quiet,
                                     cli->command_line};
            rc = run_topology(topo, machine, &options);
        }
    } else if (machine) {
        errbuf_t err;
        pipeline_t *pl = pipeline_new(topo, machine, &err);
        if (!pl)
            fprintf(stderr, "hopbench: %s\n", err.msg);
        else if (strcmp(cli->command, "plan") == 0)
            report_plan(stdout, pl, machine, cli->format == FORMAT_CSV);
        else
            printf("%s: ok (%s, %d stages, %d hops, %d threads)\n", topo->path,
                   params_pattern_names[topo->params.pattern], topo->nstages,
                   topo->nstages - 1, pl->n);
        rc = pl ? 0 : 2;
        pipeline_destroy(&pl);
    }
    machine_destroy(&machine);
    topology_destroy(&topo);
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
    if (strcmp(cli->command, "plot") == 0) {
        fprintf(stderr, "hopbench: plot is not built yet\n");
        return 2;
    }
    return s_topology_command(cli);
}

int main(int argc, char **argv)
{
    //  czmq: logs to stderr, and no signal handler of its own
    zsys_handler_set(NULL);
    zsys_init();
    zsys_set_logstream(stderr);
    zsys_set_linger(0);
    static cli_t cli;
    errbuf_t err;
    if (cli_parse(argc, argv, &cli, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        return 2;
    }
    int rc = s_dispatch(&cli);
    zsys_shutdown();
    return rc;
}
