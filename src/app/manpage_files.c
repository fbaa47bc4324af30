/*  manpage_files: hopbench(1)'s FILES section, every file a run writes:
    what it holds in prose, its columns from report's tables
    (report/columns.h).  Part of the man page writer (manpage.c).
*/
#include "app/manpage.h"
#include "app/roff.h"
#include "report/columns.h"
#include "report/plot_script.h"

#include <stdlib.h>

//  The files of a results directory: name, what it holds, and for a CSV
//  file its table of columns (report/columns.h), and what follows them
static const struct {
    const char *name, *what;
    const column_table_t *columns;
    const char *after;
} s_result_files[] = {
    {"results.csv",
     "one row per size, repetition and hop, header first; with 3 repeats or "
     "more also one with repeat median per hop, each number the median over "
     "the repeats, with ci_low and ci_high, the interval of the median "
     "msgs/s at confidence (order statistics: the narrowest symmetric pair "
     "whose binomial coverage reaches it), ci_coverage, the interval's "
     "exact coverage (below the confidence when there were too few repeats "
     "for it: 6 at 0.95, the interval is then min to max), and with "
     "--precision precise (1, or 0 when max_repeat ran out first)",
     &columns_results, ", then one sweep_KEY column per swept key."},
    {"latency.csv",
     "with rate, reqrep or connect: one row per repetition and hop (e2e for "
     "end to end), one with repeat all for the repetitions merged, and with "
     "3 repeats or more one with repeat median: each percentile's median "
     "over the repeats, with the intervals of p50 and p99",
     &columns_latency, ", then the sweep_KEY columns"},
    {"search.csv",
     "with mode = search: one row per trial of the search and hop (phase "
     "bound, step or confirm; verdict pass, fail, generator-limited, "
     "unjudged or behind (a step whose hop fell behind what was sent into "
     "it, nothing lost) against the smallest loss ratio; window its seconds; "
     "starved yes, no "
     "or unknown; passed the loss ratios it passed; cut_short 1 when its "
     "window ended early, once it had lost more than a loss ratio allows "
     "of the whole trial: the largest for the bound and the steps, its "
     "own for a confirmation; setup_seconds and drain_seconds its time "
     "before and after its window; pipeline fresh, reused or "
     "fallback:WHY, as search_reuse keeps a size's pipeline up)",
     &columns_search, ", then the sweep_KEY columns."},
    {"search_summary.csv",
     "with mode = search: one row per size and loss ratio: the rate found, "
     "the lowest failure, the trials and seconds when the ratio was "
     "settled, the bottleneck, and whether every failure was starved "
     "(set_by machine: the rate is the machine's, not the pipeline's)",
     &columns_search_summary, ", then the sweep_KEY columns."},
    {"threads.csv",
     "every thread of the run as /proc showed it while the window was open, "
     "each under its stage, hopbench's own under controller (see NUMA)",
     &columns_threads, "."},
    {"memory.csv",
     "per trial, stage and region (counters, messages, stack, zerocopy): "
     "the region's pages, how many are in memory, how many of those are on "
     "the stage's node, and by_node (node:pages)",
     &columns_memory, "."},
    {"timeline.csv",
     "per trial and link, its rate over each step of the window (the "
     "controller's polls, about 50 ms; coarser, never more than 64 steps, "
     "in a long window): where a rate sagged or stalled",
     &columns_timeline, ", then the sweep_KEY columns."},
    {"sockets.csv",
     "with --per-socket, when a subscriber has several sockets (sockets = "
     "N): one row per SUB socket and trial, its count, its loss on its "
     "link (the sockets' add up to the row) and what its sequence numbers "
     "prove",
     &columns_sockets, ", then the sweep_KEY columns."},
    {"sizing.csv",
     "from hopbench size: one row per candidate and size, in the order "
     "given: its cost, what it carried, its p99 and busy cores at the "
     "target rate, its verdict and why (results.csv and latency.csv hold "
     "every trial, sweep_candidate its number)",
     &columns_sizing, "."},
    {"sizing_fit.csv",
     "from hopbench size --extrapolate: per size, a row per candidate of "
     "the --try key fitted (fitted, or left out: starved or not measured), "
     "then the size's answer (predicted for a k not measured, marked "
     "beyond the range fitted when it is; answered by a measured row; "
     "beyond the law's peak; or no fit), each with the fit's law, "
     "parameters, residual standard error and range",
     &columns_sizing_fit, "."},
    {"placements.csv",
     "with placement = all: per size and assignment its rank, its nodes, "
     "its crossings and the hops that cross, the last hop's rate (median, "
     "min, max) and, at a rate, the end-to-end p50 and p99.",
     NULL, ""},
    {"config.cfg",
     "the effective topology, every key written out; hopbench check and run "
     "take it back.",
     NULL, ""},
    {"metadata.json",
     "versions of hopbench, libzmq and czmq, the kernel, CPU model, NUMA "
     "nodes and distances, the command line, UTC times, status (running, ok, "
     "failed, interrupted), warnings, and published: per trial (size, "
     "repeat), what each publisher instance sent, the counts expected is "
     "computed from (docs/TOPICS.md).",
     NULL, ""},
    {"results.json",
     "with --format json: {\"metadata\": ..., \"rows\": [...], \"latency\": "
     "[...], \"search\": [...]}, the fields of the CSV files; stdout gets it "
     "too.",
     NULL, ""},
    {"compare.csv, compareK-*-delta-vs-size.png",
     "with hopbench compare --plot, in the --output directory: the "
     "comparison as CSV, and per comparison and topology each hop's delta "
     "of msgs/s against size with its interval.",
     NULL, ""},
    {"report.html",
     "with run --report, or from hopbench report DIR: one self-contained "
     "HTML page of the run (the machine, the topology's tree, the per-hop "
     "table of each size with its flags, the placement, the charts as "
     "inline SVG, the warnings), read offline; hopbench report A B draws "
     "the comparison's page, in results/<UTC time>-compare/ unless -o says "
     "where.",
     NULL, ""},
    {PLOT_SCRIPT ", *.png",
     "with --plot, or from hopbench plot: the charts, and the gnuplot script "
     "that drew them.",
     NULL, ""},
};

