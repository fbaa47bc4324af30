/*  csv: RFC 4180 records from a stream; see csv.h.

    A record is read line by line with getline into one buffer, more lines
    while a quoted field is still open, then split in place: each field is
    unquoted where it lies and ends with a NUL, and the field array points
    into the buffer.  Both buffers grow as needed and are kept for the next
    record.
*/
#include "base/csv.h"

#include "base/check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct csv_s {
    FILE *file;
    char name[600];
    char *line; //  getline's buffer
    size_t line_cap;
    char *record; //  the record's lines, then its fields
    size_t len, cap;
    char **field;
    int count, field_cap;
    int lines;  //  read so far
    int start;  //  line the current record starts on
    bool ended; //  ...and it ended with a line break
};

csv_t *csv_new(FILE *file, const char *name)
{
    csv_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->file = file;
    snprintf(self->name, sizeof self->name, "%s", name);
    return self;
}

void csv_destroy(csv_t **self_p)
{
    if (*self_p) {
        free((*self_p)->line);
        free((*self_p)->record);
        free((*self_p)->field);
    }
    free(*self_p);
    *self_p = NULL;
}

int csv_count(const csv_t *self)
{
    return self->count;
}

const char *csv_field(const csv_t *self, int index)
{
    return index >= 0 && index < self->count ? self->field[index] : NULL;
}

int csv_line(const csv_t *self)
{
    return self->start;
}

bool csv_ended(const csv_t *self)
{
    return self->ended;
}

//  ---------------------------------------------------------------------
//  Reading a record

//  Does the text end inside a quoted field?
static bool s_open_quote(const char *text, size_t len)
{
    bool quoted = false, field_start = true;
    for (size_t i = 0; i < len; i++) {
        if (quoted) {
            if (text[i] == '"' && i + 1 < len && text[i + 1] == '"')
                i++;
            else if (text[i] == '"')
                quoted = false;
            continue;
        }
        quoted = field_start && text[i] == '"';
        field_start = text[i] == ',';
    }
    return quoted;
}

static int s_append(csv_t *self, const char *text, size_t len)
{
    if (self->len + len + 1 > self->cap) {
        size_t cap = self->cap ? self->cap : 256;
        while (cap < self->len + len + 1)
            cap *= 2;
        char *bigger = realloc(self->record, cap);
        if (!bigger)
            return -1;
        self->record = bigger;
        self->cap = cap;
    }
    memcpy(self->record + self->len, text, len);
    self->len += len;
    self->record[self->len] = 0;
    return 0;
}

//  The record's lines into self->record: 1, 0 at the end, -1 and err
static int s_read(csv_t *self, errbuf_t *err)
{
    self->len = 0;
    self->start = self->lines + 1;
    do {
        errno = 0;
        ssize_t got = getline(&self->line, &self->line_cap, self->file);
        if (got < 0 && ferror(self->file))
            return err_set(err, "%s: %s", self->name,
                           strerror(errno ? errno : EIO));
        if (got < 0 && errno == ENOMEM)
            return err_set(err, "%s:%d: out of memory", self->name,
                           self->lines + 1);
        if (got < 0 && self->len == 0)
            return 0;
        if (got < 0)
            return err_set(err, "%s:%d: a quoted field is never closed",
                           self->name, self->start);
        const char *text = self->line;
        //  a UTF-8 byte order mark, from a spreadsheet
        if (self->lines++ == 0 && strncmp(text, "\xEF\xBB\xBF", 3) == 0)
            text += 3, got -= 3;
        if (s_append(self, text, (size_t)got))
            return err_set(err, "%s:%d: out of memory", self->name,
                           self->lines);
    } while (s_open_quote(self->record, self->len));
    return 1;
}

//  ---------------------------------------------------------------------
//  Splitting it

//  Unquote the field at p in place; where the next one starts, or NULL
static char *s_field(char *p)
{
    char *out = p;
    bool quoted = *p == '"';
    p += quoted;
    while (*p && (quoted || *p != ',')) {
        if (quoted && *p == '"') {
            quoted = p[1] == '"';
            p += quoted ? 2 : 1;
            if (quoted)
                *out++ = '"';
            continue;
        }
        *out++ = *p++;
    }
    char *next = *p == ',' ? p + 1 : NULL;
    *out = 0;
    return next;
}

static int s_split(csv_t *self)
{
    self->count = 0;
    for (char *p = self->record; p;) {
        if (self->count == self->field_cap) {
            int cap = self->field_cap ? self->field_cap * 2 : 32;
            char **bigger = realloc(self->field, (size_t)cap * sizeof *bigger);
            if (!bigger)
                return -1;
            self->field = bigger;
            self->field_cap = cap;
        }
        self->field[self->count++] = p;
        p = s_field(p);
    }
    return 0;
}

