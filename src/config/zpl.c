/*  zpl: load a ZPL file with zconfig, with line numbers and strict checks.

    Design: the raw text is checked line by line before zconfig sees it
    (tabs and control characters, indentation steps of exactly four
    spaces, comments included, unquoted values with spaces or a comment in
    their place, the ZPL name alphabet, '/' at either end of a name), so
    that zconfig refuses nothing: its own messages go to stdout without the
    file's name.  Every non-blank, non-comment line is one node, in the
    same order as a pre-order walk of zconfig's tree: that is how nodes get
    their line numbers.
*/
#include "config/zpl.h"

#include "base/check.h"
#include "base/limits.h"
#include "base/readfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    zconfig_t *node;
    int line;
} zpl_line_t;

struct zpl_s {
    char path[256];
    zconfig_t *root;
    zpl_line_t *lines;  //  in file order
    zpl_line_t *bynode; //  the same, sorted by node, for zpl_line
    int nlines;
    bool bom; //  the text started with a UTF-8 byte-order mark, skipped
};

#define UTF8_BOM "\xEF\xBB\xBF"

//  ZPL names: alphanumerics and $ - _ @ . & + /
static bool s_name_char(int c)
{
    return isalnum(c) || (c && strchr("$-_@.&+/", c));
}

//  Check one value text (after '='): quoted, or unquoted without spaces
static int s_check_value(const char *path, int line, const char *v,
                         errbuf_t *err)
{
    while (*v == ' ')
        v++;
    if (*v == '"' || *v == '\'') {
        const char *close = strchr(v + 1, *v);
        if (!close)
            return err_set(err, "%s:%d: missing closing %c", path, line, *v);
        v = close + 1;
        while (*v == ' ')
            v++;
        if (*v && *v != '#')
            return err_set(err, "%s:%d: text after the quoted value", path,
                           line);
        return 0;
    }
    const char *end = v + strcspn(v, "#");
    //  zconfig reads "name = # comment" as the value "# comment"
    if (end == v && *v == '#' && v[-1] == ' ')
        return err_set(err,
                       "%s:%d: a comment where the value should be "
                       "(write name = \"\" for an empty value)",
                       path, line);
    while (end > v && end[-1] == ' ')
        end--;
    const char *space = memchr(v, ' ', (size_t)(end - v));
    if (space)
        return err_set(err, "%s:%d: value '%.*s' has spaces: quote it", path,
                       line, (int)(end - v), v);
    return 0;
}

//  Tabs and other control characters (a line's final \r is gone): zconfig
//  reads \r, \v and \f as spaces, so "a =\r\"x" would be a quoted value
static int s_check_chars(const char *path, int line, const char *text,
                         errbuf_t *err)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\t')
            return err_set(err,
                           "%s:%d: tab character (ZPL indents with 4 spaces)",
                           path, line);
        if (iscntrl((unsigned char)*p))
            return err_set(err, "%s:%d: control character 0x%02x", path, line,
                           (unsigned char)*p);
    }
    return 0;
}

//  Check one line; *depth is the previous node's depth, updated on a node
static int s_check_line(const char *path, int line, const char *text,
                        int *depth, errbuf_t *err)
{
    if (s_check_chars(path, line, text, err))
        return -1;
    int indent = (int)strspn(text, " ");
    const char *p = text + indent;
    if (*p == 0)
        return 0;
    if (indent % 4) //  zconfig refuses indented comments too
        return err_set(err, "%s:%d: indented %d spaces (use steps of 4)", path,
                       line, indent);
    if (*p == '#')
        return 0;
    if (indent / 4 > *depth + 1)
        return err_set(err,
                       "%s:%d: indented %d spaces under a line indented %d",
                       path, line, indent, *depth * 4);
    *depth = indent / 4;
    const char *name = p;
    while (s_name_char((unsigned char)*p))
        p++;
    if (p == name && strncmp(name, UTF8_BOM, 3) == 0)
        return err_set(
            err,
            "%s:%d: a UTF-8 byte-order mark (U+FEFF) before '%.20s'; "
            "only one at the very start of a file is skipped",
            path, line, name + 3);
    if (p == name)
        return err_set(err, "%s:%d: invalid name at '%.20s'", path, line, name);
    if (*name == '/' || p[-1] == '/')
        return err_set(err, "%s:%d: name '%.*s' starts or ends with '/'", path,
                       line, (int)(p - name), name);
    while (*p == ' ')
        p++;
    if (*p == '=')
        return s_check_value(path, line, p + 1, err);
    if (*p && *p != '#')
        return err_set(err, "%s:%d: expected '=' after '%.*s'", path, line,
                       (int)(p - name), name);
    return 0;
}

