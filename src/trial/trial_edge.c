/*  trial_edge: the stages' counters read: a snapshot, and a window's
    edge, every counter as it was at one instant.

    A snapshot reads every counter, stage after stage: the senders' and
    receivers' relaxed atomics, the proxies' counts, the clock, and each
    stage's CPU time (its thread, plus the libzmq and engine threads
    charged to it, which trial_threads.c finds).  What the counts mean is
    trial_counters.c's.

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
    EDGE_ATTEMPTS times).  A stage on another host is read once per
    sample, and an edge with such stages taken once: a network round
    trip is never EDGE_TIGHT_S.  Every stage is asked (COUNTS, CPU) before
    any reply is read, so the hosts answer together: a sample of a
    fleet is one round trip and the replies' reading, not a round trip
    per stage (at 100 hosts on a busy machine, 1.4 s of serial round
    trips for the opening edge, 0.15 s asked ahead).

    A window's closing edge may be asked for an instant (edge_at: the
    opening's and the duration): its first samples are taken early
    enough (by the opening edge's lead: tens of ms across many hosts),
    then T waits for that instant, so the window lasts what was asked
    however long an edge takes; it is taken once (again, it would be
    late).  An agent says when it read its stages' counters (its clock,
    mapped to the controller's by the offset measured at set-up, and
    kept within the question's round trip), so a fleet's samples are
    placed at their instants, not at the middle of a round trip that
    reading a hundred answers stretches; and an instant asked stays the
    edge's when every stage was read by then, however late the answers
    were read here.

    The stages are told the window's phase (their latency samples on or
    off) at the edge's instant itself, between the samples before and
    after it, so that the samples are of the messages the window counts
    however long the samples before the instant took.

    The stages write nothing more for this: their counters are read where
    they are (shared memory, a proxy's STATISTICS, an agent's COUNTS), and
    the hot loops are untouched.
*/
#include "trial/trial_state.h"

#include "base/mono.h"
#include "config/params.h"

#include <math.h>

#define EDGE_TRIES    2     //  samples of a stage, keeping the narrowest
#define EDGE_TIGHT_S  20e-6 //  a bracket this narrow is kept at once
#define EDGE_SPAN_S   5e-3  //  both samples of every stage within this
#define EDGE_ATTEMPTS 2     //  edges taken before the last is kept

//  ------------------------------------------------------------------------
//  Snapshots

//  Does a link's receiving end count it apart from its other links (it
//  tells origins apart, and the link carries only some of what it takes:
//  from one source, or over one of several hops)?
static bool s_per_origin(const pipeline_t *pl, const link_t *link)
{
    return link->from >= 0 && pipeline_sees_origins(pl, link->to) &&
           (pipeline_is_source(pl, link->from) ||
            pipeline_next_hop_in(pl, link->to, pipeline_hop_in(pl, link->to)) >=
                0);
}

//  What a receiver that tells origins apart took of a link's origins
static uint64_t s_origins_received(trial_t *self, const link_t *link)
{
    uint64_t sum = 0;
    for (int o = 0; o < self->w.pl->norigins; o++)
        if (link->origins >> o & 1)
            sum += stage_handle_origin(self->stage[link->to], o);
    return sum;
}

//  Its thread and its helpers, whose CPU time is its: how many
static int s_cpu_tids(trial_t *self, int id, pid_t *tids)
{
    int n = 0;
    tids[n++] = stage_handle_shared(self->stage[id])->tid;
    for (int i = 0; i < self->nhelpers && n < THREADS_MAX; i++)
        if (self->helper_owner[i] == id)
            tids[n++] = self->helper_tid[i];
    return n;
}

//  Their CPU time, read where they run
static int s_cpu_ns(trial_t *self, int id, uint64_t *ns, errbuf_t *err)
{
    pid_t tids[THREADS_MAX];
    int n = s_cpu_tids(self, id, tids);
    return stage_handle_cpu_ns(self->stage[id], tids, n, ns, err);
}

