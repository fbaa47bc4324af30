/*  columns: the engine that writes a table of columns (columns.h) as a
    CSV header and rows, and finds a column by name.

    A cell is taken in two steps: the take reads its value (a field at its
    offset, by the field's type, or its function), then prints it with its
    format and flags.  Nothing here knows a file; the tables are in
    columns_files.c.
*/
#include "report/columns.h"

#include "base/check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void columns_sweep_name(const char *key, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s%s", COLUMN_SWEEP_PREFIX, key);
    for (char *p = buf + strlen(COLUMN_SWEEP_PREFIX); p < buf + n && *p; p++)
        if (!isalnum((unsigned char)*p))
            *p = '_';
}

void columns_header(FILE *out, const column_table_t *table,
                    const report_info_t *info)
{
    for (int c = 0; c < table->ncolumns; c++)
        fprintf(out, "%s%s", c ? "," : "", table->columns[c].name);
    for (int i = 0; table->sweep && i < info->nsweep; i++) {
        char name[200];
        columns_sweep_name(info->sweep_key[i], name, sizeof name);
        fprintf(out, ",%s", name);
    }
    for (int c = 0;
         table->tail_when && table->tail_when(info) && c < table->ntail; c++)
        fprintf(out, ",%s", table->tail[c].name);
    fputc('\n', out);
    fflush(out);
}

//  The value of a field at the take's offset
static void s_field(const column_take_t *take, const column_ctx_t *ctx,
                    column_value_t *v)
{
    const char *base = take->flags & COLUMN_OF ? ctx->of : ctx->row;
    const void *at = base + take->offset;
    column_kind_t k = take->kind;
    if (k == COLUMN_INT || k == COLUMN_I64)
        column_int(v,
                   k == COLUMN_INT ? *(const int *)at : *(const int64_t *)at);
    else if (k == COLUMN_UINT || k == COLUMN_U64)
        column_uint(v, k == COLUMN_UINT ? *(const unsigned *)at
                                        : *(const uint64_t *)at);
    else if (k == COLUMN_DOUBLE)
        column_real(v, *(const double *)at);
    else if (k == COLUMN_CHARS || k == COLUMN_TEXT)
        column_text(v, k == COLUMN_CHARS ? (const char *)at
                                         : *(const char *const *)at);
    else
        v->kind = VALUE_EMPTY;
}

//  A number as the take prints it into buf (optional: empty when negative,
//  unless bare)
static void s_number(char *buf, size_t len, const column_take_t *take,
                     const column_value_t *v, bool bare)
{
    double d = v->kind == VALUE_REAL  ? v->d
               : v->kind == VALUE_INT ? (double)v->i
                                      : (double)v->u;
    buf[0] = 0;
    if ((take->flags & COLUMN_OPTIONAL) && d < 0 && !bare)
        return;
    if (take->flags & COLUMN_WHOLE)
        snprintf(buf, len, d == (double)(long long)d ? "%.0f" : "%.1f", d);
    else if (v->kind == VALUE_REAL)
        snprintf(buf, len, take->format ? take->format : "%g", v->d);
    else if (v->kind == VALUE_INT)
        snprintf(buf, len, take->format ? take->format : "%lld", v->i);
    else
        snprintf(buf, len, take->format ? take->format : "%llu", v->u);
}

//  The take's value for the row
static void s_value(const column_take_t *take, const column_ctx_t *ctx,
                    column_value_t *v)
{
    v->kind = VALUE_EMPTY;
    if (take->kind == COLUMN_FN)
        take->fn(ctx, v);
    else
        s_field(take, ctx, v);
}

//  The cell's text as the CSV has it, unquoted, into buf (bare: an
//  optional number's own value); its kind
static int s_text(const column_take_t *take, const column_ctx_t *ctx, char *buf,
                  size_t len, bool bare)
{
    column_value_t v;
    s_value(take, ctx, &v);
    buf[0] = 0;
    if (v.kind == VALUE_TEXT)
        snprintf(buf, len, take->format ? take->format : "%s", v.s ? v.s : "");
    else if (v.kind == VALUE_BOOL)
        snprintf(buf, len, "%d", v.i != 0);
    else if (v.kind != VALUE_EMPTY)
        s_number(buf, len, take, &v, bare);
    return v.kind;
}

