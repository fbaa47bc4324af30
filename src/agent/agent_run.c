/*  agent_run: the stages of the run an agent serves (see agent_run.h).

    Every reply is [WORD][ID][...]; a request that cannot be served gets
    [ERR][ID][why], which the controller shows with the host's name.
    Nothing here waits on a stage: START runs on a thread of its own until
    the process is ready, COUNTS of a steerable proxy is asked of its
    process and answered when its reply comes (a proxy blocked sending
    towards a dead peer never answers), END is answered when its relay is
    gone, all three from agent_run_answer; a tracer (--profile syscalls)
    ends on a thread of its own.
*/
#define _GNU_SOURCE
#include "agent/agent_run.h"

#include "config/topology.h"
#include "base/actor.h"
#include "base/mono.h"
#include "base/nofile.h"
#include "crew/stage_process.h"
#include "crew/wire.h"
#include "machine/machine.h"
#include "machine/syscalls.h"
#include "machine/threads.h"
#include "pipeline/pipeline.h"
#include "report/resultsdir.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RUN_IDS PIPELINE_MAX_INSTANCES

typedef struct {
    agent_run_t *run; //  its pl and paths, which outlive the start
    int id;
    zsock_t *pipe;
    void *stage; //  then what stage_process_new made, or err
    stage_shared_t *shared;
    errbuf_t err;
} start_t;

struct agent_run_s {
    char dir[256];          //  private, 0700
    char machine_path[300]; //  dir/machine.cfg
    char config[300];       //  dir/spec.cfg
    topology_t *topo;
    machine_t *machine;
    pipeline_t *pl;
    void *stage[RUN_IDS]; //  process kinds
    stage_shared_t *shared[RUN_IDS];
    bool counting[RUN_IDS];  //  a COUNTS to answer
    start_t *start[RUN_IDS]; //  START said, its process not ready yet
    void *ending[RUN_IDS];   //  END said, its relay not gone yet
    int timeout_ms;
    syscalls_t *tracer[RUN_IDS];   //  --profile syscalls: a stage's threads
    errbuf_t trace_error[RUN_IDS]; //  an edge that failed, "" none
};

static zmsg_t *s_reply(const char *word, int id)
{
    zmsg_t *msg = zmsg_new();
    zmsg_addstr(msg, word);
    zmsg_addstrf(msg, "%d", id);
    return msg;
}

static zmsg_t *s_error(int id, const char *why)
{
    zmsg_t *msg = s_reply("ERR", id);
    zmsg_addstr(msg, why);
    return msg;
}

static int s_write(const char *path, const char *text, errbuf_t *err)
{
    FILE *file = fopen(path, "w");
    if (!file || fputs(text, file) < 0 || fclose(file))
        return err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

agent_run_t *agent_run_new(const char *machine_text, errbuf_t *err)
{
    agent_run_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "out of memory");
        return NULL;
    }
    self->timeout_ms = 10000;
    if (resultsdir_ipc_create(self->dir, sizeof self->dir, err)) {
        free(self);
        return NULL;
    }
    snprintf(self->machine_path, sizeof self->machine_path, "%s/machine.cfg",
             self->dir);
    snprintf(self->config, sizeof self->config, "%s/spec.cfg", self->dir);
    if (s_write(self->machine_path, machine_text, err) ||
        !(self->machine = machine_new_file(self->machine_path, err)))
        agent_run_destroy(&self);
    return self;
}

//  A tracer ended on a thread of its own: closing its perf events has
//  the kernel unregister the tracepoints, which took up to 1 s on a
//  loaded machine, and the loop must go on heartbeating meanwhile
static void *s_tracer_end(void *tracer)
{
    syscalls_t *ending = tracer;
    syscalls_destroy(&ending);
    return NULL;
}

static void s_tracer_drop(syscalls_t **tracer)
{
    pthread_t thread;
    if (*tracer && pthread_create(&thread, NULL, s_tracer_end, *tracer) == 0) {
        pthread_detach(thread);
        *tracer = NULL;
    }
    syscalls_destroy(tracer); //  no thread: here, at once
}

//  A stage's start on a thread of its own: its process says READY when
//  it is ready, which may take a while (the loop heartbeats meanwhile)
static void s_starter(zsock_t *pipe, void *args)
{
    start_t *start = args;
    zsock_signal(pipe, 0);
    agent_run_t *run = start->run;
    start->stage =
        stage_process_new(run->pl, start->id, run->config, run->dir,
                          run->machine_path, &start->shared, &start->err);
    zstr_send(pipe, "STARTED");
    char *term = zstr_recv(pipe);
    zstr_free(&term);
}

