/*  compare_print: a comparison as a table, CSV or JSON, from one table of
    columns (columns.h) and its views.

    The table, one block per topology, mode and combination of the other
    swept keys, as benchstat prints it:

     size  hop  from -> to        metric    base  ±        other  ±         delta  interval          significance
       64    1  pub -> broker     msgs/s   1.23M  ±2.1%    1.10M  ±1.8%    -10.6%  [-13.0%, -8.1%]   p=0.008 n=5+5
     4096    1  pub -> broker     msgs/s  150.1k  ±3.0%   152.0k  ±2.2%     +1.3%  [-2.0%, +4.4%]    ~ (p=0.548 n=5+5)

    '~': not significant at alpha; "too few" when the sizes cannot reach
    alpha at all (3 against 3: p >= 0.1).  Then the rows of one side
    only, and a geometric-mean line per metric.  Latency metrics (p50_us,
    p99_us) are lower-is-better: a positive delta is slower; so are the
    system calls' (ns/msg, calls/msg, cpu_ns/msg), in blocks of their own
    after a run's others.

    CSV and JSON carry the same fields, the columns of columns_compare
    below, one record per row (matched, one side only, or geomean):
        base,other,topology,pattern,mode,sweep,size,hop,from,to,transport,
        metric,a_n,a_median,a_ci_low,a_ci_high,b_n,b_median,b_ci_low,
        b_ci_high,delta,delta_low,delta_high,p_value,significant,only,
        syscall
    only: "a" or "b" for a row of one side, "" when matched; hop
    "geomean" for the geometric means (size empty).  Intervals are at
    1 - alpha; delta_low/high are the interval of b / a - 1.  A system
    call's row (syscalls.csv, --profile syscalls) has hop "-", from the
    stage, to the kind of thread ("main", "ZMQbg/IO"), syscall its name
    ("all" with to "all": the stage's total), and metric ns/msg,
    calls/msg or cpu_ns/msg; the table prints them in blocks of their
    own (compare_view_calls), lower is better.  JSON holds each number as
    the CSV prints it, text as text, an empty cell as null.
*/
#include "report/compare_internal.h"

#include "base/jsondoc.h"
#include "report/columns.h"
#include "report/report.h"

#include <math.h>
#include <string.h>

typedef compare_record_t record_t;

static const record_t *s_rec(const column_ctx_t *ctx)
{
    return ctx->row;
}

//  ---------------------------------------------------------------------
//  The columns

#define TEXT_OF_SERIES(name, field)                                            \
    static void s_##name(const column_ctx_t *ctx, column_value_t *v)           \
    {                                                                          \
        column_text(v, s_rec(ctx)->s ? s_rec(ctx)->s->field : "");             \
    }
TEXT_OF_SERIES(topology, topology)
TEXT_OF_SERIES(pattern, pattern)
TEXT_OF_SERIES(mode, mode)
TEXT_OF_SERIES(sweep, sweep)
TEXT_OF_SERIES(from, from)
TEXT_OF_SERIES(to, to)
TEXT_OF_SERIES(transport, transport)
TEXT_OF_SERIES(syscall, syscall)

static void s_base(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, s_rec(ctx)->c->base->label);
}
static void s_other(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, s_rec(ctx)->c->other->label);
}
static void s_size(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_rec(ctx)->s)
        column_uint(v, s_rec(ctx)->s->size);
}
static void s_hop(const column_ctx_t *ctx, column_value_t *v)
{
    column_text(v, s_rec(ctx)->s ? s_rec(ctx)->s->hop : "geomean");
}
static void s_metric(const column_ctx_t *ctx, column_value_t *v)
{
    const record_t *r = s_rec(ctx);
    column_text(v, r->s ? r->s->metric : r->g->metric);
}

