/*  compare_print: a comparison as a table, CSV or JSON.

    The table, one block per topology, mode and combination of the other
    swept keys, as benchstat prints it:

     size  hop  from -> to        metric    base     ±      other    ±       delta  interval          significance
       64    1  pub -> broker     msgs/s   1.23M  ±2.1%    1.10M  ±1.8%    -10.6%  [-13.0%, -8.1%]   p=0.008 n=5+5
     4096    1  pub -> broker     msgs/s   150.1k ±3.0%   152.0k  ±2.2%     +1.3%  [-2.0%, +4.4%]    ~ (p=0.548 n=5+5)

    '~': not significant at alpha; "too few" when the sizes cannot reach
    alpha at all (3 against 3: p >= 0.1).  Then the rows of one side
    only, and a geometric-mean line per metric.  Latency metrics (p50_us,
    p99_us) are lower-is-better: a positive delta is slower; so are the
    system calls' (ns/msg, calls/msg, cpu_ns/msg), in blocks of their own
    after a run's others.

    CSV and JSON carry the same fields, one record per row (matched, one
    side only, or geomean):
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
    own, lower is better.
*/
#include "report/compare_internal.h"

#include "base/jsondoc.h"
#include "report/report.h"

#include <math.h>
#include <string.h>

#define S_FIELDS 27

static const char *const s_names[S_FIELDS] = {
    "base",      "other",     "topology",   "pattern",  "mode",
    "sweep",     "size",      "hop",        "from",     "to",
    "transport", "metric",    "a_n",        "a_median", "a_ci_low",
    "a_ci_high", "b_n",       "b_median",   "b_ci_low", "b_ci_high",
    "delta",     "delta_low", "delta_high", "p_value",  "significant",
    "only",      "syscall"};

//  Which fields are numbers (JSON writes them bare, or null when empty)
static bool s_numeric(int f)
{
    return f == 6 || (f >= 12 && f <= 24);
}

typedef struct {
    char v[S_FIELDS][COMPARE_LONG];
} record_t;

static void s_stats(record_t *r, int at, const side_stats_t *s, bool have)
{
    if (!have)
        return;
    snprintf(r->v[at], COMPARE_LONG, "%d", s->n);
    snprintf(r->v[at + 1], COMPARE_LONG, "%.10g", s->median);
    if (s->n >= 2) {
        snprintf(r->v[at + 2], COMPARE_LONG, "%.10g", s->ci.low);
        snprintf(r->v[at + 3], COMPARE_LONG, "%.10g", s->ci.high);
    }
}

static void s_record(const comparison_t *c, const compare_row_t *row,
                     record_t *r)
{
    const series_t *s = row->a ? row->a : row->b;
    memset(r, 0, sizeof *r);
    snprintf(r->v[0], COMPARE_LONG, "%s", c->base->label);
    snprintf(r->v[1], COMPARE_LONG, "%s", c->other->label);
    snprintf(r->v[2], COMPARE_LONG, "%s", s->topology);
    snprintf(r->v[3], COMPARE_LONG, "%s", s->pattern);
    snprintf(r->v[4], COMPARE_LONG, "%s", s->mode);
    snprintf(r->v[5], COMPARE_LONG, "%s", s->sweep);
    snprintf(r->v[6], COMPARE_LONG, "%u", s->size);
    snprintf(r->v[7], COMPARE_LONG, "%s", s->hop);
    snprintf(r->v[8], COMPARE_LONG, "%s", s->from);
    snprintf(r->v[9], COMPARE_LONG, "%s", s->to);
    snprintf(r->v[10], COMPARE_LONG, "%s", s->transport);
    snprintf(r->v[11], COMPARE_LONG, "%s", s->metric);
    s_stats(r, 12, &row->sa, row->a != NULL);
    s_stats(r, 16, &row->sb, row->b != NULL);
    snprintf(r->v[25], COMPARE_LONG, "%s", !row->b ? "a" : !row->a ? "b" : "");
    snprintf(r->v[26], COMPARE_LONG, "%s", s->syscall);
    if (!row->a || !row->b)
        return;
    snprintf(r->v[20], COMPARE_LONG, "%.6f", row->delta);
    if (row->has_shift) {
        snprintf(r->v[21], COMPARE_LONG, "%.6f", row->shift.low);
        snprintf(r->v[22], COMPARE_LONG, "%.6f", row->shift.high);
    }
    snprintf(r->v[23], COMPARE_LONG, "%.6g", row->mw.p);
    snprintf(r->v[24], COMPARE_LONG, "%d", row->significant);
}

static void s_geomean_record(const comparison_t *c, const compare_geomean_t *g,
                             record_t *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->v[0], COMPARE_LONG, "%s", c->base->label);
    snprintf(r->v[1], COMPARE_LONG, "%s", c->other->label);
    snprintf(r->v[7], COMPARE_LONG, "geomean");
    snprintf(r->v[11], COMPARE_LONG, "%s", g->metric);
    snprintf(r->v[12], COMPARE_LONG, "%d", g->n);
    snprintf(r->v[13], COMPARE_LONG, "%.10g", g->a);
    snprintf(r->v[16], COMPARE_LONG, "%d", g->n);
    snprintf(r->v[17], COMPARE_LONG, "%.10g", g->b);
    snprintf(r->v[20], COMPARE_LONG, "%.6f", g->delta);
}

