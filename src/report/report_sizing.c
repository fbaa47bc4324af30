/*  report_sizing: the outputs of `hopbench size`; see report_sizing.h.
    Each format is one function over the rows: sizing.csv and the
    candidates of sizing.json from the one table of sizing columns
    (columns_more.c), the answer and the table for people, the chart.
*/
#include "report/report_sizing.h"

#include "base/jsondoc.h"
#include "base/outfile.h"

#include "report/columns.h"
#include "report/plot.h"
#include "report/plot_script.h"
#include "report/sizing_fit.h"

#include <math.h>
#include <string.h>

const char *const sizing_verdict_names[] = {
    "meets",        "fails on capacity", "fails on loss",
    "fails on p99", "does not fit",      "inconclusive: the machine",
    "not tried",    "fails its proof",   "undecided"};

void report_sizing_csv(FILE *out, const sizing_row_t *rows, int n,
                       const sizing_target_t *target)
{
    report_info_t info = {0};
    columns_header(out, &columns_sizing, &info);
    columns_rows(out, &columns_sizing,
                 (column_ctx_t){.info = &info, .of = target}, rows, n,
                 sizeof *rows, false);
}

static void s_name(const sizing_row_t *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", r->topology, r->tried[0] ? " " : "", r->tried);
}

//  "812.3 [640.0, 985.0]", or the value alone when it has no interval
static const char *s_figure(const sizing_figure_t *f, const char *fmt,
                            char *buf, size_t len)
{
    char v[24], lo[24], hi[24];
    snprintf(v, sizeof v, fmt, f->value);
    if (f->low < 0 && f->high < 0)
        return snprintf(buf, len, "%s", v), buf;
    snprintf(lo, sizeof lo, fmt, fmax(f->low, 0));
    snprintf(hi, sizeof hi, fmt, f->high);
    snprintf(buf, len, "%s [%s, %s]", v, lo, hi);
    return buf;
}

//  ------------------------------------------------------------------------
//  The answer: a block per size

//  "core" for one, else the unit as it is
static const char *s_unit(const sizing_row_t *r)
{
    return r->cost == 1 && strcmp(r->cost_unit, "cores") == 0 ? "core"
                                                              : r->cost_unit;
}

//  The evidence an answer rests on, a line each
static void s_evidence(FILE *out, const sizing_row_t *r,
                       const sizing_target_t *t)
{
    char a[96], b[96];
    fprintf(out,
            "  cost      %g %s (brokers busy %.2f cores at %.0f msgs/s%s; "
            "load generators on %g CPUs, not counted)\n",
            r->cost, s_unit(r), r->busy_cores, sizing_offered(t),
            strcmp(r->cost_unit, "cores") ? "" : ", rounded up per broker",
            r->generators);
    fprintf(out, "  capacity  %s msgs/s flat out over %d trials\n",
            s_figure(&r->capacity, "%.0f", a, sizeof a), r->capacity_trials);
    fprintf(out,
            "  loss      at most %g in %.1f of %.1f trial-seconds at "
            "%.0f msgs/s (%.1f s lost more%s)\n",
            t->loss, r->loss_good, r->loss_good + r->loss_bad,
            sizing_offered(t), r->loss_bad,
            r->loss_starved > 0 ? "; more, starved, not counted" : "");
    fprintf(out, "  p99       %s us at %.0f msgs/s over %d windows\n",
            s_figure(&r->p99_us, "%.1f", a, sizeof a), t->rate, r->p99_windows);
    if (r->proof_seconds > 0)
        fprintf(out,
                "  proof     %.1f s at %.0f msgs/s: lost %.4g at worst, "
                "p99 %s us\n",
                r->proof_seconds, t->rate, r->proof_loss,
                s_figure(&r->proof_p99_us, "%.1f", b, sizeof b));
    if (r->starved)
        fputs("  starved   some of its trials (a stage waited for a CPU: "
              "results.csv's starved); the figures may be the scheduler's\n",
              out);
}

