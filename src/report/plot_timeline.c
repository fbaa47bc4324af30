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

#include "report/plot_read.h"

#include <stdlib.h>
#include <string.h>

enum { C_TOPO, C_SIZE, C_REPEAT, C_HOP, C_FROM, C_TO, C_T, C_RATE, C_COUNT };
static const char *const s_columns[C_COUNT] = {
    "topology", "size", "repeat",  "hop",
    "from",     "to",   "seconds", "msgs_per_sec"};

typedef enum { S_RUN, S_SEARCH, S_SIZING } source_t;

typedef struct {
    int chart, line; //  plot_read's chart, and series: "hop 1 ..., repeat 2"
    int row;         //  the row's index in the file: its order
    int repeat;      //  its trial (a sizing's windows join where it changes)
    double t, rate;
} point_t;

//  The reader's own: what wrote the file, and what of it a chart takes
typedef struct {
    source_t source;
    plot_names_t taken; //  search: the confirming trials' keys; sizing:
                        //  the candidates with a proof
    int criterion;      //  sizing: sweep_criterion's column
    int trial;          //  search: trial's column (-1: a run's file)
    double offset;      //  sizing: the windows before this one, on a line
} own_t;

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
static const char *s_trial(const plot_read_t *self)
{
    const own_t *own = self->own;
    return rundir_cell(self->in.file, self->in.row, own->trial);
}

static bool s_has(const plot_names_t *names, const char *name)
{
    for (int i = 0; i < names->n; i++)
        if (strcmp(names->v[i], name) == 0)
            return true;
    return false;
}

//  A search's confirming trials (search.csv: phase confirm, passed)
static int s_confirmed(own_t *own, const rundir_t *run, errbuf_t *err)
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
            if (plot_names_index(&own->taken, key) < 0)
                return err_set(err, "out of memory");
        }
    return rc < 0 ? -1 : 0;
}

//  A sizing's candidate as its key: its sweep values but the criterion
static void s_candidate(const plot_read_t *self, int row, char *key, size_t len)
{
    const rundir_file_t *file = self->in.file;
    const own_t *own = self->own;
    size_t used = 0;
    key[0] = 0;
    for (int k = 0; k < rundir_nsweep(file) && used < len; k++)
        if (rundir_sweep(file, k) != own->criterion)
            used +=
                (size_t)snprintf(key + used, len - used, "%.60s\t",
                                 rundir_cell(file, row, rundir_sweep(file, k)));
}

//  A sizing's candidates that were proven (the others' capacity is drawn)
static int s_proven(plot_read_t *self, errbuf_t *err)
{
    own_t *own = self->own;
    char key[PLOT_NAME];
    for (int r = 0; r < rundir_nrows(self->in.file); r++)
        if (strcmp(rundir_cell(self->in.file, r, own->criterion), "proof") ==
            0) {
            s_candidate(self, r, key, sizeof key);
            if (plot_names_index(&own->taken, key) < 0)
                return err_set(err, "out of memory");
        }
    return 0;
}

//  What wrote the file: a sizing (sweep_criterion), a search, or a run
static int s_start(plot_read_t *self, const rundir_t *run, errbuf_t *err)
{
    own_t *own = self->own;
    own->criterion = rundir_column(self->in.file, "sweep_criterion");
    //  a search's file before timeline.csv had its trial column: none drawn
    own->trial = rundir_column(self->in.file, "trial");
    own->source = own->criterion >= 0                         ? S_SIZING
                  : rundir_file(run, &columns_search) != NULL ? S_SEARCH
                                                              : S_RUN;
    if (own->source == S_SEARCH)
        return s_confirmed(own, run, err);
    return own->source == S_SIZING ? s_proven(self, err) : 0;
}

static void s_stop(plot_read_t *self)
{
    plot_names_free(&((own_t *)self->own)->taken);
}

//  Is the current row one a chart draws?
static bool s_taken(const plot_read_t *self)
{
    const own_t *own = self->own;
    char key[PLOT_NAME];
    if (own->source == S_SEARCH) {
        s_trial_key(&self->in, C_TOPO, C_SIZE, C_REPEAT, s_trial(self), key,
                    sizeof key);
        return s_has(&own->taken, key);
    }
    if (own->source == S_RUN)
        return true;
    const char *criterion =
        rundir_cell(self->in.file, self->in.row, own->criterion);
    s_candidate(self, self->in.row, key, sizeof key);
    return strcmp(criterion, s_has(&own->taken, key) ? "proof" : "capacity") ==
           0;
}