//  A side's statistics: side 0 a, 1 b; NULL when the row has no such side
static const side_stats_t *s_side(const record_t *r, int side)
{
    if (!r->row)
        return NULL;
    return side == 0 ? (r->row->a ? &r->row->sa : NULL)
                     : (r->row->b ? &r->row->sb : NULL);
}
static void s_n(const column_ctx_t *ctx, column_value_t *v, int side)
{
    const side_stats_t *st = s_side(s_rec(ctx), side);
    if (st || !s_rec(ctx)->row)
        column_int(v, st ? st->n : s_rec(ctx)->g->n);
}
static void s_median(const column_ctx_t *ctx, column_value_t *v, int side)
{
    const record_t *r = s_rec(ctx);
    const side_stats_t *st = s_side(r, side);
    if (st || !r->row)
        column_real(v, st ? st->median : side ? r->g->b : r->g->a);
}
static void s_ci(const column_ctx_t *ctx, column_value_t *v, int side,
                 bool high)
{
    const side_stats_t *st = s_side(s_rec(ctx), side);
    if (st && st->n >= 2)
        column_real(v, high ? st->ci.high : st->ci.low);
}
static void s_a_n(const column_ctx_t *ctx, column_value_t *v)
{
    s_n(ctx, v, 0);
}
static void s_b_n(const column_ctx_t *ctx, column_value_t *v)
{
    s_n(ctx, v, 1);
}
static void s_a_median(const column_ctx_t *ctx, column_value_t *v)
{
    s_median(ctx, v, 0);
}
static void s_b_median(const column_ctx_t *ctx, column_value_t *v)
{
    s_median(ctx, v, 1);
}
static void s_a_low(const column_ctx_t *ctx, column_value_t *v)
{
    s_ci(ctx, v, 0, false);
}
static void s_a_high(const column_ctx_t *ctx, column_value_t *v)
{
    s_ci(ctx, v, 0, true);
}
static void s_b_low(const column_ctx_t *ctx, column_value_t *v)
{
    s_ci(ctx, v, 1, false);
}
static void s_b_high(const column_ctx_t *ctx, column_value_t *v)
{
    s_ci(ctx, v, 1, true);
}

//  A matched row (both sides), or NULL
static const compare_row_t *s_matched(const column_ctx_t *ctx)
{
    const compare_row_t *row = s_rec(ctx)->row;
    return row && row->a && row->b ? row : NULL;
}
static void s_delta(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_matched(ctx) || !s_rec(ctx)->row)
        column_real(v, s_matched(ctx) ? s_matched(ctx)->delta
                                      : s_rec(ctx)->g->delta);
}
static void s_delta_low(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_matched(ctx) && s_matched(ctx)->has_shift)
        column_real(v, s_matched(ctx)->shift.low);
}
static void s_delta_high(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_matched(ctx) && s_matched(ctx)->has_shift)
        column_real(v, s_matched(ctx)->shift.high);
}
static void s_p(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_matched(ctx))
        column_real(v, s_matched(ctx)->mw.p);
}
static void s_significant(const column_ctx_t *ctx, column_value_t *v)
{
    if (s_matched(ctx))
        column_int(v, s_matched(ctx)->significant);
}
static void s_only_side(const column_ctx_t *ctx, column_value_t *v)
{
    const compare_row_t *row = s_rec(ctx)->row;
    column_text(v, !row || (row->a && row->b) ? "" : row->a ? "a" : "b");
}

#define FN(f, fmt)                                                             \
    COLUMN_COMPUTED(f, fmt, 0),                                                \
    {                                                                          \
        0                                                                      \
    }
#define ESC    COLUMN_ESCAPED
#define MEDIAN "%.10g"

