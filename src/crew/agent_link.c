/*  agent_link: one host's agent, the controller's side (agent_link.h).

    The actor's loop polls its pipe (the fleet's requests, ATTACH and
    DETACH of mailboxes, CLOCK), the DEALER, the DEALER's monitor and
    every mailbox.  What the agent sends is routed by its ID frame; PING
    only says it is alive.  The clock's samples are taken one at a time
    between the loop's other work, so heartbeats and the monitor go on
    meanwhile.  Loss is final: once lost, every mailbox that speaks gets
    [LOST] back, and nothing more reaches the agent.
*/
#include "crew/agent_link.h"

#include "base/actor.h"
#include "base/mono.h"
#include "base/text.h"
#include "crew/wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define LINK_IDS           PIPELINE_MAX_INSTANCES
#define LINK_CLOCK_SAMPLES 16
#define LINK_CLOCK_MS      1000 //  one clock sample waits at most this
#define LINK_HOLD_S        30   //  HOPBENCH_TEST_HOLD holds at most this
#define LINK_LATE_MS       1000 //  answers wait the timeout and this

//  The clock's estimate, one sample at a time in the actor's loop (which
//  goes on heartbeating meanwhile)
typedef struct {
    int left;        //  samples still to take; 0: none asked
    uint64_t t0;     //  the sample in flight: our clock when sent
    double until;    //  ...answered by then, or given up
    double best_rtt; //  ns, < 0 while no sample came back
    double best_offset;
} clock_run_t;

typedef struct {
    //  set before the actor starts
    char name[64], endpoint[256], controller[128], identity[40];
    char connect[256]; //  endpoint, its name resolved
    char server_key[41], public_key[41], secret_key[41];
    double timeout;
    //  the actor's
    zsock_t *pipe, *dealer, *monitor;
    zpoller_t *poller;
    zsock_t *mailbox[LINK_IDS];
    double heard, pinged;
    double awake; //  the loop's last turn: silence counts while it turns
    bool welcomed;
    bool handshaken;   //  CURVE with the agent has worked once
    clock_run_t clock; //  the clock's samples, while they are taken
    //  both threads'
    _Atomic double last_word; //  = heard, for agent_link_silence
    _Atomic bool lost;
    _Atomic bool silent;  //  lost for its silence (set before lost)
    _Atomic bool reached; //  = handshaken, for agent_link_reached
    char why[300];        //  written before lost is set
} link_t;

struct agent_link_s {
    link_t *link;
    zsock_t *actor;
    agent_info_t info;
    bool said_bye;
};

//  ------------------------------------------------------------------------
//  The actor

//  Lost for good: say so to every mailbox and to the fleet
static void s_lose(link_t *self, const char *why)
{
    if (atomic_load(&self->lost))
        return;
    TEXT_SET(self->why, why);
    atomic_store(&self->lost, true);
    for (int id = 0; id < LINK_IDS; id++)
        if (self->mailbox[id])
            zstr_sendx(self->mailbox[id], "LOST", "0", self->why, NULL);
    zstr_sendx(self->pipe, "LOST", "-1", self->why, NULL);
}

static void s_to_agent(link_t *self, zmsg_t **msg)
{
    if (zmsg_send(msg, self->dealer))
        zmsg_destroy(msg); //  HWM: the heartbeat will tell
}

static void s_clock_reply(link_t *self, zmsg_t *msg);

//  A message from the agent: by its ID, to the fleet or a stage
static void s_from_agent(link_t *self, zmsg_t *msg)
{
    char *command = zmsg_popstr(msg), *id_text = zmsg_popstr(msg);
    int id = id_text ? atoi(id_text) : -2;
    self->heard = mono_seconds();
    atomic_store(&self->last_word, self->heard);
    if (command && streq(command, "WELCOME"))
        self->welcomed = true;
    if (command && id == -1 && streq(command, "CLOCK")) {
        s_clock_reply(self, msg);
        zstr_free(&command);
        zstr_free(&id_text);
        zmsg_destroy(&msg);
        return;
    }
    zsock_t *to = id == -1                   ? self->pipe
                  : id >= 0 && id < LINK_IDS ? self->mailbox[id]
                                             : NULL;
    if (to && command && !streq(command, "PING")) {
        zmsg_pushstr(msg, id_text);
        zmsg_pushstr(msg, command);
        zmsg_send(&msg, to);
    }
    zstr_free(&command);
    zstr_free(&id_text);
    zmsg_destroy(&msg);
}

