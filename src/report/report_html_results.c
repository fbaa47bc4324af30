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

#define S_NCOLS 64 //  the most columns shown
#define S_KEYS  64 //  the most columns of a group's key

typedef struct {
    const rundir_file_t *file;
    int row; //  the current row
    //  the columns shown (columns_results_page's that the file has), then
    //  the flags
    const char *const *shown[S_NCOLS]; //  name and heading
    int col[S_NCOLS];                  //  index in the file, -1: the flags
    int ncols;
    int size, hop, starved, hwm, seq, wait[2];
    int keys[S_KEYS]; //  topology, pattern, mode, loss_ratio, sweep_*
    int nkeys;
    char last[2048]; //  the current group's key
} reader_t;

static void s_header(reader_t *self)
{
    const rundir_file_t *file = self->file;
    for (int c = 0; columns_results_page[c][0] && self->ncols < S_NCOLS - 1;
         c++) {
        int col = rundir_column(file, columns_results_page[c][0]);
        if (col >= 0)
            self->shown[self->ncols] = columns_results_page[c],
            self->col[self->ncols++] = col;
    }
    self->col[self->ncols++] = -1; //  the flags
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

//  "proxy (pubsub, capacity) transport=ipc, 64-byte messages"
static void s_group_title(const reader_t *self, char *out, size_t len)
{
    size_t n = 0;
    for (int k = 0; k < self->nkeys && n < len; k++) {
        const char *value = s_field(self, self->keys[k]);
        if (!*value)
            continue;
        n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", value);
    }
    if (n < len)
        snprintf(out + n, len - n, "; %s-byte messages",
                 s_field(self, self->size));
}

static void s_group_key(const reader_t *self, char *out, size_t len)
{
    size_t n = 0;
    for (int k = 0; k < self->nkeys && n < len; k++)
        n += (size_t)snprintf(out + n, len - n, "%s\x1f",
                              s_field(self, self->keys[k]));
    if (n < len)
        snprintf(out + n, len - n, "%s", s_field(self, self->size));
}

static void s_table_begin(FILE *out, const reader_t *self)
{
    char title[1024];
    s_group_title(self, title, sizeof title);
    html_elem(out, "h3", NULL, title);
    fputs("<table class=\"sort hops\">\n<thead><tr>", out);
    for (int c = 0; c < self->ncols; c++)
        html_elem(out, "th", NULL,
                  self->col[c] >= 0 ? self->shown[c][1] : "flags");
    fputs("</tr></thead>\n<tbody>\n", out);
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

static void s_row(FILE *out, const reader_t *self)
{
    fputs("<tr class=\"hop\" data-size=\"", out);
    html_text(out, s_field(self, self->size));
    fputs("\" data-hop=\"", out);
    html_text(out, s_field(self, self->hop));
    fputs("\">", out);
    for (int c = 0; c < self->ncols; c++) {
        if (self->col[c] < 0) {
            s_flags(out, self);
            continue;
        }
        const char *f = s_field(self, self->col[c]);
        fprintf(out, "<td data-c=\"%s\"%s>", self->shown[c][0],
                html_is_number(f) ? " class=\"n\"" : "");
        html_text(out, f);
        fputs("</td>", out);
    }
    fputs("</tr>\n", out);
}

static void s_rows(FILE *out, reader_t *self)
{
    int n = rundir_nrows(self->file);
    for (self->row = 0; self->row < n; self->row++) {
        char key[sizeof self->last];
        s_group_key(self, key, sizeof key);
        if (self->row == 0 || strcmp(key, self->last) != 0) {
            if (self->row)
                fputs("</tbody>\n</table>\n", out);
            s_table_begin(out, self);
            snprintf(self->last, sizeof self->last, "%s", key);
        }
        s_row(out, self);
    }
    if (n)
        fputs("</tbody>\n</table>\n", out);
    else
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
          "lost</span> loss proven by sequence numbers.</p>\n",
          out);
    s_rows(out, &self);
    html_section_end(out);
    return 0;
}
