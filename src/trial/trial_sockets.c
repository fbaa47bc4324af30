/*  trial_sockets: what a trial's counters mean for subscribers of several
    SUB sockets (sockets = N, stages/sockets.h).

    Each socket counts in its stage's shared block; at the window's edges
    every socket's count is read into count[0] / count[1] (made before the
    trial starts: nothing is allocated at the edges), so each socket has
    a rate of its own over the time between its two readings (the middle
    of each pass over an instance's sockets; not the row's instants,
    which are interpolated), and a row its slowest and fastest.  After the run
    a socket's loss on its link is what one socket should have taken (the
    rows' expected into its instance over N: each socket takes a copy)
    less what it took, so the sockets' losses add up to the rows'.  What
    its sequence numbers prove it missed on the whole way from the
    publishers (seq_lost) is its 'behind' (its gaps and its lag behind
    the furthest socket, stages/sockets.c) plus the rest of the
    instance's proven loss, which is every socket's alike (what none took
    after the furthest one's last message):

        seq_lost(s) = behind(s) + (seq_lost(instance) - sum of behind) / N

    The selftest makes a subscriber of three sockets by hand.
*/
#include "trial/trial_sockets.h"

#include "base/check.h"
#include "trial/trial_fixture.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int trial_sockets_new(trial_sockets_t *self, const pipeline_t *pl)
{
    long n = 0;
    memset(self, 0, sizeof *self);
    for (int i = 0; i < pl->n; i++) {
        self->first[i] = n;
        if (pipeline_sockets(pl, i) > 1)
            n += pipeline_sockets(pl, i);
    }
    self->nsockets = n;
    if (n == 0)
        return 0;
    self->count[0] = calloc((size_t)n, sizeof *self->count[0]);
    self->count[1] = calloc((size_t)n, sizeof *self->count[1]);
    return self->count[0] && self->count[1] ? 0 : -1;
}

void trial_sockets_destroy(trial_sockets_t *self)
{
    free(self->count[0]);
    free(self->count[1]);
    self->count[0] = self->count[1] = NULL;
}

//  Socket s's count in a block, now
static uint64_t s_count(const stage_shared_t *shared, int s)
{
    return atomic_load_explicit(&shared->sockets[s].received,
                                memory_order_relaxed);
}

void trial_sockets_edge(trial_sockets_t *self, const pipeline_t *pl, int i,
                        int edge, const stage_shared_t *shared)
{
    int n = pipeline_sockets(pl, i);
    if (n <= 1 || !self->count[edge])
        return;
    uint64_t *into = self->count[edge] + self->first[i];
    for (int s = 0; s < n; s++)
        into[s] = s_count(shared, s);
}

void trial_sockets_at(trial_sockets_t *self, int i, int edge, double at)
{
    self->at[edge][i] = at;
}

//  Socket s of instance i's rate between its two readings
static double s_rate(const trial_sockets_t *self, int i, int s)
{
    long k = self->first[i] + s;
    double seconds = self->at[1][i] - self->at[0][i];
    return seconds > 0
               ? (double)(self->count[1][k] - self->count[0][k]) / seconds
               : 0;
}

//  A row's sockets and its slowest and fastest socket's rate
static void s_row(const trial_sockets_t *self, const pipeline_t *pl, int to,
                  link_row_t *row)
{
    int n = pipeline_sockets(pl, to);
    row->sockets = n;
    row->min_socket_rate = row->max_socket_rate = link_rate(row);
    for (int s = 0; s < n && n > 1 && self->count[0]; s++) {
        double rate = s_rate(self, to, s);
        if (s == 0 || rate < row->min_socket_rate)
            row->min_socket_rate = rate;
        if (s == 0 || rate > row->max_socket_rate)
            row->max_socket_rate = rate;
    }
}

//  Every socket of instance i into out; how many
static int s_instance_rows(const trial_sockets_t *self, const trial_window_t *w,
                           int64_t proven, const link_row_t *rows, int nrows,
                           int i, socket_row_t *out)
{
    const stage_shared_t *shared = w->shared[i];
    int n = pipeline_sockets(w->pl, i);
    int64_t behind = 0;
    for (int s = 0; s < n; s++)
        behind += (int64_t)shared->sockets[s].behind;
    int64_t common = (proven - behind) / n;
    uint64_t expected = 0; //  the links into it, every socket's
    for (int l = 0; l < nrows; l++)
        if (w->links[l].to == i)
            expected += rows[l].expected;
    for (int s = 0; s < n; s++) {
        socket_row_t *row = &out[s];
        snprintf(row->stage, sizeof row->stage, "%s", w->pl->inst[i].name);
        row->socket = s + 1;
        row->received = s_count(shared, s);
        row->lost = (int64_t)(expected / (uint64_t)n) - (int64_t)row->received;
        row->seq_lost = (int64_t)shared->sockets[s].behind + common;
        row->rate = s_rate(self, i, s);
    }
    return n;
}