//  What the DEALER's monitor saw: a closed connection after WELCOME, or a
//  handshake the agent refused
static void s_monitor(link_t *self)
{
    zmsg_t *msg = zmsg_recv(self->monitor);
    zframe_t *frame = msg ? zmsg_first(msg) : NULL;
    if (!frame || zframe_size(frame) < 6) {
        zmsg_destroy(&msg);
        return;
    }
    uint16_t event;
    uint32_t value;
    memcpy(&event, zframe_data(frame), 2);
    memcpy(&value, zframe_data(frame) + 2, 4);
    char why[300];
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
        snprintf(why, sizeof why,
                 "not allowed: its agent refused this controller's "
                 "certificate (ZAP status %u; the agent's --allow must name "
                 "the controller's public certificate)",
                 value);
        s_lose(self, why);
    } else if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
        self->handshaken = true;
        atomic_store(&self->reached, true);
    } else if ((event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL ||
                event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) &&
               !self->handshaken)
        //  the same keys fail every time: no use waiting for the timeout
        s_lose(self, "the CURVE handshake failed: the agent there does not "
                     "have the public key of the hosts file's cert (is "
                     "'cert' the agent's public certificate, and is a "
                     "hopbench agent at that address?)");
    else if (event == ZMQ_EVENT_DISCONNECTED && self->welcomed)
        s_lose(self, "its agent closed the connection (it ended, or was "
                     "killed)");
    zmsg_destroy(&msg);
}

//  The clock's next sample: CLOCK with our clock, T0
static void s_clock_send(link_t *self)
{
    clock_run_t *c = &self->clock;
    c->t0 = mono_ns();
    c->until = mono_seconds() + LINK_CLOCK_MS / 1000.0;
    zmsg_t *ping = zmsg_new();
    zmsg_addstr(ping, "CLOCK");
    zmsg_addstr(ping, "-1");
    zmsg_addstrf(ping, "%llu", (unsigned long long)c->t0);
    s_to_agent(self, &ping);
}

//  One sample done (answered or not): the next, or the estimate to the
//  fleet, [CLOCK][offset][uncertainty][rtt] in ns, the sample with the
//  smallest round trip (NTP's way)
static void s_clock_next(link_t *self)
{
    clock_run_t *c = &self->clock;
    if (--c->left > 0) {
        s_clock_send(self);
        return;
    }
    c->left = 0;
    if (c->best_rtt < 0) {
        zstr_sendx(self->pipe, "ERR", "-1", "no answer to CLOCK", NULL);
        return;
    }
    zmsg_t *msg = zmsg_new();
    zmsg_addstr(msg, "CLOCK");
    zmsg_addstrf(msg, "%.0f", c->best_offset);
    zmsg_addstrf(msg, "%.0f", c->best_rtt / 2);
    zmsg_addstrf(msg, "%.0f", c->best_rtt);
    zmsg_send(&msg, self->pipe);
}

//  CLOCK asked: LINK_CLOCK_SAMPLES samples, one after another
static void s_clock_start(link_t *self)
{
    self->clock = (clock_run_t){.left = LINK_CLOCK_SAMPLES, .best_rtt = -1};
    s_clock_send(self);
}

