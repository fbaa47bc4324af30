/*  agent_link: one host's agent, the controller's side (agent_link.h).

    The actor's loop polls its pipe (the fleet's requests, ATTACH and
    DETACH of mailboxes, CLOCK), the DEALER, the DEALER's monitor and
    every mailbox.  What the agent sends is routed by its ID frame; PING
    only says it is alive.  Loss is final: once lost, every mailbox that
    speaks gets [LOST] back, and nothing more reaches the agent.
*/
#include "crew/agent_link.h"

#include "base/actor.h"
#include "base/mono.h"
#include "base/text.h"
#include "crew/wire.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define LINK_IDS           PIPELINE_MAX_INSTANCES
#define LINK_CLOCK_SAMPLES 16
#define LINK_CLOCK_MS      1000 //  one clock sample waits at most this

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
    bool welcomed;
    bool handshaken; //  CURVE with the agent has worked once
    //  both threads'
    _Atomic double last_word; //  = heard, for agent_link_silence
    _Atomic bool lost;
    _Atomic bool silent; //  lost for its silence (set before lost)
    char why[300];       //  written before lost is set
} link_t;

struct agent_link_s {
    link_t *link;
    zsock_t *actor;
    agent_info_t info;
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

//  A message from the agent: by its ID, to the fleet or a stage
static void s_from_agent(link_t *self, zmsg_t *msg)
{
    char *command = zmsg_popstr(msg), *id_text = zmsg_popstr(msg);
    int id = id_text ? atoi(id_text) : -2;
    self->heard = mono_seconds();
    atomic_store(&self->last_word, self->heard);
    if (command && streq(command, "WELCOME"))
        self->welcomed = true;
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
    } else if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
        self->handshaken = true;
    else if ((event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL ||
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

//  One clock sample: the agent's clock at the middle of a round trip
static int s_clock_sample(link_t *self, double *offset, double *rtt)
{
    uint64_t t0 = mono_ns();
    zmsg_t *ping = zmsg_new();
    zmsg_addstr(ping, "CLOCK");
    zmsg_addstr(ping, "-1");
    zmsg_addstrf(ping, "%llu", (unsigned long long)t0);
    s_to_agent(self, &ping);
    double until = mono_seconds() + LINK_CLOCK_MS / 1000.0;
    while (mono_seconds() < until && !atomic_load(&self->lost)) {
        zmq_pollitem_t item = {zsock_resolve(self->dealer), 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 10) <= 0)
            continue;
        zmsg_t *msg = zmsg_recv(self->dealer);
        uint64_t t3 = mono_ns();
        char *command = msg ? zmsg_popstr(msg) : NULL;
        bool mine = command && streq(command, "CLOCK");
        if (mine) {
            zstr_free(&command);
            wire_pop_ll(msg); //  the ID, -1
            uint64_t sent = (uint64_t)wire_pop_ll(msg);
            double t1 = (double)(uint64_t)wire_pop_ll(msg);
            zmsg_destroy(&msg);
            if (sent != t0)
                continue; //  an older sample's late answer
            *rtt = (double)(t3 - t0);
            *offset = t1 - ((double)t0 + (double)t3) / 2;
            self->heard = mono_seconds();
            atomic_store(&self->last_word, self->heard);
            return 0;
        }
        if (command)
            zmsg_pushstr(msg, command);
        zstr_free(&command);
        if (msg)
            s_from_agent(self, msg);
    }
    return -1;
}

//  CLOCK: the sample with the smallest round trip, NTP's way
static void s_clock(link_t *self)
{
    double best_rtt = -1, best_offset = 0;
    for (int i = 0; i < LINK_CLOCK_SAMPLES; i++) {
        double offset, rtt;
        if (s_clock_sample(self, &offset, &rtt) == 0 &&
            (best_rtt < 0 || rtt < best_rtt))
            best_rtt = rtt, best_offset = offset;
    }
    if (best_rtt < 0)
        zstr_sendx(self->pipe, "ERR", "-1", "no answer to CLOCK", NULL);
    else
        zstr_sendf(self->pipe, "CLOCK %.0f %.0f %.0f", best_offset,
                   best_rtt / 2, best_rtt);
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
    zstr_send(self->pipe, "DONE");
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
        s_clock(self);
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
    if (now - self->pinged >= interval) {
        zstr_sendx(self->dealer, "PING", "-1", NULL);
        self->pinged = now;
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
        if (!atomic_load(&self->lost))
            s_beat(self, interval);
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

//  "host h2: why"
static int s_fail(const agent_link_t *self, errbuf_t *err, const char *why)
{
    return err_set(err, "host %s (agent %s): %s", self->link->name,
                   self->link->endpoint, why);
}

//  The pipe's next message (an ASK's answer), within timeout_ms
static zmsg_t *s_answer(agent_link_t *self, int timeout_ms, errbuf_t *err)
{
    zsock_set_rcvtimeo(self->actor, timeout_ms);
    zmsg_t *msg = zmsg_recv(self->actor);
    if (!msg) {
        char why[300];
        snprintf(why, sizeof why,
                 "no answer within %.1f s (is its agent "
                 "running, and at this address?)",
                 timeout_ms / 1000.0);
        s_fail(self, err, why);
        return NULL;
    }
    if (zframe_streq(zmsg_first(msg), "LOST") ||
        zframe_streq(zmsg_first(msg), "ERR")) {
        char why[300];
        wire_pop_ll(msg); //  the word
        wire_pop_ll(msg); //  the ID
        wire_pop_text(msg, why, sizeof why);
        s_fail(self, err, why);
        zmsg_destroy(&msg);
    }
    return msg;
}

zmsg_t *agent_link_ask(agent_link_t *self, zmsg_t **request, int timeout_ms,
                       errbuf_t *err)
{
    zmsg_pushstr(*request, "ASK");
    zsock_set_sndtimeo(self->actor, timeout_ms);
    if (zmsg_send(request, self->actor)) {
        zmsg_destroy(request);
        s_fail(self, err, "its link does not take requests");
        return NULL;
    }
    return s_answer(self, timeout_ms, err);
}

//  A word from the actor itself (DONE, CLOCK ...), skipping a LOST notice
static char *s_actor_word(agent_link_t *self, int timeout_ms)
{
    zsock_set_rcvtimeo(self->actor, timeout_ms);
    while (true) {
        zmsg_t *msg = zmsg_recv(self->actor);
        if (!msg)
            return NULL;
        char *word = zmsg_popstr(msg);
        bool notice = word && (streq(word, "LOST") || streq(word, "ERR"));
        zmsg_destroy(&msg);
        if (!notice)
            return word;
        zstr_free(&word);
        if (atomic_load(&self->link->lost))
            return NULL;
    }
}

zsock_t *agent_link_attach(agent_link_t *self, int id, errbuf_t *err)
{
    zsock_t *back = NULL, *front = zsys_create_pipe(&back);
    if (!front) {
        s_fail(self, err, "cannot make a stage's mailbox");
        return NULL;
    }
    zmsg_t *msg = zmsg_new();
    zmsg_addstr(msg, "ATTACH");
    zmsg_addstrf(msg, "%d", id);
    zmsg_addmem(msg, &back, sizeof back);
    zmsg_send(&msg, self->actor);
    char *done = s_actor_word(self, 5000);
    zstr_free(&done);
    return front;
}

void agent_link_detach(agent_link_t *self, int id, zsock_t **mailbox)
{
    char text[16];
    snprintf(text, sizeof text, "%d", id);
    zstr_sendx(self->actor, "DETACH", text, NULL);
    char *done = s_actor_word(self, 5000);
    zstr_free(&done);
    zsock_destroy(mailbox);
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
    return s_fail(self, err, why);
}

static int s_hello(agent_link_t *self, errbuf_t *err)
{
    zmsg_t *hello = zmsg_new();
    zmsg_addstr(hello, "HELLO");
    zmsg_addstr(hello, "-1");
    zmsg_addstrf(hello, "%d", wire_protocol());
    zmsg_addstr(hello, HOPBENCH_VERSION);
    zmsg_addstr(hello, self->link->controller);
    zmsg_addstrf(hello, "%g", self->link->timeout);
    zmsg_t *answer =
        agent_link_ask(self, &hello, (int)(self->link->timeout * 1000), err);
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
            rc = s_fail(self, err, why);
        }
    } else
        rc = s_hello_answer(self, answer, err);
    zmsg_destroy(&answer);
    return rc;
}

static int s_clock_estimate(agent_link_t *self, errbuf_t *err)
{
    zstr_send(self->actor, "CLOCK");
    char *answer = s_actor_word(self, (LINK_CLOCK_SAMPLES + 1) * LINK_CLOCK_MS);
    agent_info_t *info = &self->info;
    int ok = answer && sscanf(answer, "CLOCK %lf %lf %lf", &info->offset_ns,
                              &info->uncertainty_ns, &info->rtt_ns) == 3;
    zstr_free(&answer);
    return ok ? 0 : s_fail(self, err, "no answer to the clock's samples");
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

agent_link_t *agent_link_new(const agent_link_options_t *options, errbuf_t *err)
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
        return NULL;
    }
    if (s_hello(self, err) || s_clock_estimate(self, err))
        agent_link_destroy(&self);
    return self;
}

void agent_link_destroy(agent_link_t **self_p)
{
    agent_link_t *self = *self_p;
    if (!self)
        return;
    if (self->actor && self->info.protocol && !atomic_load(&self->link->lost)) {
        zmsg_t *bye = zmsg_new(), *answer;
        errbuf_t ignored;
        zmsg_addstr(bye, "BYE");
        zmsg_addstr(bye, "-1");
        answer = agent_link_ask(self, &bye, 5000, &ignored);
        zmsg_destroy(&answer);
    }
    //  the link is freed only once its thread is gone
    if (!self->actor || actor_destroy(&self->actor, 2000) == 0)
        free(self->link);
    zstr_free(&self->info.machine);
    free(self);
    *self_p = NULL;
}
