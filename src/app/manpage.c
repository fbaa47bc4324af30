/*  manpage: hopbench(1) and hopbench-topology(5), written from the
    program's own tables each time hopbench is built.

        build/normal/manpage 1 DATE >hopbench.1
        build/normal/manpage 5 DATE >hopbench-topology.5

    What could drift comes from the program: the commands, every option
    with the commands that take it and the --set it stands for, the exit
    codes (app/cli); every key with the places it may go, its default,
    what it accepts and what it means (config/params); the roles of each
    pattern, asked of the topology validator itself; the columns of
    every CSV file, from report's tables (manpage_files.c).  What is
    written here is the prose around them and the examples, which tests/12-man.t runs.  A program of its own: none
    of this is linked into hopbench.
*/
#include "app/cli.h"
#include "app/manpage.h"
#include "app/roff.h"
#include "base/limits.h"
#include "config/params.h"
#include "config/topology.h"

#include <stdlib.h>
#include <string.h>

//  ---------------------------------------------------------------------
//  Pieces both pages use

//  A table's help text as a sentence, ending in a full stop.  Not
//  capitalised: many start with a literal (inproc, libzmq, none)
static void s_sentence(FILE *out, const char *text)
{
    size_t len = strlen(text);
    roff_text(out, text);
    fputs(len && !strchr(".!?", text[len - 1]) ? ".\n" : "\n", out);
}

//  "--sizes LIST" as a tag: the name bold, the argument italic
static void s_option_tag(FILE *out, const cli_option_t *opt)
{
    if (opt->letter) {
        char letter[3] = {'-', opt->letter, 0};
        roff_font(out, 'B', letter);
        fputs(", ", out);
    }
    char name[64];
    snprintf(name, sizeof name, "--%s", opt->name);
    roff_font(out, 'B', name);
    if (opt->arg) {
        fputc(' ', out);
        roff_font(out, 'I', opt->arg);
    }
    fputc('\n', out);
}

//  The options 'bits' takes, bold, comma-separated: "--sizes, --set"
static void s_option_list(FILE *out, unsigned bits)
{
    int n = 0;
    for (const cli_option_t *o = cli_options; o->name; o++) {
        if (!(o->commands & bits))
            continue;
        char name[64];
        snprintf(name, sizeof name, "--%s", o->name);
        fputs(n++ ? ", " : "", out);
        roff_font(out, 'B', name);
    }
    fputs(n ? ".\n" : "none.\n", out);
}

//  One example: what it shows, then the text as typed
static void s_example(FILE *out, const char *what, const char *text)
{
    roff_para(out, what);
    roff_example(out, text);
}

//  ---------------------------------------------------------------------
//  hopbench(1)

//  "hopbench run TOPOLOGY.cfg [--sizes LIST] ...", every option it takes
static void s_synopsis_command(FILE *out, const cli_command_t *cmd)
{
    roff_request(out, ".SY hopbench");
    fputs(".B ", out);
    roff_text(out, cmd->name);
    fputc('\n', out);
    if (cmd->operand) {
        fputs(".I ", out);
        roff_text(out, cmd->operand);
        fputc('\n', out);
    }
    for (const cli_option_t *o = cli_options; o->name; o++)
        if (o->commands & cmd->bit) {
            fputs(".OP \\-\\-", out);
            roff_text(out, o->name);
            fputs(o->arg ? " " : "", out);
            roff_text(out, o->arg ? o->arg : "");
            fputs("\\&\n", out); //  "V2,.." ends no sentence
        }
    roff_request(out, ".YS");
}

static void s_synopsis(FILE *out)
{
    roff_section(out, "SYNOPSIS");
    for (const cli_command_t *c = cli_commands; c->name; c++)
        s_synopsis_command(out, c);
    roff_request(out, ".SY hopbench");
    const char *bar = "";
    for (const cli_option_t *o = cli_options; o->name; o++)
        if (!o->commands) {
            char name[64];
            snprintf(name, sizeof name, "--%s", o->name);
            fputs(bar, out);
            roff_font(out, 'B', name);
            bar = " | ";
        }
    fputc('\n', out);
    roff_request(out, ".YS");
}