static zmsg_t *s_start(agent_run_t *self, int id)
{
    errbuf_t err;
    if (self->stage[id] || self->start[id])
        return s_error(id, "started already");
    start_t *start = calloc(1, sizeof *start);
    if (!start)
        return s_error(id, "out of memory");
    *start = (start_t){.run = self, .id = id};
    if (!(start->pipe = actor_new(s_starter, start, &err))) {
        free(start);
        return s_error(id, err.msg);
    }
    self->start[id] = start;
    return NULL;
}

//  A start that has ended: its STARTED (or ERR), and the stage is ours
static zmsg_t *s_started(agent_run_t *self, int id, bool wait)
{
    start_t *start = self->start[id];
    zmq_pollitem_t item = {zsock_resolve(start->pipe), 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, wait ? -1 : 0) <= 0)
        return NULL;
    char *word = zstr_recv(start->pipe);
    zstr_free(&word);
    actor_destroy(&start->pipe, 1000); //  its last act: it ends now
    self->start[id] = NULL;
    self->stage[id] = start->stage;
    self->shared[id] = start->shared;
    zmsg_t *reply =
        start->stage ? s_reply("STARTED", id) : s_error(id, start->err.msg);
    if (start->stage)
        zmsg_addstrf(reply, "%d", (int)stage_process_kind.pid(start->stage));
    free(start);
    return reply;
}

//  End every stage, all at once, and forget the spec.  A relay ends its
//  process within 2 s (SIGKILL); one that does not end in time is left
//  to its fate (its process dies with the agent, PR_SET_PDEATHSIG)
static void s_end_spec(agent_run_t *self)
{
    for (int id = RUN_IDS - 1; id >= 0; id--)
        s_tracer_drop(&self->tracer[id]);
    void *dying[2 * RUN_IDS];
    int n = 0;
    for (int id = 0; id < RUN_IDS; id++) {
        zmsg_t *started = self->start[id] ? s_started(self, id, true) : NULL;
        zmsg_destroy(&started); //  a start uses the spec: it ends first
        if (self->stage[id]) {
            stage_process_end(self->stage[id]);
            dying[n++] = self->stage[id];
        }
        if (self->ending[id])
            dying[n++] = self->ending[id];
        self->stage[id] = self->ending[id] = NULL;
        self->counting[id] = false;
    }
    double until = mono_seconds() + 3;
    for (int left = n; left && mono_seconds() < until;) {
        left = 0;
        for (int i = 0; i < n; i++)
            if (dying[i] && stage_process_ended(dying[i]))
                dying[i] = NULL;
            else
                left += dying[i] != NULL;
        if (left)
            mono_sleep(0.01);
    }
    pipeline_destroy(&self->pl);
    topology_destroy(&self->topo);
}

void agent_run_destroy(agent_run_t **self_p)
{
    agent_run_t *self = *self_p;
    if (!self)
        return;
    s_end_spec(self);
    machine_destroy(&self->machine);
    resultsdir_ipc_remove(self->dir);
    free(self);
    *self_p = NULL;
}

const char *agent_run_dir(const agent_run_t *self)
{
    return self->dir;
}

int agent_run_stages(const agent_run_t *self)
{
    int n = 0;
    for (int id = 0; id < RUN_IDS; id++)
        n += self->stage[id] != NULL;
    return n;
}

//  Room for the files the most demanding stage here opens (many sockets):
//  its process inherits the agent's limit, raised up to the hard one; a
//  stage that would not fit even then is refused before it starts
static int s_files(const pipeline_t *pl, const char *host, errbuf_t *err)
{
    long need = pipeline_host_files(pl, host);
    unsigned long long soft, hard;
    int rc = nofile_raise(need, &soft, &hard, err);
    if (rc > 0)
        return err_set(err,
                       "a stage here would open about %ld files, more than "
                       "this agent may (ulimit -Hn: %llu): raise "
                       "RLIMIT_NOFILE where the agent starts (ulimit -n "
                       "%ld, or LimitNOFILE= in its unit), or use fewer "
                       "sockets per instance",
                       need, hard, need);
    return rc;
}

