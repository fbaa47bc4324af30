/*  rundir: a results directory read back; see rundir.h.

    metadata.json is held to a description of what resultsdir.c writes
    (s_metadata below): each field's name and type, and for an object or
    the entries of an array, their own fields.  A field more than these
    is let be (a newer hopbench's); one of them missing, or of another
    type, is an error naming it by its path ("numa.nodes[1].cpus").

    A CSV file is read with base/csv into rows of its own: each row one
    block, the cells' pointers and then their text, kept until the
    directory is let go.  Its header is checked against its table of
    columns (columns.h) as the header is read, each row's length as the
    row is.
*/
#include "report/rundir.h"

#include "base/check.h"
#include "base/csv.h"
#include "base/grow.h"
#include "base/limits.h"
#include "base/number.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

//  ---------------------------------------------------------------------
//  metadata.json's description

typedef enum { T_TEXT, T_NUMBER, T_OBJECT, T_ARRAY } kind_t;

typedef struct field_s {
    const char *key;
    kind_t type;
    kind_t each;                  //  an array's entries
    const struct field_s *fields; //  an object's (or its entries'), NULL-ended
} field_t;

static const char *const s_types[] = {"a string", "a number", "an object",
                                      "an array"};

static const field_t s_node[] = {{"node", T_NUMBER, 0, NULL},
                                 {"cpus", T_TEXT, 0, NULL},
                                 {"distances", T_ARRAY, T_NUMBER, NULL},
                                 {NULL, 0, 0, NULL}};
static const field_t s_numa[] = {{"source", T_TEXT, 0, NULL},
                                 {"nodes", T_ARRAY, T_OBJECT, s_node},
                                 {NULL, 0, 0, NULL}};
static const field_t s_host[] = {{"name", T_TEXT, 0, NULL},
                                 {"agent", T_TEXT, 0, NULL},
                                 {"hostname", T_TEXT, 0, NULL},
                                 {"agent_version", T_TEXT, 0, NULL},
                                 {"protocol", T_NUMBER, 0, NULL},
                                 {"kernel", T_TEXT, 0, NULL},
                                 {"cpu_model", T_TEXT, 0, NULL},
                                 {"libzmq", T_TEXT, 0, NULL},
                                 {"czmq", T_TEXT, 0, NULL},
                                 {"numa_nodes", T_NUMBER, 0, NULL},
                                 {"clock_offset_ns", T_NUMBER, 0, NULL},
                                 {"clock_uncertainty_ns", T_NUMBER, 0, NULL},
                                 {NULL, 0, 0, NULL}};
static const field_t s_published[] = {{"size", T_NUMBER, 0, NULL},
                                      {"repeat", T_NUMBER, 0, NULL},
                                      {"sweep", T_OBJECT, 0, NULL},
                                      {"sent", T_OBJECT, 0, NULL},
                                      {NULL, 0, 0, NULL}};
static const field_t s_metadata[] = {
    {"hopbench", T_TEXT, 0, NULL},
    {"libzmq", T_TEXT, 0, NULL},
    {"czmq", T_TEXT, 0, NULL},
    {"kernel", T_TEXT, 0, NULL},
    {"hostname", T_TEXT, 0, NULL},
    {"cpu_model", T_TEXT, 0, NULL},
    {"machine", T_TEXT, 0, NULL},
    {"command_line", T_TEXT, 0, NULL},
    {"topology", T_TEXT, 0, NULL},
    {"topology_file", T_TEXT, 0, NULL},
    {"started_utc", T_TEXT, 0, NULL},
    {"updated_utc", T_TEXT, 0, NULL},
    {"status", T_TEXT, 0, NULL},
    {"error", T_TEXT, 0, NULL},
    {"curve", T_TEXT, 0, NULL},
    {"sweep", T_TEXT, 0, NULL},
    {"mode", T_TEXT, 0, NULL},
    {"tsc_hz", T_NUMBER, 0, NULL},
    {"tsc_source", T_TEXT, 0, NULL},
    {"numa", T_OBJECT, 0, s_numa},
    {"hosts", T_ARRAY, T_OBJECT, s_host},
    {"warnings", T_ARRAY, T_TEXT, NULL},
    {"published", T_ARRAY, T_OBJECT, s_published},
    {NULL, 0, 0, NULL}};

