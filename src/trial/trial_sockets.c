/*  trial_sockets: what a trial's counters mean for subscribers of several
    SUB sockets (sockets = N, stages/sockets.h).

    Each socket counts in its stage's shared block; at the window's edges
    every socket's count is read into socket0 / socket1 (made before the
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
*/
#include "trial/trial_state.h"

#include "base/mono.h"

#include <stdlib.h>

int trial_sockets_new(trial_t *self)
{
    const pipeline_t *pl = self->pl;
    long n = 0;
    for (int i = 0; i < pl->n; i++) {
        self->socket_first[i] = n;
        if (pipeline_sockets(pl, i) > 1)
            n += pipeline_sockets(pl, i);
    }
    self->nsockets = n;
    if (n == 0)
        return 0;
    self->socket0 = calloc((size_t)n, sizeof *self->socket0);
    self->socket1 = calloc((size_t)n, sizeof *self->socket1);
    self->result->sockets = calloc((size_t)n, sizeof *self->result->sockets);
    return self->socket0 && self->socket1 && self->result->sockets ? 0 : -1;
}

void trial_sockets_destroy(trial_t *self)
{
    free(self->socket0);
    free(self->socket1);
    self->socket0 = self->socket1 = NULL;
}

//  Socket s of instance i, now
static uint64_t s_count(trial_t *self, int i, int s)
{
    const stage_shared_t *shared = stage_handle_shared(self->stage[i]);
    return atomic_load_explicit(&shared->sockets[s].received,
                                memory_order_relaxed);
}

void trial_sockets_edge(trial_t *self, int i, int recording)
{
    int n = pipeline_sockets(self->pl, i);
    if (n <= 1 || recording < 0 || !self->socket0)
        return;
    uint64_t *into =
        (recording ? self->socket0 : self->socket1) + self->socket_first[i];
    double before = mono_seconds();
    for (int s = 0; s < n; s++)
        into[s] = s_count(self, i, s);
    //  a remote stage's sockets came with its COUNTS, at its reading
    const snapshot_t *snap = recording ? &self->s0 : &self->s1;
    self->sockets_at[recording ? 0 : 1][i] =
        self->pl->inst[i].host[0] ? snap->at[i]
                                  : (before + mono_seconds()) / 2;
}

//  Socket s of instance i's rate between its two readings
static double s_rate(const trial_t *self, int i, int s)
{
    long k = self->socket_first[i] + s;
    double seconds = self->sockets_at[1][i] - self->sockets_at[0][i];
    return seconds > 0 ? (double)(self->socket1[k] - self->socket0[k]) / seconds
                       : 0;
}

//  A row's sockets and its slowest and fastest socket's rate
static void s_row(trial_t *self, int to, link_row_t *row)
{
    int n = pipeline_sockets(self->pl, to);
    row->sockets = n;
    row->min_socket_rate = row->max_socket_rate = link_rate(row);
    for (int s = 0; s < n && n > 1 && self->socket0; s++) {
        double rate = s_rate(self, to, s);
        if (s == 0 || rate < row->min_socket_rate)
            row->min_socket_rate = rate;
        if (s == 0 || rate > row->max_socket_rate)
            row->max_socket_rate = rate;
    }
}

//  Every socket of instance i into the result's socket rows
static void s_instance_rows(trial_t *self, int i)
{
    trial_result_t *result = self->result;
    const stage_shared_t *shared = stage_handle_shared(self->stage[i]);
    int n = pipeline_sockets(self->pl, i);
    int64_t proven = trial_seq_lost(self, i), behind = 0;
    for (int s = 0; s < n; s++)
        behind += (int64_t)shared->sockets[s].behind;
    int64_t common = (proven - behind) / n;
    uint64_t expected = 0; //  the links into it, every socket's
    for (int l = 0; l < result->nlinks; l++)
        if (self->links[l].to == i)
            expected += result->links[l].expected;
    for (int s = 0; s < n; s++) {
        socket_row_t *row = &result->sockets[result->nsockets++];
        snprintf(row->stage, sizeof row->stage, "%s", self->pl->inst[i].name);
        row->socket = s + 1;
        row->received = s_count(self, i, s);
        row->lost = (int64_t)(expected / (uint64_t)n) - (int64_t)row->received;
        row->seq_lost = (int64_t)shared->sockets[s].behind + common;
        row->rate = s_rate(self, i, s);
    }
}

void trial_sockets_rows(trial_t *self)
{
    for (int l = 0; l < self->result->nlinks && l < self->nlinks; l++)
        s_row(self, self->links[l].to, &self->result->links[l]);
    if (!self->result->sockets)
        return;
    self->result->nsockets = 0;
    for (int i = 0; i < self->pl->n; i++)
        if (pipeline_sockets(self->pl, i) > 1)
            s_instance_rows(self, i);
}
