/*  agent: the control channel, one run at a time (see agent.h).

    The loop polls the ROUTER, its monitor (refused handshakes, closed
    connections), stdin when it is the leash (--allow -), and the pipes
    of the run's stages; after every wake-up it passes on the stages'
    answers and heartbeats.  Requests of the served controller go to
    agent_run; the agent itself answers HELLO, CLOCK, PING and BYE.

    The served controller is known by its connection too: the socket's
    file descriptor its HELLO came on (libzmq's "__fd" property of a
    message).  When the monitor says that connection closed (the
    controller ended, or was killed), the run ends at once, not after
    the silence of a timeout.  The monitor is read before the ROUTER and
    again before a HELLO is answered: a connection's close is told
    before its descriptor can be another's, and another's HELLO comes
    after its own connection was told, so a descriptor is never taken
    for the wrong controller's.
*/
#define _GNU_SOURCE
#include "agent/agent.h"

#include "agent/agent_run.h"
#include "agent/keys.h"
#include "base/interrupt.h"
#include "base/mono.h"
#include "crew/wire.h"
#include "machine/machine.h"
#include "machine/syscalls.h"
#include "report/resultsdir.h"

#include <czmq.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define AGENT_POLL_MS 50
#define AGENT_ITEMS   (3 + 128)

typedef struct {
    const agent_options_t *options;
    zcert_t *cert;
    char allow_dir[256];
    zactor_t *auth;
    zsock_t *router, *monitor;
    char *machine; //  this host's NUMA machine, described
    int nnodes;
    char model[128];
    //  what --profile syscalls would lack here ("": nothing), probed once
    //  at the start: opening and closing a tracepoint's perf event took
    //  up to 0.3 s on a busy machine, too long for every HELLO's answer
    char no_tracing[ERRBUF_MAX + 1];
    bool leash;    //  stdin holds the agent's life
    bool finished; //  --once: its run is over
    //  the run served now
    agent_run_t *run;
    zframe_t *controller; //  its routing id
    int controller_fd;    //  its connection (-1: not known)
    char who[200], since[32];
    double heard, pinged, timeout;
} agent_t;

static void s_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void s_log(const char *fmt, ...)
{
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "hopbench agent: %s\n", line);
}

//  To the served controller (or to 'to', when another asks)
static void s_send(agent_t *self, zframe_t *to, zmsg_t **msg)
{
    zframe_t *id = zframe_dup(to);
    zmsg_prepend(*msg, &id);
    if (zmsg_send(msg, self->router))
        zmsg_destroy(msg);
}

static void s_send_words(agent_t *self, zframe_t *to, const char *word,
                         const char *a, const char *b)
{
    zmsg_t *msg = zmsg_new();
    zmsg_addstr(msg, word);
    zmsg_addstr(msg, "-1");
    if (a)
        zmsg_addstr(msg, a);
    if (b)
        zmsg_addstr(msg, b);
    s_send(self, to, &msg);
}

//  ------------------------------------------------------------------------
//  One run

static void s_end_run(agent_t *self, const char *why)
{
    if (!self->run)
        return;
    s_log("run of %s ended: %s", self->who, why);
    agent_run_destroy(&self->run);
    zframe_destroy(&self->controller);
    self->controller_fd = -1;
    self->finished = self->options->once;
}

static void s_welcome(agent_t *self, zframe_t *to, const char *peer)
{
    int major, minor, patch;
    char text[64];
    struct utsname uts;
    uname(&uts);
    zmsg_t *msg = zmsg_new();
    zmsg_addstr(msg, "WELCOME");
    zmsg_addstr(msg, "-1");
    zmsg_addstrf(msg, "%d", wire_protocol());
    zmsg_addstr(msg, HOPBENCH_VERSION);
    zmsg_addstr(msg, uts.nodename);
    zmsg_addstrf(msg, "%s %s %s", uts.sysname, uts.release, uts.machine);
    zmsg_addstr(msg, self->model);
    zmq_version(&major, &minor, &patch);
    snprintf(text, sizeof text, "%d.%d.%d", major, minor, patch);
    zmsg_addstr(msg, text);
    zsys_version(&major, &minor, &patch);
    snprintf(text, sizeof text, "%d.%d.%d", major, minor, patch);
    zmsg_addstr(msg, text);
    zmsg_addstrf(msg, "%d", self->nnodes);
    zmsg_addstr(msg, peer);
    zmsg_addstr(msg, agent_run_dir(self->run));
    zmsg_addstr(msg, self->machine);
    zmsg_addstr(msg, self->no_tracing);
    s_send(self, to, &msg);
}

