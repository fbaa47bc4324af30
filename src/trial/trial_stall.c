/*  trial_stall: a window in which a link stopped is not a figure.

    While the window is open the controller polls every link's count
    (trial.c, every TRIAL_POLL_MS).  Three things say a link stalled for
    at least TRIAL_STALL_SPAN seconds of the window:

      - its count stayed the same from one poll to another that long
        (it delivered nothing, and delivered before and after);
      - a stage at one of its ends took that long to give its counters,
        counting only the part of the read within the window (a
        steerable proxy answers STATISTICS between messages: blocked on
        a full pipe, it forwards nothing either; a read at the window's
        last edge ends after it);
      - over a stretch that long, poll to poll, it delivered less than
        stall_ratio of the trial's median per-link rate (each link's rate
        taken per message its sources sent: over its sockets and the
        share of topics its downstream takes).

    A link is judged only where a stretch at the median rate would carry
    at least TRIAL_STALL_MESSAGES, so that a slow paced link's gaps
    between messages are no stalls.  And a window of any length in which
    a link delivered nothing, while it delivered before (warm-up waits
    for that) and after (the drain), stalled, unless a paced source
    would not have sent TRIAL_STALL_MESSAGES in it.  stall_ratio = 0
    turns it all off.
    What to do about a stall (retry, report) is the run's (run/run.c).
    The selftest polls hand-made snapshots through each of the three.
*/
#include "trial/trial_stall.h"

#include "base/check.h"
#include "base/stats.h"
#include "trial/trial_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRIAL_STALL_SPAN     0.5 //  seconds: the shortest stall
#define TRIAL_STALL_MESSAGES 100 //  at the median rate, in a stall

static double s_length(const trial_stall_t *self, int k)
{
    return self->reads[k].to - self->reads[k].from;
}

void trial_stall_read(trial_stall_t *self, int i, double from, double to)
{
    if (to - from < TRIAL_STALL_SPAN || (self->closed && from >= self->until))
        return;
    int k = self->nreads;
    if (k == TRIAL_STALL_READS) { //  full: in place of the shortest
        k = 0;
        for (int j = 1; j < TRIAL_STALL_READS; j++)
            k = s_length(self, j) < s_length(self, k) ? j : k;
        if (s_length(self, k) >= to - from)
            return;
    } else
        self->nreads++;
    self->reads[k].stage = i;
    self->reads[k].from = from;
    self->reads[k].to = to;
}

//  Only the reads that end after 'after' and begin before 'before', and
//  from now on only reads that begin before 'before'
static void s_keep_reads(trial_stall_t *self, double after, double before)
{
    int kept = 0;
    for (int k = 0; k < self->nreads; k++)
        if (self->reads[k].to > after && self->reads[k].from < before)
            self->reads[kept++] = self->reads[k];
    self->nreads = kept;
    self->until = before;
    self->closed = before < INFINITY;
}

void trial_stall_open(trial_stall_t *self, const trial_window_t *w)
{
    self->nlinks = w->nlinks;
    self->n = w->pl->n;
    for (int l = 0; l < self->nlinks; l++) {
        self->stretch_t[l] = self->same_t[l] = w->s0.t;
        self->stretch_count[l] = self->same_count[l] = w->s0.link_received[l];
        self->slowest_rate[l] = -1;
        self->slowest_seconds[l] = self->frozen[l] = 0;
    }
    //  the reads that ended before the window (an earlier trial's) go
    s_keep_reads(self, w->s0.t, INFINITY);
}

void trial_stall_close(trial_stall_t *self, double t)
{
    s_keep_reads(self, -INFINITY, t);
}

//  The slowest stretch of link l, and how long its count stood still
static void s_poll_link(trial_stall_t *self, int l, const snapshot_t *now)
{
    uint64_t count = now->link_received[l];
    if (count != self->same_count[l]) {
        self->same_count[l] = count;
        self->same_t[l] = now->t;
    } else if (now->t - self->same_t[l] > self->frozen[l])
        self->frozen[l] = now->t - self->same_t[l];
    double seconds = now->t - self->stretch_t[l];
    if (seconds < TRIAL_STALL_SPAN)
        return;
    double rate = count >= self->stretch_count[l]
                      ? (double)(count - self->stretch_count[l]) / seconds
                      : 0;
    if (self->slowest_rate[l] < 0 || rate < self->slowest_rate[l]) {
        self->slowest_rate[l] = rate;
        self->slowest_seconds[l] = seconds;
    }
    self->stretch_t[l] = now->t;
    self->stretch_count[l] = count;
}

void trial_stall_poll(trial_stall_t *self, const snapshot_t *now)
{
    for (int l = 0; l < self->nlinks; l++)
        s_poll_link(self, l, now);
}

