/*  report_html_summary: the answer first, above everything else on a
    run's page.

        a sizing (sizing.csv)     the target; per size the answer (the
                                  candidate that meets it, proven), or the
                                  best and why not, and the evidence
                                  either rests on: cost and busy cores,
                                  capacity, loss, p99, proof, each with its
                                  interval, and the bottleneck hop
        a search (search_summary.csv)
                                  per size and loss ratio: the rate found
                                  (NDR, PDR), the hop that set it, and
                                  whether the pipeline or the machine did
        a run (results.csv)       per size: what the last hop carried, what
                                  was lost on the way, the slowest hop,
                                  and the flags that qualify the figure

    Every figure is a cell of its file as written, marked with the file,
    line and column it is (data-file, data-line, data-c), or a sum of
    cells (data-sum, the lines in data-lines), so that a reader (and
    tests/43-summary.t) can hold the summary against the files.  A run's
    figure of several repeats is its median row's (3 or more repeats), or
    each repeat's (1 or 2); its slowest hop, of the median rows or the
    first repeat's, is "none" when every hop is within 1 % of it.
*/
#include "report/html.h"
#include "report/report_html_internal.h"

#include "report/report.h"

#include <stdlib.h>
#include <string.h>

//  A cell of file at row, as the summary shows it
static void s_src(FILE *out, const rundir_file_t *file, int row,
                  const char *column)
{
    int c = rundir_column(file, column);
    const char *text = rundir_cell(file, row, c);
    fprintf(out,
            "<span class=\"fig\" data-file=\"%s\" data-line=\"%d\" "
            "data-c=\"%s\">",
            strrchr(rundir_path(file), '/') + 1, rundir_line(file, row),
            column);
    html_text(out, *text ? text : "-");
    fputs("</span>", out);
}

//  ---------------------------------------------------------------------
//  A sizing

//  The column named at p ("{name}..."): its end, or NULL
static const char *s_name_at(const char *p, char *name, size_t len)
{
    const char *close = *p == '{' ? strchr(p, '}') : NULL;
    if (!close || (size_t)(close - p - 1) >= len)
        return NULL;
    memcpy(name, p + 1, (size_t)(close - p - 1));
    name[close - p - 1] = 0;
    return close + 1;
}

//  A line of evidence: its label, and its text with each {column} a cell
//  of the row; none when the column when names is empty, or 0 where
//  nonzero (that evidence was not taken)
typedef struct {
    const char *label, *when;
    bool nonzero;
    const char *text;
} s_evidence_t;

static void s_line(FILE *out, const rundir_file_t *file, int row,
                   const s_evidence_t *line)
{
    char name[64];
    const char *cell = rundir_cell(file, row, rundir_column(file, line->when));
    if (!*cell || (line->nonzero && strspn(cell, "0.") == strlen(cell)))
        return;
    fprintf(out, "<tr><th>%s</th><td>", line->label);
    for (const char *p = line->text, *next; *p;)
        if ((next = s_name_at(p, name, sizeof name))) {
            s_src(out, file, row, name);
            p = next;
        } else
            fputc(*p++, out);
    fputs("</td></tr>\n", out);
}

//  The evidence a candidate's verdict rests on, as size's answer block
//  on stdout has it (report_sizing.c), a line each
static const s_evidence_t s_evidence[] = {
    {"cost", "cost", false,
     "{cost} (in {cost_unit}; brokers busy {busy_cores} cores at "
     "{confirmed_per_sec} msgs/s; load generators on {generator_cpus} CPUs, "
     "not counted)"},
    {"capacity", "capacity_per_sec", false,
     "{capacity_per_sec} [{capacity_low}, {capacity_high}] msgs/s flat out "
     "over {capacity_trials} trials"},
    {"loss", "loss_worst", false,
     "{loss_good_seconds} trial-seconds within the target's loss, "
     "{loss_bad_seconds} s lost more (worst {loss_worst})"},
    {"p99", "p99_windows", true,
     "{p99_us} [{p99_low_us}, {p99_high_us}] us over {p99_windows} windows "
     "at the target's rate"},
    {"proof", "proof_seconds", true,
     "{proof_seconds} s at the target's rate: lost {proof_loss} at worst, "
     "p99 {proof_p99_us} [{proof_p99_low_us}, {proof_p99_high_us}] us"},
    {"hop", "hop", false, "{hop} (the bottleneck)"},
};