//  ---------------------------------------------------------------------
//  CSV and JSON

//  A CSV field, quoted when it must be (RFC 4180)
static void s_csv_field(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\n")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++)
        fputs(*p == '"' ? "\"\"" : (char[]){*p, 0}, out);
    fputc('"', out);
}

static void s_csv_record(FILE *out, const record_t *r)
{
    for (int f = 0; f < S_FIELDS; f++) {
        fputs(f ? "," : "", out);
        s_csv_field(out, r->v[f]);
    }
    fputc('\n', out);
}

void compare_print_csv(FILE *out, const comparison_t *cmps, int n, bool header)
{
    record_t r;
    for (int f = 0; header && f < S_FIELDS; f++)
        fprintf(out, "%s%s", f ? "," : "", s_names[f]);
    if (header)
        fputc('\n', out);
    for (int c = 0; c < n; c++) {
        for (int i = 0; i < cmps[c].nrows; i++) {
            s_record(&cmps[c], &cmps[c].rows[i], &r);
            s_csv_record(out, &r);
        }
        for (int g = 0; g < cmps[c].ngeomean; g++) {
            s_geomean_record(&cmps[c], &cmps[c].geomean[g], &r);
            s_csv_record(out, &r);
        }
    }
    fflush(out);
}

//  A record as an object onto list: numbers as numbers (null when empty)
static int s_json_record(json_t *list, const record_t *r)
{
    json_t *row = json_object();
    for (int f = 0; row && f < S_FIELDS; f++)
        if (jsondoc_set(row, s_names[f],
                        s_numeric(f) ? jsondoc_cell(r->v[f])
                                     : jsondoc_text(r->v[f])))
            json_decref(row), row = NULL;
    return json_array_append_new(list, row);
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
    record_t r;
    json_t *doc = json_object(), *notes = json_array(), *rows = json_array();
    int rc = doc && notes && rows ? 0 : -1;
    rc = rc || s_json_notes(notes, cmps, n);
    for (int c = 0; rc == 0 && c < n; c++) {
        for (int i = 0; rc == 0 && i < cmps[c].nrows; i++) {
            s_record(&cmps[c], &cmps[c].rows[i], &r);
            rc = s_json_record(rows, &r);
        }
        for (int g = 0; rc == 0 && g < cmps[c].ngeomean; g++) {
            s_geomean_record(&cmps[c], &cmps[c].geomean[g], &r);
            rc = s_json_record(rows, &r);
        }
    }
    if (rc || jsondoc_set(doc, "alpha", json_real(n ? cmps[0].alpha : 0.05)) ||
        jsondoc_set(doc, "notes", json_incref(notes)) ||
        jsondoc_set(doc, "rows", json_incref(rows)))
        rc = err_set(err, "out of memory");
    else
        rc = jsondoc_print(out, doc, err);
    json_decref(notes);
    json_decref(rows);
    json_decref(doc);
    return rc;
}

//  ---------------------------------------------------------------------
//  The table

//  A figure for people: msgs/s as 1.23M, latency in microseconds, calls
//  per message to four digits
const char *compare_value(const char *metric, double v, char *buf, size_t len)
{
    if (strcmp(metric, "msgs/s") == 0)
        return report_short(v, buf, len);
    snprintf(buf, len, strcmp(metric, "calls/msg") == 0 ? "%.4g" : "%.1f", v);
    return buf;
}

//  "±2.1%" of a side, '*' when the interval falls short of 1 - alpha
static void s_spread(const side_stats_t *s, char *buf, size_t len)
{
    if (s->n < 2 || s->median <= 0) {
        snprintf(buf, len, "%-8s", "");
        return;
    }
    double spread = fmax(s->median - s->ci.low, s->ci.high - s->median);
    char text[32];
    snprintf(text, sizeof text, "±%.1f%%%s", 100 * spread / s->median,
             s->ci.reached ? "" : "*");
    snprintf(buf, len, "%-9s", text); //  '±' is two bytes
}

static void s_significance(const comparison_t *c, const compare_row_t *row,
                           char *buf, size_t len)
{
    if (row->significant)
        snprintf(buf, len, "p=%.3f n=%d+%d", row->mw.p, row->sa.n, row->sb.n);
    else
        snprintf(buf, len, "~ (p=%.3f n=%d+%d%s)", row->mw.p, row->sa.n,
                 row->sb.n, row->mw.min_p > c->alpha ? ", too few" : "");
}