//  The longest a stage at one of link l's ends could not be read within
//  the window
static double s_blocked(const trial_stall_t *self, const trial_window_t *w,
                        int l)
{
    int ids[PIPELINE_MAX_INSTANCES + 1];
    int n = trial_link_senders(w->pl, &w->links[l], ids);
    ids[n++] = w->links[l].to;
    double most = 0;
    for (int r = 0; r < self->nreads; r++) {
        double from = fmax(self->reads[r].from, w->s0.t),
               to = fmin(self->reads[r].to, w->s1.t);
        for (int k = 0; k < n; k++)
            if (self->reads[r].stage == ids[k] && to - from > most)
                most = to - from;
    }
    return most;
}

//  What a link carries for each message its sources send: a copy per
//  socket at its end (sockets = N), of the share its downstream took
//  (topics).  Links are held to one another per message sent, so that a
//  fan-out of N sockets or a subscriber of few topics is not "slow"
static double s_share(const link_row_t *row)
{
    double share = row->sockets > 1 ? row->sockets : 1;
    return row->selectivity > 0 ? share * row->selectivity : share;
}

//  The median over rows of their rates per message sent (s_share)
static double s_median_rate(const link_row_t *rows, int nrows)
{
    double *rates = calloc((size_t)nrows + 1, sizeof *rates);
    if (!rates)
        return 0;
    for (int l = 0; l < nrows; l++)
        rates[l] = link_rate(&rows[l]) / s_share(&rows[l]);
    stats_sort(rates, nrows);
    double median = nrows ? stats_median_sorted(rates, nrows) : 0;
    free(rates);
    return median;
}

//  Did link l deliver nothing in the window, but after it?
static bool s_empty(const trial_window_t *w, double rate, int l,
                    const link_row_t *row)
{
    bool paced_few = rate > 0 && rate * w->seconds < TRIAL_STALL_MESSAGES;
    return w->pl->params.stall_ratio > 0 && !paced_few &&
           row->window_received == 0 &&
           w->last.link_received[l] > w->s1.link_received[l];
}

//  Each row's longest stall: slowest_seconds at slowest_rate msgs/s
int trial_stall_rows(const trial_stall_t *self, const trial_window_t *w,
                     double rate, link_row_t *rows, int nrows)
{
    double ratio = w->pl->params.stall_ratio;
    double median = s_median_rate(rows, nrows);
    bool judged =
        ratio > 0 && median * TRIAL_STALL_SPAN >= TRIAL_STALL_MESSAGES;
    int stalled = 0;
    for (int l = 0; l < nrows && l < self->nlinks; l++) {
        link_row_t *row = &rows[l];
        double still = self->frozen[l], blocked = s_blocked(self, w, l);
        row->slowest_rate = self->slowest_rate[l];
        row->slowest_seconds = self->slowest_seconds[l];
        if (still > blocked && still >= TRIAL_STALL_SPAN)
            row->slowest_rate = 0, row->slowest_seconds = still;
        else if (blocked >= TRIAL_STALL_SPAN)
            row->slowest_rate = 0, row->slowest_seconds = blocked;
        row->stalled = judged && row->slowest_rate >= 0 &&
                       row->slowest_seconds >= TRIAL_STALL_SPAN &&
                       row->slowest_rate < ratio * median * s_share(row);
        if (s_empty(w, rate, l, row)) {
            row->stalled = 1;
            row->slowest_rate = 0;
            row->slowest_seconds = w->seconds;
        }
        stalled += row->stalled;
    }
    return stalled;
}

//  ------------------------------------------------------------------------
//  Selftest: a pub -> p -> sub window polled every 0.1 s for 2 s, each
//  link taking 10,000 msgs/s, but link 1 'slow' msgs/s in (from, until];
//  stage 'wide' (-1: none) takes 'read' seconds to give its counters
//  once, ending at 'read_end'; the window closes at 2 s

static int s_test_read(trial_fixture_t *f, trial_stall_t *stall, double slow,
                       double from, double until, int wide, double read,
                       double read_end)
{
    trial_window_t *w = f->w;
    uint64_t count[2] = {0, 0};
    memset(&w->s0, 0, sizeof w->s0);
    memset(stall, 0, sizeof *stall);
    trial_stall_open(stall, w);
    for (int k = 1; k <= 20; k++) {
        double t = k / 10.0;
        count[0] += 1000;
        count[1] += t > from && t <= until ? (uint64_t)(slow / 10) : 1000;
        w->s1.t = t;
        w->s1.link_received[0] = count[0];
        w->s1.link_received[1] = count[1];
        for (int i = 0; i < w->pl->n; i++)
            trial_stall_read(stall, i, t - 0.001, t);
        trial_stall_poll(stall, &w->s1);
    }
    trial_stall_close(stall, w->s1.t);
    if (wide >= 0)
        trial_stall_read(stall, wide, read_end - read, read_end);
    w->seconds = 2;
    w->last = w->s1;
    for (int l = 0; l < 2; l++)
        f->rows[l] = (link_row_t){.seconds = 2,
                                  .window_received = count[l],
                                  .selectivity = 1,
                                  .sockets = 1};
    return trial_stall_rows(stall, w, 0, f->rows, w->nlinks);
}