static const column_t s_columns[] = {
    {"base", COLUMN_COMPUTED(s_base, NULL, ESC), {0}, "the base's label"},
    {"other", COLUMN_COMPUTED(s_other, NULL, ESC), {0}, "the other's"},
    {COLUMN_TOPOLOGY,
     COLUMN_COMPUTED(s_topology, NULL, ESC),
     {0},
     "the row's topology"},
    {COLUMN_PATTERN, FN(s_pattern, NULL), "its pattern"},
    {COLUMN_MODE,
     COLUMN_COMPUTED(s_mode, NULL, ESC),
     {0},
     "its mode (and a search's loss ratio)"},
    {"sweep",
     COLUMN_COMPUTED(s_sweep, NULL, ESC),
     {0},
     "the other swept keys, \"hwm=10 transport=ipc\""},
    {COLUMN_SIZE, FN(s_size, NULL), "the message size; empty: a geomean"},
    {COLUMN_HOP, FN(s_hop, NULL), "the hop, e2e, - (a system call), geomean"},
    {COLUMN_FROM,
     COLUMN_COMPUTED(s_from, NULL, ESC),
     {0},
     "the link's start (a system call's: the stage)"},
    {COLUMN_TO,
     COLUMN_COMPUTED(s_to, NULL, ESC),
     {0},
     "its end (a system call's: the kind of thread)"},
    {COLUMN_TRANSPORT, FN(s_transport, NULL), "its transport"},
    {"metric", FN(s_metric, NULL),
     "msgs/s, p50_us, p99_us, ns/msg, calls/msg, cpu_ns/msg"},
    {"a_n", FN(s_a_n, NULL), "the base's repeats"},
    {"a_median", FN(s_a_median, MEDIAN), "...their median"},
    {"a_ci_low", FN(s_a_low, MEDIAN), "...its interval at 1 - alpha, low"},
    {"a_ci_high", FN(s_a_high, MEDIAN), "...and high"},
    {"b_n", FN(s_b_n, NULL), "the other's repeats"},
    {"b_median", FN(s_b_median, MEDIAN), "...their median"},
    {"b_ci_low", FN(s_b_low, MEDIAN), "...its interval, low"},
    {"b_ci_high", FN(s_b_high, MEDIAN), "...and high"},
    {"delta", FN(s_delta, "%.6f"), "b / a - 1 of the medians"},
    {"delta_low", FN(s_delta_low, "%.6f"), "its interval (Hodges-Lehmann)"},
    {"delta_high", FN(s_delta_high, "%.6f"), "...and high"},
    {"p_value", FN(s_p, "%.6g"), "Mann-Whitney U, two-sided"},
    {"significant", FN(s_significant, NULL), "1: p <= alpha"},
    {"only", FN(s_only_side, NULL), "a or b: a row of one side only"},
    {COLUMN_SYSCALL, FN(s_syscall, NULL), "a system call's row: its name"},
};

const column_table_t columns_compare =
    COLUMN_TABLE("compare.csv", s_columns, false);

//  ---------------------------------------------------------------------
//  The table's cells, for people

//  A figure for people: msgs/s as 1.23M, latency in microseconds, calls
//  per message to four digits
const char *compare_value(const char *metric, double v, char *buf, size_t len)
{
    if (strcmp(metric, "msgs/s") == 0)
        return report_short(v, buf, len);
    snprintf(buf, len, strcmp(metric, "calls/msg") == 0 ? "%.4g" : "%.1f", v);
    return buf;
}

static void s_link(const column_ctx_t *ctx, column_value_t *v)
{
    const series_t *s = s_rec(ctx)->s;
    if (s->syscall[0])
        snprintf(v->buf, sizeof v->buf, "%s %s %s", s->from, s->to, s->syscall);
    else if (s->from[0])
        snprintf(v->buf, sizeof v->buf, "%s -> %s", s->from, s->to);
    else if (strcmp(s->hop, "e2e") == 0)
        snprintf(v->buf, sizeof v->buf, "end to end");
    else
        snprintf(v->buf, sizeof v->buf, "to end of hop %s", s->hop);
    column_text(v, v->buf);
}

static void s_figure(const column_ctx_t *ctx, column_value_t *v, int side)
{
    const record_t *r = s_rec(ctx);
    const side_stats_t *st = s_side(r, side);
    compare_value(r->s->metric, st ? st->median : 0, v->buf, sizeof v->buf);
    column_text(v, st ? v->buf : "");
}
static void s_base_figure(const column_ctx_t *ctx, column_value_t *v)
{
    s_figure(ctx, v, 0);
}
static void s_other_figure(const column_ctx_t *ctx, column_value_t *v)
{
    s_figure(ctx, v, 1);
}