static void s_description(FILE *out)
{
    roff_section(out, "DESCRIPTION");
    roff_para(out,
              "hopbench measures how fast ZeroMQ messages move through a "
              "pipeline: a source (a publisher, pusher or requester), any "
              "number of proxies, and a sink (a subscriber, puller or "
              "replier), joined by inproc, ipc or tcp hops, each stage on "
              "the CPUs and NUMA node it is given.  A topology file "
              "describes the pipeline; hopbench-topology(5) has its format "
              "and every key.  For each message size of a sweep, hopbench "
              "reports per hop the messages per second that reached the "
              "hop's far end during the measurement window, what the hop "
              "lost, and the CPU time each stage spent per message.");
    roff_para(out,
              "A hop is one link between two adjacent stages; hop 1 starts "
              "at the source.  A pubsub topology may also be a tree of "
              "stages (publishers into edge proxies into a core, a core into "
              "regional edges), whose links are numbered sources first; "
              "every figure is per link.  `sent` is what the upstream stage "
              "handed to the hop's socket, `received` what the downstream "
              "stage took from it once the pipeline drained, `expected` "
              "what it should have taken (sent, or with topics the "
              "messages of the topics its subscribers take), and `lost` = "
              "expected - received.  PUB and XPUB drop at the high-water "
              "mark by design: hopbench reports it, never hides it.  "
              "docs/TOPICS.md gives the topic of every message and the "
              "topics of every subscriber step by step, and "
              "tools/expected.py recomputes each row's expected from a "
              "results directory.");
    roff_para(out,
              "Stages may run on other hosts: a stage names its host (host "
              "= NAME), --hosts FILE says where each host's hopbench agent "
              "listens and what its public certificate is, and the run "
              "drives the stages there over a CURVE-encrypted control "
              "channel that each agent opens only to the controllers it "
              "allows (--allow).  Hops between hosts are tcp; each host's "
              "stages are planned on its own NUMA machine; results.csv "
              "names every hop's hosts.  --ssh starts the agents itself.  "
              "docs/HOSTS.md has the hosts file, the protocol, the security "
              "and the clocks.");
    roff_para(out,
              "Every input file (the topology, --machine, --hosts and the "
              "certificates it names, --cert, --allow) is read once, as "
              "text, so a FIFO, a pipe or stdin works as any of them; - "
              "as the topology is stdin.  One that does not end within the "
              "run's timeout as the command line sets it (--set "
              "timeout=S), else 10 seconds, is refused (exit 2).");
    roff_para(out, "Options may come before or after the command.  The "
                   "shorthands (--sizes, --duration and the like) stand for "
                   "--set assignments and are applied with the --set ones in "
                   "command-line order, so the last word wins.");
}

static void s_commands(FILE *out)
{
    roff_section(out, "COMMANDS");
    for (const cli_command_t *c = cli_commands; c->name; c++) {
        char name[64];
        snprintf(name, sizeof name, "hopbench %s", c->name);
        roff_request(out, ".TP");
        roff_font(out, 'B', name);
        if (c->operand) {
            fputc(' ', out);
            roff_font(out, 'I', c->operand);
        }
        fputc('\n', out);
        s_sentence(out, c->help);
        roff_request(out, ".br");
        fputs("Options: ", out);
        s_option_list(out, c->bit);
    }
}

//  "Same as --set sizes=LIST; see sizes in hopbench-topology(5)."
static void s_stands_for(FILE *out, const cli_option_t *opt)
{
    char stands[200];
    cli_stands_for(opt, stands, sizeof stands);
    if (!*stands)
        return;
    roff_request(out, ".br");
    fputs("Same as ", out);
    roff_font(out, 'B', stands);
    fputs("; see", out);
    for (int i = 0; i < 3 && opt->sets[i]; i++) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(opt->sets[i], "="),
                 opt->sets[i]);
        fputs(i ? ", " : " ", out);
        roff_font(out, 'B', key);
    }
    roff_text(out, " in hopbench-topology(5).\n");
}

static void s_options(FILE *out)
{
    roff_section(out, "OPTIONS");
    for (const cli_option_t *o = cli_options; o->name; o++) {
        roff_request(out, ".TP");
        s_option_tag(out, o);
        s_sentence(out, o->help);
        s_stands_for(out, o);
        char commands[100];
        cli_command_names(o->commands, commands, sizeof commands);
        roff_request(out, ".br");
        if (o->commands)
            fprintf(out, "Commands: %s.\n", commands);
        else
            fputs("Instead of a command.\n", out);
    }
}

static void s_exit_status(FILE *out)
{
    roff_section(out, "EXIT STATUS");
    for (const cli_exit_t *e = cli_exits; e->meaning; e++) {
        roff_request(out, ".TP");
        fprintf(out, ".B %d\n", e->status);
        s_sentence(out, e->meaning);
    }
    roff_para(out, "Errors name the file and line: `hopbench: bad.cfg:3: "
                   "unknown transport 'tpc' (inproc, ipc, tcp)`.");
}

//  LIMITS: the limits table (base/limits.h), as docs/LIMITS.md has it
static void s_limits(FILE *out)
{
    roff_section(out, "LIMITS");
    roff_para(out, "What hopbench is given is bounded; past a limit it is "
                   "refused with exit status 2 before anything runs, the "
                   "message naming the limit and where it was passed "
                   "(docs/LIMITS.md says why each is what it is).");
    for (const limit_t *limit = limits_table; limit->name; limit++) {
        char value[32];
        snprintf(value, sizeof value, " %ld", limit->value);
        roff_request(out, ".TP");
        roff_font(out, 'B', limit->name);
        roff_font(out, 'R', value);
        fputc('\n', out);
        roff_text(out, limit->what);
        fputs(" (", out);
        roff_text(out, limit->where);
        fputs(").\n", out);
    }
}