//  SPEC HOST TEXT: the combination, planned for this host
static zmsg_t *s_spec(agent_run_t *self, zmsg_t *msg)
{
    char host[64], where[128];
    errbuf_t err;
    wire_pop_text(msg, host, sizeof host);
    char *text = zmsg_popstr(msg);
    s_end_spec(self);
    snprintf(where, sizeof where, "the spec for %s", host);
    if (!text)
        return s_error(-1, "SPEC without a topology");
    int rc = s_write(self->config, text, &err) ||
             !(self->topo = topology_load_text(where, text, &err)) ||
             topology_validate(self->topo, &err);
    zstr_free(&text);
    if (rc)
        return s_error(-1, err.msg);
    pipeline_machine_t here = {host, self->machine};
    if (!(self->pl = pipeline_new_on(self->topo, &here, 1, &err)) ||
        s_files(self->pl, host, &err))
        return s_error(-1, err.msg);
    self->timeout_ms = (int)(self->pl->params.timeout * 1000);
    return s_reply("OK", -1);
}

//  CMD id COMMAND [hops]: on to the stage; a failure to pass it on is
//  its answer
static zmsg_t *s_command(agent_run_t *self, int id, zmsg_t *msg)
{
    char command[32];
    errbuf_t err;
    wire_pop_text(msg, command, sizeof command);
    if (streq(command, "SETUP"))
        wire_take_hops(msg, self->pl);
    if (stage_process_kind.send(self->stage[id], command, self->timeout_ms,
                                &err) == 0)
        return NULL;
    zmsg_t *answer = s_reply("ANSWER", id);
    zmsg_addstr(answer, "-1");
    zmsg_addstr(answer, err.msg);
    return answer;
}

static zmsg_t *s_counts_reply(agent_run_t *self, int id,
                              const stage_counts_t *counts)
{
    zmsg_t *reply = s_reply("COUNTS", id);
    zmsg_addstrf(reply, "%llu", (unsigned long long)counts->sent);
    zmsg_addstrf(reply, "%llu", (unsigned long long)counts->received);
    zmsg_addstrf(reply, "%.0f", counts->t * 1e9); //  read then, here
    if (pipeline_sees_origins(self->pl, id))
        for (int o = 0; o < self->pl->norigins; o++)
            zmsg_addstrf(reply, "%llu",
                         (unsigned long long)atomic_load(
                             &self->shared[id]->origins[o].received));
    if (self->shared[id]->nsockets > 1)
        wire_add_sockets(reply, self->shared[id], false);
    return reply;
}

//  The counters' reply once they are here (NULL while they are not)
static zmsg_t *s_take_counts(agent_run_t *self, int id)
{
    stage_counts_t counts;
    errbuf_t err;
    int got = stage_process_take_counts(self->stage[id], &counts, &err);
    if (got)
        self->counting[id] = false;
    return got > 0   ? s_counts_reply(self, id, &counts)
           : got < 0 ? s_error(id, err.msg)
                     : NULL;
}

static zmsg_t *s_counts(agent_run_t *self, int id)
{
    errbuf_t err;
    if (stage_process_ask_counts(self->stage[id], &err))
        return s_error(id, err.msg);
    self->counting[id] = true;
    return s_take_counts(self, id);
}

static void s_reset(agent_run_t *self, int id, zmsg_t *msg)
{
    stage_trial_t trial;
    trial.size = (uint32_t)wire_pop_ll(msg);
    trial.rate = wire_pop_double(msg);
    trial.timed = wire_pop_ll(msg) != 0;
    int64_t clock_ns = (int64_t)wire_pop_ll(msg);
    trial.epoch = (uint32_t)wire_pop_ll(msg);
    stage_reset(self->shared[id], &trial);
    self->shared[id]->clock_ns = clock_ns;
}

static zmsg_t *s_threads(agent_run_t *self, int id)
{
    task_t *tasks = calloc(THREADS_MAX, sizeof *tasks);
    pid_t pid = stage_process_kind.pid(self->stage[id]);
    int n = tasks && pid > 0 ? threads_scan(pid, tasks, THREADS_MAX) : 0;
    zmsg_t *reply = s_reply("THREADS", id);
    wire_add_tasks(reply, tasks, n > 0 ? n : 0);
    free(tasks);
    return reply;
}

