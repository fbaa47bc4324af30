/*  trial_starve: did the machine, not the pipeline, set a trial's figures?

    Linux counts, for every thread, the time it waited on a run queue for
    a CPU (/proc/TID/schedstat) and the times it was preempted
    (nonvoluntary_ctxt_switches).  Read for every thread of threads.csv
    when the window opens and when it closes, where the thread runs (this
    host, or another host by its agent: trial_threads.c), they say what
    share of the window each thread was ready to run but not running
    (wait_pct), and each host's /proc/stat says what share its hypervisor
    stole.  A row whose stage's busiest thread waited more than
    starved_pct of the window is starved: its rate is the scheduler's.
    A stage none of whose threads' waits could be read (a host whose
    agent is older than the question) is unknown (-1), never "not
    starved".  All of it is a function of the readings, which the
    selftest holds on hand-made thread rows.
*/
#include "trial/trial_starve.h"

#include "base/check.h"
#include "machine/cpuset.h"
#include "trial/trial_fixture.h"

#include <stdlib.h>
#include <string.h>

int trial_starve_room(trial_starve_t *self, int n)
{
    for (int e = 0; e < 2; e++) {
        trial_waits_t *edge = &self->edge[e];
        if (n <= edge->room)
            continue;
        threads_wait_t *more = realloc(edge->wait, (size_t)n * sizeof *more);
        if (!more)
            return -1;
        for (int t = edge->room; t < n; t++)
            more[t] = (threads_wait_t){-1, -1}; //  not read
        edge->wait = more, edge->room = n;
    }
    return 0;
}

void trial_starve_free(trial_starve_t *self)
{
    for (int e = 0; e < 2; e++) {
        free(self->edge[e].wait);
        self->edge[e] = (trial_waits_t){0};
    }
}

void trial_starve_close(trial_starve_t *self, const pipeline_t *pl,
                        thread_row_t *threads, int n, double seconds)
{
    const trial_waits_t *open = &self->edge[0], *close = &self->edge[1];
    trial_starve_waits(threads, n, open, close, seconds);
    for (int i = 0; i < pl->n; i++)
        self->steal_pct[i] = trial_starve_steal(
            open->steal[i], open->ticks[i], close->steal[i], close->ticks[i]);
}

void trial_starve_waits(thread_row_t *threads, int n, const trial_waits_t *open,
                        const trial_waits_t *close, double seconds)
{
    double span = close->to - open->from;
    double window_ns = (span > seconds ? span : seconds) * 1e9;
    for (int t = 0; t < n; t++) {
        thread_row_t *row = &threads[t];
        const threads_wait_t *a = &open->wait[t], *b = &close->wait[t];
        row->wait_pct = row->preempted = -1;
        if (a->wait_ns < 0 || seconds <= 0 || b->wait_ns < a->wait_ns)
            continue; //  unknown, gone, or its tid taken again
        row->wait_pct = 100.0 * (double)(b->wait_ns - a->wait_ns) / window_ns;
        if (b->preempted >= a->preempted && a->preempted >= 0)
            row->preempted = b->preempted - a->preempted;
    }
}

double trial_starve_steal(int64_t steal0, int64_t ticks0, int64_t steal1,
                          int64_t ticks1)
{
    if (steal0 >= 0 && steal1 >= steal0 && ticks1 > ticks0)
        return 100.0 * (double)(steal1 - steal0) / (double)(ticks1 - ticks0);
    return -1;
}

//  The busiest-waiting thread of the stages ids[0..n-1]; NULL when
//  none is known; *unknown: the first stage none of whose threads is
static const thread_row_t *s_busiest(const pipeline_t *pl,
                                     const thread_row_t *threads, int nthreads,
                                     const int *ids, int n, int *unknown)
{
    const thread_row_t *worst = NULL;
    *unknown = -1;
    for (int k = 0; k < n; k++) {
        const char *name = pl->inst[ids[k]].name;
        bool seen = false;
        for (int t = 0; t < nthreads; t++) {
            const thread_row_t *row = &threads[t];
            if (strcmp(row->stage, name) != 0 || row->wait_pct < 0)
                continue;
            seen = true;
            if (!worst || row->wait_pct > worst->wait_pct)
                worst = row;
        }
        if (!seen && *unknown < 0)
            *unknown = ids[k];
    }
    return worst;
}