//  NUMA: where every thread goes, what the run reads back, the study
static void s_numa(FILE *out)
{
    roff_section(out, "NUMA");
    roff_para(
        out,
        "A placement (none, compact, spread, split, all; a stage's own node "
        "or cpus wins) gives every stage thread one CPU and binds its "
        "memory to that CPU's node; its libzmq threads may use the node's "
        "CPUs.  Only CPUs this process may use (its CPU set, which a "
        "taskset or a cgroup's cpuset narrows) are handed out, and a plan "
        "that needs one outside it is refused, naming it (exit 2).");
    roff_para(
        out,
        "The controller, hopbench's own threads (its main thread, czmq's "
        "ZMQbg/IO/0 and ZMQbg/Reaper), and for a stage in its own process "
        "that process's main thread, its czmq context and the relay to it, "
        "go on one housekeeping CPU whenever any stage is pinned: "
        "`controller.cpus` or `controller.node` if given, else a CPU no "
        "stage uses, a free core's on the first node first; with no CPU "
        "free, the CPU of the most upstream stage (the plan says so).  "
        "`hopbench plan` lists every thread of the run, the controller's "
        "rows last (stage controller), with each stage's engine and where "
        "it runs (runs_in: thread or process).");
    roff_para(
        out,
        "A stage thread makes the counters it writes on every message "
        "itself, after it has pinned itself (in a process of its own it "
        "touches their shared pages first), and moves its stack to its "
        "node.  memory.csv counts, per stage, the pages of its counters, "
        "of a message buffer and of its stack by node; any page off the "
        "stage's node is a warning, as is a thread whose CPUs are not the "
        "plan's, or one the plan does not list.");
    roff_para(
        out,
        "`--placement all` runs every distinct assignment of the stages to "
        "nodes, each as one value of a sweep of `nodes` (stages with a node "
        "or cpus of their own stay; assignments that differ only by "
        "renaming nodes that are alike run once), at most `max_placements` "
        "of them, and ends with a summary ranking them by the last hop's "
        "rate, with their socket crossings and what each crossing hop "
        "pays.  `hopbench plan --placement all` lists them without running.");
}

static const char *const s_cli_examples[][2] = {
    {"The proxy topology over three sizes, half a second each; the table "
     "on stdout, the files in results/:",
     "hopbench run topologies/proxy.cfg --sizes 64,1024,16384 \\\n"
     "    --duration 0.5"},
    {"The classic round-trip test: one warm-up exchange, then 5000 round "
     "trips; latency.csv has their distribution:",
     "hopbench run topologies/reqrep.cfg --sizes 8 --messages 5000"},
    {"Latency at a fixed rate of 20000 messages per second per publisher, "
     "every hop of a chain of three proxies:",
     "hopbench run topologies/chain3.cfg --set rate=20000 \\\n"
     "    --sizes 64 --duration 2"},
    {"Every transport, one CSV, then its charts:",
     "hopbench run topologies/proxy.cfg --sweep transport=inproc,ipc,tcp \\\n"
     "    --sizes 64,4096 --messages 50000 --format csv \\\n"
     "    --output results/sweep\n"
     "hopbench plot results/sweep"},
    {"Each size repeated until every hop's median msgs/s is known within "
     "5 % (at most 8 times); rows that ran out are precise = 0:",
     "hopbench run topologies/direct.cfg --precision 0.05 --max-repeat 8"},
    {"Two runs, five repeats each, compared hop by hop: medians, the delta, "
     "its interval and whether it is significant (~: it is not):",
     "hopbench run topologies/proxy.cfg --repeat 5 --output results/a\n"
     "hopbench run topologies/proxy.cfg --repeat 5 --set hwm=10 \\\n"
     "    --output results/b\n"
     "hopbench compare results/a results/b"},
    {"The same comparison as one HTML page, and a run's own page:",
     "hopbench report results/a results/b -o compare.html\n"
     "hopbench report results/a"},
    {"The values of a swept key against the first, in one run:",
     "hopbench run topologies/direct.cfg --sweep placement=none,compact \\\n"
     "    --repeat 5 --output results/placement\n"
     "hopbench compare results/placement --by placement"},
    {"Where every thread of a chain would run on a two-socket Xeon, with "
     "adjacent stages on different sockets:",
     "hopbench plan topologies/chain3.cfg \\\n"
     "    --machine numa/xeon-e5-2680v4-2s.cfg --placement spread"},
    {"Every distinct assignment of the proxy topology's stages to the "
     "Xeon's two sockets, with their crossings and the controller's CPU:",
     "hopbench plan topologies/proxy.cfg \\\n"
     "    --machine numa/xeon-e5-2680v4-2s.cfg --placement all"},
    {"Validate a topology with one hop and one stage changed:",
     "hopbench check topologies/chain3.cfg \\\n"
     "    --set hop2.transport=ipc --set p2.engine=forwarder"},
    {"The NUMA machine as hopbench sees it, or a described one:",
     "hopbench machine\n"
     "hopbench machine --machine numa/vm-2x2.cfg"},
};

