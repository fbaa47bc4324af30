/*  rundir: a results directory read back; see rundir.h.

    metadata.json is held to a description of what resultsdir.c writes
    (s_metadata below): each field's name and type, and for an object or
    the entries of an array, their own fields.  A field more than these
    is let be (a newer hopbench's); one of them missing, or of another
    type, is an error naming it by its path ("numa.nodes[1].cpus").
*/
#include "report/rundir.h"

#include "base/check.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

//  ---------------------------------------------------------------------
//  metadata.json's description

typedef enum { T_TEXT, T_NUMBER, T_OBJECT, T_ARRAY } type_t;

typedef struct field_s {
    const char *key;
    type_t type;
    type_t each;                  //  an array's entries
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

static bool s_is(const json_t *value, type_t type)
{
    return type == T_TEXT     ? json_is_string(value)
           : type == T_NUMBER ? json_is_number(value)
           : type == T_OBJECT ? json_is_object(value)
                              : json_is_array(value);
}

static int s_object(const char *path, const json_t *obj, const field_t *fields,
                    const char *where, errbuf_t *err);

//  value, named where, against its type (and its fields or entries')
static int s_value(const char *path, const json_t *value, type_t type,
                   type_t each, const field_t *fields, const char *where,
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

json_t *rundir_metadata(const char *dir, errbuf_t *err)
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
//  Selftest: metadata.json as the writer leaves it, and spoilt

static int s_try(const char *dir, const char *text, const char *want)
{
    char path[64];
    errbuf_t err = {0};
    snprintf(path, sizeof path, "%s/metadata.json", dir);
    FILE *file = fopen(path, "w");
    CHECK(file && fputs(text, file) >= 0 && fclose(file) == 0);
    json_t *meta = rundir_metadata(dir, &err);
    bool good = want ? !meta && strstr(err.msg, want) : meta != NULL;
    if (!good)
        fprintf(stderr, "rundir: '%s' said '%s', not '%s'\n", text, err.msg,
                want ? want : "");
    json_decref(meta);
    unlink(path);
    return good ? 0 : -1;
}

//  text with its first 'from' made 'to', into out
static void s_edit(const char *text, const char *from, const char *to,
                   char *out, size_t len)
{
    const char *at = strstr(text, from);
    snprintf(out, len, "%.*s%s%s", (int)(at - text), text, to,
             at + strlen(from));
}

int rundir_test(bool verbose)
{
    (void)verbose;
    char dir[] = "/tmp/hopbench-rundir-XXXXXX";
    CHECK(mkdtemp(dir));
    char good[2048] = "{", *p = good + 1, bad[2100];
    for (const field_t *f = s_metadata; f->key; f++)
        p += sprintf(p, "%s\"%s\": %s", f == s_metadata ? "" : ", ", f->key,
                     f->type == T_TEXT     ? "\"x\""
                     : f->type == T_NUMBER ? "1"
                     : f->type == T_ARRAY  ? "[]"
                                           : "{\"source\": \"x\", \"nodes\": "
                                             "[{\"node\": 0, \"cpus\": \"0\", "
                                             "\"distances\": [10]}]}");
    strcpy(p, "}");
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
    rmdir(dir);
    return 0;
}