//  [T0][T1]: the agent's clock T1 when it read our T0 (an older sample's
//  late answer is dropped)
static void s_clock_reply(link_t *self, zmsg_t *msg)
{
    clock_run_t *c = &self->clock;
    uint64_t t3 = mono_ns();
    uint64_t sent = (uint64_t)wire_pop_ll(msg);
    double t1 = (double)(uint64_t)wire_pop_ll(msg);
    if (c->left <= 0 || sent != c->t0)
        return;
    double rtt = (double)(t3 - c->t0);
    if (c->best_rtt < 0 || rtt < c->best_rtt) {
        c->best_rtt = rtt;
        c->best_offset = t1 - ((double)c->t0 + (double)t3) / 2;
    }
    s_clock_next(self);
}

//  A sample not answered in time is given up
static void s_clock_check(link_t *self)
{
    if (self->clock.left > 0 && mono_seconds() > self->clock.until)
        s_clock_next(self);
}

static void s_attach(link_t *self, zmsg_t *msg)
{
    int id = (int)wire_pop_ll(msg);
    zframe_t *frame = zmsg_pop(msg);
    zsock_t *mailbox = NULL;
    if (frame && zframe_size(frame) == sizeof mailbox)
        memcpy(&mailbox, zframe_data(frame), sizeof mailbox);
    zframe_destroy(&frame);
    if (id >= 0 && id < LINK_IDS && mailbox && !self->mailbox[id]) {
        self->mailbox[id] = mailbox;
        zpoller_add(self->poller, mailbox);
        if (atomic_load(&self->lost))
            zstr_sendx(mailbox, "LOST", "0", self->why, NULL);
    } else
        zsock_destroy(&mailbox);
}

static void s_detach(link_t *self, zmsg_t *msg)
{
    int id = (int)wire_pop_ll(msg);
    if (id >= 0 && id < LINK_IDS && self->mailbox[id]) {
        zpoller_remove(self->poller, self->mailbox[id]);
        zsock_destroy(&self->mailbox[id]);
    }
    zstr_send(self->pipe, "DONE");
}

//  The fleet's requests; false on $TERM
static bool s_from_pipe(link_t *self)
{
    zmsg_t *msg = zmsg_recv(self->pipe);
    char *command = msg ? zmsg_popstr(msg) : NULL;
    bool go_on = command && !streq(command, "$TERM");
    if (go_on && streq(command, "ASK")) {
        if (atomic_load(&self->lost))
            zstr_sendx(self->pipe, "LOST", "-1", self->why, NULL);
        else
            s_to_agent(self, &msg);
    } else if (go_on && streq(command, "CLOCK"))
        s_clock_start(self);
    else if (go_on && streq(command, "ATTACH"))
        s_attach(self, msg);
    else if (go_on && streq(command, "DETACH"))
        s_detach(self, msg);
    zstr_free(&command);
    zmsg_destroy(&msg);
    return go_on;
}

//  A stage's message: to the agent, or LOST back
static void s_from_mailbox(link_t *self, zsock_t *mailbox)
{
    zmsg_t *msg = zmsg_recv(mailbox);
    if (msg && atomic_load(&self->lost))
        zstr_sendx(mailbox, "LOST", "0", self->why, NULL);
    else if (msg)
        s_to_agent(self, &msg);
    zmsg_destroy(&msg);
}

//  Heartbeats: ours every interval, theirs expected within the timeout
static void s_beat(link_t *self, double interval)
{
    double now = mono_seconds();
    //  this thread waited for a CPU (a machine loaded past its means):
    //  what the agent said meanwhile is not read yet, so that time is
    //  not its silence
    if (self->awake > 0 && now - self->awake > 2 * interval) {
        self->heard += now - self->awake - interval;
        atomic_store(&self->last_word, self->heard);
    }
    self->awake = now;
    if (now - self->pinged >= interval) {
        zstr_sendx(self->dealer, "PING", "-1", NULL);
        self->pinged = now;
    }
    //  a word unread while this thread waited for a CPU is not silence
    while (self->welcomed && now - self->heard > self->timeout &&
           (zsock_events(self->dealer) & ZMQ_POLLIN)) {
        zmsg_t *msg = zmsg_recv(self->dealer);
        if (!msg)
            break;
        s_from_agent(self, msg);
    }
    if (self->welcomed && now - self->heard > self->timeout) {
        char why[200];
        snprintf(why, sizeof why,
                 "no word from its agent for %g s (its "
                 "host or link is down, or it hangs)",
                 self->timeout);
        atomic_store(&self->silent, true);
        s_lose(self, why);
    }
}