static void s_cpus(const char *text, cpuset_t *set)
{
    cpuset_t all;
    errbuf_t ignored;
    cpuset_clear(&all);
    for (int c = 0; c < LIMIT_CPUS; c++)
        cpuset_add(&all, c);
    if (cpuset_parse(text, &all, set, &ignored))
        cpuset_clear(set);
}

//  "stage broker waited 34.1 % of the window for a CPU (thread main);
//  busy threads that may run on its CPUs 1: pub/main, sub/ZMQbg/IO/0":
//  the threads of its host (CPU numbers are each host's own), the first
//  STARVE_NAMED of them, then how many more (a tree's twenty would fill
//  the note and be cut mid-name)
enum { STARVE_NAMED = 4 };
static void s_note(const thread_row_t *threads, int nthreads,
                   const thread_row_t *worst, char *note, size_t len)
{
    cpuset_t mine, theirs;
    s_cpus(worst->allowed, &mine);
    size_t used = (size_t)snprintf(
        note, len,
        "stage %s waited %.1f %% of the window for a CPU (thread %s); "
        "busy threads that may run on its CPUs %s:",
        worst->stage, worst->wait_pct, worst->thread, worst->allowed);
    int shared = 0;
    for (int t = 0; t < nthreads && used < len; t++) {
        const thread_row_t *row = &threads[t];
        if (row == worst || strcmp(row->host, worst->host) != 0 ||
            row->wait_pct <= 0)
            continue; //  one that never waited to run hardly ran
        s_cpus(row->allowed, &theirs);
        bool meet = false;
        for (int c = cpuset_next(&mine, -1); c >= 0 && !meet;
             c = cpuset_next(&mine, c))
            meet = cpuset_has(&theirs, c);
        if (meet && shared++ < STARVE_NAMED)
            used += (size_t)snprintf(note + used, len - used, "%s %s/%s",
                                     shared > 1 ? "," : "", row->stage,
                                     row->thread);
    }
    if (shared > STARVE_NAMED && used < len)
        snprintf(note + used, len - used, " and %d more",
                 shared - STARVE_NAMED);
    if (!shared && used < len)
        snprintf(note + used, len - used, " none");
}

//  The most of the steal shares of instances ids[0..n-1] and 'to', -1 if
//  one is unknown
static double s_steal(const double *steal_pct, const int *ids, int n, int to)
{
    double most = steal_pct[to];
    for (int k = 0; k < n && most >= 0; k++)
        most = steal_pct[ids[k]] < 0      ? -1
               : steal_pct[ids[k]] > most ? steal_pct[ids[k]]
                                          : most;
    return most;
}

//  "the run-queue waits of stage sub's threads (host h3) were not read"
static void s_unknown_note(const pipeline_t *pl, int id, char *note, size_t len)
{
    const char *host = pipeline_host(pl, id);
    snprintf(note, len,
             "the run-queue waits of stage %s's threads%s%s%s "
             "were not read",
             pl->inst[id].name, host[0] ? " (host " : "", host,
             host[0] ? ")" : "");
}

int trial_starve_rows(const trial_window_t *w, const thread_row_t *threads,
                      int nthreads, const double *steal_pct, link_row_t *rows,
                      int nrows)
{
    double limit = w->pl->params.starved_pct;
    int starved = 0;
    for (int l = 0; l < nrows; l++) {
        link_row_t *row = &rows[l];
        int ids[PIPELINE_MAX_INSTANCES];
        int n = trial_link_senders(w->pl, &w->links[l], ids);
        int from_unknown, to_unknown;
        const thread_row_t *from =
            s_busiest(w->pl, threads, nthreads, ids, n, &from_unknown);
        const thread_row_t *to = s_busiest(w->pl, threads, nthreads,
                                           &w->links[l].to, 1, &to_unknown);
        row->from_wait_pct = from ? from->wait_pct : -1;
        row->to_wait_pct = to ? to->wait_pct : -1;
        row->steal_pct = s_steal(steal_pct, ids, n, w->links[l].to);
        const thread_row_t *worst =
            !to || (from && from->wait_pct > to->wait_pct) ? from : to;
        int unknown = from_unknown >= 0 ? from_unknown : to_unknown;
        row->starved = worst && worst->wait_pct > limit ? 1
                       : unknown >= 0                   ? -1
                                                        : 0;
        row->starved_note[0] = 0;
        if (row->starved == 1)
            s_note(threads, nthreads, worst, row->starved_note,
                   sizeof row->starved_note);
        else if (row->starved < 0)
            s_unknown_note(w->pl, unknown, row->starved_note,
                           sizeof row->starved_note);
        if (row->starved == 1 || (row->starved < 0 && starved == 0))
            starved = row->starved;
    }
    return starved;
}