//  Question what sent ahead to every stage, for the reads that follow:
//  the stages on other hosts answer together, a round trip for all
static void s_ask_all(trial_t *self, stage_ask_t what)
{
    pid_t tids[THREADS_MAX];
    for (int i = 0; i < self->w.pl->n; i++) {
        int n = what == STAGE_ASK_CPU ? s_cpu_tids(self, i, tids) : 0;
        stage_handle_ask(self->stage[i], what, tids, n);
    }
}

//  Stage i's counters into snap, and right after them its links' own
//  counts, the clock read on both sides: the counts were true at some
//  instant between the two readings; at[i] is their middle, width[i] the
//  time between them
static int s_read_stage(trial_t *self, int i, snapshot_t *snap, errbuf_t *err)
{
    stage_counts_t counts = {0};
    double before = mono_seconds();
    if (stage_handle_counts(self->stage[i], &counts, err))
        return -1;
    if (counts.asked > 0) //  asked ahead: true since then
        before = counts.asked;
    snap->sent[i] = counts.sent;
    snap->received[i] = counts.received;
    for (int l = 0; l < self->w.nlinks; l++) {
        const link_t *link = &self->w.links[l];
        if (link->to == i)
            snap->link_received[l] = s_per_origin(self->w.pl, link)
                                         ? s_origins_received(self, link)
                                         : counts.received;
    }
    double after = mono_seconds();
    snap->at[i] = snap->t = (before + after) / 2;
    self->width[i] = after - before;
    if (counts.stamp_error > 0) { //  its host's instant, within the bracket
        snap->at[i] = snap->t = fmin(fmax(counts.t, before), after);
        self->width[i] = fmin(2 * counts.stamp_error, after - before);
    }
    trial_stall_read(&self->stall, i, before, after);
    return 0;
}

//  What the links were sent, and every stage's CPU time, after the
//  stages' counters are in snap; a CPU time that cannot be read (its
//  host lost) ends the trial as a counter would
static int s_snapshot_finish(trial_t *self, snapshot_t *snap, errbuf_t *err)
{
    s_ask_all(self, STAGE_ASK_CPU);
    for (int i = 0; i < self->w.pl->n; i++)
        if (s_cpu_ns(self, i, &snap->cpu_ns[i], err))
            return -1;
    for (int l = 0; l < self->w.nlinks; l++)
        snap->link_sent[l] =
            trial_link_sent(self->w.pl, &self->w.links[l], snap);
    return 0;
}

int trial_snapshot(trial_t *self, snapshot_t *snap, errbuf_t *err)
{
    s_ask_all(self, STAGE_ASK_COUNTS);
    for (int i = 0; i < self->w.pl->n; i++)
        if (s_read_stage(self, i, snap, err))
            return -1;
    return s_snapshot_finish(self, snap, err);
}

//  ------------------------------------------------------------------------
//  A window's edge

