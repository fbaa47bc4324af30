/*  trial: drive the stages of one measurement (see trial.h for the steps).

    The controller thread sleeps between polls of the stages' counters; it
    never sits in the message path.  Streams (pubsub, pushpull) are timed by
    the controller's snapshots; reqrep round trips are timed by the
    requesters themselves.  What the counters mean is trial_counters.c,
    and every analysis (counters, topics, sockets, stalls, starvation) is
    fed here what the window measured (trial_window.h), never this state.
*/
#define _GNU_SOURCE
#include "trial/trial_drain.h"
#include "trial/trial_state.h"

#include "base/interrupt.h"
#include "base/mono.h"
#include "config/engines.h"
#include "trial/trial_counters.h"
#include "trial/trial_giveup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#define TRIAL_POLL_MS       50   //  failure checks while the window is open
#define TRIAL_QUIET_MS      250  //  no counter moved this long: drained
#define TRIAL_ABORT_MS      1000 //  after a failure, for every stage's last word
#define TRIAL_WARMUP_REUSED 0.03 //  at most, on a pipeline that stayed up
//  Quiet on a pipeline that stays up: shorter, as a message it leaves
//  behind is caught by its epoch (the next trial is void, run afresh)
#define TRIAL_QUIET_KEPT_MS 50
//  Polls of the warm-up and the drain on a pipeline that stays up, whose
//  trials are short: each poll's wait is overhead on every trial
#define TRIAL_POLL_KEPT_MS 10

static bool s_source(const trial_t *self, int id)
{
    return pipeline_is_source(self->w.pl, id);
}

//  Read what a running stage sends when its loop ends (DONE or ERR)
static int s_collect(trial_t *self, int i, int timeout_ms, errbuf_t *err)
{
    int rc = stage_handle_wait(self->stage[i], timeout_ms, err);
    if (rc == 0 || !interrupt_signal())
        self->running[i] = false;
    return rc;
}

//  Fail if a stage has ended on its own (an error) before being told to
static int s_check_others(trial_t *self, int except, errbuf_t *err)
{
    if (interrupt_signal())
        return err_set(err, "interrupted");
    for (int i = 0; i < self->w.pl->n; i++) {
        if (i == except || self->setting[i] ||
            (self->sources_ending && s_source(self, i)))
            continue;
        if (stage_handle_ready(self->stage[i], 0)) {
            if (s_collect(self, i, self->timeout_ms, err) == 0)
                err_set(err, "stage %s stopped before it was told to",
                        self->w.pl->inst[i].name);
            return -1;
        }
    }
    return 0;
}

static int s_check_stages(trial_t *self, errbuf_t *err)
{
    return s_check_others(self, -1, err);
}

//  A command to stage i, whose answer is awaited while the others are
//  watched: a stage (or its process) that dies meanwhile ends the wait
static int s_answer(trial_t *self, int i, const char *command, int timeout_ms,
                    errbuf_t *err)
{
    stage_handle_t *stage = self->stage[i];
    double end = mono_seconds() + timeout_ms / 1000.0;
    while (!stage_handle_ready(stage, 20)) {
        if (s_check_others(self, i, err))
            return -1;
        if (mono_seconds() > end) {
            err_set(err, "no answer to %s within %g s", command,
                    timeout_ms / 1000.0);
            return err_stage(err, self->w.pl->inst[i].name);
        }
    }
    return stage_handle_wait(stage, timeout_ms, err);
}

static int s_command(trial_t *self, int i, const char *command, int timeout_ms,
                     errbuf_t *err)
{
    if (stage_handle_send(self->stage[i], command, timeout_ms, err))
        return -1;
    return s_answer(self, i, command, timeout_ms, err);
}

//  RUN, and remember the stage is running
static int s_run_stage(trial_t *self, int i, errbuf_t *err)
{
    if (s_command(self, i, "RUN", self->timeout_ms, err))
        return -1;
    self->running[i] = true;
    return 0;
}

//  ------------------------------------------------------------------------
//  Start and stop

//  Every stage's counters to their start, in a new epoch; then SETUP,
//  unless the pipeline stayed up from the last trial (all of it idle).
//  The stages on other hosts are all told first and answer together (a
//  round trip for all of them; their hops are tcp, whose connects libzmq
//  retries until the binds are there); the others one after another
static int s_start(trial_t *self, errbuf_t *err)
{
    const stage_trial_t trial = {self->spec.size, self->spec.rate,
                                 self->spec.timed, ++self->crew->epoch};
    const pipeline_t *pl = self->w.pl;
    for (int i = 0; i < pl->n; i++) {
        stage_handle_reset(self->stage[i], &trial);
        self->open[i] = self->continuing;
    }
    for (int i = 0; i < pl->n && !self->continuing; i++)
        if (pl->inst[i].host[0]) {
            if (stage_handle_send(self->stage[i], "SETUP", self->timeout_ms,
                                  err))
                return -1;
            self->setting[i] = self->open[i] = true;
        }
    for (int i = 0; i < pl->n && !self->continuing; i++) {
        bool sent = self->setting[i];
        self->setting[i] = false;
        if (sent ? s_answer(self, i, "SETUP", self->timeout_ms, err)
                 : s_command(self, i, "SETUP", self->timeout_ms, err))
            return -1;
        self->open[i] = true;
    }
    return 0;
}