//  "±2.1%" of a side, '*' when the interval falls short of 1 - alpha
static void s_spread(const column_ctx_t *ctx, column_value_t *v, int side)
{
    const side_stats_t *st = s_side(s_rec(ctx), side);
    column_text(v, "");
    if (!st || st->n < 2 || st->median <= 0)
        return;
    double spread =
        fmax(st->median - st->ci.low, st->ci.high - st->median) / st->median;
    snprintf(v->buf, sizeof v->buf, "±%.1f%%%s", 100 * spread,
             st->ci.reached ? "" : "*");
    column_text(v, v->buf);
}
static void s_base_spread(const column_ctx_t *ctx, column_value_t *v)
{
    s_spread(ctx, v, 0);
}
static void s_other_spread(const column_ctx_t *ctx, column_value_t *v)
{
    s_spread(ctx, v, 1);
}

static void s_change(const column_ctx_t *ctx, column_value_t *v)
{
    snprintf(v->buf, sizeof v->buf, "%+.1f%%", 100 * s_rec(ctx)->row->delta);
    column_text(v, v->buf);
}

static void s_interval(const column_ctx_t *ctx, column_value_t *v)
{
    const compare_row_t *row = s_rec(ctx)->row;
    column_text(v, "");
    if (!row->has_shift)
        return;
    snprintf(v->buf, sizeof v->buf, "[%+.1f%%, %+.1f%%]%s",
             100 * row->shift.low, 100 * row->shift.high,
             row->shift.reached ? "" : "*");
    column_text(v, v->buf);
}

static void s_significance(const column_ctx_t *ctx, column_value_t *v)
{
    const compare_row_t *row = s_rec(ctx)->row;
    const comparison_t *c = s_rec(ctx)->c;
    if (row->significant)
        snprintf(v->buf, sizeof v->buf, "p=%.3f n=%d+%d", row->mw.p, row->sa.n,
                 row->sb.n);
    else
        snprintf(v->buf, sizeof v->buf, "~ (p=%.3f n=%d+%d%s)", row->mw.p,
                 row->sa.n, row->sb.n,
                 row->mw.min_p > c->alpha ? ", too few" : "");
    column_text(v, v->buf);
}

#define CELL(f) COLUMN_COMPUTED(f, NULL, 0)

//  A matched row of links (and latency) for people
const column_view_t compare_view_links[] = {
    {"size", 6, false, "", CELL(s_size)},
    {"hop", 4, false, NULL, CELL(s_hop)},
    {"from -> to", -22, true, "  ", CELL(s_link)},
    {"metric", -7, false, NULL, CELL(s_metric)},
    {"base", 8, false, NULL, CELL(s_base_figure)},
    {"±", -8, false, NULL, CELL(s_base_spread)},
    {"other", 8, false, NULL, CELL(s_other_figure)},
    {"±", -8, false, NULL, CELL(s_other_spread)},
    {"delta", 8, false, NULL, CELL(s_change)},
    {"interval", -19, false, "  ", CELL(s_interval)},
    {"significance", -1, false, NULL, CELL(s_significance)},
    {NULL, 0, false, NULL, {0}}};

const column_view_t *compare_view(const compare_row_t *row,
                                  column_view_t *calls)
{
    if (!row->a->syscall[0])
        return compare_view_links;
    //  a system call's: no hop; the stage, its kind of thread and the
    //  call (39 wide) where the link was; metrics up to cpu_ns/msg
    int n = 0;
    for (const column_view_t *c = compare_view_links; c->heading; c++) {
        if (c->take.fn == s_hop)
            continue;
        calls[n] = *c;
        if (c->take.fn == s_link)
            calls[n].heading = "stage thread syscall", calls[n].width = -39,
            calls[n].grow = false;
        if (c->take.fn == s_metric)
            calls[n].width = -10;
        n++;
    }
    calls[n] = (column_view_t){NULL, 0, false, NULL, {0}};
    return calls;
}

void compare_record_ctx(const comparison_t *c, const compare_row_t *row,
                        compare_record_t *record, column_ctx_t *ctx)
{
    record->c = c;
    record->row = row;
    record->g = NULL;
    record->s = row->a ? row->a : row->b;
    *ctx = (column_ctx_t){.row = record};
}

//  ---------------------------------------------------------------------
//  CSV and JSON: every row, then the geomeans, of every comparison

typedef int (*record_fn_t)(void *out, const column_ctx_t *ctx);

