/*  stage_remote: a stage on another host, the controller's side
    (stage_remote.h).

    Everything goes through the stage's mailbox on its host's link.  What
    comes back is one of: an answer of the stage's own ([ANSWER][ID][rc]
    [text]: to a command, or the DONE/ERR that ends its RUN), kept in
    order for ready and wait; [LOST][ID][why], kept the same way, after
    which every call fails; or the reply to a question just asked
    (STARTED, COUNTS, SHARED, THREADS, CPU, WAITS, TRACE, TRACED, ENDED),
    which its asker waits for.  A reply that comes too late for its
    question is dropped.  COUNTS, SHARED, THREADS, CPU and WAITS can be
    asked ahead (stage_handle_ask): the next call of its kind reads the
    reply instead of asking, so a crew's stages are asked all at once.

    Every wait ends on the first of: what it waits for, the agent's ERR,
    the host's loss (the link says LOST the moment it is lost: silent for
    the timeout, or its connection closed), or its own time.  Each but
    the first is an error of the host (errbuf_t's host, and lost when the
    link was), which the asker carries up: no question drops one.
*/
#include "crew/stage_remote.h"

#include "base/mono.h"
#include "crew/wire.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const pipeline_t *pl;
    int id;
    agent_link_t *link;
    zsock_t *mailbox;
    zlist_t *pending; //  ANSWER and LOST messages, oldest first
    stage_shared_t *mirror;
    pid_t pid;         //  on its host; -1 once ended
    bool lost;         //  LOST was read: every call fails now
    bool ending;       //  END said, ENDED not read yet
    int norigins;      //  origins the trial reads of it
    bool sees_origins; //  COUNTS carries them
    int timeout_ms;
    syscalls_thread_t *traced; //  --profile syscalls: TRACED's threads
    int ntraced;
    double asked[STAGE_ASKS]; //  sent ahead (s_ask_ahead): when, else 0
} remote_t;

//  "host h2: why": an error of the stage's host
static int s_fail(remote_t *self, errbuf_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int s_fail(remote_t *self, errbuf_t *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, fmt, ap);
    va_end(ap);
    return err_host(err, agent_link_name(self->link));
}

//  Its host is lost: why, as its link says
static int s_lost_error(remote_t *self, errbuf_t *err)
{
    char why[300] = "its agent is lost";
    agent_link_lost(self->link, why, sizeof why);
    s_fail(self, err, "%s", why);
    if (err)
        err->lost = true;
    return -1;
}

static bool s_gone(remote_t *self)
{
    return self->lost || agent_link_lost(self->link, NULL, 0);
}

//  [COMMAND][ID] and the rest, to the agent; word is what it asks (the
//  stage's command, for CMD)
static int s_send(remote_t *self, const char *word, zmsg_t **msg, errbuf_t *err)
{
    agent_link_hold(self->link, word);
    if (s_gone(self)) {
        zmsg_destroy(msg);
        return s_lost_error(self, err);
    }
    if (zmsg_send(msg, self->mailbox)) {
        zmsg_destroy(msg);
        return s_fail(self, err, "its link does not take messages");
    }
    return 0;
}

static zmsg_t *s_message(const remote_t *self, const char *command)
{
    zmsg_t *msg = zmsg_new();
    zmsg_addstr(msg, command);
    zmsg_addstrf(msg, "%d", self->id);
    return msg;
}

//  One message from the mailbox within wait_ms: an ANSWER or LOST is kept
//  (true), a reply is returned in *reply, anything else dropped
static bool s_read(remote_t *self, int wait_ms, zmsg_t **reply)
{
    zmq_pollitem_t item = {zsock_resolve(self->mailbox), 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, wait_ms) <= 0)
        return false;
    zmsg_t *msg = zmsg_recv(self->mailbox);
    if (!msg)
        return false;
    if (zframe_streq(zmsg_first(msg), "ANSWER") ||
        zframe_streq(zmsg_first(msg), "LOST")) {
        zlist_append(self->pending, msg);
        return true;
    }
    if (reply)
        *reply = msg;
    else
        zmsg_destroy(&msg);
    return false;
}