//  A size's row to tell: its answer, else the nearest (undecided or
//  inconclusive first, then the most capacity; never one that does not
//  fit or was not measured), as report_sizing.c's s_nearest; -1: none
static int s_told(const rundir_file_t *file, const char *size, bool *meets)
{
    int c_size = rundir_column(file, "size");
    int c_verdict = rundir_column(file, "verdict");
    int c_cap = rundir_column(file, "capacity_per_sec");
    int c_answer = rundir_column(file, "answer");
    int near = -1;
    bool near_open = false;
    *meets = false;
    for (int r = 0; r < rundir_nrows(file); r++) {
        const char *v = rundir_cell(file, r, c_verdict);
        bool open = strncmp(v, "undecided", 9) == 0 ||
                    strncmp(v, "inconclusive", 12) == 0;
        if (strcmp(rundir_cell(file, r, c_size), size))
            continue;
        if (strcmp(rundir_cell(file, r, c_answer), "1") == 0) {
            *meets = true;
            return r;
        }
        if (!strcmp(v, "does not fit") || !strcmp(v, "not tried") ||
            !*rundir_cell(file, r, c_cap))
            continue;
        if (near < 0 || (open && !near_open) ||
            (open == near_open && atof(rundir_cell(file, r, c_cap)) >
                                      atof(rundir_cell(file, near, c_cap))))
            near = r, near_open = open;
    }
    return near;
}

//  One size: the answer, or the best candidate, its shortfall and hop,
//  and the evidence either rests on
static void s_sizing_size(FILE *out, const rundir_file_t *file, int first)
{
    bool meets;
    int row = s_told(
        file, rundir_cell(file, first, rundir_column(file, "size")), &meets);
    fputs("<p><b>answer at ", out);
    s_src(out, file, first, "size");
    fputs(" B:</b> ", out);
    if (row < 0) {
        fputs("no candidate meets the target, and none was measured (each "
              "one's verdict: the candidates' table)</p>\n",
              out);
        return;
    }
    const char *v = rundir_cell(file, row, rundir_column(file, "verdict"));
    bool open = !strncmp(v, "undecided", 9) || !strncmp(v, "inconclusive", 12);
    fputs(meets  ? ""
          : open ? "undecided: no candidate was proven to meet the target; "
                   "the nearest, "
                 : "no candidate meets the target; the best, ",
          out);
    s_src(out, file, row, "topology");
    fputc(' ', out);
    s_src(out, file, row, "try");
    fputs(" (candidate ", out);
    s_src(out, file, row, "candidate");
    fputs("): ", out);
    s_src(out, file, row, "verdict");
    if (*rundir_cell(file, row, rundir_column(file, "why"))) {
        fputs(": ", out);
        s_src(out, file, row, "why");
    }
    if (meets && *rundir_cell(file, row, rundir_column(file, "starved")) &&
        atoi(rundir_cell(file, row, rundir_column(file, "starved"))) > 0)
        fputs(" <span class=\"flag\" title=\"some of its trials: a stage "
              "waited for a CPU; the figures may be the scheduler's\">"
              "starved</span>",
              out);
    fputs("</p>\n<table class=\"kv\">\n", out);
    for (size_t i = 0; i < sizeof s_evidence / sizeof s_evidence[0]; i++)
        s_line(out, file, row, &s_evidence[i]);
    fputs("</table>\n", out);
}