static int s_open(link_t *self)
{
    self->dealer = zsock_new(ZMQ_DEALER);
    if (!self->dealer)
        return -1;
    zsock_set_linger(self->dealer, 0);
    zsock_set_sndtimeo(self->dealer, 0);
    zsock_set_identity(self->dealer, self->identity);
    zsock_set_curve_serverkey(self->dealer, self->server_key);
    zsock_set_curve_publickey(self->dealer, self->public_key);
    zsock_set_curve_secretkey(self->dealer, self->secret_key);
    char monitor[64];
    snprintf(monitor, sizeof monitor, "inproc://hopbench-link-%p", self);
    if (zmq_socket_monitor(zsock_resolve(self->dealer), monitor,
                           ZMQ_EVENT_DISCONNECTED |
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                               ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                               ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL))
        return -1;
    self->monitor = zsock_new_pair(monitor);
    if (!self->monitor || zsock_connect(self->dealer, "%s", self->connect))
        return -1;
    return 0;
}

static void s_link(zsock_t *pipe, void *args)
{
    link_t *self = args;
    char name[16];
    snprintf(name, sizeof name, "hbl:%.11s", self->name);
    prctl(PR_SET_NAME, name); //  the read-back knows it by this (roster.h)
    self->pipe = pipe;
    int rc = s_open(self);
    self->poller = zpoller_new(pipe, NULL);
    if (rc == 0) {
        zpoller_add(self->poller, self->dealer);
        zpoller_add(self->poller, self->monitor);
    }
    self->heard = self->pinged = mono_seconds();
    atomic_store(&self->last_word, self->heard);
    zsock_signal(pipe, 0);
    if (rc) {
        char why[300];
        snprintf(why, sizeof why, "cannot connect to it: %s",
                 zmq_strerror(zmq_errno()));
        s_lose(self, why);
    }
    double interval = self->timeout / 4 < 0.05  ? 0.05
                      : self->timeout / 4 > 1.0 ? 1.0
                                                : self->timeout / 4;
    while (true) {
        void *which = zpoller_wait(self->poller, (int)(interval * 250));
        if (which == pipe && !s_from_pipe(self))
            break;
        if (which == self->dealer) {
            zmsg_t *msg = zmsg_recv(self->dealer);
            if (msg)
                s_from_agent(self, msg);
        } else if (which == self->monitor)
            s_monitor(self);
        else if (which && which != pipe)
            s_from_mailbox(self, which);
        if (!atomic_load(&self->lost)) {
            s_clock_check(self);
            s_beat(self, interval);
        }
    }
    for (int id = 0; id < LINK_IDS; id++)
        zsock_destroy(&self->mailbox[id]);
    zpoller_destroy(&self->poller);
    if (self->dealer)
        zmq_socket_monitor(zsock_resolve(self->dealer), NULL, 0);
    zsock_destroy(&self->monitor);
    zsock_destroy(&self->dealer);
}

//  ------------------------------------------------------------------------
//  The controller's side

//  "host h2 (agent tcp://...): why", of host h2; lost: why is the link's
//  loss
static int s_fail(const agent_link_t *self, errbuf_t *err, const char *why,
                  bool lost)
{
    err_set(err, "%s", why);
    err_prefix(err, "host %s (agent %s): ", self->link->name,
               self->link->endpoint);
    if (err) {
        TEXT_SET(err->host, self->link->name);
        err->lost = lost;
    }
    return -1;
}