static bool s_is(const json_t *value, kind_t type)
{
    return type == T_TEXT     ? json_is_string(value)
           : type == T_NUMBER ? json_is_number(value)
           : type == T_OBJECT ? json_is_object(value)
                              : json_is_array(value);
}

static int s_object(const char *path, const json_t *obj, const field_t *fields,
                    const char *where, errbuf_t *err);

//  value, named where, against its type (and its fields or entries')
static int s_value(const char *path, const json_t *value, kind_t type,
                   kind_t each, const field_t *fields, const char *where,
                   errbuf_t *err)
{
    if (!s_is(value, type))
        return err_set(err, "%s: \"%s\" is %s, not %s", path, where,
                       s_types[json_is_string(value)   ? T_TEXT
                               : json_is_number(value) ? T_NUMBER
                               : json_is_object(value) ? T_OBJECT
                                                       : T_ARRAY],
                       s_types[type]);
    if (type == T_OBJECT && fields)
        return s_object(path, value, fields, where, err);
    size_t i;
    const json_t *entry;
    json_array_foreach(type == T_ARRAY ? value : NULL, i, entry)
    {
        char inner[200];
        snprintf(inner, sizeof inner, "%s[%zu]", where, i);
        if (s_value(path, entry, each, 0, fields, inner, err))
            return -1;
    }
    return 0;
}

static int s_object(const char *path, const json_t *obj, const field_t *fields,
                    const char *where, errbuf_t *err)
{
    for (const field_t *f = fields; f->key; f++) {
        char inner[200];
        snprintf(inner, sizeof inner, "%s%s%s", where, *where ? "." : "",
                 f->key);
        const json_t *value = json_object_get(obj, f->key);
        if (!value)
            return err_set(err, "%s: no field \"%s\"", path, inner);
        if (s_value(path, value, f->type, f->each, f->fields, inner, err))
            return -1;
    }
    return 0;
}

