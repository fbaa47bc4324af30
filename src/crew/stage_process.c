/*  stage_process: a stage in its own process, the controller's side
    (stage_process.h); the child's side is stage_child.c.

    stage_process_new maps the shared counters (without touching them:
    the child's stage thread does, first, on its node), starts the relay
    actor, which binds the control PAIR, starts the child and waits for
    its READY.  The relay runs on the controller's housekeeping CPU, and
    the child inherits it: its main thread is born there.  The kind's
    functions then talk to the relay over its pipe.
*/
#define _GNU_SOURCE
#include "crew/stage_process.h"

#include "base/actor.h"
#include "base/check.h"
#include "base/mono.h"
#include "crew/wire.h"
#include "stages/roles.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROCESS_FD       200 //  the shared memory, in the child
#define PROCESS_START_MS 10000

typedef struct {
    const pipeline_t *pl;
    int id;
    char exe[512]; //  this binary (under valgrind, /proc/self/exe is not)
    char config[512], endpoint[320];
    char machine[512]; //  the description its stages are planned on, ""
    char allowed[1024]; //  the CPUs the controller planned with
    int memfd;
    stage_shared_t *shared;
    zsock_t *actor;    //  the relay's pipe
    _Atomic pid_t pid; //  the child; -1 once it has ended
    char *pending;     //  a DONE/ERR read while waiting for COUNTS
    bool own_counts;   //  the role counts itself (a steerable proxy)
    bool asked;        //  stage_process_ask_counts: a COUNTS is on its way
} relay_t;

//  ------------------------------------------------------------------------
//  Controller side: the relay actor

//  fork and exec "hopbench stage ..."; the strings are made before fork,
//  so the child calls only async-signal-safe functions until exec
static pid_t s_spawn(relay_t *self)
{
    char id[16], fd[16];
    snprintf(id, sizeof id, "%d", self->id);
    snprintf(fd, sizeof fd, "%d", PROCESS_FD);
    char *argv[] = {"hopbench",
                    "stage",
                    self->config,
                    id,
                    self->endpoint,
                    fd,
                    self->allowed[0] ? self->allowed : "-",
                    self->machine[0] ? self->machine : NULL,
                    NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); //  dies with the controller
        if (getppid() != parent)
            _exit(127);
        if (dup2(self->memfd, PROCESS_FD) < 0)
            _exit(127);
        execv(self->exe, argv);
        _exit(127);
    }
    return pid;
}

static void s_describe_exit(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
}

//  Has the child ended?  Then tell the trial, once
static void s_watch(relay_t *self, zsock_t *pipe)
{
    int status;
    pid_t pid = atomic_load(&self->pid);
    if (pid <= 0 || waitpid(pid, &status, WNOHANG) != pid)
        return;
    char how[128];
    s_describe_exit(status, how, sizeof how);
    atomic_store(&self->pid, -1);
    zstr_sendf(pipe, "ERR its process (pid %d) ended: %s", (int)pid, how);
}

//  Is the child stopped (SIGSTOP, or traced)?  /proc/PID/stat's state,
//  after the command's name in parentheses
static bool s_stopped(pid_t pid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *file = fopen(path, "r");
    size_t len = file ? fread(stat, 1, sizeof stat - 1, file) : 0;
    if (file)
        fclose(file);
    stat[len] = 0;
    const char *end = strrchr(stat, ')');
    return end && end[1] == ' ' && (end[2] == 'T' || end[2] == 't');
}

//  End the child: $TERM, then SIGKILL if it has not gone within 2 s (at
//  once if it is stopped: it cannot take $TERM)
static void s_end_child(relay_t *self, zsock_t *control)
{
    pid_t pid = atomic_load(&self->pid);
    if (pid <= 0)
        return;
    zsock_set_sndtimeo(control, 0);
    zstr_send(control, "$TERM");
    for (int waited = 0; waited < 200 && !s_stopped(pid); waited++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            atomic_store(&self->pid, -1);
            return;
        }
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    atomic_store(&self->pid, -1);
}

