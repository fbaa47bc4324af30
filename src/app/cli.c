/*  cli: the command, option and exit-code tables, and getopt_long over
    them; see cli.h.

    getopt_long's struct option array and its short-option string are
    built from cli_options on the stack for each parse (no global state);
    an option's getopt value is 256 + its row.
*/
#include "app/cli.h"

#include "base/check.h"
#include "base/number.h"
#include "config/params.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zmq.h>

//  ---------------------------------------------------------------------
//  What the options do

static int s_add_set(cli_t *cli, const char *prefix, const char *value,
                     errbuf_t *err)
{
    if (cli->nsets == CLI_MAX_SETS)
        return err_set(err,
                       "more than %d --set options, shorthands included "
                       "(LIMIT_SETS, docs/LIMITS.md)",
                       CLI_MAX_SETS);
    int n = snprintf(cli->sets[cli->nsets], sizeof cli->sets[0], "%s%s", prefix,
                     value);
    if (n >= (int)sizeof cli->sets[0])
        return err_set(err,
                       "--set %.40s...: longer than %d characters "
                       "(LIMIT_SET_TEXT)",
                       cli->sets[cli->nsets], LIMIT_SET_TEXT);
    cli->nsets++;
    return 0;
}

//  A shorthand: its --set assignments, a trailing '=' taking the value
static int s_shorthand(cli_t *cli, const cli_option_t *opt, const char *value,
                       errbuf_t *err)
{
    for (int i = 0; i < 3 && opt->sets[i]; i++) {
        size_t len = strlen(opt->sets[i]);
        bool takes = len && opt->sets[i][len - 1] == '=';
        if (s_add_set(cli, opt->sets[i], takes ? value : "", err))
            return -1;
    }
    return 0;
}

static int s_set(cli_t *cli, const cli_option_t *opt, const char *value,
                 errbuf_t *err)
{
    (void)opt;
    return s_add_set(cli, "", value, err);
}

static int s_sweep(cli_t *cli, const cli_option_t *opt, const char *value,
                   errbuf_t *err)
{
    (void)opt;
    if (cli->nsweeps == CLI_MAX_SWEEPS)
        return err_set(err,
                       "more than %d --sweep options (LIMIT_SWEEP_KEYS, "
                       "docs/LIMITS.md)",
                       CLI_MAX_SWEEPS);
    cli->sweeps[cli->nsweeps++] = value;
    return 0;
}

//  --machine FILE, or HOST=FILE for one host of --hosts (repeatable)
static int s_machine(cli_t *cli, const cli_option_t *opt, const char *value,
                     errbuf_t *err)
{
    (void)opt;
    size_t name = strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                "OPQRSTUVWXYZ0123456789_-");
    if (value[name] != '=' || name == 0) {
        cli->machine = value;
        return 0;
    }
    if (name > LIMIT_NAME)
        return err_set(err,
                       "--machine %s: a host name of at most %d "
                       "characters",
                       value, LIMIT_NAME);
    if (cli->nmachine_files == LIMIT_MACHINE_FILES)
        return err_set(err,
                       "more than %d --machine HOST=FILE "
                       "(LIMIT_MACHINE_FILES, docs/LIMITS.md)",
                       LIMIT_MACHINE_FILES);
    snprintf(cli->machine_files[cli->nmachine_files].host,
             sizeof cli->machine_files[0].host, "%.*s", (int)name, value);
    cli->machine_files[cli->nmachine_files++].path = value + name + 1;
    return 0;
}

//  Options that keep their argument, or set a flag, by name
static int s_keep(cli_t *cli, const cli_option_t *opt, const char *value,
                  errbuf_t *err)
{
    (void)err;
    const char *name = opt->name;
    if (strcmp(name, "hosts") == 0)
        cli->hosts = value;
    else if (strcmp(name, "cert") == 0)
        cli->cert = value;
    else if (strcmp(name, "ssh") == 0)
        cli->ssh = true;
    else if (strcmp(name, "remote-hopbench") == 0)
        cli->remote_hopbench = value;
    else if (strcmp(name, "bind") == 0)
        cli->bind = value;
    else if (strcmp(name, "allow") == 0)
        cli->allow = value;
    else if (strcmp(name, "once") == 0)
        cli->once = true;
    else if (strcmp(name, "name") == 0)
        cli->name = value;
    else if (strcmp(name, "verbose") == 0)
        cli->verbose = true;
    else if (strcmp(name, "keep-going") == 0)
        cli->keep_going = true;
    return 0;
}

