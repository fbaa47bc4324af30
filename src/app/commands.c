/*  commands: the table of hopbench's commands and each one's handler.

    A row is the word, the bit its options name it by (cli.h), its
    operand, one line of help and the handler that does it; cli_parse
    puts the handler in cli_t and main calls it.  A handler only turns
    the command line into what the layer below asks and passes the exit
    status on: the commands that take a topology are the run layer's
    (run/command.c, over run/assemble.c), the others call their module.
    Adding a command is its row, its handler here, and its CLI_* bit.
*/
#include "agent/agent.h"
#include "agent/keys.h"
#include "app/cli.h"
#include "report/compare.h"
#include "report/plot.h"
#include "report/report_html.h"
#include "run/assemble.h"
#include "run/command.h"
#include "run/size.h"

#include <stdio.h>
#include <unistd.h>

static int s_run(const cli_t *cli)
{
    run_request_t req;
    cli_request(cli, &req);
    return command_run(&req);
}

//  plan and check: req.command says which
static int s_plan(const cli_t *cli)
{
    run_request_t req;
    cli_request(cli, &req);
    return command_plan(&req);
}

static int s_machine(const cli_t *cli)
{
    run_request_t req;
    cli_request(cli, &req);
    machine_t *machine = assemble_machine(&req);
    if (machine)
        machine_print(machine, stdout);
    int rc = machine ? 0 : 2;
    machine_destroy(&machine);
    return rc;
}

static int s_plot(const cli_t *cli)
{
    errbuf_t err;
    int rc = plot_results(cli->target, stdout, &err);
    if (rc)
        fprintf(stderr, "hopbench: %s\n", err.msg);
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

static int s_report(const cli_t *cli)
{
    char path[1100];
    errbuf_t err;
    int rc = report_html_write(cli->targets, cli->ntargets, cli->output, path,
                               sizeof path, &err);
    if (rc)
        fprintf(stderr, "hopbench: report: %s\n", err.msg);
    if (rc != 2)
        printf("%s\n", path);
    return rc;
}

//  size: the candidates are the topology files given, its own options
static int s_size(const cli_t *cli)
{
    return size_main(&(size_options_t){.files = cli->targets,
                                       .nfiles = cli->ntargets,
                                       .sets = cli->sets,
                                       .nsets = cli->nsets,
                                       .target = cli->size_target,
                                       .tries = cli->tries,
                                       .ntries = cli->ntries,
                                       .all = cli->all,
                                       .ndr = cli->ndr,
                                       .extrapolate = cli->extrapolate,
                                       .quiet = cli->quiet,
                                       .prove = cli->prove,
                                       .format = cli->format,
                                       .output = cli->output,
                                       .command_line = cli->command_line,
                                       .hosts = cli->hosts,
                                       .cert = cli->cert,
                                       .ssh = cli->ssh,
                                       .remote_hopbench =
                                           cli->remote_hopbench});
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

const cli_command_t cli_commands[] = {
    {"run", CLI_RUN, "TOPOLOGY.cfg", "a topology file",
     "run the sweep; table on stdout, files in results/", false, s_run},
    {"plan", CLI_PLAN, "TOPOLOGY.cfg", "a topology file",
     "where every thread would run; runs nothing", false, s_plan},
    {"check", CLI_CHECK, "TOPOLOGY.cfg", "a topology file",
     "check the file and its plan; exit 0, 2, or 1 (host unreached)", false,
     s_plan},
    {"machine", CLI_MACHINE, NULL, NULL, "the NUMA machine as hopbench sees it",
     false, s_machine},
    {"plot", CLI_PLOT, "RESULTS_DIR", "a results directory",
     "PNG charts from a results directory (gnuplot)", false, s_plot},
    {"compare", CLI_COMPARE, "A B [C...]", "results directories",
     "medians, deltas and their significance between runs (or sizing runs)",
     true, s_compare},
    {"report", CLI_REPORT, "DIR [DIR...]", "results directories",
     "one self-contained HTML page of a run, or of several compared", true,
     s_report},
    {"size", CLI_SIZE, "FILE...", "topology files",
     "the cheapest measured deployment that meets --target, proven; exit "
     "3 when none does, 4 when undecided",
     true, s_size},
    {"agent", CLI_AGENT, NULL, NULL,
     "serve the stages a run on another host puts on this one", false, s_agent},
    {"keygen", CLI_KEYGEN, "DIR", "a directory",
     "a CURVE certificate pair (czmq's zcert format) into DIR", false,
     s_keygen},
    {NULL, 0, NULL, NULL, NULL, false, NULL}};