//  The link is lost: why, as an error of its host
static int s_fail_lost(const agent_link_t *self, errbuf_t *err)
{
    char why[300];
    agent_link_lost((agent_link_t *)self, why, sizeof why);
    return s_fail(self, err, why, true);
}

//  The pipe's next message (an ASK's answer), by until (one look at least:
//  it may be there), timeout_ms after it was asked
static zmsg_t *s_answer_by(agent_link_t *self, double until, int timeout_ms,
                           errbuf_t *err)
{
    double left = until - mono_seconds();
    zsock_set_rcvtimeo(self->actor, left > 0 ? (int)(left * 1000) + 1 : 0);
    zmsg_t *msg = zmsg_recv(self->actor);
    if (!msg) {
        char why[300];
        snprintf(why, sizeof why,
                 "no answer within %.1f s (is its agent "
                 "running, and at this address?)",
                 timeout_ms / 1000.0);
        s_fail(self, err, why, false);
        return NULL;
    }
    bool lost = zframe_streq(zmsg_first(msg), "LOST");
    if (lost || zframe_streq(zmsg_first(msg), "ERR")) {
        char why[300];
        wire_pop_ll(msg); //  the word
        wire_pop_ll(msg); //  the ID
        wire_pop_text(msg, why, sizeof why);
        s_fail(self, err, why, lost);
        zmsg_destroy(&msg);
    }
    return msg;
}

static zmsg_t *s_answer(agent_link_t *self, int timeout_ms, errbuf_t *err)
{
    return s_answer_by(self, mono_seconds() + timeout_ms / 1000.0, timeout_ms,
                       err);
}

int agent_link_post(agent_link_t *self, zmsg_t **request, errbuf_t *err)
{
    char word[16];
    char *first = zframe_strdup(zmsg_first(*request));
    TEXT_SET(word, first ? first : "");
    zstr_free(&first);
    agent_link_hold(self, word);
    if (atomic_load(&self->link->lost)) {
        zmsg_destroy(request);
        return s_fail_lost(self, err);
    }
    zmsg_pushstr(*request, "ASK");
    zsock_set_sndtimeo(self->actor, agent_link_wait_ms(self));
    if (zmsg_send(request, self->actor)) {
        zmsg_destroy(request);
        return s_fail(self, err, "its link does not take requests", false);
    }
    return 0;
}

zmsg_t *agent_link_answer(agent_link_t *self, double since, errbuf_t *err)
{
    int wait_ms = agent_link_wait_ms(self);
    return s_answer_by(self, since + wait_ms / 1000.0, wait_ms, err);
}

zmsg_t *agent_link_ask(agent_link_t *self, zmsg_t **request, int timeout_ms,
                       errbuf_t *err)
{
    return agent_link_post(self, request, err)
               ? NULL
               : s_answer(self, timeout_ms, err);
}

static zmsg_t *s_actor_msg(agent_link_t *self, int timeout_ms);

//  DONE from the actor itself (DETACH), skipping a LOST notice
static void s_actor_done(agent_link_t *self)
{
    zmsg_t *done = s_actor_msg(self, 5000);
    zmsg_destroy(&done);
}

//  The mailbox's far end to the actor, which polls it from then on; not
//  awaited: what the stage sends meanwhile waits in the mailbox, and what
//  the agent says for id comes after it was asked, so after the ATTACH
zsock_t *agent_link_attach(agent_link_t *self, int id, errbuf_t *err)
{
    zsock_t *back = NULL, *front = zsys_create_pipe(&back);
    if (!front) {
        s_fail(self, err, "cannot make a stage's mailbox", false);
        return NULL;
    }
    zmsg_t *msg = zmsg_new();
    zmsg_addstr(msg, "ATTACH");
    zmsg_addstrf(msg, "%d", id);
    zmsg_addmem(msg, &back, sizeof back);
    zsock_set_sndtimeo(self->actor, agent_link_wait_ms(self));
    if (zmsg_send(&msg, self->actor)) {
        zmsg_destroy(&msg);
        zsock_destroy(&back);
        zsock_destroy(&front);
        s_fail(self, err, "its link does not take a stage's mailbox", false);
        return NULL;
    }
    return front;
}

