/*  report_sizing: the outputs of `hopbench size`; see report_sizing.h.
    Each format is one function over the rows.
*/
#include "report/report_sizing.h"

#include "base/jsondoc.h"
#include "base/outfile.h"

#include "report/columns.h"
#include "report/plot.h"
#include "report/plot_script.h"

#include <string.h>

const char *const sizing_verdict_names[] = {
    "meets",        "fails on capacity", "fails on loss",
    "fails on p99", "does not fit",      "inconclusive: the machine",
    "not tried"};

void report_sizing_csv(FILE *out, const sizing_row_t *rows, int n)
{
    report_info_t info = {0};
    columns_header(out, &columns_sizing, &info);
    columns_rows(out, &columns_sizing, (column_ctx_t){.info = &info}, rows, n,
                 sizeof *rows, false);
}

static void s_name(const sizing_row_t *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", r->topology, r->tried[0] ? " " : "", r->tried);
}

static void s_answer(FILE *out, const sizing_row_t *rows, int n, int best,
                     const sizing_target_t *t)
{
    char name[400];
    if (best >= 0) {
        const sizing_row_t *r = &rows[best];
        s_name(r, name, sizeof name);
        fprintf(out,
                "answer: %s at %u B: cost %g (broker CPUs %g), confirmed "
                "%.0f msgs/s, p99 %.1f us at %.0f msgs/s, brokers busy %.2f "
                "cores\n",
                name, r->size, r->cost, r->brokers, r->confirmed, r->p99_us,
                t->rate, r->busy_cores);
        return;
    }
    int near = -1; //  the one that came closest: most capacity measured
    for (int i = 0; i < n; i++)
        if (rows[i].verdict != SIZING_NOFIT &&
            (near < 0 || rows[i].capacity > rows[near].capacity))
            near = i;
    if (near < 0) {
        fputs("answer: no candidate meets the target: none fits here\n", out);
        return;
    }
    const sizing_row_t *r = &rows[near];
    s_name(r, name, sizeof name);
    fprintf(out,
            "answer: no candidate meets the target; the best, %s at %u B, "
            "%s: %s%s%s\n",
            name, r->size, sizing_verdict_names[r->verdict], r->why,
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

void report_sizing_table(FILE *out, const sizing_row_t *rows, int n, int best,
                         const sizing_target_t *t, bool pareto)
{
    s_answer(out, rows, n, best, t);
    char bound[48] = "p99 any";
    if (t->p99_us > 0)
        snprintf(bound, sizeof bound, "p99 <= %.1f us", t->p99_us);
    fprintf(out,
            "target: %.0f msgs/s offered by the publishers together, %s, "
            "loss <= %g, carried at %.0f msgs/s (headroom %g)\n",
            t->rate, bound, t->loss, sizing_offered(t), t->headroom);
    s_delivered(out, rows, n, t);
    fprintf(out, "  # %-44s %6s %5s %12s %12s %10s %6s  %s\n", "candidate",
            "size", "cost", "capacity", "confirmed", "p99 us", "busy",
            "verdict");
    for (int i = 0; i < n; i++) {
        const sizing_row_t *r = &rows[i];
        char name[400], cap[32] = "-", conf[32] = "-", p99[32] = "-",
                        busy[32] = "-";
        s_name(r, name, sizeof name);
        if (r->capacity >= 0)
            snprintf(cap, sizeof cap, "%.0f", r->capacity);
        if (r->confirmed > 0)
            snprintf(conf, sizeof conf, "%.0f", r->confirmed);
        if (r->p99_us >= 0)
            snprintf(p99, sizeof p99, "%.1f", r->p99_us);
        if (r->busy_cores >= 0)
            snprintf(busy, sizeof busy, "%.2f", r->busy_cores);
        fprintf(out, "%3d %-44.44s %6u %5g %12s %12s %10s %6s  %s%s%s%s\n",
                r->number, name, r->size, r->cost, cap, conf, p99, busy,
                sizing_verdict_names[r->verdict],
                pareto && r->pareto ? " (Pareto front)" : "",
                r->why[0] ? ": " : "", r->why);
    }
}

//  A candidate's object, as sizing.json has it
static json_t *s_json_row(const sizing_row_t *r)
{
    json_t *row = json_object();
    if (jsondoc_set(row, "candidate", json_integer(r->number)) ||
        jsondoc_set(row, "topology", jsondoc_text(r->topology)) ||
        jsondoc_set(row, "try", jsondoc_text(r->tried)) ||
        jsondoc_set(row, "size", json_integer(r->size)) ||
        jsondoc_set(row, "cost", jsondoc_number(r->cost)) ||
        jsondoc_set(row, "broker_cpus", jsondoc_number(r->brokers)) ||
        jsondoc_set(row, "capacity_per_sec", jsondoc_number(r->capacity)) ||
        jsondoc_set(row, "confirmed_per_sec", jsondoc_number(r->confirmed)) ||
        jsondoc_set(row, "p99_us", jsondoc_number(r->p99_us)) ||
        jsondoc_set(row, "busy_cores", jsondoc_number(r->busy_cores)) ||
        jsondoc_set(row, "ndr_per_sec", jsondoc_number(r->ndr)) ||
        jsondoc_set(row, "verdict",
                    jsondoc_text(sizing_verdict_names[r->verdict])) ||
        jsondoc_set(row, "figure", jsondoc_number(r->figure)) ||
        jsondoc_set(row, "hop", jsondoc_text(r->hop)) ||
        jsondoc_set(row, "pareto", json_boolean(r->pareto)) ||
        jsondoc_set(row, "starved", json_boolean(r->starved))) {
        json_decref(row);
        return NULL;
    }
    return row;
}

void report_sizing_json(FILE *out, const sizing_row_t *rows, int n, int best,
                        const sizing_target_t *t)
{
    json_t *doc = json_object(), *target = json_object(), *list = json_array();
    int rc = doc && target && list ? 0 : -1;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = json_array_append_new(list, s_json_row(&rows[i]));
    errbuf_t err;
    if (rc || jsondoc_set(target, "rate", jsondoc_number(t->rate)) ||
        jsondoc_set(target, "p99_us", jsondoc_number(t->p99_us)) ||
        jsondoc_set(target, "loss", jsondoc_number(t->loss)) ||
        jsondoc_set(target, "headroom", jsondoc_number(t->headroom)) ||
        jsondoc_set(doc, "target", json_incref(target)) ||
        jsondoc_set(doc, "answer",
                    json_integer(best >= 0 ? rows[best].number : -1)) ||
        jsondoc_set(doc, "candidates", json_incref(list)) ||
        jsondoc_print(out, doc, &err))
        fputs("hopbench: size: sizing.json: out of memory, or a write "
              "failed\n",
              stderr);
    json_decref(target);
    json_decref(list);
    json_decref(doc);
}

static int s_chart_data(const char *dir, const sizing_row_t *rows, int n,
                        errbuf_t *err)
{
    FILE *file = outfile_create(dir, "sizing.dat", err);
    if (!file)
        return -1;
    fputs("# hopbench size: cost confirmed_per_sec label\n", file);
    for (int i = 0; i < n; i++) {
        const sizing_row_t *r = &rows[i];
        char label[64];
        double y = r->confirmed > 0  ? r->confirmed
                   : r->capacity > 0 ? r->capacity
                                     : 0;
        if (r->verdict == SIZING_NOFIT || r->verdict == SIZING_UNTRIED)
            continue;
        if (r->p99_us >= 0)
            snprintf(label, sizeof label, "%d: p99 %.0f us", r->number,
                     r->p99_us);
        else
            snprintf(label, sizeof label, "%d", r->number);
        fprintf(file, "%g %.1f \"%s\"\n", r->cost, y, label);
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
            "set title \"hopbench size: cost against the rate each candidate "
            "carried\\n(confirmed at rate x (1 + headroom), else its "
            "capacity; target dashed)\"\n"
            "set xlabel \"cost (broker CPUs, or cost = N)\"\n"
            "set ylabel \"messages/s offered (all publishers)\"\n"
            "set grid\nset key top left\nset yrange [0:*]\n"
            "set xrange [0:*]\nset offsets 0.5, 0.5, 0, 0\n"
            "plot \"sizing.dat\" using 1:2 with points pt 7 ps 1.5 "
            "title \"candidates\", \\\n"
            "     \"\" using 1:2:3 with labels offset 1,1 left notitle, \\\n"
            "     %g with lines dt 2 lw 2 title \"target x (1 + headroom)\"\n"
            "unset output\n",
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
