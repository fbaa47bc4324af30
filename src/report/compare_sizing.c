/*  compare_sizing: `hopbench compare` of sizing runs (directories with
    sizing.csv, as `hopbench size` leaves them); see compare.h.

    Each run after the first is matched with the first candidate by
    candidate: the same topology, --try values and size.  Per candidate,
    its verdict and figures side by side (capacity, confirmed rate, p99
    and busy cores at the target rate) with the change in per cent.  A
    sizing run measures each candidate once, so there is no interval and
    no significance test here: the table says so, and a change is only a
    difference of two measurements.  A candidate on one side only is
    listed as such, never dropped.
*/
#include "report/compare_internal.h"

#include "base/grow.h"

#include "report/html.h"

#include "report/plot_data.h"

#include <stdlib.h>
#include <string.h>

enum { C_TOPO, C_TRY, C_SIZE, C_VERDICT, C_CAP, C_CONF, C_P99, C_BUSY, C_N };
static const char *const s_columns[C_N] = {
    "topology",          "try",    "size",      "verdict", "capacity_per_sec",
    "confirmed_per_sec", "p99_us", "busy_cores"};
#define FIGURES 4 //  C_CAP .. C_BUSY
static const char *const s_figures[FIGURES] = {"capacity/s", "confirmed/s",
                                               "p99 us", "busy cores"};

typedef struct {
    char name[400]; //  "topology try" and size: what matches
    char verdict[48];
    double figure[FIGURES]; //  -1: not measured
} candidate_t;

typedef struct {
    candidate_t *v;
    int n, cap;
} run_t;

static int s_row(run_t *self, const rundir_rows_t *in, errbuf_t *err)
{
    if (grow(&self->v, &self->cap, self->n + 1, sizeof *self->v))
        return err_set(err, "out of memory");
    candidate_t *c = &self->v[self->n];
    const char *tried = rundir_text(in, C_TRY);
    snprintf(c->name, sizeof c->name, "%.100s%s%.200s at %.12s B",
             rundir_text(in, C_TOPO), *tried ? " " : "", tried,
             rundir_text(in, C_SIZE));
    snprintf(c->verdict, sizeof c->verdict, "%s", rundir_text(in, C_VERDICT));
    for (int f = 0; f < FIGURES; f++) {
        c->figure[f] = -1;
        if (*rundir_text(in, C_CAP + f) &&
            rundir_number(in, C_CAP + f, &c->figure[f], err))
            return -1;
    }
    self->n++;
    return 0;
}

static int s_read(run_t *self, const rundir_t *run, errbuf_t *err)
{
    rundir_rows_t in;
    int rc = rundir_rows(&in, run, &columns_sizing, s_columns, C_N, err);
    if (rc == 0)
        return err_set(err,
                       "%s: no sizing.csv (compare sizing runs with "
                       "sizing runs)",
                       rundir_dir(run));
    while (rc > 0 && rundir_next(&in))
        if (s_row(self, &in, err))
            return -1;
    return rc < 0 ? -1 : 0;
}

static const candidate_t *s_find(const run_t *run, const char *name)
{
    for (int i = 0; i < run->n; i++)
        if (strcmp(run->v[i].name, name) == 0)
            return &run->v[i];
    return NULL;
}

static void s_value(char *buf, size_t len, const candidate_t *c, int f)
{
    if (!c)
        snprintf(buf, len, "-");
    else if (f < 0)
        snprintf(buf, len, "%s", c->verdict);
    else if (c->figure[f] < 0)
        snprintf(buf, len, "not measured");
    else
        snprintf(buf, len,
                 f == 3   ? "%.2f"
                 : f == 2 ? "%.1f"
                          : "%.0f",
                 c->figure[f]);
}

typedef enum { AS_TABLE, AS_CSV, AS_HTML } as_t;

static void s_html_cell(FILE *out, const char *text, bool number)
{
    fputs(number ? "<td class=\"n\">" : "<td>", out);
    html_text(out, text);
    fputs("</td>", out);
}