//  The reply 'word' to the question sent, by until (past it, what is
//  there already is read), timeout_ms after it was asked; NULL (and err)
//  when the host is lost, the agent says ERR (*refused, where the asker
//  tells it apart), or time is up
static zmsg_t *s_answer(remote_t *self, const char *word, double until,
                        int timeout_ms, bool *refused, errbuf_t *err)
{
    while (!s_gone(self)) {
        double left = until - mono_seconds();
        zmsg_t *reply = NULL;
        bool kept = s_read(self, left > 0 ? (int)(left * 1000) + 1 : 0, &reply);
        if (!kept && !reply && left <= 0)
            break;
        if (reply && zframe_streq(zmsg_first(reply), word))
            return reply;
        if (reply && zframe_streq(zmsg_first(reply), "ERR")) {
            char why[400];
            wire_pop_ll(reply), wire_pop_ll(reply);
            wire_pop_text(reply, why, sizeof why);
            zmsg_destroy(&reply);
            s_fail(self, err, "%s", why);
            if (refused)
                *refused = true;
            return NULL;
        }
        zmsg_destroy(&reply);
    }
    if (s_gone(self))
        s_lost_error(self, err);
    else if (streq(word, "COUNTS")) {
        stage_no_counts(err, timeout_ms);
        err_host(err, agent_link_name(self->link));
    } else
        s_fail(self, err, "no %s within %.1f s", word, timeout_ms / 1000.0);
    return NULL;
}

static zmsg_t *s_reply(remote_t *self, const char *word, int timeout_ms,
                       errbuf_t *err)
{
    return s_answer(self, word, mono_seconds() + timeout_ms / 1000.0,
                    timeout_ms, NULL, err);
}

//  Ask word, and its reply (its [ANSWER][ID] read): NULL with err as
//  s_reply
static zmsg_t *s_ask(remote_t *self, const char *word, const char *answer,
                     zmsg_t **ask, int timeout_ms, errbuf_t *err)
{
    zmsg_t *reply = NULL;
    if (s_send(self, word, ask, err) == 0 &&
        (reply = s_reply(self, answer, timeout_ms, err))) {
        wire_pop_ll(reply);
        wire_pop_ll(reply);
    }
    return reply;
}

//  ------------------------------------------------------------------------
//  Start and end

static void s_free(remote_t *self)
{
    if (self->mailbox)
        agent_link_detach(self->link, self->id, &self->mailbox);
    zmsg_t *msg;
    while (self->pending && (msg = zlist_pop(self->pending)))
        zmsg_destroy(&msg);
    zlist_destroy(&self->pending);
    free(self->mirror);
    free(self);
}

void *stage_remote_new(const pipeline_t *pl, int id, agent_link_t *link,
                       stage_shared_t **shared, errbuf_t *err)
{
    int n = pipeline_sockets(pl, id) > 1 ? pipeline_sockets(pl, id) : 0;
    remote_t *self = calloc(1, sizeof *self);
    if (!self || !(self->mirror = calloc(1, stage_shared_bytes(n))) ||
        !(self->pending = zlist_new())) {
        if (self)
            free(self->mirror);
        free(self);
        err_set(err, "out of memory");
        return NULL;
    }
    *self = (remote_t){.pl = pl,
                       .id = id,
                       .link = link,
                       .mirror = self->mirror,
                       .pending = self->pending,
                       .pid = -1,
                       .norigins = pl->norigins,
                       .sees_origins = pipeline_sees_origins(pl, id),
                       .timeout_ms = (int)(pl->params.timeout * 1000)};
    self->mirror->nsockets = n;
    stage_reset(self->mirror, &(stage_trial_t){0});
    if (!(self->mailbox = agent_link_attach(link, id, err))) {
        s_free(self);
        return NULL;
    }
    zmsg_t *start = s_message(self, "START");
    if (s_send(self, "START", &start, err)) {
        s_free(self);
        return NULL;
    }
    *shared = self->mirror;
    return self;
}

//  START was sent by stage_remote_new: its STARTED, awaited until then
//  (the crew's one wait for all its stages, crew.c)
static int s_started(void *state, double until, errbuf_t *err)
{
    remote_t *self = state;
    zmsg_t *started =
        s_answer(self, "STARTED", until, self->timeout_ms + 5000, NULL, err);
    if (!started)
        return -1;
    wire_pop_ll(started), wire_pop_ll(started);
    self->pid = (pid_t)wire_pop_ll(started);
    zmsg_destroy(&started);
    return 0;
}

static void s_trace_close(void *state);

//  END: its agent ends the stage's process (ENDED when it is gone)
static void s_end(void *state)
{
    remote_t *self = state;
    zmsg_t *end = s_message(self, "END");
    errbuf_t lost; //  told by s_ended
    self->ending = s_send(self, "END", &end, &lost) == 0;
}