//  Stage i's counters into dst, the narrowest of a few samples; try is
//  scratch
static int s_sample(trial_t *self, int i, snapshot_t *dst, snapshot_t *try,
                    errbuf_t *err)
{
    double best = INFINITY;
    //  a stage on a host is a network round trip away, never 20 us: once
    int tries = self->w.pl->inst[i].host[0] ? 1 : EDGE_TRIES;
    for (int k = 0; k < tries && best > EDGE_TIGHT_S; k++) {
        if (s_read_stage(self, i, try, err))
            return -1;
        double width = self->width[i];
        if (width >= best)
            continue;
        best = width;
        dst->sent[i] = try->sent[i];
        dst->received[i] = try->received[i];
        dst->at[i] = try->at[i];
        for (int l = 0; l < self->w.nlinks; l++)
            if (self->w.links[l].to == i)
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
    for (int i = 0; i < self->w.pl->n; i++) {
        snap->sent[i] = s_at(a->sent[i], a->at[i], b->sent[i], b->at[i], t);
        snap->received[i] =
            s_at(a->received[i], a->at[i], b->received[i], b->at[i], t);
        snap->at[i] = t;
    }
    for (int l = 0; l < self->w.nlinks; l++) {
        int to = self->w.links[l].to;
        snap->link_received[l] = s_at(a->link_received[l], a->at[to],
                                      b->link_received[l], b->at[to], t);
    }
    snap->t = t;
}

//  The stages told the window's phase (recording 1: it opens, 0: it
//  closes, -1: neither), at the edge's instant: their latency samples
//  are of the messages the window counts, however long the samples
//  before it took (a descheduled controller: tenths of a second)
static void s_record(trial_t *self, int recording)
{
    for (int i = 0; i < self->w.pl->n && recording >= 0; i++)
        stage_handle_record(self->stage[i],
                            recording ? STAGE_WINDOW : STAGE_BEFORE);
}

//  Samples of every stage before (a) and after (b) the instant *t, the
//  stages told the phase at it; the time from the first sample to the last
static int s_bracket(trial_t *self, int recording, double *t, double *span,
                     errbuf_t *err)
{
    snapshot_t *a = &self->edge[0], *b = &self->edge[1], *try = &self->edge[2];
    double first = mono_seconds();
    s_ask_all(self, STAGE_ASK_COUNTS);
    for (int i = 0; i < self->w.pl->n; i++)
        if (s_sample(self, i, a, try, err))
            return -1;
    double sampled = mono_seconds(), last = -INFINITY;
    for (int i = 0; i < self->w.pl->n; i++)
        last = fmax(last, a->at[i]);
    if (self->edge_at > sampled) //  early: the instant asked, exactly
        mono_sleep(self->edge_at - sampled);
    s_record(self, recording);
    double resumed = mono_seconds();
    //  an instant asked is the edge's if every stage was read by then (a
    //  fleet's hosts read their counters when asked, and say when: the
    //  answers' reading here may end later), else the last reading's
    *t = self->edge_at > 0 ? fmin(resumed, fmax(self->edge_at, last)) : resumed;
    s_ask_all(self, STAGE_ASK_COUNTS);
    for (int i = 0; i < self->w.pl->n; i++)
        if (s_sample(self, i, b, try, err))
            return -1;
    *span = sampled - first + mono_seconds() - resumed;
    return 0;
}

//  At a window's edge (recording 1: its start, 0: its end), instance i's
//  sockets' counts, each read once here: their slowest and fastest
//  rates, not the row's, which is interpolated.  A remote stage's
//  sockets came with its COUNTS, at its reading
static void s_sockets_edge(trial_t *self, int i, int recording,
                           const snapshot_t *snap)
{
    if (recording < 0 || pipeline_sockets(self->w.pl, i) <= 1)
        return;
    int edge = recording ? 0 : 1;
    double before = mono_seconds();
    trial_sockets_edge(&self->sockets, self->w.pl, i, edge,
                       stage_handle_shared(self->stage[i]));
    trial_sockets_at(&self->sockets, i, edge,
                     self->w.pl->inst[i].host[0]
                         ? snap->at[i]
                         : (before + mono_seconds()) / 2);
}

int trial_snapshot_edge(trial_t *self, snapshot_t *snap, int recording,
                        errbuf_t *err)
{
    double start = mono_seconds();
    //  an instant asked is kept: taken again, the edge would be later;
    //  and stages on hosts, a round trip each, spread an edge past
    //  EDGE_SPAN_S however often it is taken
    bool remote = false;
    for (int i = 0; i < self->w.pl->n; i++)
        remote |= self->w.pl->inst[i].host[0] != 0;
    double t = 0, span = INFINITY;
    int attempts = self->edge_at > 0 || remote ? 1 : EDGE_ATTEMPTS;
    for (int k = 0; k < attempts && span > EDGE_SPAN_S; k++)
        if (s_bracket(self, recording, &t, &span, err))
            return -1;
    self->edge_lead = t - start;
    self->edge_span = span;
    self->edge_at = 0;
    s_interpolate(self, &self->edge[0], &self->edge[1], t, snap);
    if (s_snapshot_finish(self, snap, err))
        return -1;
    for (int i = 0; i < self->w.pl->n; i++)
        s_sockets_edge(self, i, recording, snap);
    self->edge_took = mono_seconds() - start;
    return 0;
}