//  ------------------------------------------------------------------------
//  Selftest: pub -> p -> sub, with thread rows made by hand

static thread_row_t s_test_thread(const char *stage, const char *thread,
                                  const char *allowed, double wait_pct)
{
    thread_row_t row = {.wait_pct = wait_pct, .tid = 1};
    snprintf(row.stage, sizeof row.stage, "%s", stage);
    snprintf(row.thread, sizeof row.thread, "%s", thread);
    snprintf(row.allowed, sizeof row.allowed, "%s", allowed);
    return row;
}

//  Each thread's share of a 1 s window, and each host's steal, from
//  their readings at the edges (instances 0 and 1 here, 2 on a host)
static int s_test_readings(const pipeline_t *pl)
{
    thread_row_t rows[3];
    trial_starve_t *starve = calloc(1, sizeof *starve);
    CHECK(starve && trial_starve_room(starve, 3) == 0);
    threads_wait_t open[3] = {{1000, 3}, {1000, 3}, {-1, -1}};
    threads_wait_t close[3] = {{1000 + 250000000, 5}, {999, 4}, {5, 5}};
    int64_t steal[2][3] = {{10, 10, 30}, {20, 20, 30}};
    int64_t ticks[2][3] = {{100, 100, 1000}, {200, 200, 2000}};
    trial_waits_t *edge = starve->edge;
    for (int e = 0; e < 2; e++) {
        //  read from 0.6 to 0.65 and from 1.45 to 1.5: inside a window of
        //  0.5 .. 1.5
        edge[e].from = e ? 1.45 : 0.6, edge[e].to = e ? 1.5 : 0.65;
        for (int i = 0; i < 3; i++) {
            edge[e].wait[i] = e ? close[i] : open[i];
            edge[e].steal[i] = steal[e][i];
            edge[e].ticks[i] = ticks[e][i];
        }
    }
    trial_starve_close(starve, pl, rows, 3, 1);
    CHECK(rows[0].wait_pct == 25 && rows[0].preempted == 2);
    CHECK(rows[1].wait_pct == -1 && rows[1].preempted == -1); //  tid reused
    CHECK(rows[2].wait_pct == -1); //  not read at the window's start
    CHECK(starve->steal_pct[0] == 10 && starve->steal_pct[2] == 0);
    //  the opening's first reading to the closing's last 1.25 s apart,
    //  around the window: a share of that
    edge[0].from = 0.25;
    trial_starve_waits(rows, 1, &edge[0], &edge[1], 1);
    CHECK(rows[0].wait_pct == 20);
    trial_starve_waits(rows, 1, &edge[0], &edge[1], 0);
    CHECK(rows[0].wait_pct == -1); //  no window
    CHECK(trial_starve_steal(10, 100, 20, 200) == 10);
    CHECK(trial_starve_steal(-1, -1, 20, 200) == -1);
    CHECK(trial_starve_steal(10, 100, 20, 100) == -1);
    trial_starve_free(starve);
    free(starve);
    return 0;
}

