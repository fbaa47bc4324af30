/*  report_html_run: the sections of one run's page; see report_html.h.

        status        metadata.json          a run that did not end well
                                             says so first
        summary       sizing.csv | search_summary.csv | results.csv:
                      the answer (report_html_summary)
        topology      config.cfg             drawn as check --verbose does,
                                             each combination of a sweep's
                                             (report_html_topology)
        results       results.csv            a table per size, every row
        search, latency, sockets, syscalls   their CSV files as tables
        sizing        sizing.csv             every candidate
        charts        plot's, as SVG         (report_html_charts)
        placement     threads.csv memory.csv
        warnings      metadata.json
        run, machine and libraries           metadata.json, folded

    Every figure of the tables is the CSV field as written: the page
    rounds nothing, so it says what the file says.  Flags (starved, HWM
    bound, sequence loss) sit in a column beside the figures they
    qualify, as words in a framed box, readable without colour.  A file
    that is missing leaves its section out, and its link in the contents
    with it.
*/
#include "report/html.h"
#include "report/report_html_internal.h"
#include "report/rundir.h"

#include <stdlib.h>
#include <string.h>

//  ---------------------------------------------------------------------
//  metadata.json (read and checked by rundir)

//  A row of the machine table: the field's value as text (a number as
//  jansson writes it), none when empty
static void s_kv(FILE *out, const report_page_t *page, const char *key,
                 const char *label)
{
    const json_t *value = json_object_get(rundir_meta(page->run), key);
    char number[64];
    const char *text = json_string_value(value);
    if (json_is_integer(value))
        snprintf(number, sizeof number, "%" JSON_INTEGER_FORMAT,
                 json_integer_value(value));
    if (json_is_integer(value))
        text = number;
    if (!text || !*text)
        return;
    fputs("<tr><th>", out);
    html_text(out, label);
    fputs("</th><td>", out);
    html_text(out, text);
    fputs("</td></tr>\n", out);
}

//  The NUMA nodes, one line each: "node 0: CPUs 0-1, distances 10 21"
static void s_numa(FILE *out, const report_page_t *page)
{
    const json_t *nodes = json_object_get(
        json_object_get(rundir_meta(page->run), "numa"), "nodes");
    size_t i, j;
    const json_t *node, *d;
    fputs("<tr><th>NUMA nodes</th><td>", out);
    json_array_foreach(nodes, i, node)
    {
        char line[900];
        int n = snprintf(line, sizeof line,
                         "node %" JSON_INTEGER_FORMAT ": CPUs %s, distances",
                         json_integer_value(json_object_get(node, "node")),
                         jsondoc_get_text(node, "cpus"));
        json_array_foreach(json_object_get(node, "distances"), j, d)
        {
            if (n > 0 && (size_t)n < sizeof line)
                n += snprintf(line + n, sizeof line - (size_t)n,
                              " %" JSON_INTEGER_FORMAT, json_integer_value(d));
        }
        html_text(out, line);
        fputs("<br>\n", out);
    }
    fputs("</td></tr>\n", out);
}

static void s_machine(FILE *out, const report_page_t *page)
{
    static const char *const keys[][2] = {{"status", "status"},
                                          {"error", "error"},
                                          {"topology", "topology"},
                                          {"topology_file", "topology file"},
                                          {"mode", "mode"},
                                          {"sweep", "sweep"},
                                          {"started_utc", "started (UTC)"},
                                          {"updated_utc", "updated (UTC)"},
                                          {"command_line", "command line"},
                                          {"hopbench", "hopbench"},
                                          {"libzmq", "libzmq"},
                                          {"czmq", "czmq"},
                                          {"hostname", "host"},
                                          {"kernel", "kernel"},
                                          {"cpu_model", "CPU"},
                                          {"machine", "machine"},
                                          {"tsc_hz", "TSC (Hz)"},
                                          {"curve", "CURVE"}};
    html_section_begin_as(out, page->ids, "machine",
                          "Run, machine and libraries", "metadata.json");
    fputs("<details><summary>versions, kernel, CPU, NUMA nodes, the command "
          "line, times</summary>\n<table class=\"meta\">\n",
          out);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        s_kv(out, page, keys[i][0], keys[i][1]);
    s_numa(out, page);
    fputs("</table>\n</details>\n", out);
    html_section_end(out);
}

//  The warnings array, one box each, and the run's error
static void s_warnings(FILE *out, const report_page_t *page)
{
    html_section_begin_as(out, page->ids, "warnings", "Warnings",
                          "metadata.json");
    const char *error = jsondoc_get_text(rundir_meta(page->run), "error");
    int n = 0;
    if (*error)
        html_elem(out, "p", "warn", error), n++;
    size_t i;
    const json_t *warning;
    json_array_foreach(json_object_get(rundir_meta(page->run), "warnings"), i,
                       warning)
    {
        html_elem(out, "p", "warn", json_string_value(warning));
        n++;
    }
    if (n == 0)
        fputs("<p>None.</p>\n", out);
    html_section_end(out);
}