//  The row a size without an answer is told by: the one that came
//  closest (undecided and inconclusive first, then the most capacity)
static int s_nearest(const sizing_row_t *rows, int n, uint32_t size)
{
    int near = -1;
    for (int i = 0; i < n; i++) {
        const sizing_row_t *r = &rows[i];
        bool open =
            r->verdict == SIZING_UNDECIDED || r->verdict == SIZING_MACHINE;
        if (r->size != size || r->verdict == SIZING_NOFIT || r->seconds < 0)
            continue;
        bool near_open = near >= 0 && (rows[near].verdict == SIZING_UNDECIDED ||
                                       rows[near].verdict == SIZING_MACHINE);
        if (near < 0 || (open && !near_open) ||
            (open == near_open &&
             r->capacity.value > rows[near].capacity.value))
            near = i;
    }
    return near;
}

static void s_answer(FILE *out, const sizing_row_t *rows, int n, uint32_t size,
                     const sizing_target_t *t, bool stopped)
{
    char name[400];
    for (int i = 0; i < n; i++)
        if (rows[i].size == size && rows[i].answer) {
            s_name(&rows[i], name, sizeof name);
            fprintf(out,
                    "answer at %u B: %s (candidate %d) meets the "
                    "target%s\n",
                    size, name, rows[i].number,
                    rows[i].proof_seconds > 0 ? ", proven"
                                              : ", not proven "
                                                "(--prove 0)");
            s_evidence(out, &rows[i], t);
            return;
        }
    int near = s_nearest(rows, n, size);
    const char *how = stopped ? "interrupted before a candidate was proven "
                                "to meet the target"
                              : "no candidate meets the target";
    if (near < 0) {
        fprintf(out, "answer at %u B: %s: %s\n", size, how,
                stopped ? "none was measured" : "none fits here");
        return;
    }
    const sizing_row_t *r = &rows[near];
    bool open = r->verdict == SIZING_UNDECIDED || r->verdict == SIZING_MACHINE;
    if (open && !stopped)
        how = "undecided: no candidate was proven to meet the target";
    s_name(r, name, sizeof name);
    fprintf(out, "answer at %u B: %s; the %s, %s (candidate %d), %s: %s%s%s\n",
            size, how, open ? "nearest" : "best", name, r->number,
            sizing_verdict_names[r->verdict], r->why,
            r->hop[0] ? "; bottleneck " : "", r->hop);
}

//  What the rate becomes at the subscribers: a line per socket count
//  above 1 (fan-out, sockets = N), the candidates that have it
static void s_delivered(FILE *out, const sizing_row_t *rows, int n,
                        const sizing_target_t *t)
{
    for (int i = 0; i < n; i++) {
        bool said = rows[i].sockets <= 1;
        for (int j = 0; j < i && !said; j++)
            said = rows[j].sockets == rows[i].sockets;
        if (said)
            continue;
        fprintf(out, "delivered: %d subscriber sockets (candidate",
                rows[i].sockets);
        for (int j = i; j < n; j++)
            if (rows[j].sockets == rows[i].sockets)
                fprintf(out, " #%d", rows[j].number);
        fprintf(out,
                ") each take what they subscribe to: up to %.0f x %d = "
                "%.0f msgs/s delivered\n",
                t->rate, rows[i].sockets, t->rate * rows[i].sockets);
    }
}

static void s_target(FILE *out, const sizing_target_t *t)
{
    char bound[48] = "p99 any";
    if (t->p99_us > 0)
        snprintf(bound, sizeof bound, "p99 <= %.1f us", t->p99_us);
    fprintf(out,
            "target: %.0f msgs/s offered by the publishers together, %s, "
            "loss <= %g, carried at %.0f msgs/s (headroom %g)\n",
            t->rate, bound, t->loss, sizing_offered(t), t->headroom);
}

//  One candidate's line of the table, its reason under it
static void s_table_row(FILE *out, const sizing_row_t *r, bool pareto)
{
    char name[400], cost[24] = "-", busy[16] = "-", cap[32] = "-",
                    p99[48] = "-", loss[24] = "-";
    s_name(r, name, sizeof name);
    if (r->cost >= 0)
        snprintf(cost, sizeof cost, "%g %s", r->cost, s_unit(r));
    if (r->busy_cores >= 0)
        snprintf(busy, sizeof busy, "%.2f", r->busy_cores);
    if (r->capacity.value >= 0)
        s_figure(&(sizing_figure_t){r->capacity.value, -1, -1}, "%.0f", cap,
                 sizeof cap);
    if (r->loss_good + r->loss_bad > 0)
        snprintf(loss, sizeof loss, "%.1f/%.1f s", r->loss_good,
                 r->loss_good + r->loss_bad);
    if (r->p99_us.value >= 0)
        s_figure(&r->p99_us, "%.0f", p99, sizeof p99);
    fprintf(out, "%3d %-32.32s %6u %9s %6s %10s %11s %-21s %s%s%s\n", r->number,
            name, r->size, cost, busy, cap, loss, p99,
            sizing_verdict_names[r->verdict], r->answer ? " (the answer)" : "",
            pareto && r->pareto ? " (Pareto front)" : "");
    if (r->why[0])
        fprintf(out, "      %s%s%s\n", r->why, r->hop[0] ? "; at " : "",
                r->hop);
}