static void s_monitor(agent_t *self);

//  HELLO PROTOCOL VERSION WHO TIMEOUT, on connection fd
static void s_hello(agent_t *self, zframe_t *from, const char *peer, int fd,
                    zmsg_t *msg)
{
    char version[32], who[128];
    int protocol = (int)wire_pop_ll(msg);
    wire_pop_text(msg, version, sizeof version);
    wire_pop_text(msg, who, sizeof who);
    double timeout = wire_pop_double(msg);
    char mine[16];
    snprintf(mine, sizeof mine, "%d", wire_protocol());
    if (protocol != wire_protocol()) {
        s_log("refused %s at %s: it speaks protocol %d (hopbench %s), this "
              "agent protocol %d (hopbench %s)",
              who, peer, protocol, version, wire_protocol(), HOPBENCH_VERSION);
        s_send_words(self, from, "VERSION", mine, HOPBENCH_VERSION);
        return;
    }
    s_monitor(self); //  the served controller's connection closed?
    if (self->run && !zframe_eq(from, self->controller)) {
        s_log("refused %s at %s: busy, serving %s", who, peer, self->who);
        s_send_words(self, from, "BUSY", self->who, self->since);
        return;
    }
    errbuf_t err;
    if (!self->run && !(self->run = agent_run_new(self->machine, &err))) {
        s_send_words(self, from, "ERR", err.msg, NULL);
        return;
    }
    if (!self->controller) {
        self->controller = zframe_dup(from);
        self->controller_fd = fd;
        snprintf(self->who, sizeof self->who, "%s at %s", who, peer);
        resultsdir_utc(self->since, sizeof self->since, false);
        self->timeout = timeout >= 0.5 ? timeout : 10;
        s_log("serving %s", self->who);
    }
    self->heard = mono_seconds();
    s_welcome(self, from, peer);
}

//  What the served controller asks
static void s_served(agent_t *self, const char *command, int id, zmsg_t *msg)
{
    zmsg_t *reply = NULL;
    if (streq(command, "PING"))
        return;
    if (streq(command, "CLOCK")) {
        char t0[32], t1[32];
        wire_pop_text(msg, t0, sizeof t0);
        snprintf(t1, sizeof t1, "%llu", (unsigned long long)mono_ns());
        s_send_words(self, self->controller, "CLOCK", t0, t1);
        return;
    }
    if (streq(command, "BYE")) { //  answered first: the end takes a while
        s_send_words(self, self->controller, "BYE", NULL, NULL);
        s_end_run(self, "the controller said BYE");
        return;
    }
    agent_run_handle(self->run, command, id, msg, &reply);
    if (reply)
        s_send(self, self->controller, &reply);
}

static void s_request(agent_t *self, zmsg_t *msg)
{
    zframe_t *from = zmsg_pop(msg);
    zframe_t *first = zmsg_first(msg);
    const char *meta = first ? zframe_meta(first, "Peer-Address") : NULL;
    const char *fd = first ? zframe_meta(first, "__fd") : NULL;
    char command[16], peer[64];
    snprintf(peer, sizeof peer, "%s", meta ? meta : "");
    wire_pop_text(msg, command, sizeof command);
    int id = (int)wire_pop_ll(msg);
    if (!from)
        ;
    else if (streq(command, "HELLO"))
        s_hello(self, from, peer, fd ? atoi(fd) : -1, msg);
    else if (self->run && zframe_eq(from, self->controller)) {
        self->heard = mono_seconds();
        s_served(self, command, id, msg);
    } else if (!streq(command, "PING"))
        s_send_words(self, from, "ERR",
                     "this agent serves another controller, or none: HELLO "
                     "first",
                     NULL);
    zframe_destroy(&from);
}

