/*  trial_starve: did the machine, not the pipeline, set a trial's figures?

    Linux counts, for every thread, the time it waited on a run queue for
    a CPU (/proc/TID/schedstat) and the times it was preempted
    (nonvoluntary_ctxt_switches).  Read for every thread of threads.csv
    when the window opens and when it closes, they say what share of the
    window each thread was ready to run but not running (wait_pct), and
    /proc/stat says what share the hypervisor stole.  A row whose stage's
    busiest thread waited more than starved_pct of the window is starved:
    its rate is the scheduler's.  A stage on another host is unknown (-1):
    its agent does not read these (local only).  Only the readings touch
    /proc; the rest is a function of them, which the selftest holds on
    hand-made thread rows.
*/
#include "trial/trial_starve.h"

#include "base/check.h"
#include "base/mono.h"
#include "machine/cpuset.h"
#include "trial/trial_fixture.h"

#include <stdlib.h>
#include <string.h>

static bool s_local(const thread_row_t *row)
{
    return row->host[0] == 0;
}

void trial_starve_open(trial_starve_t *self, thread_row_t *threads, int n)
{
    self->t0 = mono_seconds(); //  before the first reading
    for (int t = 0; t < n && t < THREADS_MAX; t++) {
        self->open[t] = (threads_wait_t){-1, -1};
        if (s_local(&threads[t]))
            self->open[t] = threads_wait(threads[t].tid);
        threads[t].wait_pct = threads[t].preempted = -1;
    }
    threads_steal(&self->steal0, &self->ticks0);
}

void trial_starve_close(trial_starve_t *self, thread_row_t *threads, int n,
                        double seconds)
{
    for (int t = 0; t < n && t < THREADS_MAX; t++) {
        self->close[t] = (threads_wait_t){-1, -1};
        if (s_local(&threads[t]) && self->open[t].wait_ns >= 0 && seconds > 0)
            self->close[t] = threads_wait(threads[t].tid);
    }
    double span = mono_seconds() - self->t0; //  after the last reading
    trial_starve_waits(threads, n, self->open, self->close,
                       seconds > 0 && span > seconds ? span : seconds);
    int64_t steal, ticks;
    threads_steal(&steal, &ticks);
    self->steal_pct =
        trial_starve_steal(self->steal0, self->ticks0, steal, ticks);
}