//  Receivers and proxies first, then the handshake (subscriptions proven
//  once per pipeline), then the sources
static int s_go(trial_t *self, errbuf_t *err)
{
    for (int i = self->w.pl->n - 1; i >= 0; i--)
        if (!s_source(self, i) && s_run_stage(self, i, err))
            return -1;
    for (int i = 0; i < self->w.pl->n && !self->continuing; i++)
        if (s_source(self, i) &&
            s_command(self, i, "HANDSHAKE", self->timeout_ms + 1000, err))
            return -1;
    self->go_t = mono_seconds();
    for (int i = 0; i < self->w.pl->n; i++)
        if (s_source(self, i) && s_run_stage(self, i, err))
            return -1;
    return 0;
}

static void s_stop_sources(trial_t *self)
{
    errbuf_t ignored; //  a source's stop is its flags: it cannot fail
    self->sources_ending = true;
    for (int i = 0; i < self->w.pl->n; i++)
        if (s_source(self, i))
            stage_handle_stop(self->stage[i], &ignored);
}

//  Tell every stage to stop; collect the DONE of the sources too when
//  'sources' says so
static int s_stop(trial_t *self, bool sources, errbuf_t *err)
{
    int rc = 0;
    s_stop_sources(self);
    for (int i = 0; i < self->w.pl->n; i++)
        if (!s_source(self, i))
            rc |= stage_handle_stop(self->stage[i], err);
    for (int i = 0; i < self->w.pl->n; i++)
        if (self->running[i] && (sources || !s_source(self, i)) &&
            s_collect(self, i, self->timeout_ms, err))
            rc = -1;
    return rc;
}

//  After the drain, the sinks first: once they have ended, their counts are
//  final, and one more snapshot (the proxies still answer) reads every hop
//  as the trial left it.  What a sink did not take before it ended is lost
//  on both accounts, its hop's counters and its sequence numbers
static int s_stop_sinks(trial_t *self, errbuf_t *err)
{
    for (int i = 0; i < self->w.pl->n; i++)
        if (pipeline_is_sink(self->w.pl, i) &&
            stage_handle_stop(self->stage[i], err))
            return -1;
    for (int i = 0; i < self->w.pl->n; i++)
        if (self->running[i] && pipeline_is_sink(self->w.pl, i) &&
            s_collect(self, i, self->timeout_ms, err))
            return -1;
    return trial_snapshot(self, &self->w.last, err);
}

//  Close every socket the trial opened; the threads and their contexts
//  stay for the next trial (crew.h)
static int s_teardown(trial_t *self, errbuf_t *err)
{
    int rc = 0;
    for (int i = self->w.pl->n - 1; i >= 0; i--)
        if (self->open[i]) {
            if (stage_handle_command(self->stage[i], "TEARDOWN",
                                     self->timeout_ms, err))
                rc = -1;
            self->open[i] = false;
        }
    return rc;
}

static int s_left_ms(double until)
{
    double left = until - mono_seconds();
    return left > 0 ? (int)(left * 1000) : 0;
}

//  After a failure: unblock everything we can, then tear down what has
//  stopped, all within one bound (the crew is broken: it ends next).  A
//  stage still blocked then (on a peer that is gone, say) is not waited
//  for again: its end ends it
static void s_abort(trial_t *self)
{
    errbuf_t ignored;
    s_stop_sources(self);
    for (int i = 0; i < self->w.pl->n; i++)
        if (!s_source(self, i))
            stage_handle_stop(self->stage[i], &ignored);
    for (int i = 0; i < self->w.pl->n; i++)
        stage_handle_abort(self->stage[i]);
    self->crew->broken = true;
    int bound =
        self->timeout_ms < TRIAL_ABORT_MS ? self->timeout_ms : TRIAL_ABORT_MS;
    double until = mono_seconds() + bound / 1000.0;
    bool blocked[PIPELINE_MAX_INSTANCES] = {false};
    for (int i = 0; i < self->w.pl->n; i++) {
        if (!self->running[i])
            continue;
        blocked[i] = !stage_handle_ready(self->stage[i], s_left_ms(until));
        if (!blocked[i])
            s_collect(self, i, s_left_ms(until), &ignored);
    }
    for (int i = self->w.pl->n - 1; i >= 0; i--)
        if (self->open[i] && !blocked[i] && s_left_ms(until) > 0)
            stage_handle_command(self->stage[i], "TEARDOWN", s_left_ms(until),
                                 &ignored);
}