static void s_cli_examples_section(FILE *out)
{
    roff_section(out, "EXAMPLES");
    size_t n = sizeof s_cli_examples / sizeof s_cli_examples[0];
    for (size_t i = 0; i < n; i++)
        s_example(out, s_cli_examples[i][0], s_cli_examples[i][1]);
}

static int s_page_hopbench(FILE *out, const char *date)
{
    roff_title(out, "HOPBENCH", 1, date, "hopbench " HOPBENCH_VERSION,
               "User Commands");
    roff_section(out, "NAME");
    roff_text(out, "hopbench - messages per second, per hop, through ZeroMQ "
                   "publish/subscribe pipelines");
    fputc('\n', out);
    s_synopsis(out);
    s_description(out);
    s_commands(out);
    s_options(out);
    s_exit_status(out);
    s_limits(out);
    s_numa(out);
    roff_section(out, "ENVIRONMENT");
    roff_request(out, ".TP");
    roff_request(out, ".B TMPDIR");
    roff_text(out, "Where a run makes its private 0700 directory for ipc "
                   "endpoints (else /tmp); it is removed when the run ends.");
    fputc('\n', out);
    roff_request(out, ".TP");
    roff_request(out, ".B HOME");
    roff_text(out, "A controller without --cert uses "
                   "$HOME/.curve/hopbench.cert_secret, czmq's place for "
                   "one's own certificate.");
    fputc('\n', out);
    roff_request(out, ".TP");
    roff_request(out, ".B HOPBENCH_SSH");
    roff_text(out, "The ssh program --ssh runs (default ssh), for a wrapper "
                   "that adds options.");
    fputc('\n', out);
    roff_request(out, ".TP");
    roff_request(out, ".B HOPBENCH_TEST_PROTOCOL");
    roff_text(out, "For tests only: the agent protocol version this process "
                   "claims, to see a mismatch refused.");
    fputc('\n', out);
    if (manpage_files(out))
        return -1;
    s_cli_examples_section(out);
    roff_section(out, "SEE ALSO");
    roff_text(out, "hopbench-topology(5), zmq(7), zmq_proxy_steerable(3), "
                   "numactl(8), gnuplot(1)");
    fputc('\n', out);
    return 0;
}

//  ---------------------------------------------------------------------
//  hopbench-topology(5)

static const char s_shape[] =
    "# NAME: what the pipeline is\n"
    "topology = NAME\n"
    "    KEY = VALUE             # topology keys\n"
    "SOURCE = NAME               # publisher, pusher or requester\n"
    "    KEY = VALUE             # stage keys\n"
    "hop = TRANSPORT             # or a bare hop: the topology's transport\n"
    "    KEY = VALUE             # hop keys\n"
    "proxy = NAME                # any number of proxies, a hop after each\n"
    "    KEY = VALUE\n"
    "hop\n"
    "SINK = NAME                 # subscriber, puller or replier\n"
    "    KEY = VALUE\n"
    "# a tree (pubsub): a stage names its upstreams\n"
    "proxy = NAME\n"
    "    from = UP1,UP2          # a link from each, the topology's keys\n"
    "    from = UP3              # or one link with keys of its own:\n"
    "        KEY = VALUE         # hop keys, eight spaces in\n";

//  Does this pipeline validate: a source, maybe a proxy, a sink?
static bool s_valid(const char *pattern, const char *source, bool proxy,
                    const char *sink)
{
    char text[400];
    snprintf(text, sizeof text,
             "topology = probe\n    pattern = %s\n%s = a\nhop\n%s%s = b\n",
             pattern, source, proxy ? "proxy = p\nhop\n" : "", sink);
    errbuf_t err;
    topology_t *topo = topology_load_text("probe.cfg", text, &err);
    bool ok = topo && topology_validate(topo, &err) == 0;
    topology_destroy(&topo);
    return ok;
}

//  The pattern a file that names none gets from its first stage
static int s_inferred(const char *source, const char *sink)
{
    char text[300];
    snprintf(text, sizeof text, "topology = probe\n%s = a\nhop\n%s = b\n",
             source, sink);
    errbuf_t err;
    topology_t *topo = topology_load_text("probe.cfg", text, &err);
    int pattern =
        topo && topology_validate(topo, &err) == 0 ? topo->params.pattern : -1;
    topology_destroy(&topo);
    return pattern;
}