void trial_starve_waits(thread_row_t *threads, int n,
                        const threads_wait_t *open, const threads_wait_t *close,
                        double seconds)
{
    double window_ns = seconds * 1e9;
    for (int t = 0; t < n; t++) {
        thread_row_t *row = &threads[t];
        row->wait_pct = row->preempted = -1;
        if (open[t].wait_ns < 0 || window_ns <= 0 ||
            close[t].wait_ns < open[t].wait_ns)
            continue; //  unknown, gone, or its tid taken again
        row->wait_pct =
            100.0 * (double)(close[t].wait_ns - open[t].wait_ns) / window_ns;
        if (close[t].preempted >= open[t].preempted && open[t].preempted >= 0)
            row->preempted = close[t].preempted - open[t].preempted;
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
//  none is known (every one on another host)
static const thread_row_t *s_busiest(const pipeline_t *pl,
                                     const thread_row_t *threads, int nthreads,
                                     const int *ids, int n, bool *unknown)
{
    const thread_row_t *worst = NULL;
    *unknown = false;
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
        *unknown |= !seen;
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
//  busy threads that may run on its CPUs 1: pub/main, sub/ZMQbg/IO/0"
//  (the first STARVE_NAMED of them, then how many more: a tree's twenty
//  would fill the note and be cut mid-name)
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
        if (row == worst || !s_local(row) || row->wait_pct <= 0)
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

int trial_starve_rows(const trial_window_t *w, const thread_row_t *threads,
                      int nthreads, double steal_pct, link_row_t *rows,
                      int nrows)
{
    double limit = w->pl->params.starved_pct;
    int starved = 0;
    for (int l = 0; l < nrows; l++) {
        link_row_t *row = &rows[l];
        int ids[PIPELINE_MAX_INSTANCES];
        int n = trial_link_senders(w->pl, &w->links[l], ids);
        bool from_unknown, to_unknown;
        const thread_row_t *from =
            s_busiest(w->pl, threads, nthreads, ids, n, &from_unknown);
        const thread_row_t *to = s_busiest(w->pl, threads, nthreads,
                                           &w->links[l].to, 1, &to_unknown);
        row->from_wait_pct = from ? from->wait_pct : -1;
        row->to_wait_pct = to ? to->wait_pct : -1;
        row->steal_pct = steal_pct;
        const thread_row_t *worst =
            !to || (from && from->wait_pct > to->wait_pct) ? from : to;
        row->starved = worst && worst->wait_pct > limit ? 1
                       : from_unknown || to_unknown     ? -1
                                                        : 0;
        row->starved_note[0] = 0;
        if (row->starved == 1)
            s_note(threads, nthreads, worst, row->starved_note,
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

int trial_starve_test(bool verbose)
{
    (void)verbose;
    //  each thread's share of a 1 s window, from its two readings
    thread_row_t rows[5];
    threads_wait_t open[3] = {{1000, 3}, {1000, 3}, {-1, -1}};
    threads_wait_t close[3] = {{1000 + 250000000, 5}, {999, 4}, {5, 5}};
    trial_starve_waits(rows, 3, open, close, 1);
    CHECK(rows[0].wait_pct == 25 && rows[0].preempted == 2);
    CHECK(rows[1].wait_pct == -1 && rows[1].preempted == -1); //  tid reused
    CHECK(rows[2].wait_pct == -1);                            //  another host's
    trial_starve_waits(rows, 1, open, close, 0);
    CHECK(rows[0].wait_pct == -1); //  no window
    CHECK(trial_starve_steal(10, 100, 20, 200) == 10);
    CHECK(trial_starve_steal(-1, -1, 20, 200) == -1);
    CHECK(trial_starve_steal(10, 100, 20, 100) == -1);

    trial_fixture_t f;
    CHECK(trial_fixture_new(&f, "topology = t\npublisher = pub\nhop\n"
                                "proxy = p\nhop\nsubscriber = sub\n") == 0);
    link_row_t *out = f.rows;
    rows[0] = s_test_thread("pub", "main", "0", 2);
    rows[1] = s_test_thread("p", "main", "1", 30);
    rows[2] = s_test_thread("p", "ZMQbg/IO/0", "0-1", 8);
    rows[3] = s_test_thread("sub", "main", "1", 1);
    rows[4] = s_test_thread("controller", "main", "0-1", 0);
    //  the proxy waited 30 % > starved_pct (5): both its rows starved, and
    //  the note names the busy threads that may share its CPU
    CHECK(trial_starve_rows(f.w, rows, 5, 0.5, out, 2) == 1);
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
    CHECK(trial_starve_rows(f.w, many, 8, 0, out, 2) == 1);
    CHECK(strstr(out[0].starved_note,
                 "CPUs 1: sub/ZMQbg/IO/0, sub/ZMQbg/IO/0, sub/ZMQbg/IO/0, "
                 "sub/ZMQbg/IO/0 and 3 more") != NULL);
    //  its busiest thread under the limit: no row starved
    rows[1].wait_pct = 4, rows[2].wait_pct = 5;
    CHECK(trial_starve_rows(f.w, rows, 5, -1, out, 2) == 0);
    CHECK(out[0].starved == 0 && out[0].to_wait_pct == 5);
    CHECK(out[0].starved_note[0] == 0 && out[0].steal_pct == -1);
    //  the subscriber on another host, unread: its row is unknown
    snprintf(rows[3].host, sizeof rows[3].host, "h2");
    rows[3].wait_pct = -1;
    CHECK(trial_starve_rows(f.w, rows, 5, 0, out, 2) == -1);
    CHECK(out[0].starved == 0 && out[1].starved == -1);
    CHECK(out[1].to_wait_pct == -1 && out[1].from_wait_pct == 5);
    //  ...and a starved row outweighs an unknown one
    rows[0].wait_pct = 6;
    CHECK(trial_starve_rows(f.w, rows, 5, 0, out, 2) == 1);
    CHECK(out[0].starved == 1 && out[1].starved == -1);
    CHECK(strstr(out[0].starved_note, "stage pub waited 6.0 %") &&
          strstr(out[0].starved_note, "CPUs 0: p/ZMQbg/IO/0"));
    trial_fixture_destroy(&f);
    return 0;
}
