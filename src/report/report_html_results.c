/*  report_html_results: results.csv as a table per size (and per
    topology, mode, sweep combination and loss ratio), one row per row of
    the file, repeats and median rows alike.

        <tr class="hop" data-size="64" data-hop="1">
          <td data-c="msgs_per_sec">1822722.2</td> ... <td class="flags">
          <span class="flag">starved</span></td>

    The figures are the file's fields as written, with the file's column
    names in data-c, so a test (or a reader) can hold the page against
    the file digit for digit.  Columns an older file lacks are left out.
*/
#include "report/html.h"
#include "report/report_html_internal.h"

#include "report/rundir.h"

#include <stdlib.h>
#include <string.h>

#define S_NCOLS 32 //  the most columns shown
#define S_KEYS  64 //  the most columns of a group's key

//  The columns of one of the page's tables that the file has
typedef struct {
    const char *const (*list)[2]; //  columns_results_page or _more
    int col[S_NCOLS];             //  index in the file, -1: the flags
    int n;
} shown_t;

typedef struct {
    const rundir_file_t *file;
    int row; //  the current row
    shown_t main, more;
    int size, hop, starved, hwm, seq, wait[2];
    int keys[S_KEYS]; //  topology, pattern, mode, loss_ratio, sweep_*
    int nkeys;
} reader_t;

static void s_shown(shown_t *self, const rundir_file_t *file,
                    const char *const (*list)[2])
{
    self->list = list;
    for (int c = 0; list[c][0] && self->n < S_NCOLS; c++) {
        int col = *list[c][0] ? rundir_column(file, list[c][0]) : -1;
        if (col >= 0 || !*list[c][0])
            self->col[self->n++] = col;
    }
}

static void s_header(reader_t *self)
{
    const rundir_file_t *file = self->file;
    s_shown(&self->main, file, columns_results_page);
    s_shown(&self->more, file, columns_results_more);
    self->size = rundir_column(file, "size");
    self->hop = rundir_column(file, "hop");
    self->starved = rundir_column(file, "starved");
    self->hwm = rundir_column(file, "hwm_bound");
    self->seq = rundir_column(file, "seq_lost");
    self->wait[0] = rundir_column(file, "from_wait_pct");
    self->wait[1] = rundir_column(file, "to_wait_pct");
    static const char *const keys[] = {"topology", "pattern", "mode",
                                       "loss_ratio"};
    for (int k = 0; k < 4; k++)
        if ((self->keys[self->nkeys] = rundir_column(file, keys[k])) >= 0)
            self->nkeys++;
    for (int k = 0; k < rundir_nsweep(file) && self->nkeys < S_KEYS; k++)
        self->keys[self->nkeys++] = rundir_sweep(file, k);
}

static const char *s_field(const reader_t *self, int col)
{
    return rundir_cell(self->file, self->row, col);
}

//  "proxy, pubsub, capacity, transport=ipc; 64-byte messages": the
//  topology, pattern and mode by their values, the others named
static void s_group_title(const reader_t *self, char *out, size_t len)
{
    size_t n = 0;
    for (int k = 0; k < self->nkeys && n < len; k++) {
        const char *value = s_field(self, self->keys[k]);
        const char *name = rundir_name(self->file, self->keys[k]);
        bool named = strcmp(name, "topology") && strcmp(name, "pattern") &&
                     strcmp(name, "mode");
        if (strncmp(name, COLUMN_SWEEP_PREFIX, strlen(COLUMN_SWEEP_PREFIX)) ==
            0)
            name += strlen(COLUMN_SWEEP_PREFIX);
        if (!*value)
            continue;
        n += (size_t)snprintf(out + n, len - n, "%s%s%s%s", n ? ", " : "",
                              named ? name : "", named ? "=" : "", value);
    }
    if (n < len)
        snprintf(out + n, len - n, "; %s-byte messages",
                 s_field(self, self->size));
}

//  Do rows a and b belong to one table (topology ... sweep, size)?
static bool s_same_group(const reader_t *self, int a, int b)
{
    for (int k = 0; k < self->nkeys; k++)
        if (strcmp(rundir_cell(self->file, a, self->keys[k]),
                   rundir_cell(self->file, b, self->keys[k])))
            return false;
    return strcmp(rundir_cell(self->file, a, self->size),
                  rundir_cell(self->file, b, self->size)) == 0;
}

