/*  trial_timeline: each link's rate over the window; see trial_timeline.h.

    A sample is a snapshot's time and each link's received count; a row
    is one link's count over one step between two samples, divided by the
    step, placed at the step's end.  Halving (every other sample dropped,
    the first and the last kept in spirit: the first always, the newest
    appended after) keeps the memory bounded whatever the window.
*/
#include "trial/trial_timeline.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

void trial_timeline_free(trial_timeline_t *self)
{
    free(self->received);
    memset(self, 0, sizeof *self);
}

//  Every other sample dropped, the first kept
static void s_halve(trial_timeline_t *self)
{
    int kept = 0;
    for (int i = 0; i < self->n; i += 2, kept++) {
        self->t[kept] = self->t[i];
        memmove(self->received + (size_t)kept * (size_t)self->nlinks,
                self->received + (size_t)i * (size_t)self->nlinks,
                (size_t)self->nlinks * sizeof *self->received);
    }
    self->n = kept;
}

void trial_timeline_poll(trial_timeline_t *self, const snapshot_t *now)
{
    if (!self->received)
        return;
    //  a snapshot soon after the last (the window's edge after a poll)
    //  takes its place: a step of a few ms reads a rate of noise
    if (self->n > 1 && now->t - self->t[self->n - 1] < TIMELINE_MIN_STEP)
        self->n--;
    if (self->n == TIMELINE_SAMPLES)
        s_halve(self);
    self->t[self->n] = now->t;
    memcpy(self->received + (size_t)self->n * (size_t)self->nlinks,
           now->link_received, (size_t)self->nlinks * sizeof *self->received);
    self->n++;
}

void trial_timeline_open(trial_timeline_t *self, const trial_window_t *w)
{
    trial_timeline_free(self);
    self->nlinks = w->nlinks;
    self->received = w->nlinks
                         ? calloc((size_t)TIMELINE_SAMPLES * (size_t)w->nlinks,
                                  sizeof *self->received)
                         : NULL;
    trial_timeline_poll(self, &w->s0);
}

int trial_timeline_rows(const trial_timeline_t *self, trial_result_t *result)
{
    int steps = self->n > 1 ? self->n - 1 : 0;
    int nlinks = self->nlinks < result->nlinks ? self->nlinks : result->nlinks;
    result->ntimeline = 0;
    if (steps == 0 || nlinks == 0)
        return 0;
    result->timeline =
        calloc((size_t)steps * (size_t)nlinks, sizeof *result->timeline);
    if (!result->timeline)
        return -1;
    for (int l = 0; l < nlinks; l++)
        for (int i = 1; i <= steps; i++) {
            double dt = self->t[i] - self->t[i - 1];
            uint64_t a = self->received[(size_t)(i - 1) * self->nlinks + l];
            uint64_t b = self->received[(size_t)i * self->nlinks + l];
            result->timeline[result->ntimeline++] = (timeline_row_t){
                .link = l,
                .seconds = self->t[i] - self->t[0],
                .rate = dt > 0 && b >= a ? (double)(b - a) / dt : 0};
        }
    return 0;
}

//  ---------------------------------------------------------------------
//  Selftest: a window of one link made by hand

int trial_timeline_test(bool verbose)
{
    (void)verbose;
    static trial_window_t w;
    static snapshot_t snap;
    trial_timeline_t self = {0};
    trial_result_t result = {.nlinks = 1};
    w.nlinks = 1;
    w.s0.t = 10;
    trial_timeline_open(&self, &w);
    //  1000 msgs/s for 200 polls of 25 ms: halved down to 64 samples; the
    //  last edge 2 ms after the last poll takes its place
    for (int i = 1; i <= 200; i++) {
        snap.t = 10 + i * 0.025;
        snap.link_received[0] = (uint64_t)i * 25;
        trial_timeline_poll(&self, &snap);
    }
    snap.t += 0.002;
    snap.link_received[0] = 5002;
    trial_timeline_poll(&self, &snap);
    CHECK(self.n <= TIMELINE_SAMPLES && self.n > TIMELINE_SAMPLES / 2);
    CHECK(trial_timeline_rows(&self, &result) == 0);
    CHECK(result.ntimeline == self.n - 1);
    double last = 0;
    for (int r = 0; r < result.ntimeline; r++) {
        CHECK(result.timeline[r].rate > 999 && result.timeline[r].rate < 1001);
        CHECK(result.timeline[r].seconds > last);
        last = result.timeline[r].seconds;
    }
    CHECK(last > 5.0 && last < 5.01); //  the whole window, at its end
    free(result.timeline);
    trial_timeline_free(&self);
    CHECK(self.received == NULL);
    return 0;
}