void report_sizing_table(FILE *out, const sizing_row_t *rows, int n,
                         const sizing_target_t *t, bool pareto, bool stopped)
{
    for (int i = 0; i < n; i++) {
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = rows[j].size != rows[i].size;
        if (first)
            s_answer(out, rows, n, rows[i].size, t, stopped);
    }
    s_target(out, t);
    s_delivered(out, rows, n, t);
    fprintf(out, "  # %-32s %6s %9s %6s %10s %11s %-21s %s\n", "candidate",
            "size", "cost", "busy", "capacity", "loss ok", "p99 us [95% CI]",
            "verdict");
    for (int i = 0; i < n; i++)
        s_table_row(out, &rows[i], pareto);
}

//  ------------------------------------------------------------------------
//  sizing.json: the target, each size's answer, and the candidates as
//  sizing.csv's columns

//  A candidate as sizing.csv's columns have it
static json_t *s_json_row(const sizing_row_t *r, const sizing_target_t *t)
{
    report_info_t info = {0};
    column_ctx_t ctx = {.info = &info, .row = r, .of = t};
    json_t *row = json_object();
    for (int c = 0; row && c < columns_sizing.ncolumns; c++) {
        column_value_t v;
        columns_value(&columns_sizing.columns[c].row, &ctx, &v);
        if (jsondoc_set(row, columns_sizing.columns[c].name,
                        columns_json_value(&v)))
            json_decref(row), row = NULL;
    }
    return row;
}

//  Each size's answer: {"size": S, "candidate": N or null}
static json_t *s_json_answers(const sizing_row_t *rows, int n)
{
    json_t *list = json_array();
    for (int i = 0; list && i < n; i++) {
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = rows[j].size != rows[i].size;
        if (!first)
            continue;
        json_t *answer = json_object(), *number = json_null();
        for (int j = 0; j < n; j++)
            if (rows[j].size == rows[i].size && rows[j].answer)
                json_decref(number), number = json_integer(rows[j].number);
        if (jsondoc_set(answer, "size", json_integer(rows[i].size)) ||
            jsondoc_set(answer, "candidate", number) ||
            json_array_append_new(list, answer))
            json_decref(list), list = NULL;
    }
    return list;
}

void report_sizing_json(FILE *out, const sizing_row_t *rows, int n,
                        const sizing_target_t *t, bool stopped,
                        const sizing_fit_t *fits, int nfits)
{
    json_t *doc = json_object(), *target = json_object(), *list = json_array();
    int rc = doc && target && list ? 0 : -1;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = json_array_append_new(list, s_json_row(&rows[i], t));
    errbuf_t err;
    if (rc || jsondoc_set(target, "rate", jsondoc_number(t->rate)) ||
        jsondoc_set(target, "p99_us", jsondoc_number(t->p99_us)) ||
        jsondoc_set(target, "loss", jsondoc_number(t->loss)) ||
        jsondoc_set(target, "headroom", jsondoc_number(t->headroom)) ||
        jsondoc_set(doc, "target", json_incref(target)) ||
        jsondoc_set(doc, "status",
                    jsondoc_text(stopped ? "interrupted" : "finished")) ||
        jsondoc_set(doc, "answers", s_json_answers(rows, n)) ||
        jsondoc_set(doc, "candidates", json_incref(list)) ||
        (fits && jsondoc_set(doc, "fits", report_fit_json(fits, nfits))) ||
        jsondoc_print(out, doc, &err))
        fputs("hopbench: size: sizing.json: out of memory, or a write "
              "failed\n",
              stderr);
    json_decref(target);
    json_decref(list);
    json_decref(doc);
}

//  ------------------------------------------------------------------------
//  sizing.png: cost against capacity, each verdict a point type of its own