//  ...stage 'wide' read once in 0.6 s, ending at 1 s
static int s_test_window(trial_fixture_t *f, trial_stall_t *stall, double slow,
                         double from, double until, int wide)
{
    return s_test_read(f, stall, slow, from, until, wide, 0.6, 1.0);
}

static bool s_near(double a, double b)
{
    return a > b - 1e-9 && a < b + 1e-9;
}

int trial_stall_test(bool verbose)
{
    (void)verbose;
    trial_fixture_t f;
    trial_stall_t *stall = calloc(1, sizeof *stall);
    CHECK(stall && trial_fixture_new(&f, "topology = t\npublisher = pub\n"
                                         "hop\nproxy = p\nhop\n"
                                         "subscriber = sub\n") == 0);
    link_row_t *rows = f.rows;
    CHECK(f.w->nlinks == 2 && f.w->links[1].to == 2);
    //  steady: every stretch at 10,000 msgs/s
    CHECK(s_test_window(&f, stall, 10000, 0, 0, -1) == 0);
    CHECK(s_near(rows[1].slowest_rate, 10000) && rows[1].stalled == 0);
    CHECK(s_near(rows[1].slowest_seconds, 0.5));
    //  standing still 0.7 s: stalled, at rate 0
    CHECK(s_test_window(&f, stall, 0, 0.6, 1.3, -1) == 1);
    CHECK(rows[1].stalled && !rows[0].stalled && rows[1].slowest_rate == 0);
    CHECK(s_near(rows[1].slowest_seconds, 0.7));
    //  ...for 0.4 s only: no stall
    CHECK(s_test_window(&f, stall, 0, 0.6, 1.0, -1) == 0);
    //  slow: 50 msgs/s over a stretch, under 1 % of the median
    CHECK(s_test_window(&f, stall, 50, 0.5, 1.0, -1) == 1);
    CHECK(s_near(rows[1].slowest_rate, 50) && rows[1].stalled);
    CHECK(s_near(rows[1].slowest_seconds, 0.5));
    //  ...150 msgs/s is over 1 %
    CHECK(s_test_window(&f, stall, 150, 0.5, 1.0, -1) == 0);
    CHECK(s_near(rows[1].slowest_rate, 150));
    //  the subscriber took 0.6 s to answer: its link stalled; the proxy,
    //  at both links' ends, stalls both
    CHECK(s_test_window(&f, stall, 10000, 0, 0, 2) == 1 && rows[1].stalled);
    CHECK(s_near(rows[1].slowest_seconds, 0.6) && rows[1].slowest_rate == 0);
    CHECK(s_test_window(&f, stall, 10000, 0, 0, 1) == 2);
    //  a read is the window's only as far as it lies in it: 0.88 s from
    //  1.8 s is 0.2 s of a 2 s window; 0.7 s from -0.2 s, 0.5 s of it
    CHECK(s_test_read(&f, stall, 10000, 0, 0, 2, 0.88, 2.68) == 0);
    CHECK(rows[1].slowest_seconds <= 2 && rows[1].slowest_rate > 0);
    CHECK(s_test_read(&f, stall, 10000, 0, 0, 2, 0.7, 0.5) == 1);
    CHECK(s_near(rows[1].slowest_seconds, 0.5) && rows[1].slowest_rate == 0);
    //  ...and one begun after the window closed is none of it
    CHECK(s_test_read(&f, stall, 10000, 0, 0, 2, 3, 5) == 0);
    CHECK(stall->nreads == 0);
    //  the longest reads are kept when there are more than it holds
    memset(stall, 0, sizeof *stall);
    for (int k = 0; k < TRIAL_STALL_READS + 4; k++)
        trial_stall_read(stall, 0, k, k + 0.5 + k / 100.0);
    CHECK(stall->nreads == TRIAL_STALL_READS && stall->reads[0].from == 16);
    //  a link that took nothing in the window but after it (the drain)
    CHECK(s_test_window(&f, stall, 10000, 0, 0, -1) == 0);
    rows[1].window_received = 0;
    f.w->last.link_received[1]++;
    CHECK(trial_stall_rows(stall, f.w, 0, rows, 2) == 1);
    CHECK(rows[1].stalled && rows[1].slowest_seconds == 2);
    //  ...unless a paced source would not have sent 100 messages in it
    CHECK(trial_stall_rows(stall, f.w, 10, rows, 2) == 0);
    //  a median too slow to judge a stretch (50 msgs/s at most in one)
    f.pl->params.stall_ratio = 0.5;
    CHECK(s_test_window(&f, stall, 0, 0.6, 1.3, -1) == 1);
    for (int l = 0; l < 2; l++)
        f.rows[l].window_received = 90;
    CHECK(trial_stall_rows(stall, f.w, 0, rows, 2) == 0);
    //  stall_ratio = 0: off
    f.pl->params.stall_ratio = 0;
    CHECK(s_test_window(&f, stall, 0, 0.6, 1.3, -1) == 0);
    trial_fixture_destroy(&f);
    free(stall);
    return 0;
}