//  Node lines in order: the lines that are neither blank nor comments
static int s_scan(zpl_t *self, char *text, errbuf_t *err)
{
    int depth = -1, line = 0;
    for (char *next, *cur = text; cur; cur = next) {
        next = strchr(cur, '\n');
        if (next)
            *next++ = 0;
        line++;
        size_t len = strlen(cur);
        if (len && cur[len - 1] == '\r')
            cur[len - 1] = 0;
        if (s_check_line(self->path, line, cur, &depth, err))
            return -1;
        const char *p = cur + strspn(cur, " ");
        if (*p && *p != '#') {
            self->lines =
                realloc(self->lines, sizeof(zpl_line_t) * (self->nlines + 1));
            self->lines[self->nlines++] = (zpl_line_t){NULL, line};
        }
    }
    return 0;
}

//  zpl_line_t by node address
static int s_by_node(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const zpl_line_t *)a)->node;
    uintptr_t y = (uintptr_t)((const zpl_line_t *)b)->node;
    return x < y ? -1 : x > y;
}

//  Pre-order walk, giving each node the next node line
static void s_assign(zpl_t *self, zconfig_t *node, int *next)
{
    for (zconfig_t *child = zconfig_child(node); child;
         child = zconfig_next(child)) {
        if (*next < self->nlines)
            self->lines[(*next)++].node = child;
        s_assign(self, child, next);
    }
}

//  zconfig parses what the line checks passed.  It refuses nothing they
//  pass: its own refusals are printf'd (czmq 4.2.1 logs them with
//  zclock_log: on stdout, without the file, not through zsys_set_logstream)
//  zconfig prints its refusals with printf, on stdout: stdout goes to a
//  scratch file while it parses (hopbench has no other thread then), and a
//  refusal the line checks did not foresee comes back as "file:line: ..."
static zconfig_t *s_parse(const char *path, const char *text, errbuf_t *err)
{
    fflush(stdout);
    FILE *scratch = tmpfile();
    int saved = scratch ? dup(STDOUT_FILENO) : -1;
    if (saved >= 0)
        dup2(fileno(scratch), STDOUT_FILENO);
    zconfig_t *root = zconfig_str_load(text);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    char said[256] = "";
    int line;
    if (scratch) {
        rewind(scratch);
        if (!fgets(said, sizeof said, scratch))
            said[0] = 0;
        fclose(scratch);
    }
    const char *p = strstr(said, "(zconfig): (");
    said[strcspn(said, "\n")] = 0;
    if (!root && p && sscanf(p + 12, "%d", &line) == 1)
        err_set(err, "%s:%d: %s", path, line, strchr(p + 12, ')') + 2);
    else if (!root)
        err_set(err, "%s: not valid ZPL", path);
    return root;
}

zpl_t *zpl_load_text(const char *path, const char *text, errbuf_t *err)
{
    zpl_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "%s: out of memory", path);
        return NULL;
    }
    snprintf(self->path, sizeof self->path, "%s", path);
    //  Editors on Windows may start a UTF-8 file with U+FEFF: skip it
    self->bom = strncmp(text, UTF8_BOM, 3) == 0;
    text += self->bom ? 3 : 0;
    char *copy = strdup(text);
    int rc = copy ? s_scan(self, copy, err)
                  : err_set(err, "%s: out of memory", path);
    free(copy);
    if (rc == 0)
        self->root = s_parse(path, text, err);
    if (!self->root) {
        zpl_destroy(&self);
        return NULL;
    }
    int next = 0;
    s_assign(self, self->root, &next);
    //  Validation asks a line per key: a sorted copy answers in log n
    self->bynode = malloc(sizeof *self->bynode * (size_t)(self->nlines + 1));
    if (!self->bynode) {
        err_set(err, "%s: out of memory", path);
        zpl_destroy(&self);
        return NULL;
    }
    if (self->nlines > 0)
        memcpy(self->bynode, self->lines,
               sizeof *self->lines * (size_t)self->nlines);
    qsort(self->bynode, (size_t)self->nlines, sizeof *self->bynode, s_by_node);
    return self;
}

zpl_t *zpl_load(const char *path, errbuf_t *err)
{
    char *text = readfile(path, LIMIT_FILE_WAIT, NULL, err);
    zpl_t *self = text ? zpl_load_text(path, text, err) : NULL;
    free(text);
    return self;
}

void zpl_destroy(zpl_t **self_p)
{
    if (*self_p) {
        zconfig_destroy(&(*self_p)->root);
        free((*self_p)->lines);
        free((*self_p)->bynode);
        free(*self_p);
        *self_p = NULL;
    }
}

zconfig_t *zpl_root(zpl_t *self)
{
    return self->root;
}

int zpl_line(zpl_t *self, zconfig_t *node)
{
    zpl_line_t key = {node, 0};
    const zpl_line_t *found =
        node ? bsearch(&key, self->bynode, (size_t)self->nlines, sizeof key,
                       s_by_node)
             : NULL;
    return found ? found->line : 0;
}

const char *zpl_path(zpl_t *self)
{
    return self->path;
}