//  The line a row is drawn on
static void s_line_name(const plot_read_t *self, char *line, size_t len)
{
    const rundir_rows_t *in = &self->in;
    source_t source = ((const own_t *)self->own)->source;
    int n = snprintf(line, len, "hop %.8s %.40s->%.40s", rundir_text(in, C_HOP),
                     rundir_text(in, C_FROM), rundir_text(in, C_TO));
    if (source == S_RUN)
        snprintf(line + n, len - (size_t)n, ", repeat %.8s",
                 rundir_text(in, C_REPEAT));
    else if (source == S_SEARCH)
        snprintf(line + n, len - (size_t)n, ", trial %.8s%s%.8s", s_trial(self),
                 strcmp(rundir_text(in, C_REPEAT), "1") ? " of search " : "",
                 strcmp(rundir_text(in, C_REPEAT), "1")
                     ? rundir_text(in, C_REPEAT)
                     : "");
}

static int s_row(plot_read_t *self, errbuf_t *err)
{
    char line[PLOT_NAME];
    point_t p = {.row = self->in.row};
    if (!s_taken(self))
        return 0;
    if (rundir_number(&self->in, C_T, &p.t, err) ||
        rundir_number(&self->in, C_RATE, &p.rate, err))
        return -1;
    p.repeat = atoi(rundir_text(&self->in, C_REPEAT));
    s_line_name(self, line, sizeof line);
    p.chart = plot_read_chart(self, PLOT_NAMES, rundir_text(&self->in, C_SIZE));
    p.line = plot_names_index(&self->names, line);
    if (p.chart < 0 || p.line < 0)
        return err_set(err, "out of memory");
    return plot_read_add(self, &p, err);
}

//  A chart's points by line, then in the file's order (time within a
//  trial)
static int s_by_line(const void *a, const void *b)
{
    const point_t *x = a, *y = b;
    int c = (x->line > y->line) - (x->line < y->line);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

//  The chart's names and files, from its key "topology\tcombo\tsize",
//  and what its lines are, for its title
static void s_describe(const plot_read_t *self, const plot_key_t *key,
                       plot_chart_t *chart, char *head, size_t len)
{
    static const char *const what[] = {
        [S_RUN] = "a line per hop and repeat",
        [S_SEARCH] = "the trials that confirmed a rate: a line per hop and "
                     "trial",
        [S_SIZING] = "the proof's windows, else the flat-out trials', end to "
                     "end: a line per hop"};
    source_t source = ((const own_t *)self->own)->source;
    char safe[PLOT_NAME], tail[32];
    chart->size = (unsigned)strtoul(key->rest, NULL, 10);
    snprintf(chart->name, sizeof chart->name, "%s", key->title);
    snprintf(chart->what, sizeof chart->what, "%s", what[source]);
    chart->joined = source == S_SIZING;
    plot_safe_name(safe, sizeof safe, chart->name);
    snprintf(tail, sizeof tail, "-%uB", chart->size);
    plot_read_files(chart, safe, "timeline", "timeline", tail);
    snprintf(head, len,
             "rate over the window at %u bytes, %s\n# seconds msgs_per_sec",
             chart->size, chart->what);
}

//  A point's line, and the chart's extent so far; a sizing's windows
//  follow each other where the trial changes
static void s_line(plot_read_t *self, plot_chart_t *chart, FILE *file,
                   const void *point, const void *prev)
{
    own_t *own = self->own;
    const point_t *p = point, *q = prev;
    if (!q)
        own->offset = 0;
    else if (own->source == S_SIZING && p->repeat != q->repeat)
        own->offset += q->t;
    double t = own->offset + p->t;
    fprintf(file, "%.6f %.1f\n", t, p->rate);
    chart->rate[1] = p->rate > chart->rate[1] ? p->rate : chart->rate[1];
    chart->offered[1] = t > chart->offered[1] ? t : chart->offered[1];
}

//  Points [a, b), a block per line
static int s_write(plot_read_t *self, plot_chart_t *chart, FILE *file, int a,
                   int b, errbuf_t *err)
{
    return plot_read_lines(self, chart, file, a, b, s_line, err);
}

const plot_reader_t plot_timeline_reader =
    PLOT_READER(&columns_timeline, s_columns, PLOT_TIMELINE, point_t, s_row,
                s_by_line, s_describe, s_write, .own = sizeof(own_t),
                .start = s_start, .stop = s_stop);