int trial_sockets_rows(const trial_sockets_t *self, const trial_window_t *w,
                       const int64_t *proven, link_row_t *rows, int nrows,
                       socket_row_t *out)
{
    int made = 0;
    for (int l = 0; l < nrows && l < w->nlinks; l++)
        s_row(self, w->pl, w->links[l].to, &rows[l]);
    if (!out)
        return 0;
    for (int i = 0; i < w->pl->n; i++)
        if (pipeline_sockets(w->pl, i) > 1)
            made +=
                s_instance_rows(self, w, proven[i], rows, nrows, i, out + made);
    return made;
}

//  ------------------------------------------------------------------------
//  Selftest: pub -> sub of three sockets; pub sent 1000, so each socket
//  was due 1000 and the link 3000

int trial_sockets_test(bool verbose)
{
    (void)verbose;
    trial_fixture_t f;
    trial_sockets_t sockets;
    CHECK(trial_fixture_new(&f, "topology = t\npublisher = pub\nhop\n"
                                "subscriber = sub\n    sockets = 3\n") == 0);
    CHECK(trial_sockets_new(&sockets, f.pl) == 0 && sockets.nsockets == 3);
    stage_shared_t *sub = f.shared[1];
    //  at the edges: 1 s apart, each socket at its own rate
    uint64_t at0[3] = {100, 100, 100}, at1[3] = {1100, 600, 1000};
    for (int s = 0; s < 3; s++)
        sub->sockets[s].received = at0[s];
    trial_sockets_edge(&sockets, f.pl, 1, 0, sub);
    trial_sockets_at(&sockets, 1, 0, 1.0);
    trial_sockets_edge(&sockets, f.pl, 0, 0, f.shared[0]); //  one socket
    for (int s = 0; s < 3; s++)
        sub->sockets[s].received = at1[s];
    trial_sockets_edge(&sockets, f.pl, 1, 1, sub);
    trial_sockets_at(&sockets, 1, 1, 2.0);
    //  after the drain: what each took, and how far each fell behind the
    //  furthest; the sequence numbers prove 650 lost in all
    uint64_t took[3] = {950, 550, 850}, behind[3] = {0, 400, 100};
    for (int s = 0; s < 3; s++) {
        sub->sockets[s].received = took[s];
        sub->sockets[s].behind = behind[s];
    }
    link_row_t *row = &f.rows[0];
    *row = (link_row_t){.seconds = 1,
                        .window_received = 2400,
                        .expected = 3000,
                        .received = 2350};
    int64_t proven[2] = {-1, 650};
    socket_row_t out[3];
    CHECK(trial_sockets_rows(&sockets, f.w, proven, f.rows, 1, out) == 3);
    CHECK(row->sockets == 3);
    CHECK(row->min_socket_rate == 500 && row->max_socket_rate == 1000);
    //  each socket's loss: its third of expected less what it took; what
    //  its sequence numbers prove: its own lag, and a third of the rest
    int64_t lost[3] = {50, 450, 150};
    double rate[3] = {1000, 500, 900};
    for (int s = 0; s < 3; s++) {
        CHECK(strcmp(out[s].stage, "sub") == 0 && out[s].socket == s + 1);
        CHECK(out[s].received == took[s] && out[s].lost == lost[s]);
        CHECK(out[s].seq_lost == lost[s] && out[s].rate == rate[s]);
    }
    //  no room for socket rows: the link rows only
    *row = (link_row_t){.seconds = 2, .window_received = 2400};
    CHECK(trial_sockets_rows(&sockets, f.w, proven, f.rows, 1, NULL) == 0);
    CHECK(row->min_socket_rate == 500 && row->max_socket_rate == 1000);
    trial_sockets_destroy(&sockets);
    trial_fixture_destroy(&f);
    //  nobody of several sockets: a row's slowest and fastest are its own
    CHECK(trial_fixture_new(&f, "topology = t\npublisher = pub\nhop\n"
                                "subscriber = sub\n") == 0);
    CHECK(trial_sockets_new(&sockets, f.pl) == 0 && sockets.nsockets == 0);
    row = &f.rows[0];
    *row = (link_row_t){.seconds = 2, .window_received = 2400};
    CHECK(trial_sockets_rows(&sockets, f.w, NULL, f.rows, 1, NULL) == 0);
    CHECK(row->sockets == 1 && row->min_socket_rate == 1200 &&
          row->max_socket_rate == 1200);
    trial_sockets_destroy(&sockets);
    trial_fixture_destroy(&f);
    return 0;
}
