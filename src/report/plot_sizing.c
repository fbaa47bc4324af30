/*  plot_sizing: sizing.csv as a chart; see plot_sizing.h.  The data file
    has a block per verdict, in the order the verdicts first come:

        cost rate candidate

    where rate is what the candidate carried: its confirmed rate, else
    its capacity (not measured, or of no cost yet: the candidate is left
    out); then the answers (answer 1) once more, drawn last, on top.
*/
#include "report/plot_sizing.h"

#include "base/outfile.h"

#include <stdlib.h>
#include <string.h>

enum { C_NUMBER, C_COST, C_CAPACITY, C_CONFIRMED, C_VERDICT, C_COUNT };
static const char *const s_columns[C_COUNT] = {
    "candidate", "cost", "capacity_per_sec", "confirmed_per_sec", "verdict"};

//  The rate a candidate carried; 0 when it was not measured
static double s_rate(const rundir_rows_t *in)
{
    double confirmed = atof(rundir_text(in, C_CONFIRMED));
    return confirmed > 0 ? confirmed : atof(rundir_text(in, C_CAPACITY));
}

//  The rows of one verdict into its block
static void s_block(FILE *file, const rundir_t *run, const char *verdict,
                    plot_chart_t *chart)
{
    rundir_rows_t in;
    errbuf_t none;
    rundir_rows(&in, run, &columns_sizing, s_columns, C_COUNT, &none);
    fprintf(file, "%s# %s\n", chart->series.n > 1 ? "\n\n" : "", verdict);
    while (rundir_next(&in)) {
        double rate = s_rate(&in);
        if (strcmp(rundir_text(&in, C_VERDICT), verdict) || rate <= 0 ||
            !*rundir_text(&in, C_COST))
            continue;
        fprintf(file, "%s %.1f %s\n", rundir_text(&in, C_COST), rate,
                rundir_text(&in, C_NUMBER));
        chart->rate[1] = rate > chart->rate[1] ? rate : chart->rate[1];
    }
}

//  The target's line: target x (1 + headroom), from the first row
static double s_target(const rundir_t *run)
{
    const rundir_file_t *file = rundir_file(run, &columns_sizing);
    int rate = rundir_column(file, "target_per_sec");
    int headroom = rundir_column(file, "headroom");
    if (rate < 0 || rundir_nrows(file) == 0)
        return 0;
    return atof(rundir_cell(file, 0, rate)) *
           (1 + atof(rundir_cell(file, 0, headroom)));
}

//  The answers (their "answer" 1), a series of their own drawn last, on
//  top of their verdict's point
static void s_answers(FILE *file, const rundir_t *run, plot_chart_t *chart)
{
    rundir_rows_t in;
    errbuf_t none;
    rundir_rows(&in, run, &columns_sizing, s_columns, C_COUNT, &none);
    int answer = in.file ? rundir_column(in.file, "answer") : -1;
    bool any = false;
    while (answer >= 0 && rundir_next(&in))
        any |= strcmp(rundir_cell(in.file, in.row, answer), "1") == 0;
    if (!any || plot_names_add(&chart->series, "the answer (proven)") < 0)
        return;
    fputs("\n\n# the answer\n", file);
    rundir_rows(&in, run, &columns_sizing, s_columns, C_COUNT, &none);
    while (rundir_next(&in))
        if (strcmp(rundir_cell(in.file, in.row, answer), "1") == 0)
            fprintf(file, "%s %.1f %s\n", rundir_text(&in, C_COST), s_rate(&in),
                    rundir_text(&in, C_NUMBER));
}

int plot_sizing_charts(const rundir_t *run, const char *out,
                       plot_charts_t *charts, errbuf_t *err)
{
    rundir_rows_t in;
    int rc = rundir_rows(&in, run, &columns_sizing, s_columns, C_COUNT, err);
    if (rc <= 0)
        return rc;
    rc = 0;
    plot_chart_t *chart = plot_charts_add(charts, PLOT_SIZING, err);
    if (!chart)
        return -1;
    snprintf(chart->name, sizeof chart->name, "hopbench size");
    snprintf(chart->data, sizeof chart->data, "plot-sizing.dat");
    snprintf(chart->png, sizeof chart->png, "sizing.png");
    chart->found = s_target(run);
    FILE *file = plot_chart_data(out, chart, err,
                                 "a block per verdict\n# cost rate candidate");
    if (!file)
        return -1;
    while (rc == 0 && rundir_next(&in)) {
        double rate = s_rate(&in);
        const char *verdict = rundir_text(&in, C_VERDICT);
        bool known = false;
        for (int i = 0; i < chart->series.n && !known; i++)
            known = strcmp(chart->series.v[i], verdict) == 0;
        if (rate <= 0 || known || !*rundir_text(&in, C_COST))
            continue;
        if (plot_names_add(&chart->series, verdict) < 0)
            rc = err_set(err, "out of memory");
        else
            s_block(file, run, verdict, chart);
    }
    if (rc == 0)
        s_answers(file, run, chart);
    return outfile_close(file, out, chart->data, rc, err);
}