//  A pattern's source and sink roles (config/pattern.h, the validator's
//  own table), checked against the validator all the same
static int s_roles(int pattern, const char **source, const char **sink)
{
    const pattern_ends_t *ends = pattern_ends(pattern);
    *source = pattern_role_names[ends->source];
    *sink = pattern_role_names[ends->sink];
    return s_valid(params_pattern_names[pattern], *source, false, *sink) ? 0
                                                                         : -1;
}

static int s_patterns(FILE *out)
{
    roff_section(out, "PATTERNS");
    const option_t *opt = &params_options[KEY_PATTERN];
    roff_para(out, "`pattern` says what flows, and with it the kinds of "
                   "the first and last stages; any stages between are "
                   "`proxy` stages.  A file that names no pattern takes the "
                   "one its first stage implies (marked below).");
    for (int p = 0; opt->choices[p]; p++) {
        const char *source, *sink;
        if (s_roles(p, &source, &sink)) {
            fprintf(stderr, "manpage: no stages validate as pattern %s\n",
                    opt->choices[p]);
            return -1;
        }
        bool proxies = s_valid(opt->choices[p], source, true, sink);
        roff_request(out, ".TP");
        roff_font(out, 'B', opt->choices[p]);
        fprintf(out, "\nStages: \\fB%s\\fR, then %s\\fB%s\\fR.", source,
                proxies ? "any number of \\fBproxy\\fR stages, then " : "",
                sink);
        if (s_inferred(source, sink) == p)
            fprintf(out,
                    "  A file that names no pattern and starts with a "
                    "%s is %s.",
                    source, opt->choices[p]);
        fputc('\n', out);
        roff_request(out, ".br");
        s_sentence(out, opt->choice_help[p]);
    }
    return 0;
}

//  "endpoint, hwm, curve": the keys a level takes, bold
static void s_level_keys(FILE *out, unsigned level, int skip)
{
    int n = 0;
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if ((params_options[k].levels & level) && k != skip) {
            fputs(n++ ? ", " : "", out);
            roff_font(out, 'B', params_options[k].name);
        }
    fputs(".\n", out);
}

static void s_pipeline(FILE *out)
{
    roff_section(out, "THE PIPELINE");
    roff_para(out, "`topology = NAME` comes first; NAME names the run "
                   "(results/<UTC time>-NAME).  Its children are the "
                   "topology keys, the defaults for every stage and hop:");
    s_level_keys(out, LEVEL_TOPOLOGY, -1);
    fprintf(out,
            ".PP\nThe stages follow in pipeline order, one \\fIROLE\\fR "
            "\\fB=\\fR \\fINAME\\fR line each (at most %d stages): a "
            "source, any number of \\fBproxy\\fR stages, a sink, of the "
            "kinds the pattern says (see PATTERNS).  A name is up to %d "
            "letters, digits, _ and \\-.  A stage's children are its own "
            "keys:\n",
            TOPO_MAX_STAGES, TOPO_NAME_MAX);
    s_level_keys(out, LEVEL_STAGE, -1);
    roff_para(out, "A `hop` line joins the stage before it to the stage "
                   "after it; hop 1 starts at the source.  `hop = ipc` "
                   "names its transport, and so does a `transport = ipc` "
                   "child of a bare `hop` (one or the other: both is an "
                   "error); a hop that names none takes the topology's "
                   "`transport`, so `--set transport=inproc` moves every hop "
                   "that names none.  Its other keys are its children, "
                   "indented four spaces under its `hop` line, like a "
                   "stage's:");
    s_level_keys(out, LEVEL_HOP, KEY_TRANSPORT);
    roff_example(out, "hop = tcp\n"
                      "    endpoint = tcp://127.0.0.1:6001\n"
                      "    hwm = 100000\n"
                      "    curve = true\n");
    roff_para(out, "A key given on a stage or a hop wins over the "
                   "topology's, which wins over the default.");
    roff_para(out, "Anywhere among them, one `controller` line (no value) "
                   "may say where hopbench's own threads go (see NUMA in "
                   "hopbench(1)); its children are:");
    s_level_keys(out, LEVEL_CONTROLLER, -1);
    roff_example(out, "controller\n"
                      "    cpus = 27\n");
}