static int s_ended(void *state, int timeout_ms, errbuf_t *err)
{
    remote_t *self = state;
    if (!self->ending)
        return s_gone(self) ? s_lost_error(self, err) : 0;
    self->ending = false;
    self->pid = -1;
    zmsg_t *ended = s_reply(self, "ENDED", timeout_ms + 3000, err);
    if (!ended)
        return -1;
    zmsg_destroy(&ended);
    return 0;
}

//  Ended if it was not (an agent that cannot be told ends it at BYE, or
//  when it hears nothing for the timeout)
static int s_destroy(void *state, int timeout_ms)
{
    remote_t *self = state;
    s_trace_close(self);
    errbuf_t ignored;
    if (self->pid > 0 && !self->ending)
        s_end(self);
    if (self->ending)
        s_ended(self, timeout_ms, &ignored);
    s_free(self);
    return 0;
}

//  ------------------------------------------------------------------------
//  Commands and answers

static int s_command(void *state, const char *command, int timeout_ms,
                     errbuf_t *err)
{
    (void)timeout_ms; //  the mailbox never blocks
    remote_t *self = state;
    zmsg_t *msg = s_message(self, "CMD");
    zmsg_addstr(msg, command);
    if (streq(command, "SETUP"))
        wire_add_hops(msg, self->pl, self->id);
    return s_send(self, command, &msg, err);
}

static bool s_ready(void *state, int wait_ms)
{
    remote_t *self = state;
    double until = mono_seconds() + wait_ms / 1000.0;
    do {
        if (zlist_size(self->pending) > 0 || self->lost)
            return true;
        double left = until - mono_seconds();
        s_read(self, left > 0 ? (int)(left * 1000) : 0, NULL);
    } while (mono_seconds() < until);
    return zlist_size(self->pending) > 0 || self->lost;
}

static int s_wait(void *state, int timeout_ms, errbuf_t *err)
{
    remote_t *self = state;
    if (!s_ready(self, timeout_ms))
        return s_fail(self, err, "no answer within %.1f s",
                      timeout_ms / 1000.0);
    zmsg_t *msg = zlist_pop(self->pending);
    if (!msg)
        return s_lost_error(self, err);
    char word[16], why[400];
    wire_pop_text(msg, word, sizeof word);
    wire_pop_ll(msg);
    int rc = 0;
    if (streq(word, "LOST")) {
        self->lost = true;
        self->pid = -1;
        rc = s_lost_error(self, err);
    } else if (wire_pop_ll(msg) != 0) {
        wire_pop_text(msg, why, sizeof why);
        rc = s_fail(self, err, "%s", why);
    }
    zmsg_destroy(&msg);
    return rc;
}

//  ------------------------------------------------------------------------
//  Questions asked ahead: one table of their words, one builder

static const char *const s_ask_word[STAGE_ASKS] = {
    [STAGE_ASK_COUNTS] = "COUNTS",
    [STAGE_ASK_SHARED] = "SHARED",
    [STAGE_ASK_THREADS] = "THREADS",
    [STAGE_ASK_CPU] = "CPU",
    [STAGE_ASK_WAITS] = "WAITS"};

static zmsg_t *s_question(const remote_t *self, stage_ask_t what,
                          const pid_t *tids, int n)
{
    zmsg_t *ask = s_message(self, s_ask_word[what]);
    for (int i = 0; i < n; i++)
        zmsg_addstrf(ask, "%d", (int)tids[i]);
    return ask;
}

//  Sent now, its reply read by s_asked; one at a time of each question (a
//  second is the first's)
static void s_ask_ahead(void *state, stage_ask_t what, const pid_t *tids, int n)
{
    remote_t *self = state;
    if (self->asked[what] > 0)
        return;
    double now = mono_seconds();
    zmsg_t *ask = s_question(self, what, tids, n);
    errbuf_t ignored; //  not sent: s_asked asks, and says why it cannot
    if (s_send(self, s_ask_word[what], &ask, &ignored) == 0)
        self->asked[what] = now;
}

