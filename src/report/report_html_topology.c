/*  report_html_topology: the topology section of a run's page, drawn as
    check --verbose draws it (report_tree), from config.cfg.

    A sweep's run writes each combination's effective topology
    (config.cfg the first's, config-N.cfg the Nth's, each with its line
    "# combination N of M: KEY=VALUE ..."), and its page says which
    settings each combination ran with, in one table (a row per
    combination as results.csv's sweep_KEY columns have them, each cell
    that file's, and the drawing it ran), then draws each combination's
    topology.  Combinations that draw the same (a swept key the drawing
    does not show: hwm, rate) share one drawing, headed by their
    numbers.  A sweep's directory from before config-N.cfg draws its
    first combination and says so.
*/
#include "report/html.h"
#include "report/report_html_internal.h"
#include "report/report_tree.h"

#include "config/topology.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;       //  config files: combinations 1..n
    char **tree; //  each one's drawing (NULL: the same as an earlier's,
                 //  or none drawn)
    int *same;   //  ...the combination whose drawing it shares
    char **what; //  ...its "KEY=VALUE ..." (NULL: its file has none)
    bool *ran;   //  ...it has rows in results.csv (an interrupted
                 //  sweep's later combinations have none: not drawn)
} drawn_t;

//  The drawing of a topology's text into *text (malloc'd); -1 and err
static int s_draw(const char *path, const char *config, char **text,
                  errbuf_t *err)
{
    size_t len = 0;
    topology_t *topo = topology_load_text(path, config, err);
    if (!topo)
        return -1;
    FILE *tree = open_memstream(text, &len);
    if (tree) {
        report_tree(tree, topo);
        fclose(tree);
    }
    topology_destroy(&topo);
    return tree ? 0 : err_set(err, "out of memory");
}