//  A command from the trial; false on $TERM
static bool s_from_trial(relay_t *self, zsock_t *pipe, zsock_t *control)
{
    zmsg_t *msg = zmsg_recv(pipe);
    if (!msg)
        return true;
    char *command = zmsg_popstr(msg);
    bool go_on = command && !streq(command, "$TERM");
    if (!go_on)
        s_end_child(self, control);
    else if (atomic_load(&self->pid) <= 0) {
        if (!streq(command, "STOP"))
            zstr_send(pipe, "ERR its process has ended");
    } else {
        zmsg_pushstr(msg, command);
        if (streq(command, "SETUP"))
            wire_add_hops(msg, self->pl, self->id);
        //  never blocks (sndtimeo 0): a child that cannot take a command
        //  is gone or hung, and s_watch or the trial's timeout says so
        if (zmsg_send(&msg, control) && !streq(command, "STOP")) {
            usleep(20000); //  a child that just died is a zombie by now
            s_watch(self, pipe);
            if (atomic_load(&self->pid) > 0)
                zstr_send(pipe, "ERR its process does not listen");
        }
    }
    zstr_free(&command);
    zmsg_destroy(&msg);
    return go_on;
}

static void s_relay(zsock_t *pipe, void *args)
{
    relay_t *self = args;
    char bind[330], name[16];
    snprintf(name, sizeof name, "hbr:%d", self->id);
    prctl(PR_SET_NAME, name); //  the read-back knows it by this name
    snprintf(bind, sizeof bind, "@%s", self->endpoint);
    zsock_t *control = zsock_new_pair(bind);
    pid_t pid = control ? s_spawn(self) : -1;
    atomic_store(&self->pid, pid);
    if (control && pid > 0) {
        zsock_set_rcvtimeo(control, PROCESS_START_MS);
        char *ready = zstr_recv(control);
        if (!ready || !streq(ready, "READY"))
            s_end_child(self, control);
        zstr_free(&ready);
        zsock_set_rcvtimeo(control, -1);
    }
    if (control)
        zsock_set_sndtimeo(control, 0);
    zsock_signal(pipe, 0);
    zpoller_t *poller = zpoller_new(pipe, control, NULL);
    while (true) {
        zsock_t *which = zpoller_wait(poller, 100);
        if (which == pipe && !s_from_trial(self, pipe, control))
            break;
        if (which == control) {
            zmsg_t *msg = zmsg_recv(control);
            zmsg_send(&msg, pipe);
        }
        s_watch(self, pipe);
    }
    zpoller_destroy(&poller);
    zsock_destroy(&control);
}

static stage_shared_t *s_map(int fd, size_t len)
{
    void *memory = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

static void s_free(relay_t *self)
{
    if (self->shared)
        munmap(self->shared, stage_shared_size(self->pl, self->id));
    if (self->memfd >= 0)
        close(self->memfd);
    free(self->pending);
    free(self);
}

void *stage_process_new(const pipeline_t *pl, int id, const char *config,
                        const char *ipc_dir, const char *machine,
                        stage_shared_t **shared, errbuf_t *err)
{
    relay_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "out of memory");
        return NULL;
    }
    self->pl = pl;
    self->id = id;
    self->own_counts = roles_ops(&pl->inst[id])->counts != NULL;
    snprintf(self->config, sizeof self->config, "%s", config);
    snprintf(self->machine, sizeof self->machine, "%s", machine ? machine : "");
    snprintf(self->endpoint, sizeof self->endpoint, "ipc://%s/stage%d.ctl",
             ipc_dir, id);
    ssize_t len = readlink("/proc/self/exe", self->exe, sizeof self->exe - 1);
    self->exe[len > 0 ? len : 0] = 0;
    self->memfd = memfd_create("hopbench-stage", MFD_CLOEXEC);
    cpuset_format(&pl->allowed, self->allowed, sizeof self->allowed);
    //  Not touched here: the child's stage thread, pinned, touches every
    //  page first, so they are its node's (stage.h)
    size_t bytes = stage_shared_size(pl, id);
    if (self->memfd < 0 || ftruncate(self->memfd, (off_t)bytes) ||
        !(self->shared = s_map(self->memfd, bytes))) {
        err_set(err, "shared memory: %s", strerror(errno));
        s_free(self);
        return NULL;
    }
    if (!(self->actor = actor_new(s_relay, self, err))) {
        s_free(self);
        return NULL;
    }
    if (atomic_load(&self->pid) <= 0) {
        err_set(err, "its process did not start (see above)");
        if (actor_destroy(&self->actor, 2000) == 0)
            s_free(self);
        return NULL;
    }
    *shared = self->shared;
    return self;
}

//  ------------------------------------------------------------------------
//  The kind's functions

static int s_send(void *state, const char *command, int timeout_ms,
                  errbuf_t *err)
{
    return actor_send(((relay_t *)state)->actor, command, timeout_ms, err);
}

