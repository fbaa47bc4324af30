/*  cli: getopt_long over one option table; see cli.h.  */
#include "app/cli.h"

#include "base/check.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_SIZES = 256,
    OPT_MESSAGES,
    OPT_DURATION,
    OPT_REPEAT,
    OPT_SET,
    OPT_SWEEP,
    OPT_PLACEMENT,
    OPT_MACHINE,
    OPT_FORMAT,
    OPT_OUTPUT,
    OPT_QUIET,
    OPT_PLOT,
    OPT_HELP,
    OPT_VERSION,
    OPT_HELP_KEYS
};

static const struct option s_options[] = {
    {"sizes", required_argument, NULL, OPT_SIZES},
    {"messages", required_argument, NULL, OPT_MESSAGES},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"set", required_argument, NULL, OPT_SET},
    {"sweep", required_argument, NULL, OPT_SWEEP},
    {"placement", required_argument, NULL, OPT_PLACEMENT},
    {"machine", required_argument, NULL, OPT_MACHINE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"plot", no_argument, NULL, OPT_PLOT},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help-keys", no_argument, NULL, OPT_HELP_KEYS},
    {NULL, 0, NULL, 0}};

void cli_usage(FILE *out)
{
    fputs(
        "usage: hopbench run TOPOLOGY.cfg [options]   run the sweep; table on "
        "stdout, files in results/\n"
        "       hopbench plan TOPOLOGY.cfg [options]  where every thread "
        "would run; runs nothing\n"
        "       hopbench check TOPOLOGY.cfg [options] validate the file (and "
        "its plan); exit 0 or 2\n"
        "       hopbench machine [--machine FILE]     the NUMA machine as "
        "hopbench sees it\n"
        "       hopbench plot RESULTS_DIR             PNG charts from a "
        "results directory (gnuplot)\n"
        "       hopbench --help | --version | --help-keys\n"
        "\n"
        "options:\n"
        "  --sizes LIST          message sizes: 8..131072 (doubling) or "
        "64,1024,65536\n"
        "  --messages N          a window that closes when every receiver "
        "at the end has taken N\n"
        "  --duration SECONDS    or: a window of this length\n"
        "  --repeat N            repetitions per size (the table shows "
        "median and min-max)\n"
        "  --set KEY=VALUE       override a topology key; STAGE.KEY=VALUE "
        "for a stage,\n"
        "                        hopN.KEY=VALUE for hop N (repeatable; "
        "--help-keys lists keys)\n"
        "  --sweep KEY=V1,V2,..  run every combination of the values "
        "(repeatable)\n"
        "  --placement POLICY    none | compact | spread | split\n"
        "  --machine FILE        plan for a described machine (numa/*.cfg) "
        "instead of this one\n"
        "  --format FMT          table (default) | csv | json\n"
        "  --output DIR          where files go (default "
        "results/<UTC time>-<topology>/)\n"
        "  --quiet               no progress on stderr\n"
        "  --plot                draw charts after the run (needs gnuplot)\n"
        "\n"
        "exit status: 0 success, 1 the run failed (a stage died, a timeout, "
        "a hop delivered\n"
        "nothing), 2 usage or configuration error.\n",
        out);
}

static int s_add_set(cli_t *cli, const char *key, const char *value,
                     errbuf_t *err)
{
    if (cli->nsets == CLI_MAX_SETS)
        return err_set(err,
                       "more than %d --set options, shorthands included "
                       "(LIMIT_SETS, docs/LIMITS.md)",
                       CLI_MAX_SETS);
    int n = snprintf(cli->sets[cli->nsets], sizeof cli->sets[0], "%s%s%s", key,
                     key[0] ? "=" : "", value);
    if (n >= (int)sizeof cli->sets[0])
        return err_set(err,
                       "--set %.40s...: longer than %d characters "
                       "(LIMIT_SET_TEXT)",
                       cli->sets[cli->nsets], LIMIT_SET_TEXT);
    cli->nsets++;
    return 0;
}

static int s_format(cli_t *cli, const char *value, errbuf_t *err)
{
    static const char *const names[] = {"table", "csv", "json"};
    for (int i = 0; i < 3; i++)
        if (strcmp(value, names[i]) == 0) {
            cli->format = (format_t)i;
            cli->format_given = true;
            return 0;
        }
    return err_set(err, "unknown format '%s' (table, csv, json)", value);
}

static int s_option(cli_t *cli, int opt, const char *arg, errbuf_t *err)
{
    switch (opt) {
    case OPT_SIZES:
        return s_add_set(cli, "sizes", arg, err);
    case OPT_MESSAGES:
        return s_add_set(cli, "messages", arg, err);
    case OPT_DURATION:
        return s_add_set(cli, "messages", "0", err) ||
               s_add_set(cli, "duration", arg, err);
    case OPT_REPEAT:
        return s_add_set(cli, "repeat", arg, err);
    case OPT_PLACEMENT:
        return s_add_set(cli, "placement", arg, err);
    case OPT_SET:
        return s_add_set(cli, "", arg, err);
    case OPT_SWEEP:
        if (cli->nsweeps == CLI_MAX_SWEEPS)
            return err_set(err,
                           "more than %d --sweep options (LIMIT_SWEEP_KEYS, "
                           "docs/LIMITS.md)",
                           CLI_MAX_SWEEPS);
        cli->sweeps[cli->nsweeps++] = arg;
        return 0;
    case OPT_MACHINE:
        cli->machine = arg;
        return 0;
    case OPT_FORMAT:
        return s_format(cli, arg, err);
    case OPT_OUTPUT:
        cli->output = arg;
        return 0;
    case OPT_QUIET:
        cli->quiet = true;
        return 0;
    case OPT_PLOT:
        cli->plot = true;
        return 0;
    case OPT_HELP:
        cli->command = "help";
        return 0;
    case OPT_VERSION:
        cli->command = "version";
        return 0;
    case OPT_HELP_KEYS:
        cli->command = "help-keys";
        return 0;
    default:
        return err_set(err, "unknown option (hopbench --help lists them)");
    }
}