static int s_format(cli_t *cli, const cli_option_t *opt, const char *value,
                    errbuf_t *err)
{
    (void)opt;
    static const char *const names[] = {"table", "csv", "json"};
    for (int i = 0; i < 3; i++)
        if (strcmp(value, names[i]) == 0) {
            cli->format = (format_t)i;
            return 0;
        }
    return err_set(err, "unknown format '%s' (table, csv, json)", value);
}

static int s_output(cli_t *cli, const cli_option_t *opt, const char *value,
                    errbuf_t *err)
{
    (void)opt, (void)err;
    cli->output = value;
    return 0;
}

static int s_quiet(cli_t *cli, const cli_option_t *opt, const char *value,
                   errbuf_t *err)
{
    (void)opt, (void)value, (void)err;
    cli->quiet = true;
    return 0;
}

static int s_per_socket(cli_t *cli, const cli_option_t *opt, const char *value,
                        errbuf_t *err)
{
    (void)opt, (void)value, (void)err;
    cli->per_socket = true;
    return 0;
}

static int s_plot(cli_t *cli, const cli_option_t *opt, const char *value,
                  errbuf_t *err)
{
    (void)opt, (void)value, (void)err;
    cli->plot = true;
    return 0;
}

static int s_report(cli_t *cli, const cli_option_t *opt, const char *value,
                    errbuf_t *err)
{
    (void)opt, (void)value, (void)err;
    cli->report = true;
    return 0;
}

static int s_by(cli_t *cli, const cli_option_t *opt, const char *value,
                errbuf_t *err)
{
    (void)opt, (void)err;
    cli->by = value;
    return 0;
}

static int s_alpha(cli_t *cli, const cli_option_t *opt, const char *value,
                   errbuf_t *err)
{
    (void)opt;
    double alpha = 0;
    if (number_parse(value, &alpha) || !(alpha > 0 && alpha <= 0.5))
        return err_set(err,
                       "--alpha must be a number above 0 and at most "
                       "0.5, not '%s'",
                       value);
    cli->alpha = alpha;
    return 0;
}

//  size's own options
static int s_size_option(cli_t *cli, const cli_option_t *opt, const char *value,
                         errbuf_t *err)
{
    if (strcmp(opt->name, "target") == 0)
        cli->size_target = value;
    else if (strcmp(opt->name, "try") == 0) {
        if (cli->ntries == CLI_MAX_SWEEPS)
            return err_set(err, "more than %d --try options", CLI_MAX_SWEEPS);
        cli->tries[cli->ntries++] = value;
    } else if (strcmp(opt->name, "all") == 0)
        cli->all = true;
    else if (strcmp(opt->name, "ndr") == 0)
        cli->ndr = true;
    else if (strcmp(opt->name, "prove") == 0) {
        double seconds;
        if (number_parse(value, &seconds) || seconds < 0 || seconds > 86400)
            return err_set(err,
                           "--prove %s: seconds of the answer's proof at "
                           "rate, 0 (none) to 86400",
                           value);
        cli->prove = seconds;
    } else
        cli->extrapolate = true;
    return 0;
}

//  --help, --version, --help-keys: the option's name is the command,
//  its handler the option's
static int s_instead(cli_t *cli, const cli_option_t *opt, const char *value,
                     errbuf_t *err)
{
    (void)value, (void)err;
    cli->command = opt->name;
    cli->handler = opt->instead;
    return 0;
}

static int s_help(const cli_t *cli)
{
    (void)cli;
    cli_usage(stdout);
    return 0;
}

static int s_version(const cli_t *cli)
{
    (void)cli;
    int major, minor, patch;
    zmq_version(&major, &minor, &patch);
    printf("hopbench %s (libzmq %d.%d.%d)\n", HOPBENCH_VERSION, major, minor,
           patch);
    return 0;
}

static int s_help_keys(const cli_t *cli)
{
    (void)cli;
    params_print_reference(stdout);
    return 0;
}

//  ---------------------------------------------------------------------
//  The tables