//  Its "# combination N of M: " line's settings, malloc'd; NULL: none
static char *s_what(const char *config)
{
    for (const char *line = config; line && *line == '#';) {
        const char *end = strchr(line, '\n'), *colon;
        int n = end ? (int)(end - line) : (int)strlen(line);
        if (strncmp(line, "# combination ", 14) == 0 &&
            (colon = memchr(line, ':', (size_t)n)) && colon[1] == ' ')
            return strndup(colon + 2, (size_t)(line + n - colon - 2));
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

static void s_tree(FILE *out, const char *text)
{
    fputs("<pre class=\"tree\">", out);
    html_text(out, text);
    fputs("</pre>\n", out);
}

//  Every combination drawn, each distinct drawing once
static int s_draw_all(const report_page_t *page, drawn_t *d, FILE *out)
{
    d->n = rundir_nconfigs(page->run);
    d->tree = calloc((size_t)d->n, sizeof *d->tree);
    d->same = calloc((size_t)d->n, sizeof *d->same);
    d->what = calloc((size_t)d->n, sizeof *d->what);
    d->ran = calloc((size_t)d->n, sizeof *d->ran);
    if (!d->tree || !d->same || !d->what || !d->ran)
        return -1;
    for (int i = 0; i < d->n; i++) {
        char path[REPORT_HTML_PATH + 32];
        errbuf_t err;
        const char *config = rundir_config_of(page->run, i + 1);
        if (i)
            snprintf(path, sizeof path, "%s/config-%d.cfg",
                     rundir_dir(page->run), i + 1);
        else
            snprintf(path, sizeof path, "%s/config.cfg", rundir_dir(page->run));
        d->same[i] = i;
        d->what[i] = s_what(config);
        if (s_draw(path, config, &d->tree[i], &err)) {
            html_elem(out, "p", "warn", err.msg);
            continue;
        }
        for (int j = 0; j < i; j++)
            if (d->tree[j] && strcmp(d->tree[j], d->tree[i]) == 0) {
                d->same[i] = j;
                free(d->tree[i]);
                d->tree[i] = NULL;
                break;
            }
    }
    return 0;
}

//  A row's settings as a config file's line has them: "KEY=VALUE ..."
static void s_row_what(const rundir_file_t *file, int row, char *buf,
                       size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < rundir_nsweep(file) && used < len; k++) {
        int col = rundir_sweep(file, k);
        used += (size_t)snprintf(
            buf + used, len - used, "%s%s=%s", k ? " " : "",
            rundir_name(file, col) + strlen(COLUMN_SWEEP_PREFIX),
            rundir_cell(file, row, col));
    }
}

//  The table: a row per combination results.csv has, its settings that
//  file's cells, the drawing it ran
static void s_table(FILE *out, const report_page_t *page,
                    const rundir_file_t *file, drawn_t *d)
{
    char seen[64][1024];
    int nseen = 0;
    fputs("<table class=\"combos\"><tr><th>combination</th>", out);
    for (int k = 0; k < rundir_nsweep(file); k++) {
        fputs("<th>", out);
        html_text(out, rundir_name(file, rundir_sweep(file, k)) +
                           strlen(COLUMN_SWEEP_PREFIX));
        fputs("</th>", out);
    }
    fputs("<th>topology</th></tr>\n", out);
    for (int r = 0; r < rundir_nrows(file) && nseen < 64; r++) {
        char what[1024];
        int i = 0, c = 0;
        s_row_what(file, r, what, sizeof what);
        while (i < nseen && strcmp(seen[i], what))
            i++;
        if (i < nseen)
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", what);
        while (c < d->n && !(d->what[c] && strcmp(d->what[c], what) == 0))
            c++;
        //  a directory from before config-N.cfg: results.csv's order
        fprintf(out, "<tr><td>%d</td>", c < d->n ? c + 1 : nseen);
        for (int k = 0; k < rundir_nsweep(file); k++) {
            int col = rundir_sweep(file, k);
            fprintf(out, "<td data-c=\"%s\" data-line=\"%d\">",
                    rundir_name(file, col), rundir_line(file, r));
            html_text(out, rundir_cell(file, r, col));
            fputs("</td>", out);
        }
        if (c < d->n)
            d->ran[c] = true;
        if (c < d->n)
            fprintf(out, "<td><a href=\"#%stopology-%d\">drawn</a></td>",
                    page->ids, d->same[c] + 1);
        else
            fputs("<td>not drawn</td>", out);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

//  Each distinct drawing, headed by the combinations it stands for
static void s_drawings(FILE *out, const report_page_t *page, const drawn_t *d)
{
    for (int i = 0; i < d->n; i++) {
        if (!d->tree[i])
            continue;
        char text[600];
        int members = 0, n = 0;
        for (int j = i; j < d->n; j++)
            members += d->same[j] == i && d->ran[j];
        if (members == 0)
            continue;
        n = snprintf(text, sizeof text, "combination%s ",
                     members > 1 ? "s" : "");
        for (int j = i, first = 1; j < d->n && n < (int)sizeof text - 16; j++)
            if (d->same[j] == i && d->ran[j]) {
                n += snprintf(text + n, sizeof text - (size_t)n, "%s%d",
                              first ? "" : ", ", j + 1);
                first = 0;
            }
        for (int j = i; members == 1 && j < d->n; j++)
            if (d->same[j] == i && d->ran[j] && d->what[j])
                snprintf(text + n, sizeof text - (size_t)n, ": %.400s",
                         d->what[j]);
        fprintf(out, "<h3 id=\"%stopology-%d\">", page->ids, i + 1);
        html_text(out, text);
        fputs("</h3>\n", out);
        s_tree(out, d->tree[i]);
    }
}

static void s_drawn_free(drawn_t *d)
{
    for (int i = 0; i < d->n && d->tree && d->what; i++) {
        free(d->tree[i]);
        free(d->what[i]);
    }
    free(d->tree);
    free(d->same);
    free(d->what);
    free(d->ran);
}

void report_html_topology(FILE *out, const report_page_t *page)
{
    if (!rundir_config(page->run))
        return; //  a sizing run's directory: its candidates' files
    html_section_begin_as(out, page->ids, "topology", "Topology",
                          rundir_nconfigs(page->run) > 1
                              ? "config.cfg, config-N.cfg"
                              : "config.cfg");
    const rundir_file_t *results = rundir_file(page->run, &columns_results);
    bool sweep = results && rundir_nsweep(results) > 0;
    drawn_t d = {0};
    if (s_draw_all(page, &d, out))
        html_elem(out, "p", "warn", "out of memory");
    else if (sweep) {
        char text[300];
        snprintf(text, sizeof text,
                 d.n > 1 ? "A sweep: the settings of each combination "
                           "(results.csv's sweep columns), and the topology "
                           "each ran."
                         : "A sweep: the settings of each combination "
                           "(results.csv's sweep columns); drawn is the "
                           "first's (config.cfg), as this directory has no "
                           "other's.");
        html_elem(out, "p", NULL, text);
        s_table(out, page, results, &d);
        s_drawings(out, page, &d);
    } else if (d.n > 0 && d.tree[0])
        s_tree(out, d.tree[0]);
    s_drawn_free(&d);
    html_section_end(out);
}
