/*  trial_stall: a window in which a link stopped is not a figure.

    While the window is open the controller polls every link's count
    (trial.c, every TRIAL_POLL_MS).  Three things say a link stalled for
    at least TRIAL_STALL_SPAN seconds of the window:

      - its count stayed the same from one poll to another that long
        (it delivered nothing, and delivered before and after);
      - a stage at one of its ends took that long to give its counters
        (a steerable proxy answers STATISTICS between messages: blocked
        on a full pipe, it forwards nothing either);
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
*/
#include "trial/trial_state.h"

#include "base/stats.h"

#include <stdlib.h>

#define TRIAL_STALL_SPAN     0.5 //  seconds: the shortest stall
#define TRIAL_STALL_MESSAGES 100 //  at the median rate, in a stall

void trial_stall_open(trial_t *self)
{
    for (int l = 0; l < self->nlinks; l++) {
        self->stretch_t[l] = self->same_t[l] = self->s0.t;
        self->stretch_count[l] = self->same_count[l] =
            self->s0.link_received[l];
        self->slowest_rate[l] = -1;
        self->slowest_seconds[l] = self->frozen[l] = 0;
    }
    for (int i = 0; i < self->pl->n; i++)
        self->blocked[i] = 0;
}

//  The slowest stretch of link l, and how long its count stood still
static void s_poll_link(trial_t *self, int l, const snapshot_t *now)
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

void trial_stall_poll(trial_t *self, const snapshot_t *now)
{
    for (int l = 0; l < self->nlinks; l++)
        s_poll_link(self, l, now);
    for (int i = 0; i < self->pl->n; i++)
        if (self->width[i] > self->blocked[i])
            self->blocked[i] = self->width[i];
}

//  The longest a stage at one of link l's ends could not be read
static double s_blocked(trial_t *self, int l)
{
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(self->pl, &self->links[l], ids);
    double most = self->blocked[self->links[l].to];
    for (int k = 0; k < n; k++)
        most = self->blocked[ids[k]] > most ? self->blocked[ids[k]] : most;
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

//  The median over links of their rates per message sent (s_share)
static double s_median_rate(const trial_result_t *result)
{
    double *rates = calloc((size_t)result->nlinks + 1, sizeof *rates);
    if (!rates)
        return 0;
    for (int l = 0; l < result->nlinks; l++)
        rates[l] = link_rate(&result->links[l]) / s_share(&result->links[l]);
    stats_sort(rates, result->nlinks);
    double median =
        result->nlinks ? stats_median_sorted(rates, result->nlinks) : 0;
    free(rates);
    return median;
}

//  Did link l deliver nothing in the window, but after it?
static bool s_empty(const trial_t *self, int l, const link_row_t *row)
{
    double rate = self->spec.rate;
    bool paced_few =
        rate > 0 && rate * self->window_seconds < TRIAL_STALL_MESSAGES;
    return self->pl->params.stall_ratio > 0 && !paced_few &&
           row->window_received == 0 &&
           self->last.link_received[l] > self->s1.link_received[l];
}

//  Each row's longest stall: slowest_seconds at slowest_rate msgs/s
void trial_stall_rows(trial_t *self)
{
    trial_result_t *result = self->result;
    double ratio = self->pl->params.stall_ratio;
    double median = s_median_rate(result);
    bool judged =
        ratio > 0 && median * TRIAL_STALL_SPAN >= TRIAL_STALL_MESSAGES;
    result->stalled = 0;
    for (int l = 0; l < result->nlinks && l < self->nlinks; l++) {
        link_row_t *row = &result->links[l];
        double still = self->frozen[l], blocked = s_blocked(self, l);
        row->slowest_rate = self->slowest_rate[l];
        row->slowest_seconds = self->slowest_seconds[l];
        if (still > blocked && still >= TRIAL_STALL_SPAN)
            row->slowest_rate = 0, row->slowest_seconds = still;
        else if (blocked >= TRIAL_STALL_SPAN)
            row->slowest_rate = 0, row->slowest_seconds = blocked;
        row->stalled = judged && row->slowest_rate >= 0 &&
                       row->slowest_seconds >= TRIAL_STALL_SPAN &&
                       row->slowest_rate < ratio * median * s_share(row);
        if (s_empty(self, l, row)) {
            row->stalled = 1;
            row->slowest_rate = 0;
            row->slowest_seconds = self->window_seconds;
        }
        result->stalled += row->stalled;
    }
}
