/*  cli: the command line as data, and its parser.

    Three tables describe it: the commands (word, operand, one line of
    help, the handler that does it: in commands.c), the options (name, argument, the commands that take it, help,
    the --set assignments it stands for, what it does) and the exit codes.
    getopt_long's table, --help and the hopbench(1) page are all made from
    them, so adding an option is one row here and nothing else to keep in
    step.  Shorthand options (--sizes, --messages, --duration, --repeat,
    --placement) become --set assignments, kept in command-line order with
    the --set ones, so the last word wins.  An option the command does not
    take, like any usage error, is exit 2.
*/
#ifndef HOPBENCH_CLI_H
#define HOPBENCH_CLI_H

#include <stdbool.h>

#define CLI_PROVE_SECONDS 10 //  size --prove's default
#include <stdio.h>

#include "base/errbuf.h"
#include "base/limits.h"
#include "run/request.h"
#include "run/run.h"

#define CLI_MAX_SETS   LIMIT_SETS
#define CLI_MAX_SWEEPS LIMIT_SWEEP_KEYS

typedef struct cli_s cli_t;
//  What a command does: its exit status (cli_exits)
typedef int cli_handler_t(const cli_t *cli);

struct cli_s {
    const char *command; //  run, plan, check, machine, plot, compare, agent,
                         //  keygen, help, version, help-keys
    const char *target;  //  topology file, or results directory for plot
    const char *targets[LIMIT_COMPARE_RUNS]; //  compare: its directories
    int ntargets;                            //  (targets[0] is target)
    char sets[CLI_MAX_SETS][LIMIT_SET_TEXT + 1];
    int nsets;
    const char *sweeps[CLI_MAX_SWEEPS];
    int nsweeps;
    const char *machine;
    run_machine_file_t machine_files[LIMIT_MACHINE_FILES]; //  --machine H=F
    int nmachine_files;
    const char *hosts;           //  --hosts FILE
    const char *cert;            //  --cert SECRET_FILE
    bool ssh;                    //  --ssh
    const char *remote_hopbench; //  --remote-hopbench PATH
    const char *bind, *allow;    //  agent: --bind, --allow
    bool once;                   //  agent: --once
    const char *name;            //  keygen: --name
    format_t format;
    const char *output;
    bool quiet;
    bool verbose; //  check: draw the topology
    bool plot;
    bool report;     //  run --report: report.html at the end
    bool keep_going; //  run: --keep-going
    bool per_socket; //  run --per-socket
    const char *by;  //  compare --by KEY
    //  size: --target, --try (repeatable), --all, --ndr, --extrapolate
    const char *size_target;
    const char *tries[CLI_MAX_SWEEPS];
    int ntries;
    bool all, ndr, extrapolate;
    double prove; //  size --prove SECONDS (0: no proof)
    double alpha; //  compare --alpha, 0: its default
    char command_line[2048];
    cli_handler_t *handler; //  the command's, or an option's instead
};

//  The commands, as bits of cli_option_t.commands
enum {
    CLI_RUN = 1 << 0,
    CLI_PLAN = 1 << 1,
    CLI_CHECK = 1 << 2,
    CLI_MACHINE = 1 << 3,
    CLI_PLOT = 1 << 4,
    CLI_AGENT = 1 << 5,
    CLI_KEYGEN = 1 << 6,
    CLI_COMPARE = 1 << 7,
    CLI_REPORT = 1 << 8,
    CLI_SIZE = 1 << 9,
    CLI_TOPOLOGY = CLI_RUN | CLI_PLAN | CLI_CHECK //  those that load a file
};

typedef struct {
    const char *name;    //  the word: "run"
    unsigned bit;        //  CLI_RUN
    const char *operand; //  "TOPOLOGY.cfg", "RESULTS_DIR", NULL: none
    const char *needs;   //  the operand in an error: "a topology file"
    const char *help;    //  one line
    bool many;           //  the operand may be given several times
    cli_handler_t *handler;
} cli_command_t;

typedef struct cli_option_s cli_option_t;
struct cli_option_s {
    const char *name;    //  long name, without "--"
    char letter;         //  short name, or 0
    const char *arg;     //  the argument's name ("LIST"), NULL: a flag
    unsigned commands;   //  CLI_* bits; 0: a command of its own (--help)
    const char *help;    //  one sentence or two, no line breaks
    const char *sets[3]; //  the --set assignments it stands for, in order;
                         //  "KEY=" takes the argument (--sizes: "sizes=")
    int (*apply)(cli_t *cli, const cli_option_t *opt, const char *value,
                 errbuf_t *err);
    cli_handler_t *instead; //  --help: what it does instead of a command
};

typedef struct {
    int status;
    const char *meaning;
} cli_exit_t;

//  Each ends with a row whose name (meaning) is NULL.  The commands'
//  table is with the handlers, in commands.c: a new command is a row
//  there (and its CLI_* bit, for the options it takes)
extern const cli_command_t cli_commands[];
extern const cli_option_t cli_options[];
extern const cli_exit_t cli_exits[];

//  Fills cli, handler included
int cli_parse(int argc, char **argv, cli_t *cli, errbuf_t *err);
//  What the run layer is asked (run/request.h), from the command line
void cli_request(const cli_t *cli, run_request_t *req);
//  --help: made from the three tables
void cli_usage(FILE *out);
//  "run, plan, check": the commands in 'bits', into buf
void cli_command_names(unsigned bits, char *buf, size_t len);
//  "--set messages=0 --set duration=SECONDS": what a shorthand stands for
//  ("" for an option that is not one)
void cli_stands_for(const cli_option_t *opt, char *buf, size_t len);

int cli_test(bool verbose);

#endif
