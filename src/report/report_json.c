/*  report_json: --format json, results.json.

        {"metadata": {...metadata.json...},
         "rows": [{"topology": "proxy", "size": 64, ...}, ...],
         "latency": [...], "search": [...], "search_summary": [...],
         "syscalls": [...]}

    Made from the run's own files once the run ends, so the rows have
    exactly the fields of results.csv, latency.csv, search.csv,
    search_summary.csv and syscalls.csv (numbers as numbers, empty cells
    as null; a list is empty when its file is not there), and the
    metadata is the same document.  One document, built whole (jansson),
    then written to DIR/results.json and to the stream asked for.
*/
#include "report/report.h"

#include "base/csv.h"
#include "base/jsondoc.h"
#include "base/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

//  The records after the header, an object each, into list
static int s_rows(json_t *list, csv_t *csv, const char *path, errbuf_t *err)
{
    int rc = csv_next(csv, err), ncols = csv_count(csv);
    char **names = rc > 0 ? calloc((size_t)ncols, sizeof *names) : NULL;
    if (rc > 0 && !names)
        rc = err_set(err, "%s: out of memory", path);
    for (int c = 0; names && c < ncols; c++)
        if (!(names[c] = strdup(csv_field(csv, c))))
            rc = err_set(err, "%s: out of memory", path);
    while (rc > 0 && (rc = csv_next(csv, err)) > 0) {
        json_t *row = json_object();
        for (int c = 0; row && c < csv_count(csv) && c < ncols; c++)
            if (jsondoc_set(row, names[c], jsondoc_cell(csv_field(csv, c))))
                json_decref(row), row = NULL;
        if (json_array_append_new(list, row))
            rc = err_set(err, "%s: out of memory", path);
    }
    for (int c = 0; names && c < ncols; c++)
        free(names[c]);
    free(names);
    return rc < 0 ? -1 : 0;
}

//  doc[name] = [ {row}, ... ] from DIR/FILE (an empty list when missing)
static int s_table(json_t *doc, const char *name, const char *dir,
                   const char *file_name, errbuf_t *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, file_name);
    json_t *list = json_array();
    FILE *file = fopen(path, "r");
    csv_t *csv = file ? csv_new(file, path) : NULL;
    int rc = list ? 0 : err_set(err, "out of memory");
    if (!file && errno != ENOENT)
        rc = err_set(err, "cannot read %s: %s", path, strerror(errno));
    else if (file && !csv)
        rc = err_set(err, "%s: out of memory", path);
    else if (csv && rc == 0)
        rc = s_rows(list, csv, path, err);
    csv_destroy(&csv);
    if (file)
        fclose(file);
    if (rc == 0 && jsondoc_set(doc, name, json_incref(list)))
        rc = err_set(err, "out of memory");
    json_decref(list);
    return rc;
}

//  The document of dir; NULL and err
static json_t *s_document(const char *dir, errbuf_t *err)
{
    static const char *const tables[][2] = {
        {"rows", "results.csv"},
        {"latency", "latency.csv"},
        {"search", "search.csv"},
        {"search_summary", "search_summary.csv"},
        {"syscalls", "syscalls.csv"}};
    char path[700];
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    json_t *meta = jsondoc_read(path, err), *doc = json_object();
    int rc = meta && doc ? 0 : -1;
    if (meta && !doc)
        err_set(err, "out of memory");
    if (rc == 0 && jsondoc_set(doc, "metadata", json_incref(meta)))
        rc = err_set(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < sizeof tables / sizeof tables[0]; i++)
        rc = s_table(doc, tables[i][0], dir, tables[i][1], err);
    json_decref(meta);
    if (rc)
        json_decref(doc), doc = NULL;
    return doc;
}

int report_json(const char *dir, FILE *also, errbuf_t *err)
{
    json_t *doc = s_document(dir, err);
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