//  ------------------------------------------------------------------------
//  Warm-up, window, drain

static int s_silent_link(trial_t *self)
{
    for (int l = 0; l < self->w.nlinks; l++)
        if (self->w.last.link_received[l] == 0)
            return l;
    return -1;
}

//  Until warmup has passed and every link has delivered something
static int s_warm_up(trial_t *self, errbuf_t *err)
{
    double start = mono_seconds(), warmup = self->w.pl->params.warmup;
    if (self->continuing) //  the connections are warm: the pace settles
        warmup = fmin(warmup, TRIAL_WARMUP_REUSED);
    while (true) {
        if (s_check_stages(self, err) ||
            trial_snapshot(self, &self->w.last, err))
            return -1;
        int silent = s_silent_link(self);
        double elapsed = mono_seconds() - start;
        if (silent < 0 && elapsed >= warmup)
            return 0;
        if (silent >= 0 && elapsed * 1000 > self->timeout_ms) {
            char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
            const link_t *link = &self->w.links[silent];
            trial_link_name(self->w.pl, link, from, to);
            return err_set(err, "hop %d (%s -> %s) delivered nothing in %g s",
                           link->hop + 1, from, to, self->w.pl->params.timeout);
        }
        mono_sleep((self->continuing ? TRIAL_POLL_KEPT_MS : TRIAL_POLL_MS) /
                   1000.0);
    }
}

//  Fail if a link took nothing for the timeout while its sender went on
static int s_check_moving(trial_t *self, double *moved, errbuf_t *err)
{
    snapshot_t now;
    if (s_check_stages(self, err) || trial_snapshot(self, &now, err))
        return -1;
    for (int l = 0; l < self->w.nlinks; l++) {
        if (now.link_received[l] != self->w.last.link_received[l] ||
            now.link_sent[l] == self->w.last.link_sent[l])
            moved[l] = now.t;
        else if ((now.t - moved[l]) * 1000 > self->timeout_ms) {
            char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
            trial_link_name(self->w.pl, &self->w.links[l], from, to);
            return err_set(err, "hop %d (%s -> %s) stopped moving for %g s",
                           self->w.links[l].hop + 1, from, to,
                           self->w.pl->params.timeout);
        }
    }
    trial_stall_poll(&self->stall, &now);
    trial_timeline_poll(&self->timeline, &now);
    self->w.last = now;
    return 0;
}

//  What sink i has taken in the window so far, into *taken (its host
//  lost, or silent: -1 with err)
static int s_taken(trial_t *self, int i, uint64_t *taken, errbuf_t *err)
{
    stage_counts_t counts = {0};
    if (stage_handle_counts(self->stage[i], &counts, err))
        return -1;
    *taken = counts.received - self->w.s0.received[i];
    return 0;
}

//  Messages still missing at the last stage, into *left: each of its
//  receivers takes 'messages' in the window
static int s_remaining(trial_t *self, uint64_t *left, errbuf_t *err)
{
    uint64_t n = self->spec.messages, taken;
    *left = 0;
    for (int i = 0; i < self->w.pl->n; i++)
        if (pipeline_is_sink(self->w.pl, i)) {
            if (s_taken(self, i, &taken, err))
                return -1;
            *left += taken < n ? n - taken : 0;
        }
    return 0;
}

//  The last stage took nothing for the timeout while 'messages' were still
//  missing: its senders are blocked (back-pressure), so no link counts as
//  stopped.  Name a link into a receiver that is still short
static int s_stalled(trial_t *self, double seconds, errbuf_t *err)
{
    uint64_t n = self->spec.messages, taken = 0;
    int l = 0;
    for (; l < self->w.nlinks - 1; l++) {
        int to = self->w.links[l].to;
        if (!pipeline_is_sink(self->w.pl, to))
            continue;
        if (s_taken(self, to, &taken, err))
            return -1;
        if (taken < n)
            break;
    }
    char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
    trial_link_name(self->w.pl, &self->w.links[l], from, to);
    return err_set(err,
                   "hop %d (%s -> %s) delivered nothing for %g s, before "
                   "the window's %llu messages",
                   self->w.links[l].hop + 1, from, to, seconds,
                   (unsigned long long)n);
}

