/*  cli: the command line, parsed with getopt_long into a cli_t.

    Shorthand options (--sizes, --messages, --duration, --repeat,
    --placement) become --set assignments, kept in command-line order with
    the --set ones, so the last word wins.  Usage errors are exit 2.
*/
#ifndef HOPBENCH_CLI_H
#define HOPBENCH_CLI_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "base/limits.h"
#include "run/run.h"

#define CLI_MAX_SETS   LIMIT_SETS
#define CLI_MAX_SWEEPS LIMIT_SWEEP_KEYS

typedef struct {
    const char *command; //  run, plan, check, machine, plot, help, version,
                         //  help-keys
    const char *target;  //  topology file, or results directory for plot
    char sets[CLI_MAX_SETS][LIMIT_SET_TEXT + 1];
    int nsets;
    const char *sweeps[CLI_MAX_SWEEPS];
    int nsweeps;
    const char *machine;
    format_t format;
    bool format_given;
    const char *output;
    bool quiet;
    bool plot;
    char command_line[2048];
} cli_t;

int cli_parse(int argc, char **argv, cli_t *cli, errbuf_t *err);
void cli_usage(FILE *out);

int cli_test(bool verbose);

#endif