const cli_option_t cli_options[] = {
    {.name = "sizes",
     .arg = "LIST",
     .commands = CLI_TOPOLOGY | CLI_SIZE,
     .help = "message sizes in bytes: 8..131072 (doubling) or 64,1024,65536 "
             "(K and M suffixes)",
     .sets = {"sizes="},
     .apply = s_shorthand},
    {.name = "messages",
     .arg = "N",
     .commands = CLI_TOPOLOGY,
     .help = "a window that closes when every receiver at the end has taken N "
             "messages",
     .sets = {"messages="},
     .apply = s_shorthand},
    {.name = "duration",
     .arg = "SECONDS",
     .commands = CLI_TOPOLOGY,
     .help = "a window of this length, instead of --messages",
     .sets = {"messages=0", "duration="},
     .apply = s_shorthand},
    {.name = "repeat",
     .arg = "N",
     .commands = CLI_TOPOLOGY,
     .help = "repetitions per size (results.csv keeps every one; from 3 on, "
             "a median row and its confidence interval, the table its "
             "median +-x %); with --precision, the fewest; with mode = "
             "search, searches per size",
     .sets = {"repeat="},
     .apply = s_shorthand},
    {.name = "precision",
     .arg = "P",
     .commands = CLI_TOPOLOGY,
     .help = "repeat each size until every hop's median is known within P "
             "(0.05: +-5 %), from --repeat (default 3) to --max-repeat",
     .sets = {"precision="},
     .apply = s_shorthand},
    {.name = "max-repeat",
     .arg = "N",
     .commands = CLI_TOPOLOGY,
     .help = "with --precision, at most N repetitions of a size (default 30); "
             "rows still too wide are precise = 0",
     .sets = {"max_repeat="},
     .apply = s_shorthand},
    {.name = "set",
     .arg = "KEY=VALUE",
     .commands = CLI_TOPOLOGY | CLI_SIZE,
     .help = "override a topology key: KEY=VALUE for the topology, "
             "STAGE.KEY=VALUE for a stage, hopN.KEY=VALUE for hop N "
             "(repeatable; --help-keys lists the keys)",
     .apply = s_set},
    {.name = "sweep",
     .arg = "KEY=V1,V2,..",
     .commands = CLI_RUN,
     .help = "run every combination of the values, each over the whole size "
             "list (repeatable)",
     .apply = s_sweep},
    {.name = "order",
     .arg = "ORDER",
     .commands = CLI_RUN,
     .help = "a sweep's repeats: interleave (repeat 1 of every combination, "
             "then repeat 2, ..: fair comparisons on a drifting machine), "
             "sequential (all of one combination's, then the next), auto "
             "(default: interleave with --sweep and --repeat 2 or more)",
     .sets = {"order="},
     .apply = s_shorthand},
    {.name = "placement",
     .arg = "POLICY",
     .commands = CLI_TOPOLOGY,
     .help = "none | compact | spread | split | all (every distinct "
             "assignment of stages to nodes, one run each: docs/NUMA.md)",
     .sets = {"placement="},
     .apply = s_shorthand},
    {.name = "profile",
     .arg = "WHAT",
     .commands = CLI_TOPOLOGY,
     .help = "syscalls: every stage's system calls in the window, counted "
             "and timed from the kernel's tracepoints, in a traced twin of "
             "each repeat or of a search's confirmation (syscalls.csv; "
             "root); none: nothing traced",
     .sets = {"profile="},
     .apply = s_shorthand},
    {.name = "machine",
     .arg = "FILE",
     .commands = CLI_PLAN | CLI_CHECK | CLI_MACHINE,
     .help = "plan for a described machine (numa/*.cfg) instead of this one; "
             "HOST=FILE plans a host of --hosts on a description instead of "
             "its agent's machine (repeatable)",
     .apply = s_machine},
    {.name = "hosts",
     .arg = "FILE",
     .commands = CLI_TOPOLOGY | CLI_SIZE,
     .help = "where the hosts that stages name (host = NAME) have their "
             "agents: a ZPL file of 'host = NAME' with agent, cert and "
             "address below (docs/HOSTS.md)",
     .apply = s_keep},
    {.name = "cert",
     .arg = "SECRET_FILE",
     .commands = CLI_TOPOLOGY | CLI_AGENT | CLI_SIZE,
     .help = "this side's CURVE certificate, the _secret file hopbench keygen "
             "wrote: the controller's, which every agent's --allow names "
             "(default ~/.curve/hopbench.cert_secret); or the agent's, whose "
             "public twin the hosts file names (an agent without one makes "
             "one for its life and says its public key on stdout)",
     .apply = s_keep},
    {.name = "ssh",
     .commands = CLI_TOPOLOGY | CLI_SIZE,
     .help = "start hopbench agent --once on every host over ssh (BatchMode, "
             "your own keys and ~/.ssh/config, the host's name as the "
             "destination), and stop it afterwards; no cert needed",
     .apply = s_keep},
    {.name = "remote-hopbench",
     .arg = "PATH",
     .commands = CLI_TOPOLOGY | CLI_SIZE,
     .help = "with --ssh: the hopbench to start on the hosts (default: "
             "hopbench on their PATH)",
     .apply = s_keep},
    {.name = "bind",
     .arg = "ENDPOINT",
     .commands = CLI_AGENT,
     .help = "tcp://ADDR:PORT the agent listens on for its controller",
     .apply = s_keep},
    {.name = "allow",
     .arg = "CERTS",
     .commands = CLI_AGENT,
     .help = "the controllers it serves: a public certificate, a directory of "
             "them, or - for Z85 public keys on stdin, one a line up to an "
             "empty line (the agent then ends when stdin closes)",
     .apply = s_keep},
    {.name = "once",
     .commands = CLI_AGENT,
     .help = "serve one run, then exit",
     .apply = s_keep},
    {.name = "name",
     .arg = "NAME",
     .commands = CLI_KEYGEN,
     .help = "the pair's names, NAME.cert and NAME.cert_secret (default: "
             "this host's name)",
     .apply = s_keep},
    {.name = "format",
     .arg = "FMT",
     .commands = CLI_RUN | CLI_PLAN | CLI_COMPARE | CLI_SIZE,
     .help = "table (default) | csv | json; plan prints a table or csv",
     .apply = s_format},
    {.name = "output",
     .letter = 'o',
     .arg = "PATH",
     .commands = CLI_RUN | CLI_COMPARE | CLI_REPORT | CLI_SIZE,
     .help = "where files go (default results/<UTC time>-<topology>/; "
             "compare --plot: results/<UTC time>-compare/); report: the "
             "page (default DIR/report.html, for several directories "
             "results/<UTC time>-compare/report.html)",
     .apply = s_output},
    {.name = "keep-going",
     .commands = CLI_RUN,
     .help = "a trial whose window stalled twice (stall_ratio) is reported, "
             "status stalled, but the run exits 0",
     .apply = s_keep},
    {.name = "quiet",
     .commands = CLI_TOPOLOGY | CLI_SIZE,
     .help = "no progress on stderr (nor where the results went, nor a "
             "--set that reaches no stage or hop); the table still goes to "
             "stdout, warnings and errors to stderr",
     .apply = s_quiet},
    {.name = "verbose",
     .commands = CLI_CHECK,
     .help = "also draw the topology as hopbench understood it: each stage "
             "and link, numbered, sources first (plan draws a tree too)",
     .apply = s_keep},
    {.name = "plot",
     .commands = CLI_RUN | CLI_COMPARE,
     .help = "after a run that succeeded, draw its charts; compare: a chart "
             "of each hop's delta against size (needs gnuplot)",
     .apply = s_plot},
    {.name = "report",
     .commands = CLI_RUN,
     .help = "at the end of the run (also one stopped by Ctrl-C), write "
             "report.html into the results directory: hopbench report's page",
     .apply = s_report},
    {.name = "per-socket",
     .commands = CLI_RUN,
     .help = "also write sockets.csv: a row per SUB socket of each "
             "subscriber of several (sockets = N), its count, proven loss "
             "and rate",
     .apply = s_per_socket},
    {.name = "by",
     .arg = "KEY",
     .commands = CLI_COMPARE,
     .help = "compare the values of a swept key within one results "
             "directory, each against the first",
     .apply = s_by},
    {.name = "alpha",
     .arg = "A",
     .commands = CLI_COMPARE,
     .help = "significance level of the Mann-Whitney test (default 0.05); "
             "the delta's interval is at 1 - A",
     .apply = s_alpha},
    {.name = "target",
     .arg = "rate=R,p99=L,..",
     .commands = CLI_SIZE,
     .help = "what size must meet, each key once: rate (msgs/s the "
             "publishers offer together; a trial at it must carry 100 "
             "messages), p99 (with its unit: 500us, 2ms; default any), loss "
             "(largest loss ratio, default 0), headroom (default 0.2: it "
             "must carry 1.2 x rate)",
     .apply = s_size_option},
    {.name = "try",
     .arg = "KEY=V1,V2,..",
     .commands = CLI_SIZE,
     .help = "the values of a key the candidates take (any key --sweep "
             "takes, each value once; repeatable, one per key: their cross "
             "product, with each file and size, at most 256 candidates: "
             "LIMIT_SIZE_CANDIDATES)",
     .apply = s_size_option},
    {.name = "all",
     .commands = CLI_SIZE,
     .help = "measure every candidate, also those dearer than one that "
             "meets; the table marks the Pareto front of cost and rate",
     .apply = s_size_option},
    {.name = "ndr",
     .commands = CLI_SIZE,
     .help = "also search each candidate that meets for its NDR",
     .apply = s_size_option},
    {.name = "prove",
     .arg = "SECONDS",
     .commands = CLI_SIZE,
     .help = "before a candidate is the answer, run it at rate this long "
             "(default 10): its loss and p99 must hold, else the next one "
             "is tried; 0: no proof",
     .apply = s_size_option},
    {.name = "extrapolate",
     .commands = CLI_SIZE,
     .help = "fit the Universal Scalability Law, a fit per size, to the "
             "capacities measured along one --try key that is a resource "
             "(io_threads, PROXY.io_threads; at least 3 values), starved "
             "trials left out; print each fit's residuals and range, write "
             "sizing_fit.csv, and predict the value the target needs "
             "(marked predicted, never a measured row, never the answer)",
     .apply = s_size_option},
    {.name = "help",
     .letter = 'h',
     .help = "this text",
     .apply = s_instead,
     .instead = s_help},
    {.name = "version",
     .help = "hopbench's version, and libzmq's",
     .apply = s_instead,
     .instead = s_version},
    {.name = "help-keys",
     .help = "every topology key: where it may go, its default, what it "
             "accepts",
     .apply = s_instead,
     .instead = s_help_keys},
    {.name = NULL}};