static int s_records(const comparison_t *cmps, int n, record_fn_t fn, void *out)
{
    for (int c = 0; c < n; c++) {
        for (int i = 0; i < cmps[c].nrows; i++) {
            const compare_row_t *row = &cmps[c].rows[i];
            record_t r = {&cmps[c], row, NULL, row->a ? row->a : row->b};
            if (fn(out, &(column_ctx_t){.row = &r}))
                return -1;
        }
        for (int g = 0; g < cmps[c].ngeomean; g++) {
            record_t r = {&cmps[c], NULL, &cmps[c].geomean[g], NULL};
            if (fn(out, &(column_ctx_t){.row = &r}))
                return -1;
        }
    }
    return 0;
}

static int s_csv_row(void *out, const column_ctx_t *ctx)
{
    columns_row(out, &columns_compare, ctx, false);
    return 0;
}

void compare_print_csv(FILE *out, const comparison_t *cmps, int n, bool header)
{
    if (header)
        columns_header(out, &columns_compare, &(report_info_t){0});
    s_records(cmps, n, s_csv_row, out);
    fflush(out);
}

static int s_json_row(void *list, const column_ctx_t *ctx)
{
    return json_array_append_new(
        list, columns_json_row(&columns_compare, ctx, false));
}

//  The notes of every comparison, one string per line
static int s_json_notes(json_t *notes, const comparison_t *cmps, int n)
{
    int rc = 0;
    for (int c = 0; c < n; c++)
        for (const char *p = cmps[c].notes; rc == 0 && *p;) {
            char line[COMPARE_LONG];
            size_t len = strcspn(p, "\n");
            snprintf(line, sizeof line, "%.*s", (int)len, p);
            rc = json_array_append_new(notes, jsondoc_text(line));
            p += len + (p[len] == '\n');
        }
    return rc;
}

//  {"alpha": 0.05, "notes": ["..."], "rows": [{...}, ...]}
int compare_print_json(FILE *out, const comparison_t *cmps, int n,
                       errbuf_t *err)
{
    json_t *doc = json_object(), *notes = json_array(), *rows = json_array();
    int rc = doc && notes && rows ? 0 : -1;
    rc = rc || s_json_notes(notes, cmps, n) ||
         s_records(cmps, n, s_json_row, rows) ||
         jsondoc_set(doc, "alpha", json_real(n ? cmps[0].alpha : 0.05)) ||
         jsondoc_set(doc, "notes", json_incref(notes)) ||
         jsondoc_set(doc, "rows", json_incref(rows));
    rc = rc ? err_set(err, "out of memory") : jsondoc_print(out, doc, err);
    json_decref(notes);
    json_decref(rows);
    json_decref(doc);
    return rc;
}

//  ---------------------------------------------------------------------
//  The table

//  A block starts where topology, pattern, mode or the sweep change, and
//  where system calls' rows begin
static bool s_same_block(const series_t *a, const series_t *b)
{
    return strcmp(a->topology, b->topology) == 0 &&
           strcmp(a->pattern, b->pattern) == 0 &&
           strcmp(a->mode, b->mode) == 0 && strcmp(a->sweep, b->sweep) == 0 &&
           !a->syscall[0] == !b->syscall[0];
}

//  The widths of the block of matched rows from 'first' on
static void s_widths(const comparison_t *c, int first, int *widths)
{
    column_view_t calls[COLUMNS_VIEW_MAX + 1];
    const column_view_t *view = compare_view(&c->rows[first], calls);
    int n = columns_view_count(view);
    for (int i = first; i < c->nrows; i++) {
        const compare_row_t *row = &c->rows[i];
        if (!row->a || !row->b)
            continue;
        if (!s_same_block(row->a, c->rows[first].a))
            break;
        record_t r;
        column_ctx_t ctx;
        int more[COLUMNS_VIEW_MAX];
        compare_record_ctx(c, row, &r, &ctx);
        columns_view_widths(view, ctx, &r, 1, 0, i == first ? widths : more);
        for (int k = 0; i > first && k < n; k++)
            widths[k] = abs(more[k]) > abs(widths[k]) ? more[k] : widths[k];
    }
}