//  One line per figure of one candidate (f -1: its verdict)
static void s_line(FILE *out, as_t as, const char *name, const candidate_t *a,
                   const candidate_t *b, int f)
{
    char va[64], vb[64], change[32] = "";
    s_value(va, sizeof va, a, f);
    s_value(vb, sizeof vb, b, f);
    if (a && b && f >= 0 && a->figure[f] > 0 && b->figure[f] >= 0)
        snprintf(change, sizeof change, "%+.1f%%",
                 100 * (b->figure[f] / a->figure[f] - 1));
    else if (a && b && f < 0 && strcmp(a->verdict, b->verdict) != 0)
        snprintf(change, sizeof change, "changed");
    const char *what = f < 0 ? "verdict" : s_figures[f];
    if (as == AS_CSV)
        fprintf(out, "\"%s\",%s,%s,%s,%s\n", name, what, va, vb, change);
    else if (as == AS_TABLE)
        fprintf(out, "  %-46.46s %-12s %14s %14s %8s\n", f < 0 ? name : "",
                what, va, vb, change);
    else {
        fputs("<tr>", out);
        s_html_cell(out, f < 0 ? name : "", false);
        s_html_cell(out, what, false);
        s_html_cell(out, va, true);
        s_html_cell(out, vb, true);
        s_html_cell(out, change, true);
        fputs("</tr>\n", out);
    }
}

static void s_pair(FILE *out, as_t as, const run_t *a, const run_t *b,
                   const char *da, const char *db, int *matched)
{
    if (as == AS_HTML) {
        char text[2200];
        snprintf(text, sizeof text, "B = %.1000s against A = %.1000s", db, da);
        html_elem(out, "h3", NULL, text);
        fputs("<table class=\"sort compare\">\n<thead><tr><th>candidate</th>"
              "<th>figure</th><th>A</th><th>B</th><th>change</th></tr>"
              "</thead>\n<tbody>\n",
              out);
    } else if (as == AS_TABLE)
        fprintf(out,
                "sizing: A = %s\n        B = %s\n(each candidate measured "
                "once: a change is two measurements apart, with no interval "
                "and no significance)\n  %-46s %-12s %14s %14s %8s\n",
                da, db, "candidate", "figure", "A", "B", "change");
    for (int i = 0; i < a->n; i++) {
        const candidate_t *other = s_find(b, a->v[i].name);
        *matched += other != NULL;
        for (int f = -1; f < FIGURES; f++)
            s_line(out, as, a->v[i].name, &a->v[i], other, f);
    }
    for (int i = 0; i < b->n; i++)
        if (!s_find(a, b->v[i].name))
            for (int f = -1; f < FIGURES; f++)
                s_line(out, as, b->v[i].name, NULL, &b->v[i], f);
    if (as == AS_HTML)
        fputs("</tbody>\n</table>\n<p>Each candidate measured once: a change "
              "is two measurements apart, with no interval and no "
              "significance.</p>\n",
              out);
}

bool compare_is_sizing(const rundir_t *run)
{
    return rundir_file(run, &columns_sizing) != NULL;
}

//  Every run after the first against the first: the exit status
static int s_compare(rundir_t *const *runs, const char *const *dirs, int n,
                     as_t as, FILE *out, errbuf_t *err)
{
    run_t *read = calloc((size_t)n, sizeof *read);
    int status = 0;
    if (!read)
        status = 2, err_set(err, "out of memory");
    for (int i = 0; status == 0 && i < n; i++)
        if (s_read(&read[i], runs[i], err))
            status = 2;
    if (status == 0 && as == AS_CSV)
        fputs("candidate,figure,a,b,change\n", out);
    for (int i = 1; status == 0 && i < n; i++) {
        int matched = 0;
        s_pair(out, as, &read[0], &read[i], dirs[0], dirs[i], &matched);
        if (!matched) {
            err_set(err,
                    "nothing to compare: no candidate of %.200s is one "
                    "of %.200s (by topology, --try values and size)",
                    dirs[i], dirs[0]);
            status = 1;
        }
    }
    for (int i = 0; read && i < n; i++)
        free(read[i].v);
    free(read);
    return status;
}

int compare_sizing(const compare_options_t *o, rundir_t *const *runs, FILE *out,
                   errbuf_t *err)
{
    if (o->by || o->plot || o->format == COMPARE_JSON) {
        err_set(err, "sizing runs are compared without --by, --plot and "
                     "--format json (candidate by candidate, as a table or "
                     "CSV)");
        return 2;
    }
    return s_compare(runs, o->dirs, o->ndirs,
                     o->format == COMPARE_CSV ? AS_CSV : AS_TABLE, out, err);
}

int compare_sizing_html(FILE *out, rundir_t *const *runs,
                        const char *const *dirs, int n, errbuf_t *err)
{
    return s_compare(runs, dirs, n, AS_HTML, out, err);
}