const cli_exit_t cli_exits[] = {
    {0, "success"},
    {1, "the run failed: a stage died, a timeout, a hop delivered nothing "
        "(the sizes already measured stay in results.csv); compare: nothing "
        "to compare, no row of a run matches one of the base"},
    {2, "usage or configuration error, including a plan the machine cannot "
        "honour; nothing was run; compare: a results file that is not what "
        "hopbench writes (file:line and the column)"},
    {130, "interrupted by SIGINT: the trial in progress is discarded, "
          "finished ones stay on disk (size: the finished candidates in "
          "sizing.csv)"},
    {3, "size: for a size, no candidate meets the target, decided (the best "
        "is named, with its shortfall and the hop that set it)"},
    {4, "inconclusive: run, every trial that stalled twice stalled where "
        "its stages waited for a CPU (starved), the machine's stall; size, "
        "for a size, the answer is undecided: a candidate's evidence "
        "straddles a bound within its budget, or the machine starved what "
        "would have failed it; none was proven to meet"},
    {143, "interrupted by SIGTERM, likewise"},
    {0, NULL}};

#define S_NOPTIONS (sizeof cli_options / sizeof cli_options[0] - 1)

//  ---------------------------------------------------------------------
//  Names and help

void cli_command_names(unsigned bits, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (const cli_command_t *c = cli_commands; c->name && used < len; c++)
        if (c->bit & bits)
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     used ? ", " : "", c->name);
}