static void s_command_line(cli_t *cli, int argc, char **argv)
{
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cli->command_line; i++)
        used += (size_t)snprintf(cli->command_line + used,
                                 sizeof cli->command_line - used, "%s%s",
                                 i ? " " : "", argv[i]);
}

static const char *const s_commands[] = {"run",     "plan", "check",
                                         "machine", "plot", NULL};

static int s_positionals(cli_t *cli, int argc, char **argv, errbuf_t *err)
{
    if (cli->command)
        return 0; //  --help, --version, --help-keys
    if (optind >= argc)
        return err_set(err, "no command (run, plan, check, machine, plot)");
    const char *command = argv[optind++];
    for (int i = 0; s_commands[i]; i++)
        if (strcmp(command, s_commands[i]) == 0)
            cli->command = s_commands[i];
    if (!cli->command)
        return err_set(err,
                       "unknown command '%s' (run, plan, check, "
                       "machine, plot)",
                       command);
    bool wants_target = strcmp(cli->command, "machine") != 0;
    if (wants_target && optind >= argc)
        return err_set(err, "%s needs a %s", cli->command,
                       strcmp(cli->command, "plot") ? "topology file"
                                                    : "results directory");
    if (wants_target)
        cli->target = argv[optind++];
    if (optind < argc)
        return err_set(err, "unexpected argument '%s'", argv[optind]);
    return 0;
}

int cli_parse(int argc, char **argv, cli_t *cli, errbuf_t *err)
{
    memset(cli, 0, sizeof *cli);
    s_command_line(cli, argc, argv);
    optind = 1;
    opterr = 0;
    int opt;
    //  GNU getopt permutes: options may come before or after the command
    while ((opt = getopt_long(argc, argv, ":h", s_options, NULL)) != -1) {
        if (opt == '?' || opt == ':') {
            const char *word = argv[optind - 1];
            return err_set(err, "%s '%s' (hopbench --help lists the options)",
                           opt == ':' ? "missing value for" : "unknown option",
                           word);
        }
        if (s_option(cli, opt == 'h' ? OPT_HELP : opt, optarg, err))
            return -1;
    }
    return s_positionals(cli, argc, argv, err);
}

int cli_test(bool verbose)
{
    (void)verbose;
    cli_t cli;
    errbuf_t err;
    char *good[] = {"hopbench", "run",     "t.cfg",      "--sizes", "64,1024",
                    "--set",    "hwm=5",   "--duration", "2",       "--format",
                    "csv",      "--quiet", NULL};
    CHECK(cli_parse(12, good, &cli, &err) == 0);
    CHECK(strcmp(cli.command, "run") == 0 && strcmp(cli.target, "t.cfg") == 0);
    CHECK(cli.nsets == 4 && strcmp(cli.sets[0], "sizes=64,1024") == 0);
    CHECK(strcmp(cli.sets[1], "hwm=5") == 0);
    CHECK(strcmp(cli.sets[2], "messages=0") == 0);
    CHECK(strcmp(cli.sets[3], "duration=2") == 0);
    CHECK(cli.format == FORMAT_CSV && cli.quiet);

    char *unknown[] = {"hopbench", "run", "t.cfg", "--bogus", NULL};
    CHECK(cli_parse(4, unknown, &cli, &err) == -1);
    CHECK(strstr(err.msg, "unknown option '--bogus'"));
    char *missing[] = {"hopbench", "run", "t.cfg", "--sizes", NULL};
    CHECK(cli_parse(4, missing, &cli, &err) == -1);
    CHECK(strstr(err.msg, "missing value for"));
    char *nofile[] = {"hopbench", "run", NULL};
    CHECK(cli_parse(2, nofile, &cli, &err) == -1);
    CHECK(strstr(err.msg, "needs a topology file"));
    char *badcmd[] = {"hopbench", "walk", NULL};
    CHECK(cli_parse(2, badcmd, &cli, &err) == -1);
    char *badfmt[] = {"hopbench", "run", "t.cfg", "--format", "xml", NULL};
    CHECK(cli_parse(5, badfmt, &cli, &err) == -1);
    char *help[] = {"hopbench", "--help", NULL};
    CHECK(cli_parse(2, help, &cli, &err) == 0);
    CHECK(strcmp(cli.command, "help") == 0);
    char *machine[] = {"hopbench", "machine", "--machine", "m.cfg", NULL};
    CHECK(cli_parse(4, machine, &cli, &err) == 0);
    CHECK(cli.target == NULL && strcmp(cli.machine, "m.cfg") == 0);
    return 0;
}