static zmsg_t *s_cpu(int id, zmsg_t *msg)
{
    uint64_t ns = 0;
    while (zmsg_size(msg))
        ns += threads_cpu_ns((pid_t)wire_pop_ll(msg));
    zmsg_t *reply = s_reply("CPU", id);
    zmsg_addstrf(reply, "%llu", (unsigned long long)ns);
    return reply;
}

//  WAITS ID TID..: this host's steal and every thread's run-queue wait and
//  preemptions (-1 -1 for one /proc does not show), read at a window's
//  edge.  HOPBENCH_TEST_NO_WAITS=1 (tests only) answers as an agent
//  older than WAITS does
static zmsg_t *s_waits(int id, zmsg_t *msg)
{
    const char *old = getenv("HOPBENCH_TEST_NO_WAITS");
    if (old && streq(old, "1"))
        return s_error(id, "unknown request");
    threads_wait_t waits[THREADS_MAX];
    int n = 0;
    while (zmsg_size(msg) && n < THREADS_MAX)
        waits[n++] = threads_wait((pid_t)wire_pop_ll(msg));
    int64_t steal, ticks;
    threads_steal(&steal, &ticks);
    zmsg_t *reply = s_reply("WAITS", id);
    wire_add_waits(reply, steal, ticks, waits, n);
    return reply;
}

//  ------------------------------------------------------------------------
//  --profile syscalls: TRACE ID TID.. (opened, off), TRACING ID 1/0 (no
//  answer: a failure is told at TRACED), TRACED ID (what each thread did;
//  the tracer ends)

static zmsg_t *s_trace(agent_run_t *self, int id, zmsg_t *msg)
{
    pid_t tids[THREADS_MAX];
    int n = 0;
    errbuf_t err;
    while (zmsg_size(msg) && n < THREADS_MAX)
        tids[n++] = (pid_t)wire_pop_ll(msg);
    s_tracer_drop(&self->tracer[id]);
    self->trace_error[id].msg[0] = 0;
    if (!(self->tracer[id] = syscalls_new(tids, n, &err)))
        return s_error(id, err.msg);
    return s_reply("TRACE", id);
}

static void s_tracing(agent_run_t *self, int id, bool on)
{
    errbuf_t err;
    syscalls_t *tracer = self->tracer[id];
    if (tracer &&
        (on ? syscalls_start(tracer, &err) : syscalls_stop(tracer, &err)) &&
        !self->trace_error[id].msg[0])
        self->trace_error[id] = err;
}

static zmsg_t *s_traced(agent_run_t *self, int id)
{
    errbuf_t err;
    syscalls_t *tracer = self->tracer[id];
    zmsg_t *reply = NULL;
    if (!tracer)
        reply = s_error(id, "TRACED: no tracer (TRACE first)");
    else if (self->trace_error[id].msg[0])
        reply = s_error(id, self->trace_error[id].msg);
    else if (syscalls_read(tracer, &err))
        reply = s_error(id, err.msg);
    else {
        reply = s_reply("TRACED", id);
        for (int t = 0; syscalls_thread(tracer, t); t++)
            wire_add_syscalls(reply, syscalls_thread(tracer, t), 1);
    }
    s_tracer_drop(&self->tracer[id]);
    return reply;
}

//  END: ENDED comes from agent_run_answer, once the relay is gone
static zmsg_t *s_end(agent_run_t *self, int id)
{
    if (self->ending[id])
        return s_error(id, "still ending its last process");
    s_tracer_drop(&self->tracer[id]);
    stage_process_end(self->stage[id]);
    self->ending[id] = self->stage[id];
    self->stage[id] = NULL;
    self->counting[id] = false;
    return NULL;
}

//  PORTS ADDRESS N: free tcp ports on one of this host's addresses, all
//  probes open until all are chosen
static zmsg_t *s_ports(zmsg_t *msg)
{
    char address[64], why[300];
    wire_pop_text(msg, address, sizeof address);
    int n = (int)wire_pop_ll(msg), fds[2 * RUN_IDS], opened = 0;
    struct sockaddr_in addr = {.sin_family = AF_INET};
    if (n < 1 || n > 2 * RUN_IDS ||
        inet_pton(AF_INET, address, &addr.sin_addr) != 1)
        return s_error(-1, "PORTS: an IPv4 address and 1 to 256 ports");
    zmsg_t *reply = s_reply("PORTS", -1);
    for (; opened < n; opened++) {
        struct sockaddr_in port = addr;
        socklen_t len = sizeof port;
        fds[opened] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[opened] < 0 ||
            bind(fds[opened], (struct sockaddr *)&port, sizeof port) ||
            getsockname(fds[opened], (struct sockaddr *)&port, &len)) {
            snprintf(why, sizeof why,
                     "no free tcp port on %s: %s (is it "
                     "an address of this host?)",
                     address, strerror(errno));
            zmsg_destroy(&reply);
            reply = s_error(-1, why);
            opened++;
            break;
        }
        zmsg_addstrf(reply, "%d", ntohs(port.sin_port));
    }
    for (int i = 0; i < opened; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return reply;
}