int trial_starve_test(bool verbose)
{
    (void)verbose;
    trial_fixture_t f;
    CHECK(trial_fixture_new(&f, "topology = t\npublisher = pub\nhop\n"
                                "proxy = p\nhop\nsubscriber = sub\n") == 0);
    CHECK(s_test_readings(f.pl) == 0);
    link_row_t *out = f.rows;
    thread_row_t rows[5];
    rows[0] = s_test_thread("pub", "main", "0", 2);
    rows[1] = s_test_thread("p", "main", "1", 30);
    rows[2] = s_test_thread("p", "ZMQbg/IO/0", "0-1", 8);
    rows[3] = s_test_thread("sub", "main", "1", 1);
    rows[4] = s_test_thread("controller", "main", "0-1", 0);
    double steal[3] = {0.5, 0.5, 0.5};
    //  the proxy waited 30 % > starved_pct (5): both its rows starved, and
    //  the note names the busy threads that may share its CPU
    CHECK(trial_starve_rows(f.w, rows, 5, steal, out, 2) == 1);
    CHECK(out[0].starved == 1 && out[1].starved == 1);
    CHECK(out[0].from_wait_pct == 2 && out[0].to_wait_pct == 30);
    CHECK(out[1].from_wait_pct == 30 && out[1].to_wait_pct == 1);
    CHECK(out[1].steal_pct == 0.5);
    CHECK(strcmp(out[0].starved_note,
                 "stage p waited 30.0 % of the window for a CPU (thread "
                 "main); busy threads that may run on its CPUs 1: "
                 "p/ZMQbg/IO/0, sub/main") == 0);
    //  more than STARVE_NAMED busy beside it: the first named, the rest
    //  counted
    thread_row_t many[8];
    many[0] = rows[1];
    for (int t = 1; t < 8; t++)
        many[t] = s_test_thread("sub", "ZMQbg/IO/0", "0-1", t);
    CHECK(trial_starve_rows(f.w, many, 8, steal, out, 2) == 1);
    CHECK(strstr(out[0].starved_note,
                 "CPUs 1: sub/ZMQbg/IO/0, sub/ZMQbg/IO/0, sub/ZMQbg/IO/0, "
                 "sub/ZMQbg/IO/0 and 3 more") != NULL);
    //  its busiest thread under the limit: no row starved; a row's steal
    //  is the most of its ends' hosts', unknown if one's is
    rows[1].wait_pct = 4, rows[2].wait_pct = 5;
    steal[2] = 2;
    CHECK(trial_starve_rows(f.w, rows, 5, steal, out, 2) == 0);
    CHECK(out[0].starved == 0 && out[0].to_wait_pct == 5);
    CHECK(out[0].starved_note[0] == 0 && out[0].steal_pct == 0.5);
    CHECK(out[1].steal_pct == 2);
    steal[0] = -1;
    CHECK(trial_starve_rows(f.w, rows, 5, steal, out, 2) == 0);
    CHECK(out[0].steal_pct == -1 && out[1].steal_pct == 2);
    //  the subscriber on another host, unread: its row is unknown, and
    //  says whose waits are missing
    snprintf(f.pl->inst[2].host, sizeof f.pl->inst[2].host, "h2");
    snprintf(rows[3].host, sizeof rows[3].host, "h2");
    rows[3].wait_pct = -1;
    CHECK(trial_starve_rows(f.w, rows, 5, steal, out, 2) == -1);
    CHECK(out[0].starved == 0 && out[1].starved == -1);
    CHECK(out[1].to_wait_pct == -1 && out[1].from_wait_pct == 5);
    CHECK(strcmp(out[1].starved_note, "the run-queue waits of stage sub's "
                                      "threads (host h2) were not read") == 0);
    //  ...and a starved row outweighs an unknown one
    rows[0].wait_pct = 6;
    CHECK(trial_starve_rows(f.w, rows, 5, steal, out, 2) == 1);
    CHECK(out[0].starved == 1 && out[1].starved == -1);
    CHECK(strstr(out[0].starved_note, "stage pub waited 6.0 %") &&
          strstr(out[0].starved_note, "CPUs 0: p/ZMQbg/IO/0"));
    //  read on its host, the subscriber's busy thread does not share the
    //  proxy's CPU 1 (the number is its host's own)
    rows[0].wait_pct = 2, rows[1].wait_pct = 30, rows[3].wait_pct = 1;
    CHECK(trial_starve_rows(f.w, rows, 5, steal, out, 2) == 1);
    CHECK(out[1].starved == 1 && out[1].to_wait_pct == 1);
    CHECK(strcmp(out[0].starved_note,
                 "stage p waited 30.0 % of the window for a CPU (thread "
                 "main); busy threads that may run on its CPUs 1: "
                 "p/ZMQbg/IO/0") == 0);
    trial_fixture_destroy(&f);
    return 0;
}