void cli_stands_for(const cli_option_t *opt, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < 3 && opt->sets[i] && used < len; i++) {
        size_t n = strlen(opt->sets[i]);
        bool takes = n && opt->sets[i][n - 1] == '=';
        used +=
            (size_t)snprintf(buf + used, len - used, "%s--set %s%s",
                             i ? " " : "", opt->sets[i], takes ? opt->arg : "");
    }
}

//  Print text from column 'col' (where the caller left off), wrapped at
//  79, continuing at 'indent'
static void s_wrap(FILE *out, const char *text, int col, int indent)
{
    bool line_start = true;
    for (const char *p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
        int word = (int)strcspn(p, " ");
        if (!line_start && col + 1 + word > 79) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
            line_start = true;
        }
        fprintf(out, "%s%.*s", line_start ? "" : " ", word, p);
        col += word + !line_start;
        line_start = false;
        p += word;
    }
    fputc('\n', out);
}

//  "hopbench machine [--machine FILE]": a few options by name, many as
//  [options]
static void s_synopsis(const cli_command_t *cmd, char *buf, size_t len)
{
    int taken = 0;
    for (const cli_option_t *o = cli_options; o->name; o++)
        taken += (o->commands & cmd->bit) != 0;
    size_t used = (size_t)snprintf(buf, len, "hopbench %s%s%s", cmd->name,
                                   cmd->operand ? " " : "",
                                   cmd->operand ? cmd->operand : "");
    for (const cli_option_t *o = cli_options; o->name && used < len; o++)
        if (taken <= 2 && (o->commands & cmd->bit) && o->letter)
            used += (size_t)snprintf(buf + used, len - used, " [-%c%s%s]",
                                     o->letter, o->arg ? " " : "",
                                     o->arg ? o->arg : "");
        else if (taken <= 2 && (o->commands & cmd->bit))
            used +=
                (size_t)snprintf(buf + used, len - used, " [--%s%s%s]", o->name,
                                 o->arg ? " " : "", o->arg ? o->arg : "");
    if (taken > 2 && used < len)
        snprintf(buf + used, len - used, " [options]");
}