//  Requests about one stage that exists
static zmsg_t *s_stage(agent_run_t *self, const char *command, int id,
                       zmsg_t *msg)
{
    errbuf_t ignored;
    void *stage = self->stage[id];
    if (streq(command, "CMD"))
        return s_command(self, id, msg);
    if (streq(command, "COUNTS"))
        return s_counts(self, id);
    if (streq(command, "STOP"))
        stage_process_kind.stop(stage, &ignored);
    else if (streq(command, "ABORT"))
        stage_process_kind.abort(stage);
    else if (streq(command, "RESET"))
        s_reset(self, id, msg);
    else if (streq(command, "RECORD"))
        atomic_store(&self->shared[id]->recording, (int)wire_pop_ll(msg));
    else if (streq(command, "SHARED")) {
        zmsg_t *reply = s_reply("SHARED", id);
        wire_add_shared(reply, self->shared[id], self->pl->norigins);
        return reply;
    } else if (streq(command, "THREADS"))
        return s_threads(self, id);
    else if (streq(command, "CPU"))
        return s_cpu(id, msg);
    else if (streq(command, "WAITS"))
        return s_waits(id, msg);
    else if (streq(command, "END"))
        return s_end(self, id);
    else if (streq(command, "TRACE"))
        return s_trace(self, id, msg);
    else if (streq(command, "TRACING"))
        s_tracing(self, id, wire_pop_ll(msg) != 0);
    else if (streq(command, "TRACED"))
        return s_traced(self, id);
    else
        return s_error(id, "unknown request");
    return NULL;
}

void agent_run_handle(agent_run_t *self, const char *command, int id,
                      zmsg_t *msg, zmsg_t **reply)
{
    *reply = NULL;
    bool valid = self->pl && id >= 0 && id < self->pl->n;
    if (streq(command, "SPEC"))
        *reply = s_spec(self, msg);
    else if (streq(command, "PORTS"))
        *reply = s_ports(msg);
    else if (!valid)
        *reply = s_error(id, "no such stage in the spec (SPEC first)");
    else if (streq(command, "START"))
        *reply = s_start(self, id);
    else if (!self->stage[id])
        *reply = s_error(id, "not started");
    else
        *reply = s_stage(self, command, id, msg);
}

zmsg_t *agent_run_answer(agent_run_t *self)
{
    for (int id = 0; id < RUN_IDS; id++) {
        zmsg_t *reply = NULL;
        if (self->ending[id] && stage_process_ended(self->ending[id])) {
            self->ending[id] = NULL;
            reply = s_reply("ENDED", id);
            zmsg_addstr(reply, "0");
        } else if (self->start[id])
            reply = s_started(self, id, false);
        else if (self->counting[id])
            reply = s_take_counts(self, id);
        if (reply)
            return reply;
        if (!self->stage[id] || !stage_process_kind.ready(self->stage[id], 0))
            continue;
        errbuf_t err = {0};
        int rc = stage_process_kind.wait(self->stage[id], 0, &err);
        zmsg_t *answer = s_reply("ANSWER", id);
        zmsg_addstrf(answer, "%d", rc);
        zmsg_addstr(answer, rc ? err.msg : "");
        return answer;
    }
    return NULL;
}

int agent_run_poll_items(agent_run_t *self, zmq_pollitem_t *items, int max)
{
    int n = 0;
    for (int id = 0; id < RUN_IDS && n < max; id++) {
        void *stage = self->stage[id] ? self->stage[id] : self->ending[id];
        if (self->start[id])
            items[n++] = (zmq_pollitem_t){zsock_resolve(self->start[id]->pipe),
                                          0, ZMQ_POLLIN, 0};
        else if (stage)
            items[n++] = (zmq_pollitem_t){
                zsock_resolve(stage_process_pipe(stage)), 0, ZMQ_POLLIN, 0};
    }
    return n;
}