void agent_link_detach(agent_link_t *self, int id, zsock_t **mailbox)
{
    char text[16];
    snprintf(text, sizeof text, "%d", id);
    zstr_sendx(self->actor, "DETACH", text, NULL);
    s_actor_done(self);
    zsock_destroy(mailbox);
}

void agent_link_hold(agent_link_t *self, const char *word)
{
    const char *spec = getenv("HOPBENCH_TEST_HOLD");
    const char *at = spec ? strchr(spec, '@') : NULL;
    const char *colon = at ? strchr(at, ':') : NULL;
    size_t host_len = colon ? (size_t)(colon - at - 1) : 0;
    if (!colon || (size_t)(at - spec) != strlen(word) ||
        strncmp(spec, word, strlen(word)) ||
        host_len != strlen(self->link->name) ||
        strncmp(at + 1, self->link->name, host_len) || access(colon + 1, F_OK))
        return;
    char held[600];
    snprintf(held, sizeof held, "%s.held", colon + 1);
    int fd = open(held, O_CREAT | O_WRONLY, 0600);
    if (fd >= 0)
        close(fd);
    double until = mono_seconds() + LINK_HOLD_S;
    while (access(colon + 1, F_OK) == 0 && mono_seconds() < until)
        mono_sleep(0.002);
    unlink(held);
}

const agent_info_t *agent_link_info(const agent_link_t *self)
{
    return &self->info;
}

const char *agent_link_name(const agent_link_t *self)
{
    return self->link->name;
}

double agent_link_silence(agent_link_t *self)
{
    return mono_seconds() - atomic_load(&self->link->last_word);
}

double agent_link_timeout(const agent_link_t *self)
{
    return self->link->timeout;
}

int agent_link_wait_ms(const agent_link_t *self)
{
    return (int)(self->link->timeout * 1000) + LINK_LATE_MS;
}

bool agent_link_silent(agent_link_t *self)
{
    return atomic_load(&self->link->lost) && atomic_load(&self->link->silent);
}

bool agent_link_lost(agent_link_t *self, char *why, size_t len)
{
    bool lost = atomic_load(&self->link->lost);
    if (lost && why)
        snprintf(why, len, "%s", self->link->why);
    return lost;
}

//  ------------------------------------------------------------------------
//  HELLO, WELCOME, CLOCK

//  WELCOME's frames, in order
static void s_welcome(agent_info_t *info, zmsg_t *msg)
{
    wire_pop_ll(msg); //  WELCOME
    wire_pop_ll(msg); //  -1
    info->protocol = (int)wire_pop_ll(msg);
    wire_pop_text(msg, info->hopbench, sizeof info->hopbench);
    wire_pop_text(msg, info->hostname, sizeof info->hostname);
    wire_pop_text(msg, info->kernel, sizeof info->kernel);
    wire_pop_text(msg, info->cpu_model, sizeof info->cpu_model);
    wire_pop_text(msg, info->libzmq, sizeof info->libzmq);
    wire_pop_text(msg, info->czmq, sizeof info->czmq);
    info->numa_nodes = (int)wire_pop_ll(msg);
    wire_pop_text(msg, info->peer, sizeof info->peer);
    wire_pop_text(msg, info->run_dir, sizeof info->run_dir);
    info->machine = zmsg_popstr(msg);
    wire_pop_text(msg, info->syscalls, sizeof info->syscalls);
}