static json_t *s_read_metadata(const char *dir, errbuf_t *err)
{
    char path[1100];
    struct stat st;
    bool missing = stat(dir, &st) != 0;
    if (missing || !S_ISDIR(st.st_mode)) {
        err_set(err, "%s: %s", dir,
                missing ? strerror(errno) : "not a directory");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    if (access(path, F_OK) && errno == ENOENT) {
        err_set(err, "%s: not a results directory: no metadata.json", dir);
        return NULL;
    }
    json_t *meta = jsondoc_read(path, err);
    if (meta && !json_is_object(meta))
        err_set(err, "%s: an array, not the object metadata.json is", path);
    if (meta &&
        (!json_is_object(meta) || s_object(path, meta, s_metadata, "", err))) {
        json_decref(meta);
        meta = NULL;
    }
    return meta;
}

//  ---------------------------------------------------------------------
//  CSV files

#define RUNDIR_SWEEP 64 //  sweep_KEY columns a file may have

struct rundir_file_s {
    const column_table_t *table;
    char path[1100];
    char **names; //  the header
    int ncolumns;
    char ***rows; //  each a block: ncolumns pointers, then the text
    int *lines;
    int nrows, cap;
    int sweep[RUNDIR_SWEEP], nsweep;
};

struct rundir_s {
    char dir[1024];
    json_t *meta;
    char **configs;           //  config.cfg's text, then config-2.cfg's ..
    int nconfigs;             //  (a sweep's combinations); 0: no config.cfg
    rundir_file_t *files[16]; //  as columns_tables[] has them
};

static void s_file_free(rundir_file_t *file)
{
    for (int r = 0; file && r < file->nrows; r++)
        free(file->rows[r]);
    if (file) {
        free(file->rows);
        free(file->lines);
        free(file->names);
    }
    free(file);
}

//  The record's fields as one block: n pointers, then their text
static char **s_block(const csv_t *csv)
{
    int n = csv_count(csv);
    size_t len = (size_t)n * sizeof(char *);
    for (int c = 0; c < n; c++)
        len += strlen(csv_field(csv, c)) + 1;
    char **block = malloc(len);
    char *text = block ? (char *)(block + n) : NULL;
    for (int c = 0; block && c < n; c++) {
        block[c] = strcpy(text, csv_field(csv, c));
        text += strlen(text) + 1;
    }
    return block;
}

//  Is name one of the table's columns (or its tail's, or a sweep_KEY)?
static bool s_known(const column_table_t *table, const char *name)
{
    if (columns_find(table, name) >= 0)
        return true;
    for (int c = 0; c < table->ntail; c++)
        if (strcmp(table->tail[c].name, name) == 0)
            return true;
    return table->sweep &&
           strncmp(name, COLUMN_SWEEP_PREFIX, strlen(COLUMN_SWEEP_PREFIX)) == 0;
}

//  The header: the file's own, each name once
static int s_header(rundir_file_t *file, const csv_t *csv, errbuf_t *err)
{
    if (!(file->names = s_block(csv)))
        return err_set(err, "%s: out of memory", file->path);
    file->ncolumns = csv_count(csv);
    for (int c = 0; c < file->ncolumns; c++) {
        const char *name = file->names[c];
        if (!s_known(file->table, name))
            return err_set(err,
                           "%s:%d: '%s' is not a column of %s (a header "
                           "hopbench did not write)",
                           file->path, csv_line(csv), name, file->table->file);
        if (rundir_column(file, name) != c)
            return err_set(err, "%s:%d: column '%s' twice", file->path,
                           csv_line(csv), name);
        if (strncmp(name, COLUMN_SWEEP_PREFIX, strlen(COLUMN_SWEEP_PREFIX)) ==
                0 &&
            file->nsweep < RUNDIR_SWEEP)
            file->sweep[file->nsweep++] = c;
    }
    return 0;
}

static int s_row(rundir_file_t *file, const csv_t *csv, errbuf_t *err)
{
    if (csv_count(csv) != file->ncolumns)
        return err_set(err,
                       "%s:%d: %d fields, but the header has %d (a line cut "
                       "short?)",
                       file->path, csv_line(csv), csv_count(csv),
                       file->ncolumns);
    if (!csv_ended(csv))
        return err_set(err,
                       "%s:%d: the last row has no line break (the file "
                       "was cut in it)",
                       file->path, csv_line(csv));
    int cap = file->cap;
    if (grow(&file->rows, &cap, file->nrows + 1, sizeof *file->rows) ||
        grow(&file->lines, &file->cap, file->nrows + 1, sizeof *file->lines))
        return err_set(err, "%s: out of memory", file->path);
    if (!(file->rows[file->nrows] = s_block(csv)))
        return err_set(err, "%s: out of memory", file->path);
    file->lines[file->nrows++] = csv_line(csv);
    return 0;
}

//  DIR/FILE of table: 1 read, 0 not there, -1 and err
static int s_read_file(rundir_t *self, int index, errbuf_t *err)
{
    rundir_file_t *file = calloc(1, sizeof *file);
    if (!file)
        return err_set(err, "out of memory");
    file->table = columns_tables[index];
    snprintf(file->path, sizeof file->path, "%s/%s", self->dir,
             file->table->file);
    FILE *in = fopen(file->path, "r");
    if (!in) {
        int rc = errno == ENOENT ? 0
                                 : err_set(err, "cannot read %s: %s",
                                           file->path, strerror(errno));
        s_file_free(file);
        return rc;
    }
    csv_t *csv = csv_new(in, file->path);
    int rc = csv ? csv_next(csv, err) : err_set(err, "out of memory");
    if (rc == 0)
        rc = err_set(err, "%s: empty, not even a header", file->path);
    if (rc > 0)
        rc = s_header(file, csv, err);
    while (rc >= 0 && (rc = csv_next(csv, err)) > 0)
        rc = s_row(file, csv, err);
    csv_destroy(&csv);
    fclose(in);
    if (rc < 0) {
        s_file_free(file);
        return -1;
    }
    self->files[index] = file;
    return 1;
}

//  DIR/NAME, when there, as text into *text (NULL when not there): read
//  once here, and taken as it is (a run ended by a signal is read back
//  whole, never cut short by it)
static int s_read_text(const char *dir, const char *name, char **text,
                       errbuf_t *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *text = NULL;
    FILE *file = fopen(path, "r");
    if (!file)
        return errno == ENOENT
                   ? 0
                   : err_set(err, "cannot read %s: %s", path, strerror(errno));
    size_t len = 0;
    int rc = 0, cap = 0;
    for (size_t got = 1; got > 0 && rc == 0;) {
        rc = grow(text, &cap, (int)len + 4096 + 1, 1);
        got = rc ? 0 : fread(*text + len, 1, 4096, file);
        len += got;
    }
    if (rc == 0 && ferror(file))
        rc = err_set(err, "cannot read %s", path);
    else if (rc)
        err_set(err, "%s: out of memory", path);
    else
        (*text)[len] = 0;
    fclose(file);
    return rc ? -1 : 0;
}

//  config.cfg, and a sweep's config-2.cfg .. up to the first not there
static int s_read_configs(rundir_t *self, errbuf_t *err)
{
    char name[32] = "config.cfg", *text;
    int rc = 0, cap = 0;
    for (int n = 1; rc == 0 && n <= LIMIT_SWEEP_COMBOS; n++) {
        if (n > 1)
            snprintf(name, sizeof name, "config-%d.cfg", n);
        rc = s_read_text(self->dir, name, &text, err);
        if (rc || !text)
            break;
        if (grow(&self->configs, &cap, n, sizeof *self->configs)) {
            free(text);
            return err_set(err, "%s/%s: out of memory", self->dir, name);
        }
        self->configs[self->nconfigs++] = text;
    }
    return rc;
}

const char *rundir_config(const rundir_t *self)
{
    return self->nconfigs ? self->configs[0] : NULL;
}

int rundir_nconfigs(const rundir_t *self)
{
    return self->nconfigs;
}

const char *rundir_config_of(const rundir_t *self, int n)
{
    return n >= 1 && n <= self->nconfigs ? self->configs[n - 1] : NULL;
}

rundir_t *rundir_open(const char *dir, errbuf_t *err)
{
    rundir_t *self = calloc(1, sizeof *self);
    int rc = self ? 0 : err_set(err, "out of memory");
    if (rc == 0) {
        snprintf(self->dir, sizeof self->dir, "%s", dir);
        for (size_t n = strlen(self->dir); n > 1 && self->dir[n - 1] == '/';
             n--)
            self->dir[n - 1] = 0;
        rc = (self->meta = s_read_metadata(self->dir, err)) ? 0 : -1;
    }
    for (int i = 0; rc == 0 && columns_tables[i]; i++)
        rc = s_read_file(self, i, err) < 0 ? -1 : 0;
    if (rc == 0 && !rundir_file(self, &columns_results))
        rc = err_set(err, "%s: not a results directory: no results.csv",
                     self->dir);
    if (rc == 0)
        rc = s_read_configs(self, err);
    if (rc)
        rundir_destroy(&self);
    return self;
}

void rundir_destroy(rundir_t **self_p)
{
    for (size_t i = 0;
         *self_p && i < sizeof(*self_p)->files / sizeof(*self_p)->files[0]; i++)
        s_file_free((*self_p)->files[i]);
    if (*self_p) {
        json_decref((*self_p)->meta);
        for (int n = 0; n < (*self_p)->nconfigs; n++)
            free((*self_p)->configs[n]);
        free((*self_p)->configs);
    }
    free(*self_p);
    *self_p = NULL;
}

const char *rundir_dir(const rundir_t *self)
{
    return self->dir;
}

const json_t *rundir_meta(const rundir_t *self)
{
    return self->meta;
}

const rundir_file_t *rundir_file(const rundir_t *self,
                                 const column_table_t *table)
{
    for (int i = 0; columns_tables[i]; i++)
        if (columns_tables[i] == table)
            return self->files[i];
    return NULL;
}

const char *rundir_path(const rundir_file_t *file)
{
    return file->path;
}
int rundir_ncolumns(const rundir_file_t *file)
{
    return file->ncolumns;
}
const char *rundir_name(const rundir_file_t *file, int col)
{
    return file->names[col];
}
int rundir_nrows(const rundir_file_t *file)
{
    return file->nrows;
}
int rundir_line(const rundir_file_t *file, int row)
{
    return file->lines[row];
}
int rundir_nsweep(const rundir_file_t *file)
{
    return file->nsweep;
}
int rundir_sweep(const rundir_file_t *file, int k)
{
    return file->sweep[k];
}

int rundir_column(const rundir_file_t *file, const char *name)
{
    for (int c = 0; c < file->ncolumns; c++)
        if (strcmp(file->names[c], name) == 0)
            return c;
    return -1;
}

const char *rundir_cell(const rundir_file_t *file, int row, int col)
{
    return col >= 0 && col < file->ncolumns ? file->rows[row][col] : "";
}

//  ---------------------------------------------------------------------
//  A reader's walk

int rundir_rows(rundir_rows_t *self, const rundir_t *run,
                const column_table_t *table, const char *const *wanted,
                int nwanted, errbuf_t *err)
{
    memset(self, 0, sizeof *self);
    self->row = -1;
    self->wanted = wanted;
    self->nwanted = nwanted < RUNDIR_WANTED ? nwanted : RUNDIR_WANTED;
    if (!(self->file = rundir_file(run, table)))
        return 0;
    for (int c = 0; c < self->nwanted; c++)
        if ((self->col[c] = rundir_column(self->file, wanted[c])) < 0)
            return err_set(err, "%s:1: no column '%s'", rundir_path(self->file),
                           wanted[c]);
    return 1;
}

bool rundir_next(rundir_rows_t *self)
{
    return self->file && ++self->row < self->file->nrows;
}

const char *rundir_text(const rundir_rows_t *self, int c)
{
    return rundir_cell(self->file, self->row, self->col[c]);
}

int rundir_bad(const rundir_rows_t *self, int c, const char *why, errbuf_t *err)
{
    return err_set(err, "%s:%d: %s '%.40s' %s", rundir_path(self->file),
                   rundir_line(self->file, self->row), self->wanted[c],
                   rundir_text(self, c), why);
}

int rundir_number(const rundir_rows_t *self, int c, double *out, errbuf_t *err)
{
    if (number_parse(rundir_text(self, c), out))
        return rundir_bad(self, c, "is not a number", err);
    return 0;
}

void rundir_combo(const rundir_rows_t *self, bool names, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int k = 0; k < self->file->nsweep && used < len; k++) {
        int col = self->file->sweep[k];
        used += (size_t)snprintf(
            out + used, len - used, "%s%s%s%.60s", k ? " " : "",
            names ? self->file->names[col] + strlen(COLUMN_SWEEP_PREFIX) : "",
            names ? "=" : "", rundir_cell(self->file, self->row, col));
    }
}