//  Messages mode: the window closes when every receiver at the end has
//  taken 'messages' since it opened.  The controller sleeps about half the
//  time that is left, so it wakes a few times near the end instead of
//  polling all along.  It fails when the receivers took nothing for the
//  timeout (plus a paced publisher's period)
static int s_window_messages(trial_t *self, double *moved, errbuf_t *err)
{
    double last_check = mono_seconds(), prev_t = last_check, progress = prev_t;
    double patience = self->timeout_ms / 1000.0 +
                      (self->spec.rate > 0 ? 1 / self->spec.rate : 0);
    uint64_t prev = 0, fewest = UINT64_MAX, left;
    while (true) {
        if (s_remaining(self, &left, err))
            return -1;
        if (left == 0)
            return 0;
        double now = mono_seconds();
        if (now - last_check >= TRIAL_POLL_MS / 1000.0) {
            if (s_check_moving(self, moved, err))
                return -1;
            last_check = now;
        }
        if (left < fewest)
            fewest = left, progress = now;
        else if (now - progress > patience)
            return s_stalled(self, now - progress, err);
        double rate = prev > left ? (prev - left) / (now - prev_t) : 0;
        prev = left, prev_t = now;
        double wait = rate > 0 ? left / rate / 2 : 0.001;
        mono_sleep(fmin(fmax(wait, 0.0001), TRIAL_POLL_MS / 1000.0));
    }
}

static int s_window(trial_t *self, errbuf_t *err)
{
    double moved[TRIAL_MAX_LINKS];
    for (int l = 0; l < self->w.nlinks; l++)
        moved[l] = self->w.s0.t;
    self->w.last = self->w.s0;
    trial_stall_open(&self->stall, &self->w);
    trial_timeline_open(&self->timeline, &self->w);
    if (self->spec.messages > 0) {
        if (s_window_messages(self, moved, err))
            return -1;
    } else {
        //  the closing edge is asked for the instant the window ends at,
        //  and starts early enough for it: its first samples take about
        //  the opening's lead (across many hosts, tens of ms; twice that
        //  and 20 ms are allowed, for a busy machine), and a poll at most
        //  half again the longest one yet, so no poll runs past its start
        self->edge_at = self->w.s0.t + self->spec.duration;
        double end = self->edge_at - 2 * self->edge_lead - 0.02;
        //  the longest a poll took, and half again; before the first, the
        //  opening edge's time (a poll reads what an edge reads, once)
        double poll = self->edge_took;
        while (mono_seconds() + poll < end) {
            mono_sleep(fmin(TRIAL_POLL_MS / 1000.0, end - mono_seconds()));
            if (mono_seconds() + poll >= end)
                break;
            double before = mono_seconds();
            if (s_check_moving(self, moved, err))
                return -1;
            poll = fmax(poll, 1.5 * (mono_seconds() - before));
            if (mono_seconds() < end &&
                trial_give_up(&self->w, &self->spec, self->go_t,
                              self->w.last.t)) {
                self->result->cut_short = true;
                self->edge_at = 0; //  it ends now
                break;
            }
        }
    }
    int rc = trial_snapshot_edge(self, &self->w.s1, 0, err);
    self->w.seconds = self->w.s1.t - self->w.s0.t;
    if (rc == 0) {
        trial_stall_poll(&self->stall, &self->w.s1);
        trial_stall_close(&self->stall, self->w.s1.t);
        trial_timeline_poll(&self->timeline, &self->w.s1);
    }
    return rc;
}

//  After the sources are told to stop: wait until each has ended its loop
//  (DONE), so that what they sent is final before the drain compares it
//  with what arrived.  A sender stores its count just after zmq_msg_send:
//  a count read before that store, with the message still on its way, lets
//  the drain end with the receiver one message short of what it then takes
//  (its sequence one ahead of the sender's count: "proves -1")
static int s_collect_sources(trial_t *self, errbuf_t *err)
{
    for (int i = 0; i < self->w.pl->n; i++)
        if (self->running[i] && s_source(self, i) &&
            s_collect(self, i, self->timeout_ms, err))
            return -1;
    return 0;
}

//  A drain that ended short of completion (trial_drain.h): the sinks are
//  stopped next, and what they have not taken by then is counted lost on
//  both accounts; the run says how much was left, why, and what bounds it
static void s_drain_short(trial_t *self, trial_drain_end_t end,
                          const trial_drain_rule_t *rule)
{
    uint64_t behind = 0;
    for (int l = 0; l < self->w.nlinks; l++) {
        uint64_t due = trial_topics_due(self->topics, &self->w.last, l);
        if (due > self->w.last.link_received[l])
            behind += due - self->w.last.link_received[l];
    }
    if (!behind)
        return;
    char why[120], line[400];
    if (end == DRAIN_STUCK)
        snprintf(why, sizeof why, "nothing moved for %.1f s, the timeout",
                 rule->timeout_s);
    else
        snprintf(why, sizeof why, "still emptying at the drain's bound, %.1f s",
                 trial_drain_bound(rule));
    snprintf(line, sizeof line,
             "%llu messages were still in flight after the window (%s); what "
             "the subscribers do not take as they stop is counted lost, the "
             "drain's cut and not the pipeline's (smaller queues drain "
             "sooner: hwm, tcp_buffer)",
             (unsigned long long)behind, why);
    trial_warn(self, line);
}