//  Heartbeats: ours, and the controller's silence
static void s_beat(agent_t *self)
{
    if (!self->run)
        return;
    double now = mono_seconds(), interval = self->timeout / 4;
    interval = interval < 0.05 ? 0.05 : interval > 1 ? 1 : interval;
    if (now - self->pinged >= interval) {
        s_send_words(self, self->controller, "PING", NULL, NULL);
        self->pinged = now;
    }
    if (now - self->heard > self->timeout) {
        char why[100];
        snprintf(why, sizeof why, "no word from it for %g s", self->timeout);
        s_end_run(self, why);
    }
}

//  ------------------------------------------------------------------------
//  Setting up

//  One event of the ROUTER's: a refused handshake is logged; the served
//  controller's connection closed ends its run
static void s_event(agent_t *self, zmsg_t *msg)
{
    zframe_t *frame = zmsg_first(msg);
    if (!frame || zframe_size(frame) < 6)
        return;
    uint16_t event;
    uint32_t value;
    memcpy(&event, zframe_data(frame), 2);
    memcpy(&value, zframe_data(frame) + 2, 4);
    char *where = zframe_strdup(zmsg_next(msg));
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        s_log("refused a controller on %s: not allowed: its certificate "
              "is not in --allow",
              where ? where : "?");
    else if (event == ZMQ_EVENT_DISCONNECTED && self->run &&
             self->controller_fd >= 0 && (int)value == self->controller_fd)
        s_end_run(self, "its connection closed (it ended, or was killed)");
    zstr_free(&where);
}

//  Every event the monitor has now
static void s_monitor(agent_t *self)
{
    zmq_pollitem_t item = {zsock_resolve(self->monitor), 0, ZMQ_POLLIN, 0};
    while (zmq_poll(&item, 1, 0) > 0) {
        zmsg_t *msg = zmsg_recv(self->monitor);
        if (!msg)
            return;
        s_event(self, msg);
        zmsg_destroy(&msg);
    }
}

static int s_describe(agent_t *self, errbuf_t *err)
{
    machine_t *machine = machine_new_live(err);
    if (!machine)
        return -1;
    struct utsname uts;
    uname(&uts);
    size_t len = 0;
    FILE *out = open_memstream(&self->machine, &len);
    if (!out) {
        machine_destroy(&machine);
        return err_set(err, "out of memory");
    }
    if (machine_describe(machine, uts.nodename, out))
        s_log("note: this machine's SMT siblings are not one offset apart; "
              "its stages are planned as if every CPU were a core");
    fclose(out);
    self->nnodes = machine->nnodes;
    snprintf(self->model, sizeof self->model, "%s", machine->model);
    machine_destroy(&machine);
    errbuf_t why = {0};
    syscalls_probe(&why);
    snprintf(self->no_tracing, sizeof self->no_tracing, "%s", why.msg);
    return 0;
}

static int s_keys(agent_t *self, errbuf_t *err)
{
    const agent_options_t *o = self->options;
    int count;
    self->cert =
        o->cert ? keys_load_secret(o->cert, "--cert", err) : zcert_new();
    if (!self->cert || keys_allow_dir(o->allow, stdin, stderr, self->allow_dir,
                                      sizeof self->allow_dir, &count, err))
        return -1;
    self->leash = streq(o->allow, "-");
    return 0;
}

//  zauth on czmq's context, then the ROUTER (a zsock, in that context)
static int s_bind(agent_t *self, errbuf_t *err)
{
    self->auth = zactor_new(zauth, NULL);
    if (!self->auth)
        return err_set(err, "cannot start zauth");
    zstr_sendx(self->auth, "CURVE", self->allow_dir, NULL);
    zsock_wait(self->auth);
    self->router = zsock_new(ZMQ_ROUTER);
    if (!self->router)
        return err_set(err, "cannot make its socket");
    zsock_set_linger(self->router, 0);
    zsock_set_sndtimeo(self->router, 0);
    zsock_set_router_handover(self->router, 1);
    zcert_apply(self->cert, self->router);
    zsock_set_curve_server(self->router, 1);
    zsock_set_zap_domain(self->router, "hopbench");
    char monitor[64];
    snprintf(monitor, sizeof monitor, "inproc://hopbench-agent-%p", self);
    zmq_socket_monitor(zsock_resolve(self->router), monitor,
                       ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                           ZMQ_EVENT_DISCONNECTED);
    self->monitor = zsock_new_pair(monitor);
    if (zsock_bind(self->router, "%s", self->options->bind) < 0)
        return err_set(err, "cannot bind %s: %s", self->options->bind,
                       zmq_strerror(zmq_errno()));
    return 0;
}