//  ---------------------------------------------------------------------
//  Selftest: metadata.json as the writer leaves it, and spoilt

//  DIR/NAME of text, and rundir_open's error against want (NULL: it
//  opens)
static int s_try_file(const char *dir, const char *name, const char *text,
                      const char *want)
{
    char path[64];
    errbuf_t err = {0};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "w");
    CHECK(file && fputs(text, file) >= 0 && fclose(file) == 0);
    rundir_t *run = rundir_open(dir, &err);
    bool good = want ? !run && strstr(err.msg, want) : run != NULL;
    if (!good)
        fprintf(stderr, "rundir: %s '%s' said '%s', not '%s'\n", name, text,
                err.msg, want ? want : "");
    rundir_destroy(&run);
    return good ? 0 : -1;
}

static int s_try(const char *dir, const char *text, const char *want)
{
    return s_try_file(dir, "metadata.json", text, want);
}

//  text with its first 'from' made 'to', into out
static void s_edit(const char *text, const char *from, const char *to,
                   char *out, size_t len)
{
    const char *at = strstr(text, from);
    snprintf(out, len, "%.*s%s%s", (int)(at - text), text, to,
             at + strlen(from));
}

//  ...of results.csv's header, sweep_hwm, and rows
static int s_try_csv(const char *dir, const char *rows, const char *want)
{
    char *header = columns_names(&columns_results, false);
    size_t len = (header ? strlen(header) : 0) + strlen(rows) + 16;
    char *text = malloc(len);
    CHECK(header && text);
    snprintf(text, len, "%s,sweep_hwm\n%s", header, rows);
    int rc = s_try_file(dir, "results.csv", text, want);
    free(text);
    free(header);
    return rc;
}