static void s_sizing(FILE *out, const rundir_file_t *file)
{
    fputs("<div class=\"answer\">\n<p><b>target:</b> ", out);
    s_src(out, file, 0, "target_per_sec");
    fputs(" msgs/s offered by the publishers together, p99 ", out);
    if (*rundir_cell(file, 0, rundir_column(file, "target_p99_us"))) {
        fputs("&le; ", out);
        s_src(out, file, 0, "target_p99_us");
        fputs(" us", out);
    } else
        fputs("any", out);
    fputs(", loss &le; ", out);
    s_src(out, file, 0, "target_loss");
    fputs(", carried with headroom ", out);
    s_src(out, file, 0, "headroom");
    fputs("</p>\n", out);
    int c_size = rundir_column(file, "size");
    for (int r = 0; r < rundir_nrows(file); r++) {
        bool seen = false;
        for (int q = 0; q < r && !seen; q++)
            seen = !strcmp(rundir_cell(file, q, c_size),
                           rundir_cell(file, r, c_size));
        if (!seen)
            s_sizing_size(out, file, r);
    }
    fputs("</div>\n", out);
}

//  ---------------------------------------------------------------------
//  A search

static void s_search(FILE *out, const rundir_file_t *file)
{
    static const char *const cols[][2] = {
        {"size", "size"},        {"repeat", "search"},
        {"loss_ratio", "ratio"}, {"found", "found msgs/s"},
        {"bottleneck", "hop"},   {"set_by", "set by"},
        {"trials", "trials"},    {"seconds", "seconds"}};
    fputs("<div class=\"answer\">\n<p><b>the sustainable rate:</b> per size "
          "and loss ratio (0: NDR, no loss; else PDR), the rate the search "
          "confirmed, the hop that lost first and who set it: the pipeline, "
          "or the machine (every failure starved)</p>\n<table "
          "class=\"sum\">\n<thead><tr>",
          out);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        html_elem(out, "th", NULL, cols[c][1]);
    fputs("</tr></thead>\n<tbody>\n", out);
    for (int r = 0; r < rundir_nrows(file); r++) {
        fputs("<tr>", out);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            fputs("<td>", out);
            s_src(out, file, r, cols[c][0]);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n</div>\n", out);
}

//  ---------------------------------------------------------------------
//  A run

#define S_GROUP_ROWS 4096 //  rows of one size summed at most

typedef struct {
    const rundir_file_t *file;
    int size, repeat, hop, from, to, rate, mbps, lost, expected, starved, hwm,
        seq;
    int keys[32], nkeys; //  topology, mode, loss ratio, sweep_*: a group
    int rows[S_GROUP_ROWS], nrows; //  the group's
} run_t;

static const char *s_cell(const run_t *self, int row, int col)
{
    return rundir_cell(self->file, row, col);
}

static bool s_same_group(const run_t *self, int a, int b)
{
    for (int k = 0; k < self->nkeys; k++)
        if (strcmp(s_cell(self, a, self->keys[k]),
                   s_cell(self, b, self->keys[k])))
            return false;
    return strcmp(s_cell(self, a, self->size), s_cell(self, b, self->size)) ==
           0;
}

static bool s_median(const run_t *self, int row)
{
    return strcmp(s_cell(self, row, self->repeat), COLUMN_MEDIAN) == 0;
}

//  The rows a figure is read from: the median rows, or else every row
static bool s_figure_row(const run_t *self, int row, bool medians)
{
    return medians == s_median(self, row);
}

//  "lost": summed over the repeats' rows of every hop, of expected
static void s_lost(FILE *out, const run_t *self)
{
    double lost = 0, expected = 0;
    char lines[S_GROUP_ROWS * 8] = "";
    size_t used = 0;
    for (int i = 0; i < self->nrows; i++) {
        int r = self->rows[i];
        if (s_median(self, r))
            continue;
        lost += atof(s_cell(self, r, self->lost));
        expected += atof(s_cell(self, r, self->expected));
        if (used < sizeof lines - 16)
            used +=
                (size_t)snprintf(lines + used, sizeof lines - used, "%s%d",
                                 used ? " " : "", rundir_line(self->file, r));
    }
    char text[64];
    fprintf(out,
            "<span class=\"fig\" data-file=\"results.csv\" "
            "data-sum=\"lost\" data-lines=\"%s\">",
            lines);
    html_text(out, report_grouped(lost, text, sizeof text));
    fputs("</span>", out);
    if (expected > 0)
        fprintf(out, " (%.2f%% of what the hops should have carried)",
                100 * lost / expected);
}

//  The flags any row of the group raised, as framed words
static void s_flags(FILE *out, const run_t *self)
{
    bool starved = false, hwm = false, seq = false;
    for (int i = 0; i < self->nrows; i++) {
        int r = self->rows[i];
        starved |= atof(s_cell(self, r, self->starved)) > 0;
        hwm |= atof(s_cell(self, r, self->hwm)) > 0;
        seq |= atof(s_cell(self, r, self->seq)) > 0;
    }
    if (starved)
        fputs("<span class=\"flag\" title=\"a stage waited for a CPU: the "
              "figure is the machine's\">starved</span>",
              out);
    if (hwm)
        fputs("<span class=\"flag\" title=\"the rate the HWM and libzmq's "
              "batching allow (mode = flood)\">HWM bound</span>",
              out);
    if (seq)
        fputs("<span class=\"flag bad\" title=\"loss proven by sequence "
              "numbers\">seq lost</span>",
              out);
    if (!starved && !hwm && !seq)
        fputs("none", out);
}

//  Is every hop of the slowest's repeat (or median) within 1 % of it?
static bool s_alike(const run_t *self, int slowest)
{
    double low = atof(s_cell(self, slowest, self->rate));
    const char *repeat = s_cell(self, slowest, self->repeat);
    for (int i = 0; i < self->nrows; i++) {
        int r = self->rows[i];
        if (strcmp(s_cell(self, r, self->repeat), repeat) == 0 &&
            atof(s_cell(self, r, self->rate)) > 1.01 * low)
            return false;
    }
    return true;
}

//  One group (a size of a combination): its row of the summary
static void s_group(FILE *out, const run_t *self)
{
    bool medians = false;
    int last = 0, slowest = -1;
    for (int i = 0; i < self->nrows; i++) {
        int r = self->rows[i];
        medians |= s_median(self, r);
        last = atoi(s_cell(self, r, self->hop)) > last
                   ? atoi(s_cell(self, r, self->hop))
                   : last;
    }
    fputs("<tr><td>", out);
    s_src(out, self->file, self->rows[0], "size");
    fputs("</td><td>", out);
    for (int k = 0; k < self->nkeys; k++)
        if (*s_cell(self, self->rows[0], self->keys[k])) {
            s_src(out, self->file, self->rows[0],
                  rundir_name(self->file, self->keys[k]));
            fputc(' ', out);
        }
    fputs("</td><td>", out);
    const char *first = s_cell(self, self->rows[0], self->repeat);
    for (int i = 0, shown = 0; i < self->nrows; i++) {
        int r = self->rows[i];
        if (!s_figure_row(self, r, medians))
            continue;
        double rate = atof(s_cell(self, r, self->rate));
        //  the slowest of the median rows, or of the first repeat's
        if ((medians || strcmp(s_cell(self, r, self->repeat), first) == 0) &&
            (slowest < 0 || rate < atof(s_cell(self, slowest, self->rate))))
            slowest = r;
        if (atoi(s_cell(self, r, self->hop)) != last)
            continue;
        fputs(shown++ ? " / " : "", out);
        s_src(out, self->file, r, "msgs_per_sec");
        if (medians && *s_cell(self, r, rundir_column(self->file, "ci_low"))) {
            fputs(" [", out);
            s_src(out, self->file, r, "ci_low");
            fputs(", ", out);
            s_src(out, self->file, r, "ci_high");
            fputs("]", out);
        }
        fputs(" msgs/s, ", out);
        s_src(out, self->file, r, "mb_per_sec");
        fputs(" MB/s", out);
    }
    fputs(medians ? " (median)" : "", out);
    fputs("</td><td>", out);
    s_lost(out, self);
    fputs("</td><td>", out);
    if (slowest >= 0 && s_alike(self, slowest))
        fputs("none: every hop within 1 % of it (back-pressure)", out);
    else if (slowest >= 0) {
        fputs("hop ", out);
        s_src(out, self->file, slowest, "hop");
        fputs(" ", out);
        s_src(out, self->file, slowest, "from");
        fputs(" &rarr; ", out);
        s_src(out, self->file, slowest, "to");
    }
    fputs("</td><td>", out);
    s_flags(out, self);
    fputs("</td></tr>\n", out);
}

static void s_run_columns(run_t *self)
{
    const rundir_file_t *f = self->file;
    self->size = rundir_column(f, "size");
    self->repeat = rundir_column(f, "repeat");
    self->hop = rundir_column(f, "hop");
    self->rate = rundir_column(f, "msgs_per_sec");
    self->lost = rundir_column(f, "lost");
    self->expected = rundir_column(f, "expected");
    if (self->expected < 0)
        self->expected = rundir_column(f, "sent");
    self->starved = rundir_column(f, "starved");
    self->hwm = rundir_column(f, "hwm_bound");
    self->seq = rundir_column(f, "seq_lost");
    static const char *const keys[] = {"topology", "mode", "loss_ratio"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if ((self->keys[self->nkeys] = rundir_column(f, keys[k])) >= 0)
            self->nkeys++;
    for (int k = 0; k < rundir_nsweep(f) && self->nkeys < 32; k++)
        self->keys[self->nkeys++] = rundir_sweep(f, k);
}

static void s_run(FILE *out, const rundir_file_t *file)
{
    run_t *self = calloc(1, sizeof *self);
    if (!self) {
        fputs("<p class=\"warn\">out of memory</p>\n", out);
        return;
    }
    self->file = file;
    s_run_columns(self);
    fputs("<div class=\"answer\">\n<p><b>what the pipeline carried:</b> per "
          "size, the last hop's messages per second (the median's interval "
          "in brackets) and MB/s, what was "
          "lost on the way (every hop, every repeat), the slowest hop, and "
          "the flags that qualify the figure</p>\n<table class=\"sum\">\n"
          "<thead><tr><th>size</th><th>run</th><th>last hop</th><th>lost"
          "</th><th>slowest hop</th><th>flags</th></tr></thead>\n<tbody>\n",
          out);
    int n = rundir_nrows(file);
    bool *done = calloc((size_t)n + 1, sizeof *done);
    for (int a = 0; done && a < n; a++) {
        if (done[a])
            continue;
        self->nrows = 0;
        for (int b = a; b < n && self->nrows < S_GROUP_ROWS; b++)
            if (!done[b] && s_same_group(self, a, b))
                self->rows[self->nrows++] = b, done[b] = true;
        s_group(out, self);
    }
    fputs("</tbody></table>\n", out);
    if (n == 0)
        fputs("<p>No rows: the run measured nothing.</p>\n", out);
    fputs("</div>\n", out);
    free(done);
    free(self);
}

void report_html_summary(FILE *out, const report_page_t *page)
{
    const rundir_file_t *sizing = rundir_file(page->run, &columns_sizing);
    const rundir_file_t *search =
        rundir_file(page->run, &columns_search_summary);
    html_section_begin_as(out, page->ids, "summary", "Summary", NULL);
    if (sizing && rundir_nrows(sizing))
        s_sizing(out, sizing);
    else if (search && rundir_nrows(search))
        s_search(out, search);
    else
        s_run(out, rundir_file(page->run, &columns_results));
    html_section_end(out);
}
