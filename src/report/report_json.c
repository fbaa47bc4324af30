/*  report_json: --format json, results.json.

        {"metadata": {...metadata.json...},
         "rows": [{"topology": "proxy", "size": 64, ...}, ...],
         "latency": [...], "search": [...], "search_summary": [...],
         "syscalls": [...]}

    Made from the run's own files once the run ends, so the rows have
    exactly the fields of results.csv, latency.csv, search.csv,
    search_summary.csv and syscalls.csv (numbers as numbers, empty cells
    as null; a list is empty when its file is not there), and the
    metadata is the same document.  The directory is read back as report
    and compare read it (rundir), the document built whole (jansson),
    then written to DIR/results.json and to the stream asked for.
*/
#include "report/report.h"

#include "base/jsondoc.h"
#include "base/outfile.h"
#include "report/columns.h"
#include "report/rundir.h"

//  doc[name] = [ {row}, ... ] of table's file (an empty list when the
//  run has none): each row's cells by the header's names
static int s_table(json_t *doc, const char *name, const rundir_t *run,
                   const column_table_t *table)
{
    const rundir_file_t *file = rundir_file(run, table);
    json_t *list = json_array();
    int rc = list ? 0 : -1;
    for (int r = 0; rc == 0 && file && r < rundir_nrows(file); r++) {
        json_t *row = json_object();
        for (int c = 0; row && c < rundir_ncolumns(file); c++)
            if (jsondoc_set(row, rundir_name(file, c),
                            jsondoc_cell(rundir_cell(file, r, c))))
                json_decref(row), row = NULL;
        rc = json_array_append_new(list, row);
    }
    rc = rc || jsondoc_set(doc, name, json_incref(list));
    json_decref(list);
    return rc;
}

//  The document of the run; NULL and err
static json_t *s_document(const rundir_t *run, errbuf_t *err)
{
    static const struct {
        const char *name;
        const column_table_t *table;
    } tables[] = {{"rows", &columns_results},
                  {"latency", &columns_latency},
                  {"search", &columns_search},
                  {"search_summary", &columns_search_summary},
                  {"syscalls", &columns_syscalls}};
    json_t *doc = json_object();
    int rc = doc ? jsondoc_set(doc, "metadata",
                               json_incref((json_t *)rundir_meta(run)))
                 : -1;
    for (size_t i = 0; rc == 0 && i < sizeof tables / sizeof tables[0]; i++)
        rc = s_table(doc, tables[i].name, run, tables[i].table);
    if (rc) {
        err_set(err, "%s: out of memory for results.json", rundir_dir(run));
        json_decref(doc);
        doc = NULL;
    }
    return doc;
}

int report_json(const char *dir, FILE *also, errbuf_t *err)
{
    rundir_t *run = rundir_open(dir, err);
    json_t *doc = run ? s_document(run, err) : NULL;
    rundir_destroy(&run);
    if (!doc)
        return -1;
    FILE *file = outfile_create(dir, "results.json", err);
    int rc = file ? outfile_close(file, dir, "results.json",
                                  jsondoc_print(file, doc, err), err)
                  : -1;
    if (rc == 0 && also)
        rc = jsondoc_print(also, doc, err);
    json_decref(doc);
    return rc;
}
