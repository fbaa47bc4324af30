/*  report_html_run: the sections of one run's page; see report_html.h.

        sizing (when sizing.csv is there)    the answer, then candidates
        machine       metadata.json          versions, kernel, CPU, NUMA
        topology      config.cfg             drawn as check --verbose does
        results       results.csv            a table per size, every row
        placement     threads.csv memory.csv
        search, latency, sockets             their CSV files as tables
        charts        plot's, as SVG         (report_html_charts)
        warnings      metadata.json

    Every figure of the per-hop tables is the CSV field as written: the
    page rounds nothing, so it says what the file says.  Flags (starved,
    HWM bound, sequence loss) sit in a column beside the figures they
    qualify, as words in a framed box, readable without colour.  A file
    that is missing leaves its section out, or says so; a malformed one
    is an error naming it.
*/
#include "report/html.h"
#include "report/report_html_internal.h"
#include "report/report_tree.h"
#include "report/rundir.h"

#include "config/topology.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    fputs("<table class=\"meta\">\n", out);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        s_kv(out, page, keys[i][0], keys[i][1]);
    s_numa(out, page);
    fputs("</table>\n", out);
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
//  The topology, as check --verbose draws it

static void s_topology(FILE *out, const report_page_t *page)
{
    char path[REPORT_HTML_PATH + 32];
    errbuf_t err;
    snprintf(path, sizeof path, "%s/config.cfg", rundir_dir(page->run));
    if (access(path, F_OK))
        return; //  a sizing run's directory: its candidates' files
    html_section_begin_as(out, page->ids, "topology", "Topology", "config.cfg");
    topology_t *topo = topology_load(path, &err);
    char *text = NULL;
    size_t len = 0;
    FILE *tree = topo ? open_memstream(&text, &len) : NULL;
    if (tree) {
        report_tree(tree, topo);
        fclose(tree);
        fputs("<pre class=\"tree\">", out);
        html_text(out, text);
        fputs("</pre>\n", out);
    } else
        html_elem(out, "p", "warn", topo ? "out of memory" : err.msg);
    free(text);
    topology_destroy(&topo);
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

//  The cheapest candidate of sizing.csv that meets the target (the file
//  lists them cheapest first), or how many were tried and none did
static int s_answer_text(const report_page_t *page, char *text, size_t len,
                         errbuf_t *err)
{
    enum { CANDIDATE, TOPOLOGY, TRY, SIZE, COST, VERDICT, NCOLS };
    static const char *const want[NCOLS] = {"candidate", "topology", "try",
                                            "size",      "cost",     "verdict"};
    rundir_rows_t in;
    int rc = rundir_rows(&in, page->run, &columns_sizing, want, NCOLS, err);
    int tried = 0, answer = in.file ? rundir_column(in.file, "answer") : -1;
    while (rc > 0 && rundir_next(&in)) {
        tried++;
        //  the proven answer; a file of before answers: the first that meets
        if (answer >= 0 ? strcmp(rundir_cell(in.file, in.row, answer), "1")
                        : strcmp(rundir_text(&in, VERDICT), "meets"))
            continue;
        snprintf(text, len,
                 "candidate %s meets the target: %s %s at %s B, cost %s",
                 rundir_text(&in, CANDIDATE), rundir_text(&in, TOPOLOGY),
                 rundir_text(&in, TRY), rundir_text(&in, SIZE),
                 rundir_text(&in, COST));
        return 1;
    }
    snprintf(text, len,
             "none of the %d candidates was proven to meet the target (each "
             "one's verdict and why: the table)",
             tried);
    return rc;
}

//  The sizing section (sizing.csv, `hopbench size`): the answer first,
//  then the candidates.  0, also when there is no sizing.csv
static int s_sizing(FILE *out, const report_page_t *page, errbuf_t *err)
{
    char text[600];
    int rc = s_answer_text(page, text, sizeof text, err);
    if (rc <= 0)
        return rc;
    fputs("<p class=\"answer\"><b>answer:</b> ", out);
    html_text(out, text);
    fputs("</p>\n", out);
    s_csv_section(out, page, "sizing",
                  "Sizing: the answer, then the candidates", &columns_sizing,
                  NULL);
    return 0;
}

static void s_placement(FILE *out, const report_page_t *page)
{
    s_csv_section(out, page, "threads", "Placement: threads", &columns_threads,
                  "Which stage and thread ran on which CPU and node, per size "
                  "and repeat.");
    s_csv_section(out, page, "memory", "Placement: memory", &columns_memory,
                  "Where each stage's memory lies, by NUMA node.");
}

int report_html_run(FILE *out, report_page_t *page, errbuf_t *err)
{
    fputs("<nav><a href=\"#machine\">machine</a><a href=\"#topology\">"
          "topology</a><a href=\"#results\">per hop</a><a href=\"#charts\">"
          "charts</a><a href=\"#threads\">placement</a><a href=\"#warnings\">"
          "warnings</a></nav>\n",
          out);
    int rc = s_sizing(out, page, err);
    if (rc == 0) {
        s_machine(out, page);
        s_topology(out, page);
        rc = report_html_results(out, page, err);
    }
    if (rc == 0) {
        s_csv_section(out, page, "search", "Search trials", &columns_search,
                      "Every trial of the search: the rate offered, what each "
                      "hop delivered, its verdict.");
        s_csv_section(out, page, "latency", "Latency", &columns_latency, NULL);
        s_csv_section(out, page, "sockets", "Sockets", &columns_sockets,
                      "One row per SUB socket of a subscriber with several "
                      "(--per-socket).");
        rc = report_html_charts(out, page, err);
    }
    if (rc == 0) {
        s_placement(out, page);
        s_warnings(out, page);
    }
    return rc ? -1 : 0;
}