//  The agent's answer to HELLO: WELCOME, or why not
static int s_hello_answer(agent_link_t *self, zmsg_t *msg, errbuf_t *err)
{
    char word[16], why[400], a[64], b[64];
    wire_pop_text(msg, word, sizeof word);
    wire_pop_ll(msg); //  -1
    wire_pop_text(msg, a, sizeof a);
    wire_pop_text(msg, b, sizeof b);
    if (streq(word, "VERSION"))
        snprintf(why, sizeof why,
                 "its agent speaks protocol %s (hopbench %s), this controller "
                 "protocol %d (hopbench %s): refused (run one version of "
                 "hopbench on every host)",
                 a, b, wire_protocol(), HOPBENCH_VERSION);
    else if (streq(word, "BUSY"))
        snprintf(why, sizeof why, "busy, serving %s since %s", a, b);
    else
        snprintf(why, sizeof why, "unexpected answer '%s' to HELLO", word);
    return s_fail(self, err, why, false);
}

static int s_hello_post(agent_link_t *self, errbuf_t *err)
{
    zmsg_t *hello = zmsg_new();
    zmsg_addstr(hello, "HELLO");
    zmsg_addstr(hello, "-1");
    zmsg_addstrf(hello, "%d", wire_protocol());
    zmsg_addstr(hello, HOPBENCH_VERSION);
    zmsg_addstr(hello, self->link->controller);
    zmsg_addstrf(hello, "%g", self->link->timeout);
    return agent_link_post(self, &hello, err);
}

static int s_hello_take(agent_link_t *self, double since, errbuf_t *err)
{
    zmsg_t *answer = s_answer_by(self, since + self->link->timeout,
                                 (int)(self->link->timeout * 1000), err);
    if (!answer)
        return -1;
    int rc = 0;
    if (zframe_streq(zmsg_first(answer), "WELCOME")) {
        s_welcome(&self->info, answer);
        if (self->info.protocol != wire_protocol()) {
            char why[300];
            snprintf(why, sizeof why,
                     "its agent welcomed protocol %d, this controller speaks "
                     "%d: refused",
                     self->info.protocol, wire_protocol());
            rc = s_fail(self, err, why, false);
        }
    } else
        rc = s_hello_answer(self, answer, err);
    zmsg_destroy(&answer);
    return rc;
}

//  The actor's next message that is not a notice (LOST, ERR), within
//  timeout_ms (0: only one there already); NULL once the link is lost
static zmsg_t *s_actor_msg(agent_link_t *self, int timeout_ms)
{
    zsock_set_rcvtimeo(self->actor, timeout_ms > 0 ? timeout_ms : 0);
    while (true) {
        zmsg_t *msg = zmsg_recv(self->actor);
        if (!msg)
            return NULL;
        if (!zframe_streq(zmsg_first(msg), "LOST") &&
            !zframe_streq(zmsg_first(msg), "ERR"))
            return msg;
        zmsg_destroy(&msg);
        if (atomic_load(&self->link->lost))
            return NULL;
    }
}

//  CLOCK: [CLOCK][offset][uncertainty][rtt] from the actor, which takes
//  the samples while it heartbeats: a host lost meanwhile ends it
void agent_link_clock_ask(agent_link_t *self)
{
    agent_link_hold(self, "CLOCK");
    zstr_send(self->actor, "CLOCK");
}

int agent_link_clock_take(agent_link_t *self, double since, errbuf_t *err)
{
    double until =
        since + (LINK_CLOCK_SAMPLES + 1) * LINK_CLOCK_MS / 1000.0 + 0.001;
    zmsg_t *answer = s_actor_msg(self, (int)((until - mono_seconds()) * 1000));
    if (!answer)
        return atomic_load(&self->link->lost)
                   ? s_fail_lost(self, err)
                   : s_fail(self, err, "no answer to the clock's samples",
                            false);
    agent_info_t *info = &self->info;
    wire_pop_ll(answer); //  CLOCK
    info->offset_ns = wire_pop_double(answer);
    info->uncertainty_ns = wire_pop_double(answer);
    info->rtt_ns = wire_pop_double(answer);
    zmsg_destroy(&answer);
    return 0;
}