//  The reply to question what: the one asked ahead, or asked now; *since
//  when it was asked.  NULL with err as s_reply
static zmsg_t *s_asked(remote_t *self, stage_ask_t what, const pid_t *tids,
                       int n, double *since, errbuf_t *err)
{
    const char *word = s_ask_word[what];
    *since = self->asked[what] > 0 ? self->asked[what] : mono_seconds();
    if (self->asked[what] > 0) {
        self->asked[what] = 0;
        zmsg_t *reply = s_reply(self, word, self->timeout_ms, err);
        if (reply)
            wire_pop_ll(reply), wire_pop_ll(reply);
        return reply;
    }
    zmsg_t *ask = s_question(self, what, tids, n);
    return s_ask(self, word, word, &ask, self->timeout_ms, err);
}

//  COUNTS: sent, received and, for a receiver that tells origins apart,
//  what it took from each, and of several sockets each socket's count
//  (into the mirror)
static int s_counts(void *state, stage_counts_t *out, errbuf_t *err)
{
    remote_t *self = state;
    double before;
    zmsg_t *reply = s_asked(self, STAGE_ASK_COUNTS, NULL, 0, &before, err);
    if (!reply)
        return -1;
    const agent_info_t *clock = agent_link_info(self->link);
    out->asked = before;
    out->sent = (uint64_t)wire_pop_ll(reply);
    out->received = (uint64_t)wire_pop_ll(reply);
    //  read at that instant of the agent's clock, mapped to ours
    out->t = (wire_pop_double(reply) - clock->offset_ns) / 1e9;
    out->stamp_error =
        clock->uncertainty_ns > 1e3 ? clock->uncertainty_ns / 1e9 : 1e-6;
    for (int o = 0; self->sees_origins && o < self->norigins; o++)
        atomic_store(&self->mirror->origins[o].received,
                     (uint64_t)wire_pop_ll(reply));
    int rc = self->mirror->nsockets > 1 &&
             wire_take_sockets(reply, self->mirror, false);
    zmsg_destroy(&reply);
    return rc ? s_fail(self, err, "a malformed COUNTS (its sockets)") : 0;
}

static int s_stop(void *state, errbuf_t *err)
{
    remote_t *self = state;
    zmsg_t *msg = s_message(self, "STOP");
    return s_send(self, "STOP", &msg, err);
}

static void s_abort(void *state)
{
    remote_t *self = state;
    zmsg_t *msg = s_message(self, "ABORT");
    errbuf_t ignored;
    s_send(self, "ABORT", &msg, &ignored);
}

static pid_t s_pid(void *state)
{
    remote_t *self = state;
    return self->lost ? -1 : self->pid;
}

//  ------------------------------------------------------------------------
//  The flags, and what is read back

static void s_flag(remote_t *self, const char *command, uint64_t value)
{
    zmsg_t *msg = s_message(self, command);
    zmsg_addstrf(msg, "%llu", (unsigned long long)value);
    errbuf_t ignored; //  a lost link fails the next question
    s_send(self, command, &msg, &ignored);
}

static void s_reset(void *state, const stage_trial_t *trial, int64_t clock_ns)
{
    remote_t *self = state;
    zmsg_t *msg = s_message(self, "RESET");
    zmsg_addstrf(msg, "%u", trial->size);
    zmsg_addstrf(msg, "%.17g", trial->rate);
    zmsg_addstrf(msg, "%d", trial->timed ? 1 : 0);
    zmsg_addstrf(msg, "%lld", (long long)clock_ns);
    zmsg_addstrf(msg, "%u", trial->epoch);
    errbuf_t ignored; //  a lost link fails the next question
    s_send(self, "RESET", &msg, &ignored);
}

static void s_record(void *state, stage_phase_t phase)
{
    s_flag(state, "RECORD", (uint64_t)phase);
}

//  The shared block into the mirror; the requesters' window moves from
//  the agent's clock to this one
static int s_sync(void *state, errbuf_t *err)
{
    remote_t *self = state;
    double since;
    zmsg_t *reply = s_asked(self, STAGE_ASK_SHARED, NULL, 0, &since, err);
    if (!reply)
        return -1;
    int rc = wire_take_shared(reply, self->mirror, self->norigins);
    zmsg_destroy(&reply);
    if (rc)
        return s_fail(self, err, "a malformed SHARED");
    int64_t offset = (int64_t)agent_link_info(self->link)->offset_ns;
    stage_shared_t *m = self->mirror;
    if (m->window_start_ns)
        m->window_start_ns -= (uint64_t)offset;
    if (m->window_end_ns)
        m->window_end_ns -= (uint64_t)offset;
    return 0;
}

