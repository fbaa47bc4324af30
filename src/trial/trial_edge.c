/*  trial_edge: a window's edge, every counter as it was at one instant.

    A snapshot reads the stages one after another, so each counter is true
    at its own time; a controller descheduled between two stages (or in a
    proxy's round trip) would give two adjacent hops windows of different
    lengths, and their rates would differ by the time it was away.  At an
    edge, instead, every counter is sampled twice: once before the edge's
    instant T, once after it.  Each sample is bracketed by two readings of
    the clock (the counts were true somewhere between them) and taken
    again (EDGE_TRIES in all) while the bracket is wider than
    EDGE_TIGHT_S, keeping the narrowest.  Each counter's value at T is
    then interpolated between its two samples, so every link's rate is
    over the same interval [T0, T1]: what a descheduling costs is the
    counter's departure from a straight line between two samples close
    to T, not the time the controller was away.  An edge whose samples
    spread over more than EDGE_SPAN_S is taken again (at most
    EDGE_ATTEMPTS times).

    The stages write nothing more for this: their counters are read where
    they are (shared memory, a proxy's STATISTICS, an agent's COUNTS), and
    the hot loops are untouched.

    HOPBENCH_TEST_EDGE_PAUSE=PATH (tests only) holds the controller at a
    window's end, between the counters and the CPU times, until PATH is
    gone: a test places a fault on a host there, the moment the
    controller is about to read it (tests/77-host-faults-timing.t).
*/
#include "trial/trial_state.h"

#include "base/mono.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#define EDGE_TRIES    2     //  samples of a stage, keeping the narrowest
#define EDGE_TIGHT_S  20e-6 //  a bracket this narrow is kept at once
#define EDGE_SPAN_S   5e-3  //  both samples of every stage within this
#define EDGE_ATTEMPTS 2     //  edges taken before the last is kept
#define EDGE_PAUSE_S  30    //  HOPBENCH_TEST_EDGE_PAUSE holds at most this

//  Stage i's counters into dst, the narrowest of a few samples; try is
//  scratch
static int s_sample(trial_t *self, int i, snapshot_t *dst, snapshot_t *try,
                    errbuf_t *err)
{
    double best = INFINITY;
    for (int k = 0; k < EDGE_TRIES && best > EDGE_TIGHT_S; k++) {
        double width;
        if (trial_read_stage(self, i, try, &width, err))
            return -1;
        if (width >= best)
            continue;
        best = width;
        dst->sent[i] = try->sent[i];
        dst->received[i] = try->received[i];
        dst->at[i] = try->at[i];
        for (int l = 0; l < self->nlinks; l++)
            if (self->links[l].to == i)
                dst->link_received[l] = try->link_received[l];
    }
    return 0;
}

//  A counter at instant t, between its samples (a at ta, b at tb)
static uint64_t s_at(uint64_t a, double ta, uint64_t b, double tb, double t)
{
    if (b <= a || tb <= ta || t <= ta)
        return a;
    if (t >= tb)
        return b;
    return a + (uint64_t)llround((double)(b - a) * (t - ta) / (tb - ta));
}

//  Every counter of snap at t, from samples a (before t) and b (after)
static void s_interpolate(trial_t *self, const snapshot_t *a,
                          const snapshot_t *b, double t, snapshot_t *snap)
{
    for (int i = 0; i < self->pl->n; i++) {
        snap->sent[i] = s_at(a->sent[i], a->at[i], b->sent[i], b->at[i], t);
        snap->received[i] =
            s_at(a->received[i], a->at[i], b->received[i], b->at[i], t);
        snap->at[i] = t;
    }
    for (int l = 0; l < self->nlinks; l++) {
        int to = self->links[l].to;
        snap->link_received[l] = s_at(a->link_received[l], a->at[to],
                                      b->link_received[l], b->at[to], t);
    }
    snap->t = t;
}

//  Samples of every stage before (a) and after (b) the instant *t; the
//  time from the first sample to the last
static int s_bracket(trial_t *self, double *t, double *span, errbuf_t *err)
{
    snapshot_t *a = &self->edge[0], *b = &self->edge[1], *try = &self->edge[2];
    double first = mono_seconds();
    for (int i = 0; i < self->pl->n; i++)
        if (s_sample(self, i, a, try, err))
            return -1;
    *t = mono_seconds();
    for (int i = 0; i < self->pl->n; i++)
        if (s_sample(self, i, b, try, err))
            return -1;
    *span = mono_seconds() - first;
    return 0;
}

//  HOPBENCH_TEST_EDGE_PAUSE: PATH made, then waited on until it is gone
static void s_test_pause(void)
{
    const char *path = getenv("HOPBENCH_TEST_EDGE_PAUSE");
    int fd = path && *path ? open(path, O_CREAT | O_WRONLY, 0600) : -1;
    if (fd < 0)
        return;
    close(fd);
    double until = mono_seconds() + EDGE_PAUSE_S;
    while (access(path, F_OK) == 0 && mono_seconds() < until)
        mono_sleep(0.005);
}

int trial_snapshot_edge(trial_t *self, snapshot_t *snap, int recording,
                        errbuf_t *err)
{
    for (int i = 0; i < self->pl->n && recording >= 0; i++)
        stage_handle_record(self->stage[i],
                            recording ? STAGE_WINDOW : STAGE_BEFORE);
    double t = 0, span = INFINITY;
    for (int k = 0; k < EDGE_ATTEMPTS && span > EDGE_SPAN_S; k++)
        if (s_bracket(self, &t, &span, err))
            return -1;
    s_interpolate(self, &self->edge[0], &self->edge[1], t, snap);
    if (recording == 0)
        s_test_pause();
    if (trial_snapshot_finish(self, snap, err))
        return -1;
    //  a subscriber's sockets, each read once here: their slowest and
    //  fastest rates, not the row's, which is interpolated
    for (int i = 0; i < self->pl->n; i++)
        trial_sockets_edge(self, i, recording);
    return 0;
}
