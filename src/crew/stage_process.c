/*  stage_process: a stage in its own process (see stage_process.h).

    Controller side: remote_new maps the shared counters, starts the relay
    actor, which binds the control PAIR, starts the child and waits for its
    READY.  Child side: remote_host_main builds the same pipeline from the
    run's effective topology, starts the stage actor over the shared
    memory, and passes messages between the control socket and the actor.
*/
#define _GNU_SOURCE
#include "crew/stage_process.h"

#include "base/actor.h"
#include "machine/machine.h"
#include "stages/proxy.h"
#include "config/topology.h"
#include "pipeline/zones.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define REMOTE_FD       200 //  the shared memory, in the child
#define REMOTE_START_MS 10000

typedef struct {
    const pipeline_t *pl;
    int id;
    char exe[512]; //  this binary (under valgrind, /proc/self/exe is not)
    char config[512], endpoint[320];
    int memfd;
    _Atomic pid_t pid; //  the child; -1 once it has ended
    char *pending;     //  a DONE/ERR read while waiting for COUNTS
} remote_t;

//  ------------------------------------------------------------------------
//  Controller side: the relay actor

//  fork and exec "hopbench stage ..."; the strings are made before fork,
//  so the child calls only async-signal-safe functions until exec
static pid_t s_spawn(remote_t *self)
{
    char id[16], fd[16];
    snprintf(id, sizeof id, "%d", self->id);
    snprintf(fd, sizeof fd, "%d", REMOTE_FD);
    char *argv[] = {"hopbench",     "stage", self->config, id,
                    self->endpoint, fd,      NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); //  dies with the controller
        if (getppid() != parent)
            _exit(127);
        if (dup2(self->memfd, REMOTE_FD) < 0)
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
static void s_watch(remote_t *self, zsock_t *pipe)
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

//  End the child: $TERM, then SIGKILL if it has not gone within 2 s
static void s_end_child(remote_t *self, zsock_t *control)
{
    pid_t pid = atomic_load(&self->pid);
    if (pid <= 0)
        return;
    zsock_set_sndtimeo(control, 0);
    zstr_send(control, "$TERM");
    for (int waited = 0; waited < 200; waited++) {
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

//  SETUP gains the endpoints of the instance's hops: "HOP h n ep1 ep2 ..."
static void s_add_endpoints(remote_t *self, zmsg_t *msg)
{
    const pipeline_t *pl = self->pl;
    int hops[2] = {pipeline_hop_in(pl, self->id),
                   pipeline_hop_out(pl, self->id)};
    for (int i = 0; i < 2; i++) {
        if (hops[i] < 0)
            continue;
        const hop_plan_t *hop = &pl->hops[hops[i]];
        zmsg_addstrf(msg, "%d", hops[i]);
        zmsg_addstrf(msg, "%d", hop->nendpoints);
        for (int e = 0; e < hop->nendpoints; e++)
            zmsg_addstr(msg, hop->endpoint[e]);
        //  the run's CURVE keys too: the child's own pipeline made others
        zmsg_addstr(msg, hop->server_public);
        zmsg_addstr(msg, hop->server_secret);
        zmsg_addstr(msg, hop->client_public);
        zmsg_addstr(msg, hop->client_secret);
    }
}

//  A command from the trial; false on $TERM
static bool s_from_trial(remote_t *self, zsock_t *pipe, zsock_t *control)
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
            s_add_endpoints(self, msg);
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
    remote_t *self = args;
    char bind[330];
    snprintf(bind, sizeof bind, "@%s", self->endpoint);
    zsock_t *control = zsock_new_pair(bind);
    pid_t pid = control ? s_spawn(self) : -1;
    atomic_store(&self->pid, pid);
    if (control && pid > 0) {
        zsock_set_rcvtimeo(control, REMOTE_START_MS);
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

static stage_shared_t *s_map(int fd)
{
    void *memory = mmap(NULL, sizeof(stage_shared_t), PROT_READ | PROT_WRITE,
                        MAP_SHARED, fd, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

stage_t *remote_new(const pipeline_t *pl, int id, const char *config,
                    const char *ipc_dir, errbuf_t *err)
{
    remote_t *self = calloc(1, sizeof *self);
    self->pl = pl;
    self->id = id;
    snprintf(self->config, sizeof self->config, "%s", config);
    snprintf(self->endpoint, sizeof self->endpoint, "ipc://%s/stage%d.ctl",
             ipc_dir, id);
    ssize_t len = readlink("/proc/self/exe", self->exe, sizeof self->exe - 1);
    self->exe[len > 0 ? len : 0] = 0;
    self->memfd = memfd_create("hopbench-stage", MFD_CLOEXEC);
    stage_t *stage = calloc(1, sizeof *stage);
    stage->pl = pl;
    stage->inst = &pl->inst[id];
    stage->remote = true;
    stage->remote_state = self;
    if (self->memfd < 0 || ftruncate(self->memfd, sizeof(stage_shared_t)) ||
        !(stage->shared = s_map(self->memfd))) {
        err_set(err, "stage %s: shared memory: %s", pl->inst[id].name,
                strerror(errno));
        remote_free(stage);
        return NULL;
    }
    stage_reset(stage, 0);
    errbuf_t why;
    if (!(stage->actor = actor_new(s_relay, self, &why))) {
        err_set(err, "stage %s: %s", pl->inst[id].name, why.msg);
        remote_free(stage);
        return NULL;
    }
    if (atomic_load(&self->pid) <= 0) {
        err_set(err, "stage %s: its process did not start (see above)",
                pl->inst[id].name);
        if (actor_destroy(&stage->actor, 2000) == 0)
            remote_free(stage);
        return NULL;
    }
    return stage;
}

void remote_free(stage_t *stage)
{
    remote_t *self = stage->remote_state;
    if (stage->shared)
        munmap(stage->shared, sizeof(stage_shared_t));
    if (self->memfd >= 0)
        close(self->memfd);
    free(self->pending);
    free(self);
    free(stage);
}

pid_t remote_pid(const stage_t *stage)
{
    return atomic_load(&((remote_t *)stage->remote_state)->pid);
}

int remote_counts(stage_t *stage, uint64_t *received, uint64_t *sent,
                  errbuf_t *err)
{
    remote_t *self = stage->remote_state;
    zstr_send(stage->actor, "COUNTS");
    zsock_set_rcvtimeo(stage->actor, (int)(stage->pl->params.timeout * 1000));
    while (true) {
        char *reply = zstr_recv(stage->actor);
        unsigned long long r, s;
        if (!reply)
            return err_set(err, "stage %s: no counters from its process",
                           stage->inst->name);
        if (sscanf(reply, "COUNTS %llu %llu", &r, &s) == 2) {
            *received = r, *sent = s;
            zstr_free(&reply);
            return 0;
        }
        if (strncmp(reply, "ERR ", 4) == 0) { //  its process ended, say
            err_set(err, "stage %s: %s", stage->inst->name, reply + 4);
            zstr_free(&reply);
            return -1;
        }
        free(self->pending); //  the stage ended meanwhile: keep its word
        self->pending = reply;
    }
}

void remote_stop(stage_t *stage)
{
    zstr_send(stage->actor, "STOP");
}

char *remote_take_pending(stage_t *stage)
{
    remote_t *self = stage->remote_state;
    char *pending = self->pending;
    self->pending = NULL;
    return pending;
}

bool remote_has_pending(const stage_t *stage)
{
    return ((const remote_t *)stage->remote_state)->pending != NULL;
}

//  ------------------------------------------------------------------------
//  Child side: the host loop

typedef struct {
    pipeline_t *pl;
    stage_t *stage;
    zsock_t *control;
    void *proxy_control; //  a steerable proxy's control channel
} host_t;

static void s_take_key(zmsg_t *msg, char *key)
{
    char *text = zmsg_popstr(msg);
    snprintf(key, 41, "%s", text ? text : "");
    zstr_free(&text);
}

//  Fill in what SETUP carries per hop: "h n ep1 ... epn" and four keys
static void s_take_endpoints(host_t *self, zmsg_t *msg)
{
    char *h, *n;
    while ((h = zmsg_popstr(msg)) && (n = zmsg_popstr(msg))) {
        int hop = atoi(h), count = atoi(n);
        bool valid = hop >= 0 && hop < self->pl->nstages - 1 && count >= 0 &&
                     count <= PIPELINE_MAX_BINDERS;
        hop_plan_t scratch, *plan = valid ? &self->pl->hops[hop] : &scratch;
        plan->nendpoints = valid ? count : 0;
        for (int e = 0; e < count; e++) {
            char *ep = zmsg_popstr(msg);
            if (valid)
                snprintf(plan->endpoint[e], PIPELINE_ENDPOINT_MAX, "%s",
                         ep ? ep : "");
            zstr_free(&ep);
        }
        s_take_key(msg, plan->server_public);
        s_take_key(msg, plan->server_secret);
        s_take_key(msg, plan->client_public);
        s_take_key(msg, plan->client_secret);
        zstr_free(&h);
        zstr_free(&n);
    }
    zstr_free(&h);
}

//  Commands that the host answers itself rather than the stage
static bool s_host_command(host_t *self, const char *command)
{
    errbuf_t err;
    proxy_counts_t counts;
    if (streq(command, "COUNTS")) {
        if (proxy_counts(self->stage, self->proxy_control, &counts, &err))
            zstr_sendf(self->control, "ERR counters: %s", err.msg);
        else
            zstr_sendf(self->control, "COUNTS %llu %llu",
                       (unsigned long long)counts.received,
                       (unsigned long long)counts.sent);
        return true;
    }
    if (streq(command, "STOP")) {
        proxy_stop(self->stage, self->proxy_control, &err);
        return true;
    }
    return false;
}

//  SETUP, then the steerable proxy's control channel; TEARDOWN closes it
static void s_setup(host_t *self, zmsg_t *msg)
{
    errbuf_t err;
    int timeout = (int)(self->pl->params.timeout * 1000);
    s_take_endpoints(self, msg);
    if (stage_command(self->stage, "SETUP", timeout, &err)) {
        zstr_sendf(self->control, "ERR %s", err.msg);
        return;
    }
    if (self->stage->inst->role == ROLE_PROXY &&
        !(self->proxy_control =
              proxy_control_open(self->stage, timeout, &err)) &&
        self->stage->inst->params.engine == ENGINE_STEERABLE) {
        zstr_sendf(self->control, "ERR %s", err.msg);
        return;
    }
    zstr_send(self->control, "OK");
}

//  One message from the controller; false on $TERM
static bool s_from_controller(host_t *self)
{
    zmsg_t *msg = zmsg_recv(self->control);
    char *command = msg ? zmsg_popstr(msg) : NULL;
    bool go_on = command && !streq(command, "$TERM");
    if (go_on && streq(command, "SETUP"))
        s_setup(self, msg);
    else if (go_on && !s_host_command(self, command)) {
        if (streq(command, "TEARDOWN") && self->proxy_control) {
            zmq_close(self->proxy_control);
            self->proxy_control = NULL;
        }
        zstr_send(self->stage->actor, command);
    }
    zstr_free(&command);
    zmsg_destroy(&msg);
    return go_on;
}

static int s_host_loop(host_t *self)
{
    zstr_send(self->control, "READY");
    zpoller_t *poller = zpoller_new(self->control, self->stage->actor, NULL);
    while (true) {
        void *which = zpoller_wait(poller, 1000);
        if (which == self->control && !s_from_controller(self))
            break;
        if (which == self->stage->actor) {
            zmsg_t *msg = zmsg_recv(self->stage->actor);
            zmsg_send(&msg, self->control);
        }
        if (getppid() == 1)
            break; //  the controller is gone
    }
    zpoller_destroy(&poller);
    if (self->proxy_control)
        zmq_close(self->proxy_control);
    //  whatever the stage waits for ends now (ETERM), so it can end
    if (self->stage->ctx)
        zmq_ctx_shutdown(self->stage->ctx);
    return 0;
}

static pipeline_t *s_host_pipeline(const char *config, topology_t **topo,
                                   machine_t **machine, errbuf_t *err)
{
    if (!(*topo = topology_load(config, err)) ||
        topology_validate(*topo, err) || !(*machine = machine_new_live(err)))
        return NULL;
    pipeline_t *pl = pipeline_new(*topo, *machine, err);
    if (pl)
        zones_describe(pl, getppid()); //  the controller made them
    return pl;
}

int remote_host_main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    signal(SIGINT, SIG_IGN); //  the controller handles ^C for everyone
    errbuf_t err = {{0}};
    topology_t *topo = NULL;
    machine_t *machine = NULL;
    int id = atoi(argv[3]);
    pipeline_t *pl = s_host_pipeline(argv[2], &topo, &machine, &err);
    stage_shared_t *shared = s_map(atoi(argv[5]));
    host_t host = {.pl = pl};
    int rc = 1;
    if (pl && shared && id >= 0 && id < pl->n) {
        char name[16];
        snprintf(name, sizeof name, "hopbench:%s", pl->inst[id].name);
        prctl(PR_SET_NAME, name);
        char connect[330];
        snprintf(connect, sizeof connect, ">%s", argv[4]);
        host.control = zsock_new_pair(connect);
        host.stage = stage_new(pl, id, shared, &err);
        if (host.control && host.stage)
            rc = s_host_loop(&host);
        stage_destroy(&host.stage, (int)(pl->params.timeout * 1000));
        zsock_destroy(&host.control);
    } else
        fprintf(stderr, "hopbench stage: %s\n",
                err.msg[0] ? err.msg : "bad arguments");
    pipeline_destroy(&pl);
    machine_destroy(&machine);
    topology_destroy(&topo);
    return rc;
}