//  After the sources stop: poll every link until the drain ends
//  (trial_drain.h decides when: completion, quiet where messages can be
//  dropped, a stuck or too long drain where they cannot)
static int s_drain(trial_t *self, errbuf_t *err)
{
    const trial_drain_rule_t rule = {
        .lossless = pipeline_backpressure(self->w.pl),
        .quiet_s = (self->spec.keep_up ? TRIAL_QUIET_KEPT_MS : TRIAL_QUIET_MS) /
                   1000.0,
        .timeout_s = self->timeout_ms / 1000.0};
    for (int i = 0; i < self->w.pl->n; i++)
        stage_handle_record(self->stage[i], STAGE_DRAINING);
    double start = mono_seconds(), moved_at = start;
    if (trial_snapshot(self, &self->w.last, err))
        return -1;
    for (;;) {
        mono_sleep(self->spec.keep_up ? TRIAL_POLL_KEPT_MS / 1000.0 : 0.02);
        snapshot_t now;
        if (s_check_stages(self, err) || trial_snapshot(self, &now, err))
            return -1;
        bool complete = true, moved = false;
        for (int l = 0; l < self->w.nlinks; l++) {
            complete &=
                now.link_received[l] == trial_topics_due(self->topics, &now, l);
            moved |= now.link_received[l] != self->w.last.link_received[l] ||
                     now.link_sent[l] != self->w.last.link_sent[l];
        }
        self->w.last = now;
        if (moved)
            moved_at = now.t;
        trial_drain_end_t end =
            trial_drain_judge(&rule, complete, now.t - start, now.t - moved_at);
        if (end == DRAIN_GOING)
            continue;
        if (end == DRAIN_COMPLETE || end == DRAIN_DROPPED)
            return 0;
        s_drain_short(self, end, &rule);
        self->unsettled = "drain"; //  not still: no next trial on it
        return 0;
    }
}

//  Rate mode: a source that could not keep its schedule is a warning
static void s_check_rate(trial_t *self)
{
    double rate = self->spec.rate;
    if (self->w.pl->params.rate <= 0)
        return; //  a search's paces: it judges them itself
    for (int i = 0; i < self->w.pl->n && rate > 0; i++) {
        if (!s_source(self, i))
            continue;
        double achieved = (self->w.s1.sent[i] - self->w.s0.sent[i]) /
                          (self->w.s1.at[i] - self->w.s0.at[i]);
        if (fabs(achieved - rate) > rate * 0.01) {
            char line[300];
            snprintf(line, sizeof line,
                     "stage %s sent %.0f msgs/s of the %.0f asked (the "
                     "pipeline pushed back, or this machine could not keep "
                     "the schedule)",
                     self->w.pl->inst[i].name, achieved, rate);
            trial_warn(self, line);
        }
    }
}

//  ------------------------------------------------------------------------
//  The analyses, fed what the window measured

//  Every thread's run-queue wait and each host's steal as the window
//  opens (threads read back), where they run; -1 when a host is lost
static int s_starve_open(trial_t *self, errbuf_t *err)
{
    return trial_read_waits(self, 0, err);
}

//  ...and as it closes (its length known): each thread's wait
static int s_starve_close(trial_t *self, errbuf_t *err)
{
    if (trial_read_waits(self, 1, err))
        return -1;
    trial_starve_close(&self->starve, self->w.pl, self->result->threads,
                       self->result->nthreads, self->w.seconds);
    return 0;
}

//  The rows, and the warning of an expected that shares a loss
static void s_rows(trial_t *self)
{
    trial_counters_rows(&self->w, self->topics, self->result);
    if (trial_topics_estimated(self->topics))
        trial_warn(self, TRIAL_TOPICS_ESTIMATED);
}

//  Each row's sockets, and a row per socket of subscribers of several
static void s_sockets_rows(trial_t *self)
{
    trial_result_t *result = self->result;
    int64_t proven[PIPELINE_MAX_INSTANCES] = {0};
    for (int i = 0; i < self->w.pl->n; i++)
        if (pipeline_sockets(self->w.pl, i) > 1)
            proven[i] = trial_counters_seq_lost(&self->w, self->topics, i);
    int n = trial_sockets_rows(&self->sockets, &self->w, proven, result->links,
                               result->nlinks, result->sockets);
    if (result->sockets)
        result->nsockets = n;
}

