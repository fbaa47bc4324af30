/*  plot: charts of a results directory; see plot.h.

    Owns running gnuplot: found on PATH, started with fork and exec in the
    results directory (the script's paths are relative to it), its output
    in plot.log, stopped if it takes longer than PLOT_TIMEOUT seconds.
    Between fork and exec the child calls only async-signal-safe functions.
*/
#include "report/plot.h"

#include "report/plot_chart.h"
#include "report/plot_data.h"
#include "report/plot_latency_at.h"
#include "report/plot_quantiles.h"
#include "report/plot_read.h"
#include "report/plot_script.h"
#include "report/plot_search.h"
#include "report/plot_sizing.h"
#include "report/plot_syscalls.h"
#include "report/plot_timeline.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLOT_TIMEOUT 300 //  seconds
#define PLOT_LOG     "plot.log"

//  The first executable PATH/gnuplot; -1 if there is none
static int s_find_gnuplot(char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        size_t n = strcspn(p, ":");
        snprintf(out, len, "%.*s/gnuplot", (int)n, n ? p : ".");
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
            access(out, X_OK) == 0)
            return 0;
        p += n;
        if (!*p)
            return -1;
    }
}

bool plot_have_gnuplot(void)
{
    char path[4096];
    return s_find_gnuplot(path, sizeof path) == 0;
}

//  The last line gnuplot wrote, where it says what went wrong
static void s_last_line(const char *path, char *out, size_t len)
{
    snprintf(out, len, "no message");
    FILE *file = fopen(path, "r");
    char line[512];
    while (file && fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[strspn(line, " \t^")])
            snprintf(out, len, "%.200s", line);
    }
    if (file)
        fclose(file);
}

//  Wait for pid up to PLOT_TIMEOUT seconds; -1 (and pid killed) after
static int s_wait(pid_t pid, int *status)
{
    for (int tick = 0; tick < PLOT_TIMEOUT * 100; tick++) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid)
            return 0;
        if (got < 0 && errno != EINTR)
            return -1;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return -1;
}

static int s_gnuplot(const char *dir, const char *gnuplot, errbuf_t *err)
{
    char log[800];
    snprintf(log, sizeof log, "%s/%s", dir, PLOT_LOG);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_set(err, "cannot write %s: %s", log, strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) == 0 && dup2(fd, 1) >= 0 && dup2(fd, 2) >= 0)
            execl(gnuplot, "gnuplot", PLOT_SCRIPT, (char *)NULL);
        _exit(127);
    }
    close(fd);
    int status = 0;
    if (pid < 0)
        return err_set(err, "cannot start %s: %s", gnuplot, strerror(errno));
    if (s_wait(pid, &status))
        return err_set(err, "%s %s/%s: no end after %d s, stopped", gnuplot,
                       dir, PLOT_SCRIPT, PLOT_TIMEOUT);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char line[256];
    s_last_line(log, line, sizeof line);
    return err_set(err, "gnuplot failed on %s/%s (%s %d): %s (all in %s)", dir,
                   PLOT_SCRIPT, WIFEXITED(status) ? "exit" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                   line, log);
}

//  Run gnuplot, check every chart is there, list them: 0, or 1
int plot_draw(const char *dir, const plot_charts_t *charts, FILE *listing,
              errbuf_t *err)
{
    char gnuplot[4096], path[800];
    if (s_find_gnuplot(gnuplot, sizeof gnuplot)) {
        err_set(err,
                "no gnuplot on PATH: install the Debian package gnuplot-nox "
                "(apt-get install gnuplot-nox); %s/%s and its data are "
                "written, ready for it",
                dir, PLOT_SCRIPT);
        return 1;
    }
    if (s_gnuplot(dir, gnuplot, err))
        return 1;
    for (int i = 0; i < charts->n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, charts->v[i].png);
        if (stat(path, &st) || st.st_size == 0) {
            err_set(err, "gnuplot wrote no %s (see %s/%s)", path, dir,
                    PLOT_LOG);
            return 1;
        }
        if (listing)
            fprintf(listing, "%s\n", path);
    }
    return 0;
}

//  The charts beside results.csv's (a sizing's: beside sizing.csv's),
//  each from a file of its own
static const plot_reader_t *const s_run[] = {
    &plot_search_reader,   &plot_latency_at_reader, &plot_quantiles_reader,
    &plot_timeline_reader, &plot_syscalls_reader,   NULL};
static const plot_reader_t *const s_sizing[] = {&plot_quantiles_reader,
                                                &plot_timeline_reader, NULL};

int plot_prepare(const rundir_t *run, const char *out, plot_term_t term,
                 plot_charts_t *charts, errbuf_t *err)
{
    //  a sizing's results.csv holds trials of other kinds (flat out, at a
    //  rate) under one size: its charts are of the candidates, of latency
    //  at the target and of each candidate's rate over its proof
    bool sizing = rundir_file(run, &columns_sizing) != NULL;
    plot_table_t *table = sizing ? NULL : plot_table_read(run, err);
    int rc = sizing ? plot_sizing_charts(run, out, charts, err)
                    : !table || plot_charts_write(table, out, charts, err);
    const plot_reader_t *const *readers = sizing ? s_sizing : s_run;
    for (int i = 0; readers[i] && rc == 0; i++)
        rc = plot_read_charts(readers[i], run, out, charts, err);
    rc = rc ? -1 : 0;
    if (rc == 0 && term == PLOT_TERM_SVG)
        plot_charts_as_svg(charts);
    if (rc == 0)
        rc = plot_script_write(out, charts, term, err);
    plot_table_destroy(&table);
    return rc;
}

int plot_results(const char *dir, FILE *listing, errbuf_t *err)
{
    rundir_t *run = rundir_open(dir, err);
    if (!run)
        return 2;
    plot_charts_t charts = {0};
    const char *clean = rundir_dir(run);
    int rc = plot_prepare(run, clean, PLOT_TERM_PNG, &charts, err) == 0
                 ? plot_draw(clean, &charts, listing, err)
                 : 2;
    plot_charts_free(&charts);
    rundir_destroy(&run);
    return rc;
}
