/*  report_html: the command; see report_html.h.

    Reads every directory whole (rundir: a file that is not what hopbench
    writes is exit 2 naming it) before anything is written, builds the
    page in memory, then writes it
    to a temporary file beside the output and renames it into place, so
    an error (a bad CSV half-way, a full disk) leaves no page behind.
    The charts' scratch directory lives under $TMPDIR and is removed,
    whatever happened.
*/
#include "report/report_html.h"

#include "report/html.h"
#include "report/report_html_internal.h"
#include "report/resultsdir.h"
#include "report/rundir.h"

#include "base/limits.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

//  The scratch directory and every file in it
static void s_remove_scratch(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[REPORT_HTML_PATH + 300];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

static int s_scratch(char *out, size_t len, errbuf_t *err)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, len, "%s/hopbench-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(out))
        return err_set(err, "cannot make a directory %s: %s", out,
                       strerror(errno));
    return 0;
}

//  The page of one run, or of several compared: the exit status
static int s_page(FILE *out, rundir_t *const *runs, const char *const *dirs,
                  int n, const char *scratch, errbuf_t *err)
{
    char title[REPORT_HTML_PATH + 64];
    if (n == 1)
        snprintf(title, sizeof title, "hopbench report: %s", dirs[0]);
    else
        snprintf(title, sizeof title, "hopbench report: %s and %d more",
                 dirs[0], n - 1);
    html_page_begin(out, title);
    int status =
        n > 1 ? report_html_compare(out, runs, dirs, n, scratch, err) : 0;
    for (int i = 0; status != 2 && i < n; i++) {
        report_page_t page = {.run = runs[i], .charts = 100 * i};
        snprintf(page.scratch, sizeof page.scratch, "%s", scratch);
        if (i > 0) //  the contents lead to the first run's sections
            snprintf(page.ids, sizeof page.ids, "run%d-", i + 1);
        if (n > 1) {
            fprintf(out, "<hr>\n<h1>run %d of %d: ", i + 1, n);
            html_text(out, dirs[i]);
            fputs("</h1>\n", out);
        }
        if (report_html_run(out, &page, err))
            status = 2;
    }
    html_page_end(out);
    return status;
}

//  text into path: a temporary file beside it, renamed into place
static int s_save(const char *path, const char *text, size_t len, errbuf_t *err)
{
    char tmp[REPORT_HTML_PATH + 16];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    FILE *file = fdopen(fd, "w");
    bool failed = !file || fwrite(text, 1, len, file) != len;
    failed |= file ? fclose(file) != 0 : close(fd) != 0;
    failed = failed || chmod(tmp, 0644) || rename(tmp, path);
    if (failed) {
        int e = errno;
        unlink(tmp);
        return err_set(err, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

static int s_out_path(const char *const *dirs, int n, const char *out_path,
                      char *written, size_t len, errbuf_t *err)
{
    char dir[REPORT_HTML_PATH];
    if (out_path)
        snprintf(written, len, "%s", out_path);
    else if (n == 1)
        snprintf(written, len, "%s/report.html", dirs[0]);
    else if (resultsdir_create(NULL, "compare", dir, sizeof dir, err))
        return -1;
    else
        snprintf(written, len, "%s/report.html", dir);
    return 0;
}

//  The page of runs already read: the exit status
static int s_write(rundir_t *const *runs, const char *const *dirs, int n,
                   const char *out_path, char *written, size_t len,
                   errbuf_t *err)
{
    char scratch[REPORT_HTML_PATH];
    if (s_scratch(scratch, sizeof scratch, err))
        return 2;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    int status = out ? s_page(out, runs, dirs, n, scratch, err)
                     : (err_set(err, "out of memory"), 2);
    if (out && fclose(out))
        status = (err_set(err, "out of memory"), 2);
    s_remove_scratch(scratch);
    errbuf_t why; //  a comparison that matched nothing (1) keeps its say
    if (status != 2 && (s_out_path(dirs, n, out_path, written, len, &why) ||
                        s_save(written, text, size, &why)))
        status = 2, *err = why;
    free(text);
    return status;
}

int report_html_write(const char *const *dirs, int n, const char *out_path,
                      char *written, size_t len, errbuf_t *err)
{
    rundir_t *runs[LIMIT_COMPARE_RUNS] = {NULL};
    int status = n > LIMIT_COMPARE_RUNS ? 2 : 0;
    if (status)
        err_set(err, "report takes at most %d results directories, not %d",
                LIMIT_COMPARE_RUNS, n);
    for (int i = 0; status == 0 && i < n; i++)
        if (!(runs[i] = rundir_open(dirs[i], err)))
            status = 2;
    if (status == 0)
        status = s_write(runs, dirs, n, out_path, written, len, err);
    for (int i = 0; i < n && i < LIMIT_COMPARE_RUNS; i++)
        rundir_destroy(&runs[i]);
    return status;
}

void report_html_after_run(const char *dir, FILE *note)
{
    char path[REPORT_HTML_PATH + 32];
    errbuf_t err;
    const char *dirs[1] = {dir};
    if (report_html_write(dirs, 1, NULL, path, sizeof path, &err))
        fprintf(note, "hopbench: --report: %s\n", err.msg);
    else
        fprintf(note, "hopbench: report: %s\n", path);
}