//  ---------------------------------------------------------------------
//  Tables of CSV files

//  A CSV file as its own section, when it is there
static void s_csv_section(FILE *out, const report_page_t *page, const char *id,
                          const char *title, const column_table_t *table,
                          const char *what)
{
    const rundir_file_t *file = rundir_file(page->run, table);
    if (!file)
        return;
    html_section_begin_as(out, page->ids, id, title, table->file);
    if (what)
        html_elem(out, "p", NULL, what);
    html_table(out, file);
    html_section_end(out);
}

//  A run that did not end well says so before anything: what the page
//  shows is what it finished
static void s_status(FILE *out, const report_page_t *page)
{
    const char *status = jsondoc_get_text(rundir_meta(page->run), "status");
    const char *error = jsondoc_get_text(rundir_meta(page->run), "error");
    char text[ERRBUF_MAX + 200];
    if (strcmp(status, "ok") == 0)
        return;
    if (strcmp(status, "interrupted") == 0)
        snprintf(text, sizeof text,
                 "This run did not finish: %s. The page shows the trials it "
                 "finished, as its files have them.",
                 *error ? error : "interrupted");
    else if (strcmp(status, "inconclusive") == 0)
        snprintf(text, sizeof text,
                 "This run is inconclusive: every trial that stalled twice "
                 "stalled where its stages waited for a CPU (starved), the "
                 "machine's stall, not the pipeline's. The page shows what it "
                 "measured; the STALLED rows are the machine's figures.");
    else if (strcmp(status, "running") == 0)
        snprintf(text, sizeof text,
                 "This run had not ended when the page was made (status "
                 "running): the page shows the trials finished by then.");
    else
        snprintf(text, sizeof text,
                 "This run did not end well (status %s)%s%s: the page shows "
                 "what it finished.",
                 status, *error ? ": " : "", error);
    html_elem(out, "p", "warn status", text);
}

//  The contents: a link per section the page has, each to this run's
static void s_nav(FILE *out, const report_page_t *page)
{
    static const struct {
        const char *id, *name;
        const column_table_t *table; //  the section's file; NULL: always
    } sections[] = {{"summary", "summary", NULL},
                    {"topology", "topology", NULL},
                    {"sizing", "candidates", &columns_sizing},
                    {"search", "search trials", &columns_search},
                    {"results", "per hop", &columns_results},
                    {"latency", "latency", &columns_latency},
                    {"syscalls", "system calls", &columns_syscalls},
                    {"charts", "charts", NULL},
                    {"threads", "placement", &columns_threads},
                    {"warnings", "warnings", NULL},
                    {"machine", "machine", NULL}};
    fputs("<nav>", out);
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (sections[i].table && !rundir_file(page->run, sections[i].table))
            continue;
        if (strcmp(sections[i].id, "topology") == 0 &&
            !rundir_config(page->run))
            continue;
        fprintf(out, "<a href=\"#%s%s\">%s</a>", page->ids, sections[i].id,
                sections[i].name);
    }
    fputs("</nav>\n", out);
}

//  What a search or a sizing decided from, before the trials' rows
static void s_decisions(FILE *out, const report_page_t *page)
{
    s_csv_section(out, page, "sizing", "Sizing: every candidate",
                  &columns_sizing,
                  "Cheapest first; each one's verdict and why.");
    s_csv_section(out, page, "search", "Search trials", &columns_search,
                  "Every trial of the search: the rate offered, what each hop "
                  "delivered, its verdict.");
}

static void s_tables(FILE *out, const report_page_t *page)
{
    s_csv_section(out, page, "latency", "Latency", &columns_latency,
                  "Each distribution (a repeat's, all repeats merged, their "
                  "median), in microseconds.");
    s_csv_section(out, page, "sockets", "Sockets", &columns_sockets,
                  "One row per SUB socket of a subscriber with several "
                  "(--per-socket).");
    s_csv_section(out, page, "syscalls", "System calls", &columns_syscalls,
                  "--profile syscalls: each traced stage's threads and their "
                  "calls in the window.");
}

int report_html_run(FILE *out, report_page_t *page, errbuf_t *err)
{
    s_status(out, page);
    report_html_summary(out, page);
    s_nav(out, page);
    report_html_topology(out, page);
    s_decisions(out, page);
    int rc = report_html_results(out, page, err);
    if (rc == 0) {
        s_tables(out, page);
        rc = report_html_charts(out, page, err);
    }
    if (rc == 0) {
        s_csv_section(out, page, "threads", "Placement: threads",
                      &columns_threads,
                      "Which stage and thread ran on which CPU and node, per "
                      "size and repeat.");
        s_csv_section(out, page, "memory", "Placement: memory", &columns_memory,
                      "Where each stage's memory lies, by NUMA node.");
        s_warnings(out, page);
        s_machine(out, page);
    }
    return rc ? -1 : 0;
}