int csv_next(csv_t *self, errbuf_t *err)
{
    self->count = 0;
    for (;;) {
        int rc = s_read(self, err);
        if (rc <= 0)
            return rc;
        bool ended = self->len > 0 && self->record[self->len - 1] == '\n';
        while (self->len > 0 && (self->record[self->len - 1] == '\n' ||
                                 self->record[self->len - 1] == '\r'))
            self->record[--self->len] = 0;
        if (self->len == 0)
            continue; //  a blank line
        self->ended = ended;
        if (s_split(self))
            return err_set(err, "%s:%d: out of memory", self->name,
                           self->start);
        return 1;
    }
}

//  ---------------------------------------------------------------------
//  Selftest: what the reader makes of each kind of record

//  Read text; the records as "field|field" lines, or "error: why"
static int s_read_all(const char *text, char *out, size_t len)
{
    FILE *file = fmemopen((void *)text, strlen(text), "r");
    csv_t *csv = file ? csv_new(file, "t.csv") : NULL;
    if (!csv) {
        if (file)
            fclose(file);
        return -1;
    }
    errbuf_t err;
    int rc;
    size_t used = 0;
    out[0] = 0;
    while ((rc = csv_next(csv, &err)) > 0 && used < len)
        for (int i = 0; i < csv_count(csv) && used < len; i++)
            used += (size_t)snprintf(out + used, len - used, "%s%s",
                                     csv_field(csv, i),
                                     i + 1 < csv_count(csv) ? "|" : "\n");
    if (rc < 0)
        snprintf(out, len, "error: %s", err.msg);
    csv_destroy(&csv);
    fclose(file);
    return 0;
}

static int s_expect(const char *text, const char *want)
{
    char got[2048];
    if (s_read_all(text, got, sizeof got))
        return -1;
    if (strcmp(got, want) == 0)
        return 0;
    fprintf(stderr, "csv: '%s' read as '%s', not '%s'\n", text, got, want);
    return -1;
}

//  Many fields, and a long one: no limit of the reader's own
static int s_test_big(void)
{
    static char text[70000], want[70000];
    size_t used = 0;
    for (int i = 0; i < 100; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%d",
                                 i ? "," : "", i);
    text[used++] = '\n';
    memset(text + used, 'x', 60000);
    used += 60000;
    text[used] = 0;
    memcpy(want, text, used);
    want[used] = '\n';
    want[used + 1] = 0;
    for (char *p = want; (p = strchr(p, ',')); p++)
        *p = '|';
    char *got = malloc(sizeof want);
    CHECK(got && s_read_all(text, got, sizeof want) == 0);
    int rc = strcmp(got, want) == 0 ? 0 : -1;
    free(got);
    return rc;
}

int csv_test(bool verbose)
{
    (void)verbose;
    CHECK(s_expect("a,b,c\n1,2,3\n", "a|b|c\n1|2|3\n") == 0);
    CHECK(s_expect("a,b\r\n1,2\r\n", "a|b\n1|2\n") == 0);
    CHECK(s_expect("a,b\n\n1,2\n\n", "a|b\n1|2\n") == 0);
    CHECK(s_expect("a,b\n1,2", "a|b\n1|2\n") == 0);
    CHECK(s_expect("\xEF\xBB\xBF"
                   "a,b\n",
                   "a|b\n") == 0);
    CHECK(s_expect("a,,b,\n", "a||b|\n") == 0);
    CHECK(s_expect("\"x,y\",\"say \"\"hi\"\"\"\n", "x,y|say \"hi\"\n") == 0);
    CHECK(s_expect("\"two\nlines\",z\nnext\n", "two\nlines|z\nnext\n") == 0);
    CHECK(s_expect("a\"b,c\n", "a\"b|c\n") == 0);
    CHECK(s_expect("", "") == 0);
    CHECK(s_expect("a\n\"open,b\nc\n", "error: t.csv:2: a quoted field is "
                                       "never closed") == 0);
    CHECK(s_test_big() == 0);

    //  Line numbers count every line, blank or inside quotes
    static char lines[] = "h\n\n\"1\n2\"\nlast\n";
    FILE *file = fmemopen(lines, strlen(lines), "r");
    CHECK(file);
    csv_t *csv = csv_new(file, "t.csv");
    errbuf_t err;
    CHECK(csv && csv_next(csv, &err) == 1 && csv_line(csv) == 1);
    CHECK(csv_next(csv, &err) == 1 && csv_line(csv) == 3);
    CHECK(csv_next(csv, &err) == 1 && csv_line(csv) == 5);
    CHECK(strcmp(csv_field(csv, 0), "last") == 0 && !csv_field(csv, 1));
    CHECK(csv_ended(csv));
    CHECK(csv_next(csv, &err) == 0 && csv_count(csv) == 0);
    csv_destroy(&csv);
    CHECK(csv == NULL);
    fclose(file);
    //  A file cut in its last record: the record did not end
    static char cut[] = "a,b\n1,";
    file = fmemopen(cut, strlen(cut), "r");
    CHECK(file && (csv = csv_new(file, "t.csv")));
    CHECK(csv_next(csv, &err) == 1 && csv_ended(csv));
    CHECK(csv_next(csv, &err) == 1 && !csv_ended(csv));
    csv_destroy(&csv);
    fclose(file);
    return 0;
}