//  TREES: from, what is refused, how links are numbered and reported
static void s_trees(FILE *out)
{
    roff_section(out, "TREES");
    roff_para(out, "A pubsub topology may be a tree: fan-in tiers (edge "
                   "proxies that gather their region's publishers, into a "
                   "core) and fan-out tiers (a core into regional edges, "
                   "each with its subscribers).  A stage's upstream is the "
                   "stage written before it, joined by the `hop` line "
                   "between them; a stage may instead name its upstreams "
                   "with `from` lines below it, `from = edge-west,edge-east` "
                   "(no spaces), each name a link that takes the topology's "
                   "keys, or one `from = NAME` with the link's own keys "
                   "indented four spaces below it.  A stage with `from` has "
                   "no `hop` line before it.  A publisher written with "
                   "neither starts a new branch.  `from` may name a stage "
                   "written later, and is not a key: `--set` cannot change "
                   "a topology's shape.");
    roff_para(out, "Allowed: any polytree of publishers, proxies and "
                   "subscribers, proxies in any number of tiers, a proxy "
                   "fed by several upstreams (its XSUB connects to, or is "
                   "connected from, each) or feeding several downstreams "
                   "(its XPUB serves them all), `count` on publishers and "
                   "subscribers anywhere.  Refused with exit 2 at the line "
                   "of the link that makes it: a cycle (messages would go "
                   "round for ever); a diamond, two paths from one "
                   "publisher to one subscriber (the subscriber would get "
                   "every message twice); any other loop of links, "
                   "directions aside; a `from` naming a stage that does not "
                   "exist, or one stage twice; a publisher with an "
                   "upstream, a subscriber with a downstream, a proxy "
                   "without either; a tree in any pattern but pubsub "
                   "(pushpull, reqrep and connect stay chains); more "
                   "publisher instances than a receiver tells apart "
                   "(LIMIT_ORIGINS).  The hops on one side of a stage share "
                   "its socket there, so they share one `hwm` and `curve`.");
    char blind[64], apart[64], links[1200];
    engines_with(TRAIT_TELLS_SENDERS_APART, false, blind, sizeof blind);
    engines_with(TRAIT_TELLS_SENDERS_APART, true, apart, sizeof apart);
    snprintf(links, sizeof links,
             "Links are numbered sources first: by the tier of their "
             "downstream stage (its longest path from a publisher), "
             "then in the order stages are written, then in the order "
             "a stage's `from` names them; a chain keeps its file "
             "order.  `hopbench check --verbose` draws the graph it "
             "understood with these numbers, and `--set hopN.KEY` or "
             "`--set UP:DOWN.KEY` (the link from stage UP to stage "
             "DOWN) sets a link's keys.  Every figure is per link; a "
             "proxy that cannot tell its senders apart (engine "
             "%s) fed by several upstream instances "
             "gets one row for all of them, at its first link, named "
             "by their stages (`pub.*`, `edge-west+edge-east`) and "
             "their transports (`ipc+tcp`); engine %s reads "
             "every header and gives each its row.  A subscriber's "
             "sequence numbers prove the loss on the links of its one "
             "path from each publisher.",
             blind, apart);
    roff_para(out, links);
}

static void s_command_line(FILE *out)
{
    roff_section(out, "ON THE COMMAND LINE");
    roff_para(out, "hopbench(1) run, plan and check take every key with "
                   "`--set`, in one of three forms, and `--sweep` takes the "
                   "same forms with a list of values:");
    roff_example(out, "--set KEY=VALUE           the topology's KEY\n"
                      "--set STAGE.KEY=VALUE     the stage called STAGE\n"
                      "--set hopN.KEY=VALUE      hop N, counted from 1 at "
                      "the source\n"
                      "--set controller.KEY=VALUE  hopbench's own threads\n"
                      "--sweep KEY=V1,V2,...     each value in turn\n");
    roff_para(out, "A topology-level `--set` that a stage or hop overrides "
                   "in the file does not reach it; hopbench says so.  The "
                   "five-proxy chain of EXAMPLES, from a file without its "
                   "hop keys: `--set hop1.endpoint=tcp://127.0.0.1:6001 "
                   "--set hop1.hwm=100000 --set hop1.curve=true`, and so "
                   "on for each hop.");
}

//  "--set hwm=VALUE, --set hopN.hwm=VALUE"
static void s_key_sets(FILE *out, const option_t *opt)
{
    static const struct {
        unsigned level;
        const char *prefix;
    } forms[] = {{LEVEL_TOPOLOGY, ""},
                 {LEVEL_STAGE, "STAGE."},
                 {LEVEL_HOP, "hopN."},
                 {LEVEL_CONTROLLER, "controller."}};
    fputs("On the command line: ", out);
    for (int f = 0, n = 0; f < 4; f++)
        if (opt->levels & forms[f].level) {
            char set[100];
            snprintf(set, sizeof set, "--set %s%s=VALUE", forms[f].prefix,
                     opt->name);
            fputs(n++ ? ", " : "", out);
            roff_font(out, 'B', set);
        }
    fputs(".\n", out);
}

//  An enum's values, each with what it means
static void s_key_choices(FILE *out, const option_t *opt)
{
    if (!opt->choice_help)
        return;
    roff_request(out, ".RS");
    for (int i = 0; opt->choices[i]; i++) {
        roff_request(out, ".TP");
        roff_font(out, 'B', opt->choices[i]);
        fputc('\n', out);
        s_sentence(out, opt->choice_help[i]);
    }
    roff_request(out, ".RE");
}

