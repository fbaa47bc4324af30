/*  report_json: --format json and results.json.

        {"metadata": {...metadata.json...},
         "rows": [{"topology": "proxy", "size": 64, ...}, ...],
         "latency": [...]}

    Made from the run's own files once the run ends, so the rows have
    exactly the fields of results.csv and latency.csv (numbers as numbers,
    empty cells as null), and the metadata is the same document.
*/
#include "report/report.h"

#include "base/json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *s_slurp(const char *path)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return NULL;
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, file)) > 0) {
        len += got;
        if (cap - len < 2)
            text = realloc(text, cap *= 2);
    }
    fclose(file);
    text[len] = 0;
    return text;
}

//  A cell: a number when it reads as one, null when empty, else a string
static void s_cell(FILE *out, const char *cell)
{
    char *end;
    if (!*cell) {
        fputs("null", out);
        return;
    }
    strtod(cell, &end);
    if (*end == 0 && strspn(cell, "-0123456789.e+") == strlen(cell))
        fputs(cell, out);
    else
        json_string(out, cell);
}

//  Split a CSV line (no quoted commas in these files) into cells in place
static int s_cells(char *line, char **cells, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        cells[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = 0;
    }
    return n;
}

//  "name": [ {row}, ... ] from one CSV file (an empty list when missing)
static void s_table(FILE *out, const char *name, const char *path)
{
    fprintf(out, ",\n\"%s\": [", name);
    char *text = s_slurp(path), *save = NULL, *header[64], *cells[64];
    char *line = text ? strtok_r(text, "\n", &save) : NULL;
    int ncols = line ? s_cells(line, header, 64) : 0, rows = 0;
    while (line && (line = strtok_r(NULL, "\n", &save))) {
        int n = s_cells(line, cells, 64);
        fputs(rows++ ? ",\n  {" : "\n  {", out);
        for (int c = 0; c < n && c < ncols; c++) {
            fputs(c ? ", " : "", out);
            json_string(out, header[c]);
            fputs(": ", out);
            s_cell(out, cells[c]);
        }
        fputc('}', out);
    }
    fputs("]", out);
    free(text);
}

int report_json(FILE *out, const char *dir, errbuf_t *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    char *metadata = s_slurp(path);
    if (!metadata)
        return err_set(err, "cannot read %s: %s", path, strerror(errno));
    fprintf(out, "{\"metadata\": %s", metadata);
    free(metadata);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    s_table(out, "rows", path);
    snprintf(path, sizeof path, "%s/latency.csv", dir);
    s_table(out, "latency", path);
    fputs("\n}\n", out);
    fflush(out);
    return 0;
}