//  The agent's endpoint with its name resolved, here and now: a name
//  that does not resolve is said at once (libzmq would retry it quietly
//  until the timeout)
static int s_resolve(link_t *link, errbuf_t *err)
{
    TEXT_SET(link->connect, link->endpoint);
    const char *name = link->endpoint + 6, *colon = strrchr(name, ':');
    if (strncmp(link->endpoint, "tcp://", 6) || !colon)
        return 0; //  not of the hosts file's form: libzmq says why
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)(colon - name), name);
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
    struct addrinfo *found = NULL;
    int rc = getaddrinfo(host, NULL, &hints, &found);
    if (rc || !found) {
        if (found)
            freeaddrinfo(found);
        return err_set(err, "host %s: address '%s' does not resolve (%s)",
                       link->name, host, rc ? gai_strerror(rc) : "no IPv4");
    }
    char numeric[INET_ADDRSTRLEN] = "";
    inet_ntop(AF_INET, &((struct sockaddr_in *)found->ai_addr)->sin_addr,
              numeric, sizeof numeric);
    freeaddrinfo(found);
    snprintf(link->connect, sizeof link->connect, "tcp://%s%s", numeric, colon);
    return 0;
}

static link_t *s_link_new(const agent_link_options_t *o)
{
    link_t *link = calloc(1, sizeof *link);
    if (!link)
        return NULL;
    TEXT_SET(link->name, o->name);
    TEXT_SET(link->endpoint, o->endpoint);
    TEXT_SET(link->controller, o->controller);
    TEXT_SET(link->server_key, o->server_key);
    TEXT_SET(link->public_key, o->public_key);
    TEXT_SET(link->secret_key, o->secret_key);
    snprintf(link->identity, sizeof link->identity, "hb%08x%08x",
             (unsigned)random(), (unsigned)mono_ns());
    link->timeout = o->timeout;
    return link;
}

agent_link_t *agent_link_open(const agent_link_options_t *options,
                              errbuf_t *err)
{
    agent_link_t *self = calloc(1, sizeof *self);
    if (self)
        self->link = s_link_new(options);
    if (!self || !self->link) {
        free(self);
        err_set(err, "host %s: out of memory", options->name);
        return NULL;
    }
    if (s_resolve(self->link, err)) {
        agent_link_destroy(&self);
        return NULL;
    }
    errbuf_t why;
    self->actor = actor_new(s_link, self->link, &why);
    if (!self->actor) {
        err_set(err, "host %s: %s", options->name, why.msg);
        agent_link_destroy(&self);
    }
    return self;
}

bool agent_link_reached(agent_link_t *self)
{
    return atomic_load(&self->link->reached);
}

const char *agent_link_endpoint(const agent_link_t *self)
{
    return self->link->endpoint;
}

int agent_link_hello_ask(agent_link_t *self, errbuf_t *err)
{
    return s_hello_post(self, err);
}

int agent_link_hello_take(agent_link_t *self, double since, errbuf_t *err)
{
    return s_hello_take(self, since, err);
}

int agent_link_bye(agent_link_t *self, errbuf_t *err)
{
    if (self->said_bye)
        return 0;
    self->said_bye = true;
    zmsg_t *bye = zmsg_new();
    zmsg_addstr(bye, "BYE");
    zmsg_addstr(bye, "-1");
    zmsg_t *answer = agent_link_ask(self, &bye, agent_link_wait_ms(self), err);
    if (!answer)
        return -1;
    zmsg_destroy(&answer);
    return 0;
}

void agent_link_destroy(agent_link_t **self_p)
{
    agent_link_t *self = *self_p;
    if (!self)
        return;
    errbuf_t ignored;
    if (self->actor && self->info.protocol && !atomic_load(&self->link->lost))
        agent_link_bye(self, &ignored);
    //  the link is freed only once its thread is gone
    if (!self->actor || actor_destroy(&self->actor, 2000) == 0)
        free(self->link);
    zstr_free(&self->info.machine);
    free(self);
    *self_p = NULL;
}