//  While a COUNTS is on its way (an agent's stage_process_ask_counts), the
//  pipe's next message is stage_process_take_counts's to read: it keeps an
//  answer that comes first in 'pending'.  Read here, the counters would be
//  taken for an answer, and every later COUNTS would wait for them
static bool s_ready(void *state, int wait_ms)
{
    relay_t *self = state;
    if (self->pending)
        return true;
    if (self->asked)
        return false;
    zmq_pollitem_t item = {zsock_resolve(self->actor), 0, ZMQ_POLLIN, 0};
    return zmq_poll(&item, 1, wait_ms) > 0;
}

static int s_wait(void *state, int timeout_ms, errbuf_t *err)
{
    relay_t *self = state;
    if (!self->pending && atomic_load(&self->pid) <= 0 && !s_ready(self, 0))
        return err_set(err, "its process has ended");
    zsock_set_rcvtimeo(self->actor, timeout_ms);
    char *reply = self->pending ? self->pending : zstr_recv(self->actor);
    self->pending = NULL;
    int rc = 0;
    if (!reply)
        rc = err_set(err, "no answer within %.1f s", timeout_ms / 1000.0);
    else if (strncmp(reply, "ERR ", 4) == 0)
        rc = err_set(err, "%s", reply + 4);
    zstr_free(&reply);
    return rc;
}

//  A steerable proxy's counters, asked of its process; a DONE or ERR that
//  comes first is kept for s_wait
static int s_ask_counts(relay_t *self, stage_counts_t *out, errbuf_t *err)
{
    int timeout_ms = (int)(self->pl->params.timeout * 1000);
    zstr_send(self->actor, "COUNTS");
    zsock_set_rcvtimeo(self->actor, timeout_ms);
    while (true) {
        char *reply = zstr_recv(self->actor);
        unsigned long long r, s;
        if (!reply)
            return stage_no_counts(err, timeout_ms);
        if (sscanf(reply, "COUNTS %llu %llu", &r, &s) == 2) {
            out->received = r, out->sent = s;
            zstr_free(&reply);
            return 0;
        }
        if (strncmp(reply, "ERR ", 4) == 0) { //  its process ended, say
            bool counters = strncmp(reply, "ERR counters: ", 14) == 0;
            err_set(err, "%s", reply + (counters ? 14 : 4));
            zstr_free(&reply);
            return -1;
        }
        free(self->pending); //  the stage ended meanwhile: keep its word
        self->pending = reply;
    }
}

//  The shared counters (a role that does not count itself)
static void s_shared_counts(relay_t *self, stage_counts_t *out)
{
    out->sent = atomic_load(&self->shared->sent);
    out->received = stage_shared_received(
        self->shared, pipeline_sees_origins(self->pl, self->id));
}

static int s_counts(void *state, stage_counts_t *out, errbuf_t *err)
{
    relay_t *self = state;
    double before = mono_seconds();
    int rc = 0;
    if (self->own_counts)
        rc = s_ask_counts(self, out, err);
    else
        s_shared_counts(self, out);
    out->t = (before + mono_seconds()) / 2;
    return rc;
}

int stage_process_ask_counts(void *state, errbuf_t *err)
{
    relay_t *self = state;
    if (!self->own_counts || self->asked)
        return 0; //  one question answers every asker
    zsock_set_sndtimeo(self->actor, 0);
    if (zstr_send(self->actor, "COUNTS"))
        return err_set(err, "its relay does not take COUNTS");
    self->asked = true;
    return 0;
}

//  A message from the relay while COUNTS is on its way: 1 (the counters),
//  -1 (they failed: "ERR counters: ..." from the child), or 0 (an answer
//  of the stage's, kept for s_wait)
static int s_counts_reply(relay_t *self, char *reply, stage_counts_t *out,
                          errbuf_t *err)
{
    unsigned long long r, s;
    int rc = 0;
    if (reply && sscanf(reply, "COUNTS %llu %llu", &r, &s) == 2) {
        out->received = r, out->sent = s;
        rc = 1;
    } else if (reply && strncmp(reply, "ERR counters: ", 14) == 0)
        rc = err_set(err, "%s", reply + 14);
    else {
        self->pending = reply;
        return 0;
    }
    zstr_free(&reply);
    return rc;
}