static void s_usage_commands(FILE *out)
{
    char line[200];
    for (const cli_command_t *c = cli_commands; c->name; c++) {
        s_synopsis(c, line, sizeof line);
        fprintf(out, "%s %-38s %s\n", c == cli_commands ? "usage:" : "      ",
                line, c->help);
    }
    fputs("       hopbench", out);
    const char *bar = "";
    for (const cli_option_t *o = cli_options; o->name; o++)
        if (!o->commands) {
            fprintf(out, "%s --%s", bar, o->name);
            bar = " |";
        }
    fputc('\n', out);
}

//  The help, then which commands take it and what it stands for
static void s_usage_option(FILE *out, const cli_option_t *opt)
{
    char name[64], stands[200], commands[100], trailer[400];
    snprintf(name, sizeof name, "--%s%s%s", opt->name, opt->arg ? " " : "",
             opt->arg ? opt->arg : "");
    cli_stands_for(opt, stands, sizeof stands);
    cli_command_names(opt->commands, commands, sizeof commands);
    snprintf(trailer, sizeof trailer, "(%s%s%s)",
             opt->commands ? commands : "instead of a command",
             *stands ? "; same as " : "", stands);
    s_wrap(out, opt->help, fprintf(out, "  %-20s  ", name), 24);
    s_wrap(out, trailer, fprintf(out, "%24s", ""), 24);
}

void cli_usage(FILE *out)
{
    s_usage_commands(out);
    fputs("\noptions (and the commands that take them):\n", out);
    for (const cli_option_t *o = cli_options; o->name; o++)
        s_usage_option(out, o);
    fputs("\nexit status:\n", out);
    for (const cli_exit_t *e = cli_exits; e->meaning; e++) {
        int col = fprintf(out, "  %-6d", e->status);
        s_wrap(out, e->meaning, col, 8);
    }
}

//  ---------------------------------------------------------------------
//  Parsing

static void s_command_line(cli_t *cli, int argc, char **argv)
{
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cli->command_line; i++)
        used += (size_t)snprintf(cli->command_line + used,
                                 sizeof cli->command_line - used, "%s%s",
                                 i ? " " : "", argv[i]);
}

//  getopt_long's view of cli_options: long names, and ":h"-style letters
static void s_getopt_table(struct option *longs, char *letters)
{
    size_t n = 0;
    letters[n++] = ':'; //  a missing value returns ':', not '?'
    for (size_t i = 0; i < S_NOPTIONS; i++) {
        const cli_option_t *o = &cli_options[i];
        longs[i] =
            (struct option){o->name, o->arg ? required_argument : no_argument,
                            NULL, 256 + (int)i};
        if (o->letter) {
            letters[n++] = o->letter;
            if (o->arg)
                letters[n++] = ':';
        }
    }
    longs[S_NOPTIONS] = (struct option){NULL, 0, NULL, 0};
    letters[n] = 0;
}

//  The row getopt_long's answer stands for, or -1
static int s_row(int opt)
{
    if (opt >= 256 && opt < 256 + (int)S_NOPTIONS)
        return opt - 256;
    for (size_t i = 0; i < S_NOPTIONS; i++)
        if (cli_options[i].letter && cli_options[i].letter == opt)
            return (int)i;
    return -1;
}