static bool s_positive(const reader_t *self, int col)
{
    const char *text = s_field(self, col);
    return *text && atof(text) > 0;
}

//  The flags of a row, as framed words
static void s_flags(FILE *out, const reader_t *self)
{
    fputs("<td class=\"flags\">", out);
    if (s_positive(self, self->starved)) {
        char title[128];
        snprintf(title, sizeof title,
                 "a thread waited for a CPU: from %s %%, to %s %% of the "
                 "window",
                 s_field(self, self->wait[0]), s_field(self, self->wait[1]));
        fputs("<span class=\"flag starved\" title=\"", out);
        html_text(out, title);
        fputs("\">starved</span>", out);
    }
    if (s_positive(self, self->hwm))
        fputs("<span class=\"flag hwm_bound\" title=\"the rate the HWM and "
              "libzmq's batching allow\">HWM bound</span>",
              out);
    if (s_positive(self, self->seq))
        fputs("<span class=\"flag bad seq_lost\" title=\"loss proven by "
              "sequence numbers\">seq lost</span>",
              out);
    fputs("</td>", out);
}

//  Rows [a, b) as one table of the shown columns (rows of class cls)
static void s_table(FILE *out, reader_t *self, const shown_t *shown, int a,
                    int b, const char *cls)
{
    fputs("<table class=\"sort hops\">\n<thead><tr>", out);
    for (int c = 0, i = 0; c < shown->n; c++, i++) {
        while (*shown->list[i][0] &&
               rundir_column(self->file, shown->list[i][0]) < 0)
            i++; //  a column the file lacks
        html_elem(out, "th", NULL, shown->list[i][1]);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (self->row = a; self->row < b; self->row++) {
        fprintf(out, "<tr class=\"%s\" data-size=\"", cls);
        html_text(out, s_field(self, self->size));
        fputs("\" data-hop=\"", out);
        html_text(out, s_field(self, self->hop));
        fprintf(out, "\" data-line=\"%d\">",
                rundir_line(self->file, self->row));
        for (int c = 0; c < shown->n; c++) {
            int col = shown->col[c];
            if (col < 0) {
                s_flags(out, self);
                continue;
            }
            const char *f = s_field(self, col);
            fprintf(out, "<td data-c=\"%s\"%s>", rundir_name(self->file, col),
                    html_is_number(f) ? " class=\"n\"" : "");
            html_text(out, f);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}

static void s_groups(FILE *out, reader_t *self)
{
    int n = rundir_nrows(self->file);
    for (int a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && s_same_group(self, a, b);)
            b++;
        char title[1024];
        self->row = a;
        s_group_title(self, title, sizeof title);
        html_elem(out, "h3", NULL, title);
        s_table(out, self, &self->main, a, b, "hop");
        fputs("<details><summary>its counts, the CPUs and nodes of its ends, "
              "their waits for a CPU</summary>\n",
              out);
        s_table(out, self, &self->more, a, b, "hop-more");
        fputs("</details>\n", out);
    }
    if (n == 0)
        fputs("<p>No rows: the run measured nothing.</p>\n", out);
}

int report_html_results(FILE *out, const report_page_t *page, errbuf_t *err)
{
    reader_t self = {.file = rundir_file(page->run, &columns_results)};
    s_header(&self);
    if (self.size < 0 || self.hop < 0)
        return err_set(err, "%s:1: no size or hop column",
                       rundir_path(self.file));
    html_section_begin_as(out, page->ids, "results", "Per hop, per size",
                          "results.csv");
    fputs("<p>Every row of the file, figures as written there. Flags: "
          "<span class=\"flag\">starved</span> a thread of the hop's "
          "ends waited for a CPU (its figure is the machine's, not "
          "libzmq's); <span class=\"flag\">HWM bound</span> the rate "
          "the high-water mark allows; <span class=\"flag bad\">seq "
          "lost</span> loss proven by sequence numbers. CPUs -1: not "
          "pinned (the stage ran where the kernel put it).</p>\n",
          out);
    s_groups(out, &self);
    html_section_end(out);
    return 0;
}
