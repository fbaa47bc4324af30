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

#include "base/csv.h"

#include <stdlib.h>
#include <string.h>

//  The columns shown, in order: the file's name, the header's words
static const char *const s_cols[][2] = {
    {"hop", "hop"},
    {"from", "from"},
    {"to", "to"},
    {"transport", "transport"},
    {"repeat", "repeat"},
    {"sent", "sent"},
    {"expected", "expected"},
    {"selectivity", "selectivity"},
    {"received", "received"},
    {"lost", "lost"},
    {"msgs_per_sec", "msgs/s"},
    {"mb_per_sec", "MB/s"},
    {NULL, "flags"},
    {"from_cpu_ns_per_msg", "CPU ns/msg from"},
    {"to_cpu_ns_per_msg", "CPU ns/msg to"},
    {"seq_lost", "seq lost"},
    {"from_cpu", "from CPU"},
    {"to_cpu", "to CPU"},
    {"from_node", "from node"},
    {"to_node", "to node"},
    {"from_wait_pct", "from wait %"},
    {"to_wait_pct", "to wait %"}};
#define S_NCOLS (int)(sizeof s_cols / sizeof s_cols[0])
#define S_KEYS  64 //  the most columns of a group's key

typedef struct {
    csv_t *csv;
    int col[S_NCOLS]; //  index in the file, -1: not there
    int size, starved, hwm, seq, wait[2];
    int keys[S_KEYS]; //  topology, pattern, mode, loss_ratio, sweep_*
    int nkeys;
    char last[2048]; //  the current group's key
} reader_t;

static int s_find(const csv_t *csv, const char *name)
{
    for (int i = 0; name && i < csv_count(csv); i++)
        if (strcmp(csv_field(csv, i), name) == 0)
            return i;
    return -1;
}

static void s_header(reader_t *self)
{
    const csv_t *csv = self->csv;
    for (int c = 0; c < S_NCOLS; c++)
        self->col[c] = s_find(csv, s_cols[c][0]);
    self->size = s_find(csv, "size");
    self->starved = s_find(csv, "starved");
    self->hwm = s_find(csv, "hwm_bound");
    self->seq = s_find(csv, "seq_lost");
    static const char *const keys[] = {"topology", "pattern", "mode",
                                       "loss_ratio"};
    for (int k = 0; k < 4; k++)
        if ((self->keys[self->nkeys] = s_find(csv, keys[k])) >= 0)
            self->nkeys++;
    for (int i = 0; i < csv_count(csv) && self->nkeys < S_KEYS; i++)
        if (strncmp(csv_field(csv, i), "sweep_", 6) == 0)
            self->keys[self->nkeys++] = i;
}

static const char *s_field(const reader_t *self, int col)
{
    return col >= 0 && col < csv_count(self->csv) ? csv_field(self->csv, col)
                                                  : "";
}

//  "proxy (pubsub, capacity) transport=ipc, 64-byte messages"
static void s_group_title(const reader_t *self, char *out, size_t len)
{
    size_t n = 0;
    for (int k = 0; k < self->nkeys && n < len; k++) {
        const char *name = csv_field(self->csv, self->keys[k]);
        const char *value = s_field(self, self->keys[k]);
        (void)name;
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
    for (int c = 0; c < S_NCOLS; c++)
        if (self->col[c] >= 0 || !s_cols[c][0])
            html_elem(out, "th", NULL, s_cols[c][1]);
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
    html_text(out, s_field(self, self->col[0]));
    fputs("\">", out);
    for (int c = 0; c < S_NCOLS; c++) {
        if (!s_cols[c][0]) {
            s_flags(out, self);
            continue;
        }
        if (self->col[c] < 0)
            continue;
        const char *f = s_field(self, self->col[c]);
        fprintf(out, "<td data-c=\"%s\"%s>", s_cols[c][0],
                html_is_number(f) ? " class=\"n\"" : "");
        html_text(out, f);
        fputs("</td>", out);
    }
    fputs("</tr>\n", out);
}

static int s_rows(FILE *out, reader_t *self, errbuf_t *err)
{
    int rc, n = 0;
    while ((rc = csv_next(self->csv, err)) > 0) {
        char key[sizeof self->last];
        s_group_key(self, key, sizeof key);
        if (n == 0 || strcmp(key, self->last) != 0) {
            if (n)
                fputs("</tbody>\n</table>\n", out);
            s_table_begin(out, self);
            snprintf(self->last, sizeof self->last, "%s", key);
        }
        s_row(out, self);
        n++;
    }
    if (n)
        fputs("</tbody>\n</table>\n", out);
    else if (rc == 0)
        fputs("<p>No rows: the run measured nothing.</p>\n", out);
    return rc;
}

int report_html_results(FILE *out, const report_page_t *page, errbuf_t *err)
{
    char path[REPORT_HTML_PATH + 32];
    snprintf(path, sizeof path, "%s/results.csv", page->dir);
    FILE *file = fopen(path, "r");
    if (!file)
        return err_set(err, "cannot read %s", path);
    reader_t self = {.csv = csv_new(file, path)};
    int rc = self.csv ? csv_next(self.csv, err) : err_set(err, "out of memory");
    if (rc == 0)
        rc = err_set(err, "%s: empty, not even a header", path);
    if (rc > 0) {
        s_header(&self);
        self.wait[0] = s_find(self.csv, "from_wait_pct");
        self.wait[1] = s_find(self.csv, "to_wait_pct");
        if (self.size < 0 || self.col[0] < 0)
            rc = err_set(err, "%s:1: no size or hop column", path);
    }
    if (rc > 0) {
        html_section_begin_as(out, page->ids, "results", "Per hop, per size",
                              "results.csv");
        fputs("<p>Every row of the file, figures as written there. Flags: "
              "<span class=\"flag\">starved</span> a thread of the hop's "
              "ends waited for a CPU (its figure is the machine's, not "
              "libzmq's); <span class=\"flag\">HWM bound</span> the rate "
              "the high-water mark allows; <span class=\"flag bad\">seq "
              "lost</span> loss proven by sequence numbers.</p>\n",
              out);
        rc = s_rows(out, &self, err);
        html_section_end(out);
    }
    csv_destroy(&self.csv);
    fclose(file);
    return rc < 0 ? -1 : 0;
}
