/*  report_json: --format json and results.json.

        {"metadata": {...metadata.json...},
         "rows": [{"topology": "proxy", "size": 64, ...}, ...],
         "latency": [...], "search": [...], "search_summary": [...],
         "syscalls": [...]}

    Made from the run's own files once the run ends, so the rows have
    exactly the fields of results.csv, latency.csv, search.csv,
    search_summary.csv and syscalls.csv (numbers as numbers, empty cells as null; a list is empty
    when its file is not there), and the metadata is the same document.
*/
#include "report/report.h"

#include "base/csv.h"
#include "base/number.h"
#include "base/json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

//  text twice as large, or NULL with text freed
static char *s_bigger(char *text, size_t *cap)
{
    char *bigger = realloc(text, *cap * 2);
    if (!bigger)
        free(text);
    else
        *cap *= 2;
    return bigger;
}

//  The whole file as one string; NULL and err when it cannot be read
static char *s_slurp(const char *path, errbuf_t *err)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        err_set(err, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 4096, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len - 1, file)) > 0)
        if ((len += got) + 1 == cap)
            text = s_bigger(text, &cap);
    if (text && ferror(file)) {
        err_set(err, "cannot read %s: %s", path, strerror(errno));
        free(text);
        text = NULL;
    } else if (!text)
        err_set(err, "%s: out of memory", path);
    else
        text[len] = 0;
    fclose(file);
    return text;
}

//  A cell: a number when it reads as one, null when empty, else a string
static void s_cell(FILE *out, const char *cell)
{
    double value;
    if (!*cell) {
        fputs("null", out);
        return;
    }
    if (json_number_text(cell))
        fputs(cell, out);
    else if (number_parse(cell, &value) == 0)
        fprintf(out, "%.17g", value);
    else
        json_string(out, cell);
}

//  The header's names, kept while the rows are read
typedef struct {
    char **name;
    int n;
} header_t;

static void s_header_free(header_t *header)
{
    for (int i = 0; i < header->n; i++)
        free(header->name[i]);
    free(header->name);
}

static int s_header(header_t *header, const csv_t *csv)
{
    header->name = calloc((size_t)csv_count(csv), sizeof *header->name);
    if (!header->name)
        return -1;
    for (; header->n < csv_count(csv); header->n++)
        if (!(header->name[header->n] = strdup(csv_field(csv, header->n))))
            return -1;
    return 0;
}

//  One row as {"column": cell, ...}
static void s_row(FILE *out, const header_t *header, const csv_t *csv, int rows)
{
    fputs(rows ? ",\n  {" : "\n  {", out);
    for (int c = 0; c < csv_count(csv) && c < header->n; c++) {
        fputs(c ? ", " : "", out);
        json_string(out, header->name[c]);
        fputs(": ", out);
        s_cell(out, csv_field(csv, c));
    }
    fputc('}', out);
}

//  The records after the header, as rows
static int s_rows(FILE *out, csv_t *csv, const char *path, errbuf_t *err)
{
    header_t header = {NULL, 0};
    int rc = csv_next(csv, err), rows = 0;
    if (rc > 0 && s_header(&header, csv))
        rc = err_set(err, "%s: out of memory", path);
    while (rc > 0 && (rc = csv_next(csv, err)) > 0)
        s_row(out, &header, csv, rows++);
    s_header_free(&header);
    return rc < 0 ? -1 : 0;
}

//  "name": [ {row}, ... ] from one CSV file (an empty list when missing)
static int s_table(FILE *out, const char *name, const char *path, errbuf_t *err)
{
    fprintf(out, ",\n\"%s\": [", name);
    FILE *file = fopen(path, "r");
    csv_t *csv = file ? csv_new(file, path) : NULL;
    int rc = 0;
    if (!file && errno != ENOENT)
        rc = err_set(err, "cannot read %s: %s", path, strerror(errno));
    else if (file && !csv)
        rc = err_set(err, "%s: out of memory", path);
    else if (csv)
        rc = s_rows(out, csv, path, err);
    csv_destroy(&csv);
    if (file)
        fclose(file);
    fputs("]", out);
    return rc;
}

int report_json(FILE *out, const char *dir, errbuf_t *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    char *metadata = s_slurp(path, err);
    if (!metadata)
        return -1;
    fprintf(out, "{\"metadata\": %s", metadata);
    free(metadata);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (s_table(out, "rows", path, err))
        return -1;
    snprintf(path, sizeof path, "%s/latency.csv", dir);
    if (s_table(out, "latency", path, err))
        return -1;
    snprintf(path, sizeof path, "%s/search.csv", dir);
    if (s_table(out, "search", path, err))
        return -1;
    snprintf(path, sizeof path, "%s/search_summary.csv", dir);
    if (s_table(out, "search_summary", path, err))
        return -1;
    snprintf(path, sizeof path, "%s/syscalls.csv", dir);
    if (s_table(out, "syscalls", path, err))
        return -1;
    fputs("\n}\n", out);
    fflush(out);
    return 0;
}
