/*  trial_giveup: a search's trial whose loss has already decided it.

    A search judges a trial by what each hop lost of what it was sent,
    over the whole trial (trial/search.h).  Loss only grows: once a
    subscriber's sequence numbers prove more lost than the loss ratio
    allows of everything the trial would bring it, the rest of the window
    cannot make it pass.  So, when the spec asks (give_up), the window
    ends at the next poll, and the trial goes on to its drain and rows as
    any other, marked cut_short; its verdict is the one the whole window
    would have had.  On a machine where a 5 s confirmation at zero loss
    rarely passes, a failing one then costs the time to its first loss,
    not its window (RFC 9971's point too: a trial that has failed need
    not run its whole duration).

    What the whole trial would bring a subscriber is what it has taken
    and proven lost so far, at the rate since the sources started, over
    the trial's planned time (warm-up and window).  For NDR (ratio 0) any
    proven loss is enough.  The gaps are read live from the subscriber's
    block (stages/sequence.h stores them with relaxed atomics); a stage
    on another host shows the gaps of its last sync, fewer or the same,
    and a subscriber of several sockets sums its gaps only when its loop
    ends: neither can end a window too early, only too late.
*/
#include "trial/trial_giveup.h"

//  What sink 'to' has proven lost so far, over every origin
static uint64_t s_gaps(const trial_window_t *w, int to)
{
    const stage_shared_t *shared = w->shared[to];
    uint64_t gaps = 0;
    for (int id = 0; id < w->pl->n; id++) {
        int o = w->pl->inst[id].origin;
        if (o >= 0 && o < STAGE_MAX_ORIGINS)
            gaps += __atomic_load_n(&shared->origins[o].gaps, __ATOMIC_RELAXED);
    }
    return gaps;
}

bool trial_give_up(const trial_window_t *w, const trial_spec_t *spec,
                   double go_t, double now)
{
    if (!spec->give_up.on || now - w->s0.t < spec->give_up.after || now <= go_t)
        return false;
    double whole = (w->s0.t + spec->duration - go_t) / (now - go_t);
    for (int to = 0; to < w->pl->n; to++) {
        if (!pipeline_is_sink(w->pl, to))
            continue;
        uint64_t gaps = s_gaps(w, to);
        double brought = (double)(w->last.received[to] + gaps) * whole;
        if (gaps > 0 && (double)gaps > spec->give_up.ratio * brought)
            return true;
    }
    return false;
}