//  Each row's waits and starved, and the trial's; a row whose starved is
//  unknown for a reason no host has said (a thread that could not be
//  read) says so
static void s_starve_rows(trial_t *self)
{
    trial_result_t *result = self->result;
    result->starved = trial_starve_rows(
        &self->w, result->threads, result->nthreads, self->starve.steal_pct,
        result->links, result->nlinks);
    for (int l = 0; l < result->nlinks && result->starved < 0 &&
                    !self->starve.edge[0].refused;
         l++) {
        const link_row_t *row = &result->links[l];
        if (row->starved >= 0)
            continue;
        char line[600];
        snprintf(line, sizeof line, "hop %d (%s -> %s): starved unknown: %s",
                 row->hop, row->from, row->to, row->starved_note);
        trial_warn(self, line);
        break;
    }
}

//  ------------------------------------------------------------------------
//  The two ways to measure

//  HOPBENCH_TEST_COUNT=N (tests only) adds N to the last row's received
//  count after the drain: a count that cannot be true, which
//  trial_counters_verify must turn into an error, never a figure
static void s_test_count(trial_t *self)
{
    const char *extra = getenv("HOPBENCH_TEST_COUNT");
    trial_result_t *result = self->result;
    if (extra && *extra && result->nlinks > 0)
        result->links[result->nlinks - 1].received += strtoull(extra, NULL, 10);
}

//  Every stage's shared block as it is now, where it is not this host's
//  memory (stage_handle_sync)
static int s_sync(trial_t *self, errbuf_t *err)
{
    for (int i = 0; i < self->w.pl->n; i++)
        stage_handle_ask(self->stage[i], STAGE_ASK_SHARED, NULL, 0);
    for (int i = 0; i < self->w.pl->n; i++)
        if (stage_handle_sync(self->stage[i], err))
            return -1;
    return 0;
}

static int s_measure_stream(trial_t *self, errbuf_t *err)
{
    //  whose CPU time counts for whom, then the threads as they are in
    //  the window
    if (s_go(self, err) || s_warm_up(self, err) || s_sync(self, err) ||
        trial_read_threads(self, false, err) ||
        trial_profile_start(self, err) ||
        trial_snapshot_edge(self, &self->w.s0, 1, err) ||
        trial_read_threads(self, true, err))
        return -1;
    self->open_span = self->edge_span;
    if (s_starve_open(self, err) || s_window(self, err) ||
        trial_profile_stop(self, err))
        return -1;
    //  the sources stop before the waits are read: another host's are a
    //  round trip each, which would otherwise fill the queues the drain
    //  then empties (the readings bracket the window either way)
    s_stop_sources(self);
    if (s_starve_close(self, err))
        return -1;
    //  connect's clients would only time out: no drain, the window's end
    //  counts
    bool connect = self->w.pl->params.pattern == PATTERN_CONNECT;
    if (connect)
        self->w.last = self->w.s1;
    if ((!connect && (s_collect_sources(self, err) || s_drain(self, err) ||
                      s_stop_sinks(self, err))) ||
        s_stop(self, true, err) || s_sync(self, err))
        return -1;
    s_check_rate(self);
    s_rows(self);
    for (int l = 0; l < self->result->nlinks; l++)
        self->result->links[l].edge_span =
            fmax(self->open_span, self->edge_span);
    s_test_count(self);
    s_sockets_rows(self);
    s_starve_rows(self);
    trial_counters_hwm(&self->w, self->spec.tsc_hz, self->result);
    self->result->stalled =
        trial_stall_rows(&self->stall, &self->w, self->spec.rate,
                         self->result->links, self->result->nlinks);
    trial_counters_latency(&self->w, self->spec.timed, self->result);
    trial_timeline_rows(&self->timeline, self->result); //  none: no memory
    self->verifying = true;
    return trial_counters_verify(&self->w, self->topics, self->continuing,
                                 self->result, err);
}

