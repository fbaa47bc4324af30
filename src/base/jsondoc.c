/*  jsondoc: JSON documents through jansson; see jsondoc.h.

    jansson does the parsing and the printing; this file only fixes the
    flags every document shares (duplicate keys refused, the indent, the
    precision of reals), turns jansson's error into hopbench's "path:LINE:
    what", and makes values from what the writers hold (text, doubles,
    CSV cells) so that none is lost to jansson's refusals: json_string
    takes UTF-8 only, and returns NULL for anything else.
*/
#include "base/jsondoc.h"

#include "base/check.h"
#include "base/number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//  The one look: two-space indents, 15 significant digits for a real
#define JSONDOC_DUMP (JSON_INDENT(2) | JSON_REAL_PRECISION(15))

json_t *jsondoc_read(const char *path, errbuf_t *err)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        err_set(err, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    json_error_t error;
    json_t *doc = json_loadf(file, JSON_REJECT_DUPLICATES, &error);
    bool failed = ferror(file);
    fclose(file);
    if (!doc && error.line > 0 && error.column > 0)
        err_set(err, "%s:%d: %s (column %d)", path, error.line, error.text,
                error.column);
    else if (!doc && error.line > 0)
        err_set(err, "%s:%d: %s", path, error.line, error.text);
    else if (!doc)
        err_set(err, "%s: %s", path, error.text);
    else if (failed) {
        err_set(err, "cannot read %s", path);
        json_decref(doc);
        doc = NULL;
    }
    return doc;
}

int jsondoc_print(FILE *out, const json_t *doc, errbuf_t *err)
{
    if (json_dumpf(doc, out, JSONDOC_DUMP) || fputc('\n', out) == EOF ||
        fflush(out))
        return err_set(err, "cannot write the JSON document: %s",
                       strerror(errno));
    return 0;
}

//  ---------------------------------------------------------------------
//  Values

//  The length of the UTF-8 sequence at p, 0 when it is not one
static size_t s_utf8(const unsigned char *p)
{
    size_t n = *p < 0x80                 ? 1
               : *p >= 0xC2 && *p < 0xE0 ? 2
               : *p >= 0xE0 && *p < 0xF0 ? 3
               : *p >= 0xF0 && *p < 0xF5 ? 4
                                         : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

json_t *jsondoc_text(const char *text)
{
    json_t *value = json_string(text ? text : "");
    if (value)
        return value;
    char *copy = strdup(text); //  not UTF-8: '?' for each byte that is not
    if (!copy)
        return NULL;
    for (unsigned char *p = (unsigned char *)copy; *p;) {
        size_t n = s_utf8(p);
        if (n == 0)
            *p++ = '?';
        else
            p += n;
    }
    value = json_string(copy);
    free(copy);
    return value;
}

json_t *jsondoc_number(double value)
{
    if (value == floor(value) && fabs(value) < 9007199254740992.0)
        return json_integer((json_int_t)value);
    return isfinite(value) ? json_real(value) : json_null();
}

json_t *jsondoc_cell(const char *cell)
{
    double value;
    if (!*cell)
        return json_null();
    if (number_whole(cell)) {
        errno = 0;
        long long whole = strtoll(cell, NULL, 10);
        if (errno == 0)
            return json_integer(whole);
    }
    if (number_parse(cell, &value) == 0)
        return json_real(value);
    return jsondoc_text(cell);
}

int jsondoc_set(json_t *obj, const char *key, json_t *value)
{
    return value && json_object_set_new(obj, key, value) == 0 ? 0 : -1;
}

json_t *jsondoc_kept(json_t *value, int rc)
{
    if (rc == 0)
        return value;
    json_decref(value);
    return NULL;
}

const char *jsondoc_get_text(const json_t *obj, const char *key)
{
    const char *text = json_string_value(json_object_get(obj, key));
    return text ? text : "";
}

//  ---------------------------------------------------------------------
//  Selftest: what goes out, and what a bad document says

static int s_printed(const json_t *doc, const char *want)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    errbuf_t err;
    CHECK(out && jsondoc_print(out, doc, &err) == 0);
    fclose(out);
    int rc = strcmp(text, want) == 0 ? 0 : -1;
    if (rc)
        fprintf(stderr, "jsondoc: printed '%s', not '%s'\n", text, want);
    free(text);
    return rc;
}

static int s_test_read(void)
{
    char dir[] = "/tmp/hopbench-jsondoc-XXXXXX", path[64];
    errbuf_t err;
    CHECK(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.json", dir);
    static const char *const bad[][2] = {
        {"{\"a\": 1,\n \"a\": 2}", "m.json:2: duplicate object key"},
        {"{\"a\": 1,\n}", "m.json:2: string or '}' expected near '}'"},
        {"", "m.json:1: '[' or '{' expected near end of file"},
        {"{\"a\": 1}\n{}", "m.json:2: end of file expected"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(bad[i][0], f) >= 0 && fclose(f) == 0);
        CHECK(jsondoc_read(path, &err) == NULL);
        CHECK(strstr(err.msg, bad[i][1]));
    }
    FILE *f = fopen(path, "w");
    CHECK(f && fputs("{\"a\": \"x\"}", f) >= 0 && fclose(f) == 0);
    json_t *doc = jsondoc_read(path, &err);
    CHECK(doc && strcmp(jsondoc_get_text(doc, "a"), "x") == 0);
    CHECK(strcmp(jsondoc_get_text(doc, "b"), "") == 0);
    json_decref(doc);
    unlink(path);
    CHECK(jsondoc_read(path, &err) == NULL &&
          strstr(err.msg, "m.json: No such file"));
    rmdir(dir);
    return 0;
}

int jsondoc_test(bool verbose)
{
    (void)verbose;
    json_t *doc = json_object();
    CHECK(doc);
    CHECK(jsondoc_set(doc, "n", jsondoc_number(64)) == 0);
    CHECK(jsondoc_set(doc, "r", jsondoc_number(1822722.2)) == 0);
    CHECK(jsondoc_set(doc, "c", jsondoc_cell("0.1")) == 0);
    CHECK(jsondoc_set(doc, "e", jsondoc_cell("")) == 0);
    CHECK(jsondoc_set(doc, "w", jsondoc_cell("-12")) == 0);
    CHECK(jsondoc_set(doc, "t", jsondoc_cell("tcp")) == 0);
    CHECK(jsondoc_set(doc, "u",
                      jsondoc_text("a\xff"
                                   "b\n\xc3\xa9")) == 0);
    CHECK(s_printed(doc, "{\n  \"n\": 64,\n  \"r\": 1822722.2,\n  \"c\": "
                         "0.1,\n  \"e\": null,\n  \"w\": -12,\n  \"t\": "
                         "\"tcp\",\n  \"u\": \"a?b\\n\xc3\xa9\"\n}\n") == 0);
    CHECK(jsondoc_set(doc, "x", NULL) == -1);
    json_decref(doc);
    return s_test_read();
}