static int s_threads(void *state, task_t *out, int max, errbuf_t *err)
{
    remote_t *self = state;
    double since;
    zmsg_t *reply = s_asked(self, STAGE_ASK_THREADS, NULL, 0, &since, err);
    if (!reply)
        return -1;
    int n = wire_take_tasks(reply, out, max);
    zmsg_destroy(&reply);
    return n;
}

static int s_cpu_ns(void *state, const pid_t *tids, int n, uint64_t *ns,
                    errbuf_t *err)
{
    remote_t *self = state;
    double since;
    zmsg_t *reply = s_asked(self, STAGE_ASK_CPU, tids, n, &since, err);
    if (!reply)
        return -1;
    *ns = (uint64_t)wire_pop_ll(reply);
    zmsg_destroy(&reply);
    return 0;
}

//  WAITS: the threads' run-queue waits and the host's steal.  An agent
//  that refuses the question (one older than it: "unknown request")
//  cannot tell: 1, and the trial goes on without them; a host lost or
//  silent while asked ends the trial, as CPU does
static int s_waits(void *state, const pid_t *tids, int n, threads_wait_t *out,
                   int64_t *steal, int64_t *ticks, errbuf_t *err)
{
    remote_t *self = state;
    zmsg_t *ask = NULL, *reply;
    bool refused = false;
    if (self->asked[STAGE_ASK_WAITS] > 0) //  asked ahead
        self->asked[STAGE_ASK_WAITS] = 0;
    else {
        ask = s_question(self, STAGE_ASK_WAITS, tids, n);
        if (s_send(self, "WAITS", &ask, err))
            return -1;
    }
    if (!(reply = s_answer(self, "WAITS",
                           mono_seconds() + self->timeout_ms / 1000.0,
                           self->timeout_ms, &refused, err)))
        return refused ? 1 : -1;
    wire_pop_ll(reply), wire_pop_ll(reply);
    int rc = wire_take_waits(reply, steal, ticks, out, n);
    zmsg_destroy(&reply);
    return rc ? s_fail(self, err, "a malformed WAITS") : 0;
}

//  ------------------------------------------------------------------------
//  --profile syscalls: the agent traces the stage's threads on its host

static int s_trace_open(void *state, const pid_t *tids, int n, errbuf_t *err)
{
    remote_t *self = state;
    zmsg_t *ask = s_message(self, "TRACE");
    for (int i = 0; i < n; i++)
        zmsg_addstrf(ask, "%d", (int)tids[i]);
    zmsg_t *reply = s_ask(self, "TRACE", "TRACE", &ask, self->timeout_ms, err);
    if (!reply)
        return -1;
    zmsg_destroy(&reply);
    return 0;
}

static void s_trace(void *state, bool on)
{
    s_flag(state, "TRACING", on);
}

static void s_trace_close(void *state)
{
    remote_t *self = state;
    for (int t = 0; t < self->ntraced; t++)
        syscalls_thread_free(&self->traced[t]);
    free(self->traced);
    self->traced = NULL;
    self->ntraced = 0;
}

//  TRACED: what each thread did, and the agent's tracer ended
static int s_trace_read(void *state, const syscalls_thread_t **threads, int *n,
                        errbuf_t *err)
{
    remote_t *self = state;
    zmsg_t *ask = s_message(self, "TRACED");
    s_trace_close(self);
    zmsg_t *reply =
        s_ask(self, "TRACED", "TRACED", &ask, self->timeout_ms, err);
    if (!reply)
        return -1;
    self->traced = calloc(THREADS_MAX, sizeof *self->traced);
    int got = self->traced
                  ? wire_take_syscalls(reply, self->traced, THREADS_MAX)
                  : -1;
    zmsg_destroy(&reply);
    if (got < 0)
        return s_fail(self, err, "a malformed TRACED");
    self->ntraced = got;
    *threads = self->traced;
    *n = got;
    return 0;
}

const stage_kind_t stage_remote_kind = {STAGE_KIND("remote", s_command),
                                        .started = s_started,
                                        .end = s_end,
                                        .ended = s_ended,
                                        .reset = s_reset,
                                        .record = s_record,
                                        .sync = s_sync,
                                        .threads = s_threads,
                                        .cpu_ns = s_cpu_ns,
                                        .waits = s_waits,
                                        .trace_open = s_trace_open,
                                        .trace = s_trace,
                                        .trace_read = s_trace_read,
                                        .trace_close = s_trace_close,
                                        .ask = s_ask_ahead};