//  Wait for every requester to finish its round trips; fail early if a
//  stage dies or no round trip completes for the timeout
static int s_wait_requesters(trial_t *self, errbuf_t *err)
{
    int left = self->w.pl->count[0];
    bool done[PIPELINE_MAX_INSTANCES] = {false};
    double moved = mono_seconds();
    uint64_t last = 0;
    while (left > 0) {
        uint64_t received = 0;
        for (int i = 0; i < self->w.pl->count[0]; i++) {
            stage_handle_t *stage = self->stage[i];
            stage_counts_t counts = {0};
            if (stage_handle_counts(stage, &counts, err))
                return -1;
            received += counts.received;
            if (!done[i] && stage_handle_ready(stage, 0)) {
                if (s_collect(self, i, self->timeout_ms, err))
                    return -1;
                done[i] = true;
                left--;
            }
        }
        if (interrupt_signal())
            return err_set(err, "interrupted");
        if (received != last)
            last = received, moved = mono_seconds();
        else if ((mono_seconds() - moved) * 1000 > self->timeout_ms + 1000)
            return err_set(err, "no round trip completed in %g s",
                           self->w.pl->params.timeout);
        if (left > 0)
            mono_sleep(0.01);
    }
    return 0;
}

static int s_measure_reqrep(trial_t *self, errbuf_t *err)
{
    self->sources_ending = true; //  requesters end on their own
    if (s_go(self, err) || s_sync(self, err) ||
        trial_read_threads(self, false, err) ||
        trial_profile_start(self, err) ||
        trial_snapshot(self, &self->w.s0, err) ||
        trial_read_threads(self, true, err))
        return -1;
    if (s_starve_open(self, err) || s_wait_requesters(self, err) ||
        trial_snapshot(self, &self->w.s1, err) ||
        trial_profile_stop(self, err) || s_sync(self, err))
        return -1;
    self->w.last = self->w.s1;
    uint64_t start = UINT64_MAX, end = 0, trips = 0;
    for (int i = 0; i < self->w.pl->count[0]; i++) {
        const stage_shared_t *shared = stage_handle_shared(self->stage[i]);
        start =
            shared->window_start_ns < start ? shared->window_start_ns : start;
        end = shared->window_end_ns > end ? shared->window_end_ns : end;
        trips += histogram_count(&shared->latency);
    }
    self->w.seconds = (end - start) / 1e9;
    if (s_starve_close(self, err) || s_stop(self, false, err))
        return -1;
    s_rows(self);
    s_sockets_rows(self);
    s_starve_rows(self);
    for (int l = 0; l < self->result->nlinks; l++) {
        self->result->links[l].window_received = trips;
        self->result->links[l].edge_span = -1; //  snapshots, not edges
    }
    trial_counters_latency(&self->w, self->spec.timed, self->result);
    return trial_counters_verify(&self->w, self->topics, self->continuing,
                                 self->result, err);
}

//  ------------------------------------------------------------------------
//  A pipeline that stays up between trials (trial.h: keep_up)

//  TEARDOWN of a pipeline an earlier trial left up; every stage is idle
int trial_kept_close(crew_t *crew, trial_kept_t *kept, errbuf_t *err)
{
    int rc = 0, timeout_ms = (int)(crew->pl->params.timeout * 1000);
    for (int i = crew->pl->n - 1; i >= 0 && kept->up; i--)
        if (stage_handle_command(crew->stage[i], "TEARDOWN", timeout_ms, err))
            rc = -1;
    kept->up = false;
    return rc;
}

bool trial_may_keep_up(const pipeline_t *pl)
{
    const params_t *params = &pl->params;
    if (!params->search_reuse || (params->pattern != PATTERN_PUBSUB &&
                                  params->pattern != PATTERN_PUSHPULL))
        return false;
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].role == ROLE_PROXY &&
            engine_can(pl->inst[i].params.engine, TRAIT_CZMQ_ACTOR))
            return false;
    return true;
}

//  May this trial run on the pipeline the last one left up: the same
//  size (the session's key; the rest is the combination's, and whether
//  messages carry send times every stage reads at each RUN)
static bool s_continues(const trial_kept_t *kept, const trial_spec_t *spec)
{
    return kept->up && kept->size == spec->size;
}

//  What the result says of its pipeline: fresh, reused, or fresh again
//  after a trial on a reused one went wrong (fallback:WHY)
static void s_pipeline_name(trial_t *self)
{
    trial_result_t *result = self->result;
    if (self->continuing)
        snprintf(result->pipeline, sizeof result->pipeline, "reused");
    else if (self->kept->fallback[0])
        snprintf(result->pipeline, sizeof result->pipeline, "fallback:%s",
                 self->kept->fallback);
    else
        snprintf(result->pipeline, sizeof result->pipeline, "fresh");
    self->kept->fallback[0] = 0;
}