static void s_key(FILE *out, const option_t *opt)
{
    char accepted[300];
    params_accepted(opt, accepted, sizeof accepted);
    roff_request(out, ".TP");
    roff_font(out, 'B', opt->name);
    fputc('\n', out);
    s_sentence(out, opt->help);
    roff_request(out, ".br");
    fprintf(out, "Where: %s.  Default: ", params_levels_text(opt->levels));
    if (*opt->fallback)
        roff_font(out, 'B', opt->fallback);
    else
        fputs("none (empty)", out);
    fputs(".\n", out);
    roff_request(out, ".br");
    fputs("Accepts: ", out);
    s_sentence(out, accepted);
    roff_request(out, ".br");
    s_key_sets(out, opt);
    s_key_choices(out, opt);
}

static void s_keys(FILE *out)
{
    roff_section(out, "KEYS");
    roff_para(out, "Every key, in the order `hopbench --help-keys` lists "
                   "them.  Where says under which lines a key may go: "
                   "topology (children of the `topology` line), stage "
                   "(children of a stage's line), hop (children of a `hop` "
                   "line), controller (children of the `controller` "
                   "line).");
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        s_key(out, &params_options[k]);
}

static const char *const s_topology_examples[][2] = {
    {"The smallest pipeline: a publisher and a subscriber over tcp.",
     "topology = direct\n"
     "publisher = pub\n"
     "hop\n"
     "subscriber = sub\n"},
    {"Three proxies in a row over mixed transports; every proxy runs "
     "zmq_proxy_steerable but the second, which runs hopbench's "
     "forwarder.",
     "# chain3: pub -ipc-> p1 -tcp-> p2 -inproc-> p3 -inproc-> sub\n"
     "topology = chain3\n"
     "    sizes = 8..131072\n"
     "    engine = steerable\n"
     "publisher = pub\n"
     "hop = ipc\n"
     "proxy = p1\n"
     "hop = tcp\n"
     "proxy = p2\n"
     "    engine = forwarder\n"
     "hop = inproc\n"
     "proxy = p3\n"
     "hop = inproc\n"
     "subscriber = sub\n"},
    {"Five proxies over tcp, every hop on a port of its own: the first hop "
     "with a deeper queue and, like the last, CURVE-encrypted; the fourth "
     "with no high-water mark at all.  A hop's keys are the lines indented "
     "under its hop line.",
     "# chain5: pub -> p1 -> p2 -> p3 -> p4 -> p5 -> sub\n"
     "topology = chain5\n"
     "    transport = tcp\n"
     "    sizes = 64,1024,16384\n"
     "publisher = pub\n"
     "hop\n"
     "    endpoint = tcp://127.0.0.1:6001\n"
     "    hwm = 100000\n"
     "    curve = true\n"
     "proxy = p1\n"
     "hop\n"
     "    endpoint = tcp://127.0.0.1:6002\n"
     "proxy = p2\n"
     "hop\n"
     "    endpoint = tcp://127.0.0.1:6003\n"
     "proxy = p3\n"
     "hop\n"
     "    endpoint = tcp://127.0.0.1:6004\n"
     "    hwm = 0\n"
     "proxy = p4\n"
     "hop\n"
     "    endpoint = tcp://127.0.0.1:6005\n"
     "proxy = p5\n"
     "hop\n"
     "    endpoint = tcp://127.0.0.1:6006\n"
     "    curve = true\n"
     "subscriber = sub\n"},
    {"A broker fanning out to four subscribers on the second NUMA node, "
     "the publisher pinned to CPU 0, in flood mode: what the broker's HWM "
     "drops is loss.",
     "topology = fanout\n"
     "    mode = flood\n"
     "    placement = compact\n"
     "publisher = pub\n"
     "    cpus = 0\n"
     "hop = tcp\n"
     "proxy = broker\n"
     "    io_threads = 2\n"
     "hop = tcp\n"
     "subscriber = sub\n"
     "    count = 4\n"
     "    node = 1\n"},
    {"A two-tier fan-in: each region's publishers into its edge proxy "
     "over ipc, the edges into a core over tcp, one of them hopbench's "
     "forwarder (a row per publisher).",
     "topology = tree-fanin\n"
     "    transport = tcp\n"
     "publisher = west\n"
     "    count = 3\n"
     "hop = ipc\n"
     "proxy = edge-west\n"
     "    engine = forwarder\n"
     "publisher = east\n"
     "    count = 3\n"
     "hop = ipc\n"
     "proxy = edge-east\n"
     "proxy = core\n"
     "    from = edge-west,edge-east\n"
     "hop\n"
     "subscriber = sub\n"},
    {"A core feeding regional edges; each region a chain that starts at "
     "its edge, its link to the core over tcp with a deeper queue.",
     "topology = tree-fanout\n"
     "publisher = pub\n"
     "hop = tcp\n"
     "proxy = core\n"
     "proxy = eu\n"
     "    from = core\n"
     "        transport = tcp\n"
     "        hwm = 10000\n"
     "hop = ipc\n"
     "subscriber = eu-sub\n"
     "    count = 2\n"
     "proxy = us\n"
     "    from = core\n"
     "        transport = tcp\n"
     "        hwm = 10000\n"
     "hop = ipc\n"
     "subscriber = us-sub\n"
     "    count = 2\n"},
    {"Round trips through a ROUTER/DEALER broker, each stage in a process "
     "of its own.",
     "topology = rtt\n"
     "    pattern = reqrep\n"
     "    transport = ipc\n"
     "    messages = 5000\n"
     "requester = req\n"
     "    process = own\n"
     "hop\n"
     "proxy = broker\n"
     "    process = own\n"
     "hop\n"
     "replier = rep\n"
     "    process = own\n"},
};

