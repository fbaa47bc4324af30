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

#include "base/csv.h"
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
    const json_t *value = json_object_get(page->meta, key);
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
    const json_t *nodes =
        json_object_get(json_object_get(page->meta, "numa"), "nodes");
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
    const char *error = jsondoc_get_text(page->meta, "error");
    int n = 0;
    if (*error)
        html_elem(out, "p", "warn", error), n++;
    size_t i;
    const json_t *warning;
    json_array_foreach(json_object_get(page->meta, "warnings"), i, warning)
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
    snprintf(path, sizeof path, "%s/config.cfg", page->dir);
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
static int s_csv_section(FILE *out, const report_page_t *page, const char *id,
                         const char *title, const char *file, const char *what,
                         errbuf_t *err)
{
    char path[REPORT_HTML_PATH + 32];
    snprintf(path, sizeof path, "%s/%s", page->dir, file);
    char *text = NULL;
    size_t len = 0;
    FILE *body = open_memstream(&text, &len);
    if (!body)
        return err_set(err, "out of memory");
    int rc = html_csv_table(body, path, 0, err);
    fclose(body);
    if (rc == 0) {
        html_section_begin_as(out, page->ids, id, title, file);
        if (what)
            html_elem(out, "p", NULL, what);
        fputs(text, out);
        html_section_end(out);
    }
    free(text);
    return rc < 0 ? -1 : 0;
}

//  The answer of sizing.csv (the proven cheapest that meets; a file of
//  before answers were proven: the first that meets), or how many were
//  tried and none did
static void s_answer_text(csv_t *csv, char *text, size_t len)
{
    enum { CANDIDATE, TOPOLOGY, TRY, SIZE, COST, VERDICT, ANSWER, NCOLS };
    static const char *const want[NCOLS] = {
        "candidate", "topology", "try", "size", "cost", "verdict", "answer"};
    int at[NCOLS], tried = 0;
    errbuf_t err;
    for (int c = 0; c < NCOLS; c++)
        for (at[c] = csv_count(csv) - 1;
             at[c] >= 0 && strcmp(csv_field(csv, at[c]), want[c]); at[c]--)
            ;
    snprintf(text, len, "no candidate meets the target");
    for (int c = 0; c < ANSWER; c++)
        if (at[c] < 0)
            return;
    while (csv_next(csv, &err) > 0 && csv_count(csv) > VERDICT) {
        tried++;
        if (at[ANSWER] >= 0 ? csv_count(csv) <= at[ANSWER] ||
                                  strcmp(csv_field(csv, at[ANSWER]), "1")
                            : strcmp(csv_field(csv, at[VERDICT]), "meets") != 0)
            continue;
        snprintf(text, len,
                 "candidate %s meets the target: %s %s at %s B, cost %s",
                 csv_field(csv, at[CANDIDATE]), csv_field(csv, at[TOPOLOGY]),
                 csv_field(csv, at[TRY]), csv_field(csv, at[SIZE]),
                 csv_field(csv, at[COST]));
        return;
    }
    snprintf(text, len, "none of the %d candidates was proven to meet the "
             "target (each one's verdict and why: the table)", tried);
}

int report_html_sizing(FILE *out, const report_page_t *page, errbuf_t *err)
{
    char path[REPORT_HTML_PATH + 32], text[600];
    snprintf(path, sizeof path, "%s/sizing.csv", page->dir);
    FILE *file = fopen(path, "r");
    if (!file)
        return 0;
    csv_t *csv = csv_new(file, path);
    errbuf_t why;
    if (csv && csv_next(csv, &why) > 0) {
        s_answer_text(csv, text, sizeof text);
        fputs("<p class=\"answer\"><b>answer:</b> ", out);
        html_text(out, text);
        fputs("</p>\n", out);
    }
    csv_destroy(&csv);
    fclose(file);
    return s_csv_section(out, page, "sizing",
                         "Sizing: the answer, then the "
                         "candidates",
                         "sizing.csv", NULL, err);
}

static int s_placement(FILE *out, const report_page_t *page, errbuf_t *err)
{
    return s_csv_section(out, page, "threads", "Placement: threads",
                         "threads.csv",
                         "Which stage and thread ran on which CPU and node, "
                         "per size and repeat.",
                         err) ||
           s_csv_section(out, page, "memory", "Placement: memory", "memory.csv",
                         "Where each stage's memory lies, by NUMA node.", err);
}

int report_html_run(FILE *out, report_page_t *page, errbuf_t *err)
{
    page->meta = rundir_metadata(page->dir, err);
    if (!page->meta)
        return -1;
    fputs("<nav><a href=\"#machine\">machine</a><a href=\"#topology\">"
          "topology</a><a href=\"#results\">per hop</a><a href=\"#charts\">"
          "charts</a><a href=\"#threads\">placement</a><a href=\"#warnings\">"
          "warnings</a></nav>\n",
          out);
    int rc = report_html_sizing(out, page, err);
    if (rc == 0) {
        s_machine(out, page);
        s_topology(out, page);
        rc = report_html_results(out, page, err);
    }
    if (rc == 0)
        rc = s_csv_section(out, page, "search", "Search trials", "search.csv",
                           "Every trial of the search: the rate offered, "
                           "what each hop delivered, its verdict.",
                           err) ||
             s_csv_section(out, page, "latency", "Latency", "latency.csv", NULL,
                           err) ||
             s_csv_section(out, page, "sockets", "Sockets", "sockets.csv",
                           "One row per SUB socket of a subscriber with "
                           "several (--per-socket).",
                           err);
    if (rc == 0)
        rc = report_html_charts(out, page, err);
    if (rc == 0)
        rc = s_placement(out, page, err);
    if (rc == 0)
        s_warnings(out, page);
    json_decref(page->meta);
    page->meta = NULL;
    return rc ? -1 : 0;
}