static bool s_is_answer(const sizing_row_t *r)
{
    return r->answer;
}
static bool s_is_meets(const sizing_row_t *r)
{
    return r->verdict == SIZING_MEETS && !r->answer;
}
static bool s_is_open(const sizing_row_t *r)
{
    return r->verdict == SIZING_UNDECIDED || r->verdict == SIZING_MACHINE;
}
static bool s_is_fails(const sizing_row_t *r)
{
    return r->verdict == SIZING_CAPACITY || r->verdict == SIZING_LOSS ||
           r->verdict == SIZING_P99 || r->verdict == SIZING_PROOF;
}

//  The chart's series, one per kind of verdict: its title, gnuplot's
//  point type (told apart without colour) and the verdicts it draws
static const struct {
    const char *title;
    int pt;
    bool (*has)(const sizing_row_t *r);
} s_series[] = {{"fails", 2, s_is_fails},
                {"undecided or inconclusive", 6, s_is_open},
                {"meets", 9, s_is_meets},
                {"the answer", 5, s_is_answer}};
#define S_NSERIES (int)(sizeof s_series / sizeof s_series[0])

//  sizing.dat: a block per series (gnuplot's index), failing ones first
//  so that the answer is drawn last, on top
static int s_chart_data(const char *dir, const sizing_row_t *rows, int n,
                        errbuf_t *err)
{
    FILE *file = outfile_create(dir, "sizing.dat", err);
    if (!file)
        return -1;
    fputs("# hopbench size: cost capacity_per_sec label, a block per verdict\n",
          file);
    for (int s = 0; s < S_NSERIES; s++) {
        fprintf(file, "# %s\n", s_series[s].title);
        int drawn = 0;
        for (int i = 0; i < n; i++) {
            const sizing_row_t *r = &rows[i];
            if (!s_series[s].has(r) || r->capacity.value < 0 || r->cost < 0)
                continue;
            fprintf(file, "%g %.1f \"#%d %u B\"\n", r->cost, r->capacity.value,
                    r->number, r->size);
            drawn++;
        }
        if (!drawn) //  an empty block still counts as an index
            fputs("nan nan \"\"\n", file);
        fputs("\n\n", file);
    }
    return outfile_close(file, dir, "sizing.dat", 0, err);
}

int report_sizing_chart(const char *dir, const sizing_row_t *rows, int n,
                        const sizing_target_t *t, errbuf_t *err)
{
    FILE *gp = s_chart_data(dir, rows, n, err)
                   ? NULL
                   : outfile_create(dir, PLOT_SCRIPT, err);
    if (!gp)
        return -1;
    fprintf(gp,
            "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
            "    set terminal pngcairo size 1100,650 noenhanced\n"
            "} else {\n    set terminal png size 1100,650 noenhanced\n}\n"
            "set output \"sizing.png\"\n"
            "set title \"hopbench size: cost against capacity (flat out), "
            "each candidate by its verdict\\n(the need, rate x (1 + "
            "headroom), dashed)\"\n"
            "set xlabel \"cost (%s)\"\n"
            "set ylabel \"messages/s offered (all publishers)\"\n"
            "set grid\nset key outside right top\nset yrange [0:*]\n"
            "set xrange [0:*]\nset offsets 0.5, 0.5, 0, 0\nplot ",
            n > 0 && rows[0].cost_unit[0] ? rows[0].cost_unit : "cores");
    for (int s = 0; s < S_NSERIES; s++)
        fprintf(gp,
                "\"sizing.dat\" index %d using 1:2 with points pt %d ps 2 lc "
                "rgb \"black\" title \"%s\", \\\n"
                "     \"\" index %d using 1:2:3 with labels offset 1,1 left "
                "notitle, \\\n     ",
                s, s_series[s].pt, s_series[s].title, s);
    fprintf(gp,
            "%g with lines dt 2 lw 2 lc rgb \"black\" title "
            "\"rate x (1 + headroom)\"\nunset output\n",
            sizing_offered(t));
    if (outfile_close(gp, dir, PLOT_SCRIPT, 0, err))
        return -1;
    plot_charts_t charts = {0};
    plot_chart_t *chart = plot_charts_add(&charts, PLOT_VALUE, err);
    if (!chart)
        return -1;
    snprintf(chart->png, sizeof chart->png, "sizing.png");
    int rc = plot_draw(dir, &charts, NULL, err);
    plot_charts_free(&charts);
    return rc ? -1 : 0;
}