int stage_process_take_counts(void *state, stage_counts_t *out, errbuf_t *err)
{
    relay_t *self = state;
    out->t = mono_seconds();
    if (!self->own_counts) {
        s_shared_counts(self, out);
        return 1;
    }
    zmq_pollitem_t item = {zsock_resolve(self->actor), 0, ZMQ_POLLIN, 0};
    while (self->asked && !self->pending && zmq_poll(&item, 1, 0) > 0) {
        int rc = s_counts_reply(self, zstr_recv(self->actor), out, err);
        if (rc) {
            self->asked = false;
            return rc;
        }
    }
    if (!self->asked)
        return err_set(err, "COUNTS was not asked");
    if (atomic_load(&self->pid) <= 0 && zmq_poll(&item, 1, 0) <= 0) {
        self->asked = false;
        return err_set(err, "its process has ended");
    }
    return 0;
}

void stage_process_end(void *state)
{
    relay_t *self = state;
    zsock_set_sndtimeo(self->actor, 0);
    zstr_send(self->actor, "$TERM"); //  the relay's last act is a signal
}

bool stage_process_ended(void *state)
{
    relay_t *self = state;
    zmq_pollitem_t item = {zsock_resolve(self->actor), 0, ZMQ_POLLIN, 0};
    while (zmq_poll(&item, 1, 0) > 0) {
        zmsg_t *msg = zmsg_recv(self->actor);
        bool gone = msg && zmsg_signal(msg) >= 0;
        zmsg_destroy(&msg);
        if (gone) {
            zsock_destroy(&self->actor);
            s_free(self);
            return true;
        }
    }
    return false;
}

//  The flags at once, here; a role's own stop in its process
static int s_stop(void *state, errbuf_t *err)
{
    (void)err;
    relay_t *self = state;
    if (pipeline_is_source(self->pl, self->id))
        atomic_store(&self->shared->target, 0);
    atomic_store(&self->shared->stop, 1);
    if (roles_ops(&self->pl->inst[self->id])->stop)
        zstr_send(self->actor, "STOP"); //  no answer: its DONE follows
    return 0;
}

static void s_abort(void *state)
{
    (void)state; //  its process shuts its context down when it ends
}

zsock_t *stage_process_pipe(void *state)
{
    return ((relay_t *)state)->actor;
}

static pid_t s_pid(void *state)
{
    return atomic_load(&((relay_t *)state)->pid);
}

static int s_destroy(void *state, int timeout_ms)
{
    relay_t *self = state;
    if (actor_destroy(&self->actor, timeout_ms))
        return -1;
    s_free(self);
    return 0;
}

const stage_kind_t stage_process_kind = {STAGE_KIND("process", s_send)};

//  ------------------------------------------------------------------------
//  Selftest: an agent's COUNTS and the stage's answers share the relay's
//  pipe; whatever order they come in, each goes to its own reader

int stage_process_test(bool verbose)
{
    (void)verbose;
    zsock_t *child = zsock_new_pair("@inproc://stage-process-test");
    relay_t self = {.actor = zsock_new_pair(">inproc://stage-process-test"),
                    .pid = 1,
                    .own_counts = true};
    stage_counts_t counts = {0};
    errbuf_t err;
    CHECK(child && self.actor);
    zsock_set_rcvtimeo(child, 1000); //  a question that never came fails
    //  the counters come: they are not an answer, whoever looks first
    CHECK(stage_process_ask_counts(&self, &err) == 0 && self.asked);
    char *asked = zstr_recv(child);
    CHECK(asked && streq(asked, "COUNTS"));
    zstr_free(&asked);
    zstr_send(child, "COUNTS 5 7");
    zclock_sleep(50);
    CHECK(!s_ready(&self, 0));
    CHECK(stage_process_take_counts(&self, &counts, &err) == 1);
    CHECK(counts.received == 5 && counts.sent == 7 && !self.asked);
    //  an answer first, then the counters: the answer is kept for wait
    CHECK(stage_process_ask_counts(&self, &err) == 0);
    asked = zstr_recv(child);
    zstr_free(&asked);
    zstr_send(child, "DONE");
    zstr_send(child, "COUNTS 6 8");
    zclock_sleep(50);
    CHECK(stage_process_take_counts(&self, &counts, &err) == 0);
    CHECK(s_ready(&self, 0) && s_wait(&self, 0, &err) == 0);
    CHECK(stage_process_take_counts(&self, &counts, &err) == 1);
    CHECK(counts.received == 6 && counts.sent == 8 && !s_ready(&self, 0));
    zsock_destroy(&self.actor);
    zsock_destroy(&child);
    return 0;
}