static void s_topology_examples_section(FILE *out)
{
    roff_section(out, "EXAMPLES");
    size_t n = sizeof s_topology_examples / sizeof s_topology_examples[0];
    for (size_t i = 0; i < n; i++)
        s_example(out, s_topology_examples[i][0], s_topology_examples[i][1]);
}

static void s_format(FILE *out)
{
    roff_section(out, "DESCRIPTION");
    roff_para(out, "A topology file describes one pipeline for hopbench(1): "
                   "a source, any number of proxies and a sink, the hops "
                   "between them, and the keys that say how to run and "
                   "measure it.  It reads like the pipeline, top to "
                   "bottom.");
    roff_para(out, "The format is ZPL (ZeroMQ RFC 4, read with czmq's "
                   "zconfig): `name = value` lines; a line's children are "
                   "indented exactly four spaces more than it; `#` starts a "
                   "comment that runs to the end of the line.  A value is "
                   "written bare or in double or single quotes, which are "
                   "not part of it: `sizes = 64,4096` and `sizes = "
                   "\"64,4096\"` are the same.  A bare value ends at the "
                   "line's end or its comment and may not hold a space; no "
                   "hopbench value holds a space or a quote, so none needs "
                   "quotes (an empty one is `nodes =` or `nodes = \"\"`).  "
                   "The config.cfg of a results directory quotes every "
                   "value; it reads back as it would bare.  Top-level names "
                   "may repeat (`hop` and `proxy` do).");
    roff_para(out, "hopbench checks more than zconfig does: tabs and other "
                   "control characters, indentation that jumps more than "
                   "four spaces or is not a multiple of four (comments "
                   "included), unquoted values with spaces, a comment where "
                   "a value should be (`hop =   # note` would make `# note` "
                   "the value), names that start or end with /, quote "
                   "characters in string values, unknown keys (with a "
                   "suggestion), keys in the wrong place and the "
                   "pipeline's shape are all errors that name the file and "
                   "line, and exit 2.");
}

static int s_page_topology(FILE *out, const char *date)
{
    roff_title(out, "HOPBENCH-TOPOLOGY", 5, date, "hopbench " HOPBENCH_VERSION,
               "File Formats");
    roff_section(out, "NAME");
    roff_text(out, "hopbench-topology - the topology files of hopbench(1): "
                   "a ZeroMQ pipeline in ZPL");
    fputc('\n', out);
    roff_section(out, "SYNOPSIS");
    roff_example(out, s_shape);
    s_format(out);
    s_pipeline(out);
    s_trees(out);
    if (s_patterns(out))
        return -1;
    s_keys(out);
    s_command_line(out);
    s_topology_examples_section(out);
    roff_section(out, "FILES");
    roff_request(out, ".TP");
    roff_font(out, 'I', "topologies/*.cfg");
    fputc('\n', out);
    roff_text(out, "Ready topologies (in share/hopbench under the PREFIX of "
                   "make install).  A run's config.cfg is the effective "
                   "topology, every key written out, in this same format.");
    fputc('\n', out);
    roff_section(out, "SEE ALSO");
    roff_text(out, "hopbench(1), zmq_proxy_steerable(3), numactl(8); ZPL: "
                   "https://rfc.zeromq.org/spec/4/; docs/TOPICS.md: the "
                   "topic rule (topics, topic_order, seed, subscribe) step "
                   "by step");
    fputc('\n', out);
    return 0;
}

int main(int argc, char **argv)
{
    const char *section = argc > 1 ? argv[1] : "";
    const char *date = argc > 2 ? argv[2] : "";
    int rc = strcmp(section, "1") == 0   ? s_page_hopbench(stdout, date)
             : strcmp(section, "5") == 0 ? s_page_topology(stdout, date)
                                         : -2;
    if (rc == -2)
        fprintf(stderr, "usage: manpage 1|5 [DATE] >PAGE\n");
    else if (rc)
        fprintf(stderr, "manpage: page %s not written\n", section);
    if (fflush(stdout) || ferror(stdout))
        rc = -1;
    return rc ? 1 : 0;
}