static void s_teardown(agent_t *self)
{
    s_end_run(self, "the agent ends");
    if (self->router)
        zmq_socket_monitor(zsock_resolve(self->router), NULL, 0);
    zsock_destroy(&self->monitor);
    zsock_destroy(&self->router);
    zactor_destroy(&self->auth);
    if (self->allow_dir[0])
        keys_allow_dir_remove(self->allow_dir);
    zcert_destroy(&self->cert);
    free(self->machine);
}

//  ------------------------------------------------------------------------
//  The loop

//  A wait of AGENT_POLL_MS that took longer than the run's timeout: the
//  agent did not run (stopped: SIGSTOP, a suspended machine).  Its
//  controller has given it up by now, and what waits in its queues
//  (heartbeats) is stale: the run ends before they are read, so the
//  agent is free for the next controller at once
static void s_woke(agent_t *self, double slept)
{
    if (!self->run || slept <= self->timeout)
        return;
    char why[160];
    snprintf(why, sizeof why,
             "this agent did not run for %.1f s (stopped?), longer than the "
             "run's timeout (%g s): its controller has given it up",
             slept, self->timeout);
    s_end_run(self, why);
}

//  false when the agent should end (stdin closed)
static bool s_wait(agent_t *self)
{
    zmq_pollitem_t items[AGENT_ITEMS] = {
        {zsock_resolve(self->router), 0, ZMQ_POLLIN, 0},
        {zsock_resolve(self->monitor), 0, ZMQ_POLLIN, 0},
        {NULL, 0, ZMQ_POLLIN, 0}}; //  stdin, when it is the leash
    int n = self->leash ? 3 : 2;
    if (self->run)
        n += agent_run_poll_items(self->run, items + n, AGENT_ITEMS - n);
    double before = mono_seconds();
    int ready = zmq_poll(items, n, AGENT_POLL_MS);
    s_woke(self, mono_seconds() - before);
    if (ready <= 0)
        return true;
    if (items[1].revents & ZMQ_POLLIN)
        s_monitor(self); //  first: a closed connection before what follows
    while (items[0].revents & ZMQ_POLLIN) {
        zmsg_t *msg = NULL;
        zmq_pollitem_t again = items[0];
        if (zmq_poll(&again, 1, 0) <= 0 || !(msg = zmsg_recv(self->router)))
            break;
        s_request(self, msg);
        zmsg_destroy(&msg);
    }
    if (self->leash && (items[2].revents & (ZMQ_POLLIN | ZMQ_POLLERR))) {
        char buf[256];
        if (read(0, buf, sizeof buf) <= 0)
            return false; //  its controller (ssh) is gone
    }
    return true;
}

static void s_answers(agent_t *self)
{
    zmsg_t *answer;
    while (self->run && (answer = agent_run_answer(self->run)))
        s_send(self, self->controller, &answer);
}

int agent_main(const agent_options_t *options)
{
    agent_t self = {.options = options, .controller_fd = -1};
    errbuf_t err;
    if (s_keys(&self, &err) || s_describe(&self, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        s_teardown(&self);
        return 2;
    }
    if (s_bind(&self, &err)) {
        fprintf(stderr, "hopbench: agent: %s\n", err.msg);
        s_teardown(&self);
        return 1;
    }
    printf("hopbench agent: serving at %s, public key %s\n", options->bind,
           zcert_public_txt(self.cert));
    fflush(stdout);
    while (!interrupt_signal() && !self.finished && s_wait(&self)) {
        s_answers(&self);
        s_beat(&self);
    }
    s_teardown(&self);
    return 0;
}