//  A row of results.csv: size 64, msgs_per_sec rate, hwm 10
static void s_row_text(char *out, size_t len, const char *rate, bool ended)
{
    size_t used = 0;
    for (int c = 0; c < columns_results.ncolumns; c++) {
        const char *name = columns_results.columns[c].name;
        used +=
            (size_t)snprintf(out + used, len - used, "%s",
                             strcmp(name, "size") == 0                ? "64"
                             : strcmp(name, COLUMN_MSGS_PER_SEC) == 0 ? rate
                                                                      : "1");
        used += (size_t)snprintf(out + used, len - used, ",");
    }
    snprintf(out + used, len - used, "10%s", ended ? "\n" : "");
}

static int s_test_csv(const char *dir)
{
    char row[1024], rows[2048], cut[1024];
    errbuf_t err;
    s_row_text(row, sizeof row, "1822722.2", true);
    CHECK(s_try_csv(dir, row, NULL) == 0);
    rundir_t *run = rundir_open(dir, &err);
    rundir_rows_t rows_of;
    static const char *const want[] = {"size", COLUMN_MSGS_PER_SEC, "none"};
    double v;
    char combo[64];
    CHECK(run &&
          rundir_rows(&rows_of, run, &columns_results, want, 2, &err) == 1);
    CHECK(rundir_next(&rows_of) && rundir_number(&rows_of, 1, &v, &err) == 0 &&
          v == 1822722.2 && strcmp(rundir_text(&rows_of, 0), "64") == 0);
    rundir_combo(&rows_of, true, combo, sizeof combo);
    CHECK(strcmp(combo, "hwm=10") == 0 && !rundir_next(&rows_of));
    CHECK(rundir_rows(&rows_of, run, &columns_results, want, 3, &err) == -1 &&
          strstr(err.msg, "results.csv:1: no column 'none'"));
    CHECK(rundir_rows(&rows_of, run, &columns_search, want, 3, &err) == 0);
    rundir_destroy(&run);
    s_row_text(cut, sizeof cut, "fast", true);
    snprintf(rows, sizeof rows, "%s%s", row, cut);
    CHECK(s_try_csv(dir, rows, NULL) == 0); //  a reader says what a cell is
    s_row_text(cut, sizeof cut, "5", false);
    snprintf(rows, sizeof rows, "%s%s", row, cut);
    CHECK(s_try_csv(dir, rows,
                    "results.csv:3: the last row has no line "
                    "break") == 0);
    snprintf(rows, sizeof rows, "%s%.*s\n", row, (int)(strlen(row) / 2), row);
    CHECK(s_try_csv(dir, rows, "results.csv:3: ") == 0);
    CHECK(s_try_file(dir, "results.csv", "topology,size,samples\n",
                     "results.csv:1: 'samples' is not a column of "
                     "results.csv") == 0);
    CHECK(s_try_file(dir, "results.csv", "topology,size,size\n",
                     "results.csv:1: column 'size' twice") == 0);
    CHECK(s_try_file(dir, "results.csv", "",
                     "results.csv: empty, not even a header") == 0);
    return 0;
}

