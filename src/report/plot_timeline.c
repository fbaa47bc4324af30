/*  plot_timeline: timeline.csv as rate-over-time charts; see
    plot_timeline.h.  A chart's data file has a block per line, in the
    file's order:

        seconds msgs_per_sec

    Which rows a chart takes depends on what wrote them: a run's every
    trial (a line per hop and repeat); a search's the trials that
    confirmed a rate (search.csv's confirm rows that passed: a line per
    hop and trial), as the other trials are steps of the bisection at
    rates that are not the answer; a sizing's (sweep_criterion) each
    candidate's proof, else its flat-out capacity trials, their windows
    laid end to end (a line per hop).
*/
#include "report/plot_timeline.h"

#include "base/grow.h"
#include "base/outfile.h"

#include <stdlib.h>
#include <string.h>

enum { C_TOPO, C_SIZE, C_REPEAT, C_HOP, C_FROM, C_TO, C_T, C_RATE, C_COUNT };
static const char *const s_columns[C_COUNT] = {
    "topology", "size", "repeat",  "hop",
    "from",     "to",   "seconds", "msgs_per_sec"};

typedef enum { S_RUN, S_SEARCH, S_SIZING } source_t;

typedef struct {
    int chart, line; //  the chart's key, the line's ("hop 1 r2")
    int row;         //  the row's index in the file: its order
    int repeat;      //  its trial (a sizing's windows join where it changes)
    double t, rate;
} point_t;

typedef struct {
    rundir_rows_t in;
    point_t *points;
    int n, cap;
    plot_names_t charts; //  "topology\tcombo\tsize"
    plot_names_t lines;  //  "hop 1 pub->broker, repeat 2"
    const char *out;
    plot_charts_t *into;
    source_t source;
    plot_names_t taken; //  search: the confirming trials' keys; sizing:
                        //  the candidates with a proof
    int criterion;      //  sizing: sweep_criterion's column
    int trial;          //  search: trial's column (-1: a run's file)
} reader_t;

//  A search's trial as its key: "topology\tcombo\tsize\trepeat\ttrial"
static void s_trial_key(const rundir_rows_t *in, int topo, int size, int repeat,
                        const char *trial, char *key, size_t len)
{
    char combo[PLOT_NAME];
    rundir_combo(in, false, combo, sizeof combo);
    snprintf(key, len, "%.60s\t%.120s\t%.12s\t%.12s\t%.12s",
             rundir_text(in, topo), combo, rundir_text(in, size),
             rundir_text(in, repeat), trial);
}

//  The current row's trial ("" in a run's file)
static const char *s_trial(const reader_t *self)
{
    return rundir_cell(self->in.file, self->in.row, self->trial);
}

static bool s_has(const plot_names_t *names, const char *name)
{
    for (int i = 0; i < names->n; i++)
        if (strcmp(names->v[i], name) == 0)
            return true;
    return false;
}

//  A search's confirming trials (search.csv: phase confirm, passed)
static int s_confirmed(reader_t *self, const rundir_t *run, errbuf_t *err)
{
    enum { T, S, R, N, P, V, K };
    static const char *const want[K] = {"topology", "size",  "repeat",
                                        "trial",    "phase", "verdict"};
    rundir_rows_t in;
    char key[PLOT_NAME];
    int rc = rundir_rows(&in, run, &columns_search, want, K, err);
    while (rc > 0 && rundir_next(&in))
        if (strcmp(rundir_text(&in, P), "confirm") == 0 &&
            strcmp(rundir_text(&in, V), "pass") == 0) {
            s_trial_key(&in, T, S, R, rundir_text(&in, N), key, sizeof key);
            if (plot_names_index(&self->taken, key) < 0)
                return err_set(err, "out of memory");
        }
    return rc < 0 ? -1 : 0;
}