//  "text", its quotes doubled (RFC 4180)
static void s_print_quoted(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void columns_value(const column_take_t *take, const column_ctx_t *ctx,
                   column_value_t *v)
{
    s_value(take, ctx, v);
    double d = v->kind == VALUE_REAL  ? v->d
               : v->kind == VALUE_INT ? (double)v->i
                                      : 0;
    if ((take->flags & COLUMN_OPTIONAL) && d < 0)
        v->kind = VALUE_EMPTY;
}

json_t *columns_json_value(const column_value_t *v)
{
    switch (v->kind) {
    case VALUE_TEXT:
        return jsondoc_text(v->s ? v->s : "");
    case VALUE_REAL:
        return jsondoc_number(v->d);
    case VALUE_INT:
        return json_integer(v->i);
    case VALUE_UINT:
        return json_integer((json_int_t)v->u);
    default:
        return json_null();
    }
}

static void s_cell(FILE *out, const column_take_t *take,
                   const column_ctx_t *ctx)
{
    char text[COLUMN_CELL];
    int kind = s_text(take, ctx, text, sizeof text, false);
    if (kind == VALUE_TEXT &&
        ((take->flags & COLUMN_QUOTED) ||
         ((take->flags & COLUMN_ESCAPED) && strpbrk(text, ",\"\n"))))
        s_print_quoted(out, text);
    else
        fputs(text, out);
}

void columns_row(FILE *out, const column_table_t *table,
                 const column_ctx_t *ctx, bool median)
{
    for (int c = 0; c < table->ncolumns; c++) {
        const column_t *column = &table->columns[c];
        if (c)
            fputc(',', out);
        s_cell(out, median ? &column->median : &column->row, ctx);
    }
    for (int i = 0; table->sweep && i < ctx->info->nsweep; i++)
        fprintf(out, ",%s", ctx->info->sweep_value[i]);
    for (int c = 0;
         table->tail_when && table->tail_when(ctx->info) && c < table->ntail;
         c++) {
        const column_t *column = &table->tail[c];
        fputc(',', out);
        s_cell(out, median ? &column->median : &column->row, ctx);
    }
    fputc('\n', out);
}

void columns_rows(FILE *out, const column_table_t *table, column_ctx_t ctx,
                  const void *rows, int n, size_t stride, bool median)
{
    for (int r = 0; r < n; r++) {
        ctx.row = (const char *)rows + (size_t)r * stride;
        columns_row(out, table, &ctx, median);
    }
    fflush(out);
}

int columns_find(const column_table_t *table, const char *name)
{
    for (int c = 0; c < table->ncolumns; c++)
        if (strcmp(table->columns[c].name, name) == 0)
            return c;
    return -1;
}

char *columns_names(const column_table_t *table, bool tail)
{
    const column_t *columns = tail ? table->tail : table->columns;
    int n = tail ? table->ntail : table->ncolumns;
    size_t len = 1;
    for (int c = 0; c < n; c++)
        len += strlen(columns[c].name) + 1;
    char *names = malloc(len), *p = names;
    if (!names)
        return NULL;
    *p = 0;
    for (int c = 0; c < n; c++)
        p += sprintf(p, "%s%s", c ? "," : "", columns[c].name);
    return names;
}

//  ---------------------------------------------------------------------
//  JSON

json_t *columns_json_row(const column_table_t *table, const column_ctx_t *ctx,
                         bool median)
{
    json_t *row = json_object();
    for (int c = 0; row && c < table->ncolumns; c++) {
        const column_t *column = &table->columns[c];
        const column_take_t *take = median ? &column->median : &column->row;
        char text[COLUMN_CELL];
        int kind = s_text(take, ctx, text, sizeof text, true);
        json_t *value = kind == VALUE_TEXT   ? jsondoc_text(text)
                        : kind == VALUE_BOOL ? json_boolean(text[0] == '1')
                                             : jsondoc_cell(text);
        if (jsondoc_set(row, column->name, value))
            json_decref(row), row = NULL;
    }
    return row;
}

//  ---------------------------------------------------------------------
//  Views

//  Characters in UTF-8 text (its bytes that do not continue one)
static int s_chars(const char *text)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

void columns_view_cell(const column_view_t *cell, const column_ctx_t *ctx,
                       char *buf, size_t len)
{
    s_text(&cell->take, ctx, buf, len, false);
}

int columns_view_count(const column_view_t *view)
{
    int n = 0;
    while (view[n].heading && n < COLUMNS_VIEW_MAX)
        n++;
    return n;
}

void columns_view_widths(const column_view_t *view, column_ctx_t ctx,
                         const void *rows, int n, size_t stride, int *widths)
{
    char text[COLUMN_CELL];
    for (int c = 0; c < columns_view_count(view); c++) {
        int width = abs(view[c].width);
        if (view[c].grow && s_chars(view[c].heading) > width)
            width = s_chars(view[c].heading);
        for (int r = 0; view[c].grow && r < n; r++) {
            ctx.row = (const char *)rows + (size_t)r * stride;
            columns_view_cell(&view[c], &ctx, text, sizeof text);
            width = s_chars(text) > width ? s_chars(text) : width;
        }
        widths[c] = view[c].width < 0 ? -width : width;
    }
}

//  text padded to width (negative: on its right), then what comes after
static void s_padded(FILE *out, const char *before, const char *text, int width,
                     bool last)
{
    int pad = abs(width) - s_chars(text);
    fputs(before ? before : " ", out);
    for (int i = 0; width > 0 && i < pad; i++)
        fputc(' ', out);
    fputs(text, out);
    for (int i = 0; width < 0 && !last && i < pad; i++)
        fputc(' ', out);
}

void columns_view_header(FILE *out, const column_view_t *view,
                         const int *widths)
{
    int n = columns_view_count(view);
    for (int c = 0; c < n; c++)
        s_padded(out, c ? view[c].before : "", view[c].heading, widths[c],
                 c == n - 1);
    fputc('\n', out);
}

void columns_view_row(FILE *out, const column_view_t *view,
                      const column_ctx_t *ctx, const int *widths)
{
    char text[COLUMN_CELL];
    int n = columns_view_count(view);
    for (int c = 0; c < n; c++) {
        columns_view_cell(&view[c], ctx, text, sizeof text);
        s_padded(out, c ? view[c].before : "", text, widths[c], c == n - 1);
    }
    fputc('\n', out);
}

//  ---------------------------------------------------------------------
//  Selftest: every table is well formed; the engine prints as it says

//  A table's names are unique and plain, its meanings said, its fields'
//  doubles printed with a format
static int s_check_table(const column_table_t *t)
{
    CHECK(t->file && t->ncolumns > 0);
    for (int c = 0; c < t->ncolumns; c++) {
        const column_t *col = &t->columns[c];
        CHECK(col->name && *col->name && col->meaning && *col->meaning);
        CHECK(strspn(col->name, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
              strlen(col->name));
        CHECK(columns_find(t, col->name) == c);
        CHECK(col->row.kind != COLUMN_FN || col->row.fn);
        CHECK(col->median.kind != COLUMN_FN || col->median.fn);
        CHECK(col->row.kind != COLUMN_DOUBLE || col->row.format ||
              (col->row.flags & COLUMN_WHOLE));
    }
    return 0;
}

typedef struct {
    int n;
    double rate;
    char name[8];
    int64_t lost;
} s_test_row_t;

static void s_twice(const column_ctx_t *ctx, column_value_t *v)
{
    const s_test_row_t *row = ctx->row;
    v->kind = VALUE_INT;
    v->i = 2 * row->n;
}

static const column_t s_test_columns[] = {
    {"n", COLUMN_FIELD(s_test_row_t, n, NULL, 0), {0}, "a count"},
    {"rate", COLUMN_FIELD(s_test_row_t, rate, "%.1f", 0),
     COLUMN_FIELD(s_test_row_t, rate, NULL, COLUMN_WHOLE), "a rate"},
    {"name", COLUMN_FIELD(s_test_row_t, name, NULL, 0), {0}, "a name"},
    {"lost",
     COLUMN_FIELD(s_test_row_t, lost, NULL, COLUMN_OPTIONAL),
     {0},
     "a loss, -1 unknown"},
    {"twice", COLUMN_COMPUTED(s_twice, NULL, 0), {0}, "n doubled"},
};
static const column_table_t s_test_table = {.file = "test.csv",
                                            .columns = s_test_columns,
                                            .ncolumns = 5,
                                            .sweep = true};

//  The names compare and plot look up are columns of some table
static const char *const s_looked_up[] = {COLUMN_TOPOLOGY,
                                          COLUMN_PATTERN,
                                          COLUMN_MODE,
                                          COLUMN_SIZE,
                                          COLUMN_REPEAT,
                                          COLUMN_HOP,
                                          COLUMN_FROM,
                                          COLUMN_TO,
                                          COLUMN_TRANSPORT,
                                          COLUMN_SENT,
                                          COLUMN_LOST,
                                          COLUMN_MSGS_PER_SEC,
                                          COLUMN_MB_PER_SEC,
                                          COLUMN_FROM_CPU_NS,
                                          COLUMN_FROM_HOST,
                                          COLUMN_TO_HOST,
                                          COLUMN_EXPECTED,
                                          COLUMN_LOSS_RATIO,
                                          COLUMN_SOCKETS,
                                          COLUMN_P50_US,
                                          COLUMN_P99_US,
                                          COLUMN_OFFERED,
                                          COLUMN_RECEIVED_RATE,
                                          COLUMN_PASS,
                                          COLUMN_PHASE,
                                          COLUMN_STAGE,
                                          COLUMN_THREAD,
                                          COLUMN_SYSCALL,
                                          COLUMN_CALLS_PER_MSG,
                                          COLUMN_NS_PER_MSG,
                                          COLUMN_CPU_NS,
                                          COLUMN_MESSAGES,
                                          NULL};

static bool s_known(const char *name)
{
    for (const column_table_t *const *t = columns_tables; *t; t++)
        if (columns_find(*t, name) >= 0)
            return true;
    return false;
}

int columns_test(bool verbose)
{
    (void)verbose;
    for (const column_table_t *const *t = columns_tables; *t; t++)
        CHECK(s_check_table(*t) == 0);
    CHECK(s_check_table(&s_test_table) == 0);
    for (const char *const *name = s_looked_up; *name; name++)
        CHECK(s_known(*name));
    CHECK(columns_find(&columns_results, COLUMN_MSGS_PER_SEC) == 12);
    char *text = NULL, *names = columns_names(&s_test_table, false);
    CHECK(names && strcmp(names, "n,rate,name,lost,twice") == 0);
    free(names);
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out);
    report_info_t info = {
        .nsweep = 1, .sweep_key = {"a.b"}, .sweep_value = {"7"}};
    s_test_row_t row = {3, 2.5, "x", -1};
    column_ctx_t ctx = {.info = &info, .row = &row};
    columns_header(out, &s_test_table, &info);
    columns_row(out, &s_test_table, &ctx, false);
    columns_row(out, &s_test_table, &ctx, true);
    fclose(out);
    CHECK(text && strcmp(text, "n,rate,name,lost,twice,sweep_a_b\n"
                               "3,2.5,x,,6,7\n"
                               ",2.5,,,,7\n") == 0);
    free(text);
    return 0;
}