static int s_result_file(FILE *out, size_t i)
{
    roff_request(out, ".TP");
    roff_font(out, 'B', s_result_files[i].name);
    fputc('\n', out);
    roff_text(out, s_result_files[i].what);
    if (s_result_files[i].columns) {
        char *columns = columns_names(s_result_files[i].columns, false);
        if (!columns)
            return -1;
        fputs(":\n", out);
        roff_breakable(out, 'B', columns);
        free(columns);
    }
    roff_text(out, s_result_files[i].after);
    const column_table_t *table = s_result_files[i].columns;
    if (table && table->ntail) {
        char *tail = columns_names(table, true);
        if (!tail)
            return -1;
        fprintf(out, ", and %s:\n", table->tail_what);
        roff_breakable(out, 'B', tail);
        fputs(".\n", out);
        free(tail);
    }
    fputc('\n', out);
    return 0;
}

int manpage_files(FILE *out)
{
    roff_section(out, "FILES");
    roff_request(out, ".TP");
    roff_font(out, 'I', "results/<UTC time>-<topology>/");
    roff_text(out, "\nwhat a run writes, or the directory --output names.  "
                   "Rows are flushed as each size completes, so an "
                   "interrupted run keeps what it measured.\n");
    roff_request(out, ".RS");
    for (size_t i = 0; i < sizeof s_result_files / sizeof s_result_files[0];
         i++)
        if (s_result_file(out, i))
            return -1;
    roff_request(out, ".RE");
    roff_request(out, ".TP");
    roff_font(out, 'I', "topologies/*.cfg, numa/*.cfg");
    roff_text(out, "\nready topologies and machine descriptions; make "
                   "install puts them in share/hopbench under its PREFIX.\n");
    return 0;
}