//  metadata.json of every field, each "x", 1, [] or a NUMA node of its own
static void s_good_metadata(char *out)
{
    char *p = out + sprintf(out, "{");
    for (const field_t *f = s_metadata; f->key; f++)
        p += sprintf(p, "%s\"%s\": %s", f == s_metadata ? "" : ", ", f->key,
                     f->type == T_TEXT     ? "\"x\""
                     : f->type == T_NUMBER ? "1"
                     : f->type == T_ARRAY  ? "[]"
                                           : "{\"source\": \"x\", \"nodes\": "
                                             "[{\"node\": 0, \"cpus\": \"0\", "
                                             "\"distances\": [10]}]}");
    strcpy(p, "}");
}

int rundir_test_metadata(const char *dir)
{
    char text[2048], path[1100];
    s_good_metadata(text);
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    FILE *file = fopen(path, "w");
    return file && fputs(text, file) >= 0 && fclose(file) == 0 ? 0 : -1;
}

int rundir_test(bool verbose)
{
    (void)verbose;
    char dir[] = "/tmp/hopbench-rundir-XXXXXX", path[64];
    errbuf_t err;
    CHECK(mkdtemp(dir));
    CHECK(rundir_test_metadata(dir) == 0);
    CHECK(rundir_open(dir, &err) == NULL &&
          strstr(err.msg, "not a results directory: no results.csv"));
    CHECK(s_try_file(dir, "results.csv", "topology,size\n", NULL) == 0);
    char good[2048], bad[2100];
    s_good_metadata(good);
    CHECK(s_try(dir, good, NULL) == 0);
    s_edit(good, "\"status\"", "\"state\"", bad, sizeof bad);
    CHECK(s_try(dir, bad, "metadata.json: no field \"status\"") == 0);
    s_edit(good, "\"tsc_hz\": 1", "\"tsc_hz\": \"1\"", bad, sizeof bad);
    CHECK(s_try(dir, bad, "\"tsc_hz\" is a string, not a number") == 0);
    s_edit(good, "[10]", "\"10\"", bad, sizeof bad);
    CHECK(s_try(dir, bad,
                "\"numa.nodes[0].distances\" is a string, not an array") == 0);
    s_edit(good, "\"cpus\": \"0\"", "\"cpus\": 0", bad, sizeof bad);
    CHECK(s_try(dir, bad, "\"numa.nodes[0].cpus\" is a number") == 0);
    s_edit(good, "\"cpus\"", "\n.", bad, sizeof bad);
    CHECK(s_try(dir, bad, "metadata.json:2: ") == 0);
    CHECK(s_try(dir, "[1]", "an array, not the object") == 0);
    CHECK(s_try(dir, "{\"a\": 1, \"a\": 2}", "duplicate object key") == 0);
    //  the CSV files, beside a good metadata.json
    CHECK(rundir_test_metadata(dir) == 0);
    int rc = s_test_csv(dir);
    for (const char *const *f =
             (const char *const[]){"metadata.json", "results.csv", NULL};
         *f; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);
    return rc;
}