//  After the measurement: keep the pipeline up for the next trial, or
//  close it.  A trial on a reused pipeline whose figures cannot be
//  trusted (another trial's messages, a failed check) is void: 1, with
//  the pipeline closed, for the caller to run again on a fresh one
static int s_finish(trial_t *self, int rc, errbuf_t *err)
{
    trial_kept_t *kept = self->kept;
    const char *why = self->continuing && rc == 0 && self->result->late ? "late"
                      : self->continuing && rc && self->verifying ? "verify"
                                                                  : NULL;
    if (rc && !why) {
        s_abort(self);
        kept->up = false;
        return rc;
    }
    if (why || self->unsettled)
        snprintf(kept->fallback, sizeof kept->fallback, "%s",
                 why ? why : self->unsettled);
    if (!why && !self->unsettled && self->spec.keep_up) {
        kept->up = true;
        kept->size = self->spec.size;
        return 0;
    }
    kept->up = false;
    if (s_teardown(self, err))
        return -1;
    return why ? 1 : 0;
}

//  The trial's window (its links, the stages' blocks), the room for its
//  rows, and the analyses' own states: -1 when out of memory
static int s_prepare(trial_t *self)
{
    trial_window_t *w = &self->w;
    trial_result_t *result = self->result;
    w->nlinks = trial_links_of(w->pl, w->links);
    for (int i = 0; i < w->pl->n; i++)
        w->shared[i] = stage_handle_shared(self->stage[i]);
    result->links = calloc((size_t)w->nlinks, sizeof(link_row_t));
    self->nroster = roster_list(w->pl, NULL, 0);
    self->roster = calloc((size_t)self->nroster + 1, sizeof *self->roster);
    result->memory =
        calloc((size_t)w->pl->n * STAGE_MEMORY_REGIONS, sizeof(memory_row_t));
    if (!result->links || !self->roster || !result->memory)
        return -1;
    roster_list(w->pl, self->roster, self->nroster);
    if (trial_topics_new(&self->topics, w->pl, w->links, w->nlinks) ||
        trial_sockets_new(&self->sockets, w->pl))
        return -1;
    long n = self->sockets.nsockets;
    return n && !(result->sockets = calloc((size_t)n, sizeof *result->sockets))
               ? -1
               : 0;
}

int trial_run(crew_t *crew, trial_kept_t *kept, const machine_t *machine,
              const trial_spec_t *spec, trial_result_t *result, char *warnings,
              size_t warnings_len, errbuf_t *err)
{
    if (crew->broken)
        return err_set(err, "an earlier trial was aborted");
    double begin = mono_seconds();
    if (kept->up && !s_continues(kept, spec) &&
        trial_kept_close(crew, kept, err)) {
        crew->broken = true;
        return -1;
    }
    trial_t *self = calloc(1, sizeof *self);
    memset(result, 0, sizeof *result);
    if (self) //  result->threads: as many as the read-back finds
        result->latency =
            calloc((size_t)crew->pl->nstages, sizeof(latency_row_t));
    if (!self || !result->latency) {
        free(self);
        trial_result_free(result);
        return err_set(err, "a trial: out of memory");
    }
    self->crew = crew;
    self->kept = kept;
    self->continuing = kept->up;
    self->w.pl = crew->pl;
    memcpy(self->stage, crew->stage, sizeof self->stage);
    self->machine = machine;
    self->spec = *spec;
    self->timeout_ms = (int)(crew->pl->params.timeout * 1000);
    self->result = result;
    self->warnings = warnings;
    self->warnings_len = warnings_len;
    warnings[0] = 0;
    result->size = spec->size;
    result->repeat = spec->repeat;
    result->starved = -1;
    int rc = s_prepare(self) == 0 ? s_start(self, err)
                                  : err_set(err, "a trial: out of memory");
    if (rc == 0)
        rc = crew->pl->params.pattern == PATTERN_REQREP
                 ? s_measure_reqrep(self, err)
                 : s_measure_stream(self, err);
    trial_profile_end(self);
    s_pipeline_name(self);
    rc = s_finish(self, rc, err);
    if (rc >= 0 && self->w.s1.t > 0) {
        result->setup_seconds = self->w.s0.t - begin;
        result->drain_seconds = mono_seconds() - self->w.s1.t;
    }
    lines_close(warnings, warnings_len, self->warnings_more, "warnings");
    trial_topics_destroy(&self->topics);
    trial_sockets_destroy(&self->sockets);
    trial_timeline_free(&self->timeline);
    trial_starve_free(&self->starve);
    free(self->roster);
    free(self->helper_tid);
    free(self->helper_owner);
    free(self);
    return rc;
}

void trial_result_free(trial_result_t *result)
{
    free(result->links);
    free(result->threads);
    free(result->latency);
    free(result->memory);
    free(result->syscalls);
    free(result->sockets);
    free(result->timeline);
    result->timeline = NULL;
    result->ntimeline = 0;
    result->sockets = NULL;
    result->nsockets = 0;
    result->syscalls = NULL;
    result->nsyscalls = 0;
    result->links = NULL;
    result->threads = NULL;
    result->latency = NULL;
    result->memory = NULL;
}