//  A sizing's candidate as its key: its sweep values but the criterion
static void s_candidate(const reader_t *self, int row, char *key, size_t len)
{
    const rundir_file_t *file = self->in.file;
    size_t used = 0;
    key[0] = 0;
    for (int k = 0; k < rundir_nsweep(file) && used < len; k++)
        if (rundir_sweep(file, k) != self->criterion)
            used +=
                (size_t)snprintf(key + used, len - used, "%.60s\t",
                                 rundir_cell(file, row, rundir_sweep(file, k)));
}

//  A sizing's candidates that were proven (the others' capacity is drawn)
static int s_proven(reader_t *self, errbuf_t *err)
{
    char key[PLOT_NAME];
    for (int r = 0; r < rundir_nrows(self->in.file); r++)
        if (strcmp(rundir_cell(self->in.file, r, self->criterion), "proof") ==
            0) {
            s_candidate(self, r, key, sizeof key);
            if (plot_names_index(&self->taken, key) < 0)
                return err_set(err, "out of memory");
        }
    return 0;
}

//  Is the current row one a chart draws?
static bool s_taken(reader_t *self)
{
    char key[PLOT_NAME];
    if (self->source == S_SEARCH) {
        s_trial_key(&self->in, C_TOPO, C_SIZE, C_REPEAT, s_trial(self), key,
                    sizeof key);
        return s_has(&self->taken, key);
    }
    if (self->source == S_RUN)
        return true;
    const char *criterion =
        rundir_cell(self->in.file, self->in.row, self->criterion);
    s_candidate(self, self->in.row, key, sizeof key);
    return strcmp(criterion, s_has(&self->taken, key) ? "proof" : "capacity") ==
           0;
}

//  The line a row is drawn on
static void s_line(const reader_t *self, char *line, size_t len)
{
    const rundir_rows_t *in = &self->in;
    int n = snprintf(line, len, "hop %.8s %.40s->%.40s", rundir_text(in, C_HOP),
                     rundir_text(in, C_FROM), rundir_text(in, C_TO));
    if (self->source == S_RUN)
        snprintf(line + n, len - (size_t)n, ", repeat %.8s",
                 rundir_text(in, C_REPEAT));
    else if (self->source == S_SEARCH)
        snprintf(line + n, len - (size_t)n, ", trial %.8s%s%.8s", s_trial(self),
                 strcmp(rundir_text(in, C_REPEAT), "1") ? " of search " : "",
                 strcmp(rundir_text(in, C_REPEAT), "1")
                     ? rundir_text(in, C_REPEAT)
                     : "");
}

static int s_row(reader_t *self, errbuf_t *err)
{
    char key[PLOT_NAME], combo[PLOT_NAME], line[PLOT_NAME];
    point_t p = {.row = self->in.row};
    if (!s_taken(self))
        return 0;
    if (rundir_number(&self->in, C_T, &p.t, err) ||
        rundir_number(&self->in, C_RATE, &p.rate, err))
        return -1;
    p.repeat = atoi(rundir_text(&self->in, C_REPEAT));
    rundir_combo(&self->in, true, combo, sizeof combo);
    snprintf(key, sizeof key, "%.80s\t%.100s\t%.20s",
             rundir_text(&self->in, C_TOPO), combo,
             rundir_text(&self->in, C_SIZE));
    s_line(self, line, sizeof line);
    p.chart = plot_names_index(&self->charts, key);
    p.line = plot_names_index(&self->lines, line);
    if (p.chart < 0 || p.line < 0 ||
        grow(&self->points, &self->cap, self->n + 1, sizeof *self->points))
        return err_set(err, "out of memory");
    self->points[self->n++] = p;
    return 0;
}