int zpl_error(zpl_t *self, zconfig_t *node, errbuf_t *err, const char *fmt,
              ...)
{
    errbuf_t text;
    va_list ap;
    va_start(ap, fmt);
    err_vset(&text, fmt, ap);
    va_end(ap);
    return err_set(err, "%s:%d: %s", self->path, zpl_line(self, node),
                   text.msg);
}

bool zpl_bom(zpl_t *self)
{
    return self->bom;
}

//  Loads text and expects an error message containing 'want'
static int s_expect_error(const char *text, const char *want)
{
    errbuf_t err = {0};
    zpl_t *zpl = zpl_load_text("t.cfg", text, &err);
    if (zpl) {
        zpl_destroy(&zpl);
        fprintf(stderr, "zpl: accepted %s", text);
        return -1;
    }
    if (!strstr(err.msg, want)) {
        fprintf(stderr, "zpl: '%s' lacks '%s'\n", err.msg, want);
        return -1;
    }
    return 0;
}

int zpl_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    const char *text = "# chain\n"
                       "topology = chain   # name\n"
                       "    hwm = 100\n"
                       "\n"
                       "publisher = pub\n"
                       "hop\n"
                       "    endpoint = \"tcp://127.0.0.1:5555\"\n"
                       "subscriber = sub\n";
    zpl_t *zpl = zpl_load_text("t.cfg", text, &err);
    if (!zpl)
        fprintf(stderr, "zpl: %s\n", err.msg);
    CHECK(zpl);
    zconfig_t *topo = zconfig_locate(zpl_root(zpl), "topology");
    CHECK(topo && streq(zconfig_value(topo), "chain"));
    CHECK(zpl_line(zpl, topo) == 2);
    CHECK(zpl_line(zpl, zconfig_locate(topo, "hwm")) == 3);
    zconfig_t *hop = zconfig_locate(zpl_root(zpl), "hop");
    CHECK(zpl_line(zpl, hop) == 6 && streq(zconfig_value(hop), ""));
    CHECK(zpl_line(zpl, zconfig_child(hop)) == 7);
    CHECK(zpl_line(zpl, zconfig_locate(zpl_root(zpl), "subscriber")) == 8);
    zpl_destroy(&zpl);

    CHECK(s_expect_error("a = 1\n\tb = 2\n", "t.cfg:2: tab") == 0);
    CHECK(s_expect_error("a = 1\n        b = 2\n", "t.cfg:2: indented 8") == 0);
    CHECK(s_expect_error("a = 1\n  b = 2\n", "t.cfg:2: indented 2") == 0);
    CHECK(s_expect_error("a = x y\n", "t.cfg:1: value 'x y' has spaces") == 0);
    CHECK(s_expect_error("a = \"x\n", "t.cfg:1: missing closing") == 0);
    CHECK(s_expect_error("!me = x\n", "t.cfg:1: invalid name") == 0);
    CHECK(s_expect_error("a b\n", "t.cfg:1: expected '='") == 0);
    //  What zconfig refuses (on stdout) or misreads, refused here first
    CHECK(s_expect_error("a = 1\n  # c\n", "t.cfg:2: indented 2") == 0);
    CHECK(s_expect_error("a/ = 1\n", "t.cfg:1: name 'a/' starts or") == 0);
    CHECK(s_expect_error("a =  # c\n", "t.cfg:1: a comment where") == 0);
    CHECK(s_expect_error("a =\r\"\n", "t.cfg:1: control character 0x0d") == 0);

    //  A byte-order mark is skipped at the start, and named elsewhere
    zpl = zpl_load_text("t.cfg", UTF8_BOM "# c\na = 1\r\n", &err);
    CHECK(zpl && zpl_bom(zpl));
    CHECK(zpl_line(zpl, zconfig_locate(zpl_root(zpl), "a")) == 2);
    zpl_destroy(&zpl);
    CHECK(s_expect_error("a = 1\n" UTF8_BOM "b = 2\n",
                         "t.cfg:2: a UTF-8 byte-order mark (U+FEFF) before "
                         "'b = 2'") == 0);
    CHECK(s_expect_error(UTF8_BOM UTF8_BOM "a = 1\n",
                         "t.cfg:1: a UTF-8 byte-order mark") == 0);

    //  An empty file has no lines to look up
    zpl = zpl_load_text("t.cfg", "", &err);
    CHECK(zpl && zpl_line(zpl, zpl_root(zpl)) == 0);
    zpl_destroy(&zpl);

    CHECK(zpl_load("/nonexistent/x.cfg", &err) == NULL);
    CHECK(strstr(err.msg, "/nonexistent/x.cfg: No such file"));
    //  What zconfig itself refuses comes back with the line, off stdout
    errbuf_t said = {0};
    CHECK(s_parse("z.cfg", "a = 1\nb = \"x\n", &said) == NULL);
    CHECK(strcmp(said.msg, "z.cfg:2: missing \"") == 0);
    return 0;
}