static void s_block_header(FILE *out, const comparison_t *c, int first,
                           int *widths)
{
    const series_t *s = c->rows[first].a;
    fprintf(out, "\n%s (%s%s%s)%s%s%s\n", s->topology, s->pattern,
            s->mode[0] ? ", " : "", s->mode, s->sweep[0] ? "  " : "", s->sweep,
            s->syscall[0] ? "  system calls (syscalls.csv): lower is better"
                          : "");
    column_view_t view[COLUMNS_VIEW_MAX + 1], calls[COLUMNS_VIEW_MAX + 1];
    const column_view_t *of = compare_view(&c->rows[first], calls);
    int n = columns_view_count(of);
    char interval[32];
    memcpy(view, of, (size_t)(n + 1) * sizeof *view);
    snprintf(interval, sizeof interval, "interval (%.0f%%)",
             100 * (1 - c->alpha));
    view[n - 2].heading = interval;
    s_widths(c, first, widths);
    columns_view_header(out, view, widths);
}

static void s_only(FILE *out, const comparison_t *c, bool base)
{
    bool any = false;
    for (int i = 0; i < c->nrows; i++) {
        const compare_row_t *row = &c->rows[i];
        const series_t *s = base ? row->a : row->b;
        if (!s || (base ? row->b : row->a))
            continue;
        if (!any)
            fprintf(out, "\nonly in %s (%s):\n", base ? "base" : "other",
                    base ? c->base->label : c->other->label);
        any = true;
        record_t r = {c, row, NULL, s};
        column_value_t link = {0};
        char v[32];
        const side_stats_t *st = base ? &row->sa : &row->sb;
        s_link(&(column_ctx_t){.row = &r}, &link);
        fprintf(out, "  %s (%s%s%s)%s%s  size %u  hop %s  %s  %s %s (n=%d)\n",
                s->topology, s->pattern, s->mode[0] ? ", " : "", s->mode,
                s->sweep[0] ? "  " : "", s->sweep, s->size, s->hop, link.s,
                s->metric, compare_value(s->metric, st->median, v, sizeof v),
                st->n);
    }
}

static void s_table_one(FILE *out, const comparison_t *c)
{
    fprintf(out, "\nother %s against base %s\n", c->other->label,
            c->base->label);
    for (const char *p = c->notes; *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(out, "  note: %.*s\n", (int)len, p);
        p += len + (p[len] == '\n');
    }
    const series_t *last = NULL;
    int widths[COLUMNS_VIEW_MAX];
    for (int i = 0; i < c->nrows; i++) {
        const compare_row_t *row = &c->rows[i];
        if (!row->a || !row->b)
            continue;
        if (!last || !s_same_block(last, row->a))
            s_block_header(out, c, i, widths);
        last = row->a;
        record_t r;
        column_ctx_t ctx;
        column_view_t calls[COLUMNS_VIEW_MAX + 1];
        compare_record_ctx(c, row, &r, &ctx);
        columns_view_row(out, compare_view(row, calls), &ctx, widths);
    }
    if (!last)
        fputs("\n  no row of one matches a row of the other\n", out);
    s_only(out, c, true);
    s_only(out, c, false);
    for (int g = 0; g < c->ngeomean; g++) {
        const compare_geomean_t *m = &c->geomean[g];
        char va[32], vb[32];
        fprintf(out,
                "\ngeomean %-7s over %d rows: base %s  other %s  delta "
                "%+.1f%%",
                m->metric, m->n, compare_value(m->metric, m->a, va, sizeof va),
                compare_value(m->metric, m->b, vb, sizeof vb), 100 * m->delta);
    }
    if (c->ngeomean)
        fputc('\n', out);
}

void compare_print_table(FILE *out, const comparison_t *cmps, int n)
{
    for (int c = 0; c < n; c++)
        s_table_one(out, &cmps[c]);
    if (n)
        fprintf(out,
                "\n~: not significant at alpha %g (Mann-Whitney U, two-sided); "
                "±: each median's interval;\ninterval: of other / base - 1 "
                "(Hodges-Lehmann); *: too few repeats for the interval's "
                "level;\nlatency (p50_us, p99_us): + is slower\n",
                cmps[0].alpha);
    fflush(out);
}