//  By chart, then line, then the file's order (time within a trial)
static int s_by_chart(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    int c = (x->chart > y->chart) - (x->chart < y->chart);
    c = c ? c : (x->line > y->line) - (x->line < y->line);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

//  What the chart's lines are, for its title
static void s_what(const reader_t *self, plot_chart_t *chart)
{
    static const char *const what[] = {
        [S_RUN] = "a line per hop and repeat",
        [S_SEARCH] = "the trials that confirmed a rate: a line per hop and "
                     "trial",
        [S_SIZING] = "the proof's windows, else the flat-out trials', end to "
                     "end: a line per hop"};
    snprintf(chart->what, sizeof chart->what, "%s", what[self->source]);
    chart->joined = self->source == S_SIZING;
}

//  The chart of points [a, b)
static int s_chart(void *ctx, int a, int b, errbuf_t *err)
{
    reader_t *self = ctx;
    plot_chart_t *chart = plot_charts_add(self->into, PLOT_TIMELINE, err);
    if (!chart)
        return -1;
    const char *key = self->charts.v[self->points[a].chart];
    int topo = (int)strcspn(key, "\t");
    const char *combo = key + topo + (key[topo] != 0);
    int clen = (int)strcspn(combo, "\t");
    chart->size =
        (unsigned)strtoul(combo + clen + (combo[clen] != 0), NULL, 10);
    char safe[PLOT_NAME];
    snprintf(chart->name, sizeof chart->name, "%.*s%s%.*s%s", topo, key,
             clen ? " (" : "", clen, combo, clen ? ")" : "");
    plot_safe_name(safe, sizeof safe, chart->name);
    snprintf(chart->data, sizeof chart->data, "plot-timeline-%.150s-%uB.dat",
             safe, chart->size);
    snprintf(chart->png, sizeof chart->png, "%.150s-timeline-%uB.png", safe,
             chart->size);
    s_what(self, chart);
    FILE *file = plot_chart_data(self->out, chart, err,
                                 "rate over the window at %u bytes, %s\n# "
                                 "seconds msgs_per_sec",
                                 chart->size, chart->what);
    if (!file)
        return -1;
    int rc = 0;
    double offset = 0; //  a sizing's: the windows before this one
    for (int i = a; i < b && rc == 0; i++) {
        const point_t *p = &self->points[i], *q = i > a ? p - 1 : NULL;
        if (!q || p->line != q->line)
            rc = plot_chart_block(file, chart, self->lines.v[p->line], err);
        if (!q || p->line != q->line)
            offset = 0;
        else if (self->source == S_SIZING && p->repeat != q->repeat)
            offset += q->t;
        double t = offset + p->t;
        fprintf(file, "%.6f %.1f\n", t, p->rate);
        chart->rate[1] = p->rate > chart->rate[1] ? p->rate : chart->rate[1];
        chart->offered[1] = t > chart->offered[1] ? t : chart->offered[1];
    }
    return outfile_close(file, self->out, chart->data, rc, err);
}

int plot_timeline_charts(const rundir_t *run, const char *out,
                         plot_charts_t *charts, errbuf_t *err)
{
    reader_t self = {.out = out, .into = charts};
    int rc =
        rundir_rows(&self.in, run, &columns_timeline, s_columns, C_COUNT, err);
    self.criterion =
        rc > 0 ? rundir_column(self.in.file, "sweep_criterion") : -1;
    //  a search's file before timeline.csv had its trial column: none drawn
    self.trial = rc > 0 ? rundir_column(self.in.file, "trial") : -1;
    self.source = self.criterion >= 0                         ? S_SIZING
                  : rundir_file(run, &columns_search) != NULL ? S_SEARCH
                                                              : S_RUN;
    if (rc > 0 && self.source == S_SEARCH && s_confirmed(&self, run, err))
        rc = -1;
    if (rc > 0 && self.source == S_SIZING && s_proven(&self, err))
        rc = -1;
    while (rc > 0 && rundir_next(&self.in))
        rc = s_row(&self, err) ? -1 : 1;
    if (rc > 0)
        rc = plot_chart_runs(self.points, self.n, sizeof *self.points,
                             s_by_chart, s_chart, &self, err);
    free(self.points);
    plot_names_free(&self.charts);
    plot_names_free(&self.lines);
    plot_names_free(&self.taken);
    return rc < 0 ? -1 : 0;
}