static void s_link(const series_t *s, char *buf, size_t len)
{
    if (s->syscall[0])
        snprintf(buf, len, "%s %s %s", s->from, s->to, s->syscall);
    else if (s->from[0])
        snprintf(buf, len, "%s -> %s", s->from, s->to);
    else if (strcmp(s->hop, "e2e") == 0)
        snprintf(buf, len, "end to end");
    else
        snprintf(buf, len, "to end of hop %s", s->hop);
}

//  The "from -> to" column: 22 wide, or as wide as its widest row (the
//  system calls' rows have a column of their own)
static int s_link_width(const comparison_t *c)
{
    int width = 22;
    for (int i = 0; i < c->nrows; i++) {
        char link[3 * COMPARE_TEXT + 8];
        if (!c->rows[i].a || !c->rows[i].b || c->rows[i].a->syscall[0])
            continue;
        s_link(c->rows[i].a, link, sizeof link);
        width = (int)strlen(link) > width ? (int)strlen(link) : width;
    }
    return width;
}

void compare_cells(const comparison_t *c, const compare_row_t *row,
                   compare_cells_t *cells)
{
    const series_t *s = row->a;
    memset(cells, 0, sizeof *cells);
    s_link(s, cells->link, sizeof cells->link);
    s_spread(&row->sa, cells->base_spread, sizeof cells->base_spread);
    s_spread(&row->sb, cells->other_spread, sizeof cells->other_spread);
    compare_value(s->metric, row->sa.median, cells->base, sizeof cells->base);
    compare_value(s->metric, row->sb.median, cells->other, sizeof cells->other);
    snprintf(cells->delta, sizeof cells->delta, "%+.1f%%", 100 * row->delta);
    if (row->has_shift)
        snprintf(cells->interval, sizeof cells->interval,
                 "[%+.1f%%, %+.1f%%]%s", 100 * row->shift.low,
                 100 * row->shift.high, row->shift.reached ? "" : "*");
    s_significance(c, row, cells->significance, sizeof cells->significance);
}

static void s_table_row(FILE *out, const comparison_t *c,
                        const compare_row_t *row, int width)
{
    const series_t *s = row->a;
    compare_cells_t x;
    compare_cells(c, row, &x);
    if (s->syscall[0])
        fprintf(out, "%6u  %-39s %-10s %8s %s %8s %s %+7.1f%%  %-19s %s\n",
                s->size, x.link, s->metric, x.base, x.base_spread, x.other,
                x.other_spread, 100 * row->delta, x.interval, x.significance);
    else
        fprintf(out, "%6u %4s  %-*s %-7s %8s %s %8s %s %+7.1f%%  %-19s %s\n",
                s->size, s->hop, width, x.link, s->metric, x.base,
                x.base_spread, x.other, x.other_spread, 100 * row->delta,
                x.interval, x.significance);
}

//  A block starts where topology, pattern, mode or the sweep change, and
//  where system calls' rows begin
static bool s_same_block(const series_t *a, const series_t *b)
{
    return strcmp(a->topology, b->topology) == 0 &&
           strcmp(a->pattern, b->pattern) == 0 &&
           strcmp(a->mode, b->mode) == 0 && strcmp(a->sweep, b->sweep) == 0 &&
           !a->syscall[0] == !b->syscall[0];
}

static void s_block_header(FILE *out, const series_t *s, double alpha,
                           int width)
{
    fprintf(out, "\n%s (%s%s%s)%s%s%s\n", s->topology, s->pattern,
            s->mode[0] ? ", " : "", s->mode, s->sweep[0] ? "  " : "", s->sweep,
            s->syscall[0] ? "  system calls (syscalls.csv): lower is better"
                          : "");
    char interval[32];
    snprintf(interval, sizeof interval, "interval (%.0f%%)", 100 * (1 - alpha));
    if (s->syscall[0])
        fprintf(out, "%6s  %-39s %-10s %8s %-8s %8s %-8s %8s  %-19s %s\n",
                "size", "stage thread syscall", "metric", "base", " ±", "other",
                " ±", "delta", interval, "significance");
    else
        fprintf(out, "%6s %4s  %-*s %-7s %8s %-8s %8s %-8s %8s  %-19s %s\n",
                "size", "hop", width, "from -> to", "metric", "base", " ±",
                "other", " ±", "delta", interval, "significance");
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
        char link[3 * COMPARE_TEXT + 8], v[32];
        const side_stats_t *st = base ? &row->sa : &row->sb;
        s_link(s, link, sizeof link);
        fprintf(out, "  %s (%s%s%s)%s%s  size %u  hop %s  %s  %s %s (n=%d)\n",
                s->topology, s->pattern, s->mode[0] ? ", " : "", s->mode,
                s->sweep[0] ? "  " : "", s->sweep, s->size, s->hop, link,
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
    int width = s_link_width(c);
    for (int i = 0; i < c->nrows; i++) {
        const compare_row_t *row = &c->rows[i];
        if (!row->a || !row->b)
            continue;
        if (!last || !s_same_block(last, row->a))
            s_block_header(out, row->a, c->alpha, width);
        last = row->a;
        s_table_row(out, c, row, width);
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