static const cli_command_t *s_command(const char *name)
{
    for (const cli_command_t *c = cli_commands; c->name; c++)
        if (name && strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static int s_positionals(cli_t *cli, int argc, char **argv, errbuf_t *err)
{
    if (cli->command)
        return 0; //  --help, --version, --help-keys
    char names[100];
    cli_command_names(~0u, names, sizeof names);
    if (optind >= argc)
        return err_set(err, "no command (%s)", names);
    const char *word = argv[optind++];
    const cli_command_t *cmd = s_command(word);
    if (!cmd)
        return err_set(err, "unknown command '%s' (%s)", word, names);
    cli->command = cmd->name;
    cli->handler = cmd->handler;
    if (cmd->operand && optind >= argc)
        return err_set(err, "%s needs %s", cmd->name, cmd->needs);
    while (cmd->operand && optind < argc && (cli->ntargets == 0 || cmd->many)) {
        if (cli->ntargets == LIMIT_COMPARE_RUNS)
            return err_set(err,
                           "%s: more than %d %s (LIMIT_COMPARE_RUNS, "
                           "docs/LIMITS.md)",
                           cmd->name, LIMIT_COMPARE_RUNS, cmd->needs);
        cli->targets[cli->ntargets++] = argv[optind++];
    }
    cli->target = cli->targets[0];
    if (optind < argc)
        return err_set(err, "unexpected argument '%s'", argv[optind]);
    return 0;
}

//  --output names a directory to make or fill (report's page is a file):
//  one that is a file already is a usage error, said before anything runs
static int s_output_usable(const cli_t *cli, errbuf_t *err)
{
    struct stat st;
    if (!cli->output || strcmp(cli->command, "report") == 0 ||
        stat(cli->output, &st) || S_ISDIR(st.st_mode))
        return 0;
    return err_set(err,
                   "--output %s: not a directory (%s writes a "
                   "directory of files there)",
                   cli->output, cli->command);
}

//  Every option given is one the command takes
static int s_taken(const cli_t *cli, const bool *given, errbuf_t *err)
{
    const cli_command_t *cmd = s_command(cli->command);
    for (size_t i = 0; cmd && i < S_NOPTIONS; i++) {
        const cli_option_t *o = &cli_options[i];
        if (given[i] && o->commands && !(o->commands & cmd->bit)) {
            char names[100];
            cli_command_names(o->commands, names, sizeof names);
            return err_set(err, "%s takes no --%s (%s %s)", cmd->name, o->name,
                           names, strchr(names, ',') ? "do" : "does");
        }
    }
    return 0;
}

int cli_parse(int argc, char **argv, cli_t *cli, errbuf_t *err)
{
    memset(cli, 0, sizeof *cli);
    cli->prove = CLI_PROVE_SECONDS;
    s_command_line(cli, argc, argv);
    struct option longs[S_NOPTIONS + 1];
    char letters[2 * S_NOPTIONS + 2];
    bool given[S_NOPTIONS];
    memset(given, 0, sizeof given);
    s_getopt_table(longs, letters);
    optind = 1;
    opterr = 0;
    int opt;
    //  GNU getopt permutes: options may come before or after the command
    while ((opt = getopt_long(argc, argv, letters, longs, NULL)) != -1) {
        int row = s_row(opt);
        if (opt == '?' || opt == ':' || row < 0) {
            const char *word = argv[optind - 1];
            return err_set(err, "%s '%s' (hopbench --help lists the options)",
                           opt == ':' ? "missing value for" : "unknown option",
                           word);
        }
        given[row] = true;
        const cli_option_t *o = &cli_options[row];
        if (o->apply(cli, o, optarg, err))
            return -1;
    }
    if (s_positionals(cli, argc, argv, err))
        return -1;
    return s_taken(cli, given, err) || s_output_usable(cli, err) ? -1 : 0;
}

void cli_request(const cli_t *cli, run_request_t *req)
{
    *req = (run_request_t){.command = cli->command,
                           .target = cli->target,
                           .sets = cli->sets,
                           .nsets = cli->nsets,
                           .sweeps = cli->sweeps,
                           .nsweeps = cli->nsweeps,
                           .machine = cli->machine,
                           .machine_files = cli->machine_files,
                           .nmachine_files = cli->nmachine_files,
                           .hosts = cli->hosts,
                           .cert = cli->cert,
                           .ssh = cli->ssh,
                           .remote_hopbench = cli->remote_hopbench,
                           .format = cli->format,
                           .output = cli->output,
                           .quiet = cli->quiet,
                           .verbose = cli->verbose,
                           .plot = cli->plot,
                           .report = cli->report,
                           .keep_going = cli->keep_going,
                           .per_socket = cli->per_socket,
                           .command_line = cli->command_line};
}

//  ---------------------------------------------------------------------
//  Selftest: a user's command lines, and what a wrong one says

static int s_test_tables(void)
{
    for (const cli_option_t *o = cli_options; o->name; o++) {
        CHECK(o->help && o->apply && strchr(o->help, '\n') == NULL);
        CHECK((o->apply == s_shorthand) == (o->sets[0] != NULL));
    }
    char buf[200];
    cli_command_names(CLI_TOPOLOGY, buf, sizeof buf);
    CHECK(strcmp(buf, "run, plan, check") == 0);
    for (const cli_option_t *o = cli_options; o->name; o++)
        if (strcmp(o->name, "duration") == 0)
            cli_stands_for(o, buf, sizeof buf);
    CHECK(strcmp(buf, "--set messages=0 --set duration=SECONDS") == 0);
    s_synopsis(&cli_commands[3], buf, sizeof buf);
    CHECK(strcmp(buf, "hopbench machine [--machine FILE]") == 0);
    s_synopsis(&cli_commands[0], buf, sizeof buf);
    CHECK(strcmp(buf, "hopbench run TOPOLOGY.cfg [options]") == 0);
    return 0;
}

static int s_test_errors(void)
{
    cli_t cli;
    errbuf_t err;
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
    CHECK(strstr(
        err.msg,
        "(run, plan, check, machine, plot, compare, report, size, agent, "
        "keygen)"));
    char *alpha[] = {"hopbench", "compare", "a", "b", "--alpha", "1", NULL};
    CHECK(cli_parse(6, alpha, &cli, &err) == -1 && strstr(err.msg, "--alpha"));
    char *one[] = {"hopbench", "plot", "a", "b", NULL};
    CHECK(cli_parse(4, one, &cli, &err) == -1);
    CHECK(strstr(err.msg, "unexpected argument 'b'"));
    char *badfmt[] = {"hopbench", "run", "t.cfg", "--format", "xml", NULL};
    CHECK(cli_parse(5, badfmt, &cli, &err) == -1);
    char *nottaken[] = {"hopbench", "plot", "dir", "--quiet", NULL};
    CHECK(cli_parse(4, nottaken, &cli, &err) == -1);
    CHECK(strcmp(err.msg,
                 "plot takes no --quiet (run, plan, check, size do)") == 0);
    char *runmachine[] = {"hopbench", "run", "t.cfg", "--machine", "m", NULL};
    CHECK(cli_parse(5, runmachine, &cli, &err) == -1);
    CHECK(strstr(err.msg, "run takes no --machine (plan, check, machine do)"));
    return 0;
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

    char *help[] = {"hopbench", "-h", NULL};
    CHECK(cli_parse(2, help, &cli, &err) == 0);
    CHECK(strcmp(cli.command, "help") == 0);
    char *keys[] = {"hopbench", "run", "--help-keys", NULL};
    CHECK(cli_parse(3, keys, &cli, &err) == 0);
    CHECK(strcmp(cli.command, "help-keys") == 0);
    char *machine[] = {"hopbench", "machine", "--machine", "m.cfg", NULL};
    CHECK(cli_parse(4, machine, &cli, &err) == 0);
    CHECK(cli.target == NULL && strcmp(cli.machine, "m.cfg") == 0);
    char *check[] = {"hopbench", "--set",     "hwm=1", "check",
                     "t.cfg",    "--machine", "m.cfg", NULL};
    CHECK(cli_parse(7, check, &cli, &err) == 0);
    CHECK(strcmp(cli.command, "check") == 0 && cli.nsets == 1);
    char *compare[] = {"hopbench", "compare", "A",       "B",    "C",
                       "--by",     "hwm",     "--alpha", "0.01", NULL};
    CHECK(cli_parse(9, compare, &cli, &err) == 0);
    CHECK(cli.ntargets == 3 && strcmp(cli.targets[2], "C") == 0);
    CHECK(strcmp(cli.by, "hwm") == 0 && cli.alpha == 0.01);
    char *hosts[] = {"hopbench", "plan",      "t.cfg",    "--hosts",
                     "h.cfg",    "--machine", "h2=m.cfg", "--cert",
                     "c_secret", "--ssh",     NULL};
    CHECK(cli_parse(10, hosts, &cli, &err) == 0);
    CHECK(strcmp(cli.hosts, "h.cfg") == 0 &&
          strcmp(cli.cert, "c_secret") == 0 && cli.ssh);
    CHECK(cli.nmachine_files == 1 &&
          strcmp(cli.machine_files[0].host, "h2") == 0);
    CHECK(strcmp(cli.machine_files[0].path, "m.cfg") == 0 && !cli.machine);
    char *agent[] = {"hopbench", "agent", "--bind", "tcp://1.2.3.4:5",
                     "--allow",  "d",     "--once", NULL};
    CHECK(cli_parse(7, agent, &cli, &err) == 0);
    CHECK(strcmp(cli.command, "agent") == 0 && cli.once &&
          strcmp(cli.allow, "d") == 0);
    char *keygen[] = {"hopbench", "keygen", "keys", "--name", "h1", NULL};
    CHECK(cli_parse(5, keygen, &cli, &err) == 0);
    CHECK(strcmp(cli.target, "keys") == 0 && strcmp(cli.name, "h1") == 0);
    char *agentsets[] = {"hopbench", "agent", "--sizes", "8", NULL};
    CHECK(cli_parse(4, agentsets, &cli, &err) == -1);
    return s_test_tables() || s_test_errors() ? -1 : 0;
}
