/*  trial: drive the stages of one measurement (see trial.h for the steps).

    The controller thread sleeps between polls of the stages' counters; it
    never sits in the message path.  Counters are read as a snapshot: the
    publishers' and receivers' relaxed atomics, the proxies' STATISTICS,
    the clock, and every stage's CPU time (its thread and, for a context's
    owner, its libzmq I/O threads).  Links are what results.csv shows: one
    per hop, or one per (from, to) pair where a hop fans in or out and the
    receiving end can tell senders apart.
*/
#define _GNU_SOURCE
#include "trial.h"

#include "proxy.h"
#include "stage.h"
#include "threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#define TRIAL_MAX_LINKS 1024
#define TRIAL_POLL_MS   50  //  failure checks while the window is open
#define TRIAL_QUIET_MS  250 //  no counter moved this long: drained

typedef struct {
    int hop;      //  0-based
    int from, to; //  instance ids; from -1: every instance of from_stage
    int from_stage;
} link_t;

typedef struct {
    double t;
    uint64_t sent[PIPELINE_MAX_INSTANCES], received[PIPELINE_MAX_INSTANCES];
    uint64_t cpu_ns[PIPELINE_MAX_INSTANCES];
    uint64_t link_sent[TRIAL_MAX_LINKS], link_received[TRIAL_MAX_LINKS];
} snapshot_t;

typedef struct {
    pipeline_t *pl;
    const machine_t *machine;
    int timeout_ms;
    stage_t *stage[PIPELINE_MAX_INSTANCES];
    void *control[PIPELINE_MAX_INSTANCES];
    int nlinks;
    link_t links[TRIAL_MAX_LINKS];
    int nio; //  libzmq threads, charged to owners
    pid_t io_tid[THREADS_MAX];
    int io_owner[THREADS_MAX];
    snapshot_t s0, s1, last;
    bool publishers_ending; //  their DONE is expected now
    trial_result_t *result;
    char *warnings;
    size_t warnings_len;
} trial_t;

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void s_sleep(double seconds)
{
    struct timespec ts = {(time_t)seconds,
                          (long)((seconds - floor(seconds)) * 1e9)};
    nanosleep(&ts, NULL);
}

static void s_warn(trial_t *self, const char *line)
{
    size_t used = strlen(self->warnings);
    snprintf(self->warnings + used, self->warnings_len - used, "%s\n", line);
}

//  ------------------------------------------------------------------------
//  Links

static void s_add_link(trial_t *self, int hop, int from, int to, int from_stage)
{
    if (self->nlinks < TRIAL_MAX_LINKS)
        self->links[self->nlinks++] = (link_t){hop, from, to, from_stage};
}

static void s_make_links(trial_t *self)
{
    const pipeline_t *pl = self->pl;
    for (int h = 0; h < pl->nstages - 1; h++) {
        int up = h, down = h + 1;
        bool down_proxy = pl->inst[pl->first[down]].role == ROLE_PROXY;
        if (down_proxy && pl->count[up] > 1) {
            s_add_link(self, h, -1, pl->first[down], up);
            continue;
        }
        for (int u = 0; u < pl->count[up]; u++)
            for (int d = 0; d < pl->count[down]; d++)
                s_add_link(self, h, pl->first[up] + u, pl->first[down] + d, up);
    }
}

//  What a link's receiving end has taken from it
static uint64_t s_link_received(trial_t *self, const link_t *link,
                                const snapshot_t *snap)
{
    const instance_t *to = &self->pl->inst[link->to];
    if (to->role == ROLE_PROXY || link->from < 0 ||
        self->pl->inst[link->from].role == ROLE_PROXY)
        return snap->received[link->to];
    int origin = self->pl->inst[link->from].instance;
    return atomic_load_explicit(
        &self->stage[link->to]->origins[origin].received, memory_order_relaxed);
}

static uint64_t s_link_sent(trial_t *self, const link_t *link,
                            const snapshot_t *snap)
{
    if (link->from >= 0)
        return snap->sent[link->from];
    uint64_t sum = 0;
    for (int i = 0; i < self->pl->count[link->from_stage]; i++)
        sum += snap->sent[self->pl->first[link->from_stage] + i];
    return sum;
}

//  ------------------------------------------------------------------------
//  Snapshots

static uint64_t s_cpu_ns(trial_t *self, int id)
{
    uint64_t ns = threads_cpu_ns(self->stage[id]->tid);
    for (int i = 0; i < self->nio; i++)
        if (self->io_owner[i] == id)
            ns += threads_cpu_ns(self->io_tid[i]);
    return ns;
}

static int s_snapshot(trial_t *self, snapshot_t *snap, errbuf_t *err)
{
    for (int i = 0; i < self->pl->n; i++) {
        stage_t *stage = self->stage[i];
        if (stage->inst->role == ROLE_PROXY) {
            proxy_counts_t counts;
            if (proxy_statistics(stage, self->control[i], &counts, err))
                return -1;
            snap->sent[i] = counts.sent;
            snap->received[i] = counts.received;
        } else {
            snap->sent[i] = atomic_load(&stage->sent);
            snap->received[i] = atomic_load(&stage->received);
        }
    }
    snap->t = s_now();
    for (int i = 0; i < self->pl->n; i++)
        snap->cpu_ns[i] = s_cpu_ns(self, i);
    for (int l = 0; l < self->nlinks; l++) {
        snap->link_sent[l] = s_link_sent(self, &self->links[l], snap);
        snap->link_received[l] = s_link_received(self, &self->links[l], snap);
    }
    return 0;
}

static void s_link_name(trial_t *self, const link_t *link, char *from, char *to)
{
    const pipeline_t *pl = self->pl;
    if (link->from >= 0)
        snprintf(from, RESULTS_NAME_MAX, "%s", pl->inst[link->from].name);
    else
        snprintf(from, RESULTS_NAME_MAX, "%s.*",
                 pl->topo->stages[link->from_stage].name);
    snprintf(to, RESULTS_NAME_MAX, "%s", pl->inst[link->to].name);
}

//  Fail if a stage has ended on its own (an error) before being told to
static int s_check_stages(trial_t *self, errbuf_t *err)
{
    for (int i = 0; i < self->pl->n; i++) {
        if (self->publishers_ending && self->pl->inst[i].role == ROLE_PUBLISHER)
            continue;
        if (stage_ended(self->stage[i])) {
            if (stage_wait(self->stage[i], self->timeout_ms, err) == 0)
                err_set(err, "stage %s stopped before it was told to",
                        self->pl->inst[i].name);
            return -1;
        }
    }
    return 0;
}

//  ------------------------------------------------------------------------
//  Start and stop

static int s_start(trial_t *self, uint32_t size, errbuf_t *err)
{
    pipeline_t *pl = self->pl;
    for (int i = 0; i < pl->n; i++) {
        self->stage[i] = stage_new(pl, i, size);
        if (!self->stage[i])
            return err_set(err, "stage %s: cannot start its thread",
                           pl->inst[i].name);
    }
    for (int i = 0; i < pl->n; i++) {
        stage_t *stage = self->stage[i];
        int owner = pl->ctx[pl->inst[i].ctx].owner;
        if (owner != i)
            stage->ctx = self->stage[owner]->ctx;
        if (stage->inst->role == ROLE_PUBLISHER)
            for (int j = 0; j < pl->n; j++)
                if (pl->inst[j].role == ROLE_SUBSCRIBER)
                    stage->handshake_ids[stage->nhandshake++] = j;
        if (stage_command(stage, "SETUP", self->timeout_ms, err))
            return -1;
        if (stage->inst->role == ROLE_PROXY &&
            !(self->control[i] =
                  proxy_control_open(stage, self->timeout_ms, err)))
            return -1;
    }
    return 0;
}

//  Receivers and proxies first, then the handshake, then the publishers
static int s_go(trial_t *self, errbuf_t *err)
{
    for (int i = self->pl->n - 1; i >= 0; i--)
        if (self->pl->inst[i].role != ROLE_PUBLISHER &&
            stage_command(self->stage[i], "RUN", self->timeout_ms, err))
            return -1;
    for (int i = 0; i < self->pl->n; i++)
        if (self->pl->inst[i].role == ROLE_PUBLISHER &&
            stage_command(self->stage[i], "HANDSHAKE", self->timeout_ms + 1000,
                          err))
            return -1;
    for (int i = 0; i < self->pl->n; i++)
        if (self->pl->inst[i].role == ROLE_PUBLISHER &&
            stage_command(self->stage[i], "RUN", self->timeout_ms, err))
            return -1;
    return 0;
}

static void s_stop_publishers(trial_t *self)
{
    self->publishers_ending = true;
    for (int i = 0; i < self->pl->n; i++)
        if (self->stage[i] && self->pl->inst[i].role == ROLE_PUBLISHER)
            atomic_store(&self->stage[i]->target, 0);
}

//  Tell every running stage to stop and collect its DONE
static int s_stop(trial_t *self, errbuf_t *err)
{
    int rc = 0;
    s_stop_publishers(self);
    for (int i = 0; i < self->pl->n; i++) {
        stage_t *stage = self->stage[i];
        if (!stage)
            continue;
        atomic_store(&stage->stop, 1);
        if (self->control[i])
            rc |= proxy_terminate(stage, self->control[i], err);
    }
    for (int i = 0; i < self->pl->n; i++)
        if (self->stage[i] && stage_wait(self->stage[i], self->timeout_ms, err))
            rc = -1;
    return rc;
}

//  Close everything, owners of contexts last.  A stage that does not
//  answer is left behind: destroying it would wait forever.
static int s_teardown(trial_t *self, errbuf_t *err)
{
    int rc = 0;
    for (int i = 0; i < self->pl->n; i++)
        if (self->control[i]) {
            zmq_close(self->control[i]);
            self->control[i] = NULL;
        }
    for (int i = self->pl->n - 1; i >= 0; i--) {
        if (!self->stage[i])
            continue;
        if (stage_command(self->stage[i], "TEARDOWN", self->timeout_ms, err) ||
            stage_destroy(&self->stage[i], self->timeout_ms))
            rc = -1;
    }
    return rc;
}

//  After a failure: unblock everything we can, then tear down
static void s_abort(trial_t *self)
{
    errbuf_t ignored;
    s_stop_publishers(self);
    for (int i = 0; i < self->pl->n; i++)
        if (self->stage[i]) {
            atomic_store(&self->stage[i]->stop, 1);
            if (self->control[i])
                proxy_terminate(self->stage[i], self->control[i], &ignored);
        }
    for (int i = 0; i < self->pl->n; i++)
        if (self->stage[i] && self->pl->ctx[self->pl->inst[i].ctx].owner == i &&
            self->stage[i]->ctx)
            zmq_ctx_shutdown(self->stage[i]->ctx);
    for (int i = 0; i < self->pl->n; i++)
        if (self->stage[i])
            while (stage_ended(self->stage[i]) &&
                   stage_wait(self->stage[i], 100, &ignored) == 0)
                ;
    s_teardown(self, &ignored);
}

//  ------------------------------------------------------------------------
//  Warm-up, window, drain

//  Until warmup has passed and every link has delivered something
static int s_warm_up(trial_t *self, errbuf_t *err)
{
    double start = s_now(), warmup = self->pl->params.warmup;
    while (true) {
        if (s_check_stages(self, err) || s_snapshot(self, &self->last, err))
            return -1;
        int silent = -1;
        for (int l = 0; l < self->nlinks && silent < 0; l++)
            if (self->last.link_received[l] == 0)
                silent = l;
        double elapsed = s_now() - start;
        if (silent < 0 && elapsed >= warmup)
            return 0;
        if (silent >= 0 && elapsed * 1000 > self->timeout_ms) {
            char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
            const link_t *link = &self->links[silent];
            s_link_name(self, link, from, to);
            return err_set(err, "hop %d (%s -> %s) delivered nothing in %g s",
                           link->hop + 1, from, to, self->pl->params.timeout);
        }
        s_sleep(TRIAL_POLL_MS / 1000.0);
    }
}

//  Fail if a link took nothing for the timeout while its sender went on
static int s_check_moving(trial_t *self, double *moved, errbuf_t *err)
{
    snapshot_t *before = &self->last;
    snapshot_t now;
    if (s_check_stages(self, err) || s_snapshot(self, &now, err))
        return -1;
    for (int l = 0; l < self->nlinks; l++) {
        if (now.link_received[l] != before->link_received[l] ||
            now.link_sent[l] == before->link_sent[l])
            moved[l] = now.t;
        else if ((now.t - moved[l]) * 1000 > self->timeout_ms) {
            char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
            s_link_name(self, &self->links[l], from, to);
            return err_set(err, "hop %d (%s -> %s) stopped moving for %g s",
                           self->links[l].hop + 1, from, to,
                           self->pl->params.timeout);
        }
    }
    self->last = now;
    return 0;
}

//  Messages mode: each publisher sends 'messages' more, then stops.  The
//  controller sleeps about half the time that is left, so it wakes a few
//  times near the end instead of polling all along
static uint64_t s_remaining(trial_t *self)
{
    uint64_t n = self->pl->params.messages, remaining = 0;
    for (int i = 0; i < self->pl->n; i++)
        if (self->pl->inst[i].role == ROLE_PUBLISHER) {
            uint64_t sent = atomic_load(&self->stage[i]->sent);
            uint64_t target = self->s0.sent[i] + n;
            remaining += sent < target ? target - sent : 0;
        }
    return remaining;
}

static int s_window_messages(trial_t *self, double *moved, errbuf_t *err)
{
    self->publishers_ending = true;
    for (int i = 0; i < self->pl->n; i++)
        if (self->pl->inst[i].role == ROLE_PUBLISHER)
            atomic_store(&self->stage[i]->target,
                         self->s0.sent[i] + self->pl->params.messages);
    double last_check = s_now(), prev_t = last_check;
    uint64_t prev = 0;
    for (uint64_t left = s_remaining(self); left > 0;
         left = s_remaining(self)) {
        double now = s_now();
        if (now - last_check >= TRIAL_POLL_MS / 1000.0) {
            if (s_check_moving(self, moved, err))
                return -1;
            last_check = now;
        }
        double rate = prev > left ? (prev - left) / (now - prev_t) : 0;
        prev = left, prev_t = now;
        double wait = rate > 0 ? left / rate / 2 : 0.001;
        s_sleep(fmin(fmax(wait, 0.0001), TRIAL_POLL_MS / 1000.0));
    }
    return 0;
}

static int s_window(trial_t *self, errbuf_t *err)
{
    double moved[TRIAL_MAX_LINKS];
    for (int l = 0; l < self->nlinks; l++)
        moved[l] = self->s0.t;
    self->last = self->s0;
    if (self->pl->params.messages > 0) {
        if (s_window_messages(self, moved, err))
            return -1;
    } else {
        double end = self->s0.t + self->pl->params.duration;
        while (s_now() < end) {
            s_sleep(fmin(TRIAL_POLL_MS / 1000.0, end - s_now()));
            if (s_check_moving(self, moved, err))
                return -1;
        }
    }
    return s_snapshot(self, &self->s1, err);
}

//  After the publishers stop: until every link has taken all it was sent,
//  or nothing moved for TRIAL_QUIET_MS (what is left was dropped)
static int s_drain(trial_t *self, errbuf_t *err)
{
    double start = s_now(), quiet_since = start;
    if (s_snapshot(self, &self->last, err))
        return -1;
    while (s_now() - start < self->timeout_ms / 1000.0) {
        s_sleep(0.02);
        snapshot_t now;
        if (s_check_stages(self, err) || s_snapshot(self, &now, err))
            return -1;
        bool complete = true, moved = false;
        for (int l = 0; l < self->nlinks; l++) {
            complete &= now.link_received[l] == now.link_sent[l];
            moved |= now.link_received[l] != self->last.link_received[l] ||
                     now.link_sent[l] != self->last.link_sent[l];
        }
        self->last = now;
        if (moved)
            quiet_since = now.t;
        if (complete || (now.t - quiet_since) * 1000 >= TRIAL_QUIET_MS)
            return 0;
    }
    return 0; //  still moving after the timeout: report what arrived
}

//  ------------------------------------------------------------------------
//  Read-back of threads: where every thread is while the window is open

static void s_label(trial_t *self, const task_t *task, thread_row_t *row,
                    int *owner)
{
    *owner = -1;
    for (int i = 0; i < self->pl->n; i++)
        if (self->stage[i]->tid == task->tid) {
            snprintf(row->stage, sizeof row->stage, "%s",
                     self->pl->inst[i].name);
            snprintf(row->thread, sizeof row->thread, "main");
            row->mem_node = self->stage[i]->mem_node;
            return;
        }
    const char *rest;
    int prefix = threads_zmq_prefix(task->name, &rest);
    if (prefix >= 1 && prefix <= self->pl->nctx) {
        *owner = self->pl->ctx[prefix - 1].owner;
        snprintf(row->stage, sizeof row->stage, "%s",
                 self->pl->inst[*owner].name);
        snprintf(row->thread, sizeof row->thread, "%s", rest);
    } else {
        snprintf(row->stage, sizeof row->stage, "hopbench");
        snprintf(row->thread, sizeof row->thread, "%s", task->name);
    }
}

//  A thread not where the plan put it is a warning
static void s_check_place(trial_t *self, const thread_row_t *row,
                          const cpuset_t *planned, int last_cpu)
{
    char want[256], line[700];
    if (cpuset_empty(planned))
        return;
    cpuset_format(planned, want, sizeof want);
    if (strcmp(row->allowed, want) != 0 || !cpuset_has(planned, last_cpu)) {
        snprintf(line, sizeof line,
                 "stage %s thread %s: allowed CPUs %s, last ran on CPU %d; "
                 "the plan says CPUs %s",
                 row->stage, row->thread, row->allowed, last_cpu, want);
        s_warn(self, line);
    }
}

//  So is a stage's message memory not on its node: a memory policy rules
//  only pages touched after it is set (see README, "NUMA")
static void s_check_memory(trial_t *self, const thread_row_t *row, int node)
{
    char line[300];
    if (node < 0 || row->mem_node < 0 || row->mem_node == node)
        return;
    snprintf(line, sizeof line,
             "stage %s: a message buffer it allocated is on node %d; the "
             "plan says node %d",
             row->stage, row->mem_node, node);
    s_warn(self, line);
}

static void s_read_threads(trial_t *self, bool record)
{
    task_t tasks[THREADS_MAX];
    int n = threads_scan(tasks, THREADS_MAX);
    trial_result_t *result = self->result;
    self->nio = 0;
    for (int t = 0; t < n; t++) {
        thread_row_t row = {
            .tid = tasks[t].tid, .last_cpu = tasks[t].last_cpu, .mem_node = -1};
        int owner;
        s_label(self, &tasks[t], &row, &owner);
        snprintf(row.allowed, sizeof row.allowed, "%s", tasks[t].allowed);
        row.node = machine_node_of_cpu(self->machine, row.last_cpu);
        if (owner >= 0) {
            self->io_tid[self->nio] = row.tid;
            self->io_owner[self->nio++] = owner;
        }
        if (!record)
            continue;
        int id = owner;
        for (int i = 0; i < self->pl->n && id < 0; i++)
            if (self->stage[i]->tid == row.tid)
                id = i;
        if (id >= 0)
            s_check_place(self, &row,
                          owner >= 0 ? &self->pl->inst[id].place.io_cpus
                                     : &self->pl->inst[id].place.cpus,
                          row.last_cpu);
        if (id >= 0 && owner < 0)
            s_check_memory(self, &row, self->pl->inst[id].place.node);
        result->threads[result->nthreads++] = row;
    }
}

//  ------------------------------------------------------------------------
//  Results

//  Messages a stage handled in the window: sent by a publisher, taken in
//  by a proxy or subscriber
static uint64_t s_handled(trial_t *self, int id)
{
    if (self->pl->inst[id].role == ROLE_PUBLISHER)
        return self->s1.sent[id] - self->s0.sent[id];
    return self->s1.received[id] - self->s0.received[id];
}

static double s_cpu_per_msg(trial_t *self, int from, int stage)
{
    uint64_t ns = 0, msgs = 0;
    int first = from >= 0 ? from : self->pl->first[stage];
    int last = from >= 0 ? from : first + self->pl->count[stage] - 1;
    for (int i = first; i <= last; i++) {
        ns += self->s1.cpu_ns[i] - self->s0.cpu_ns[i];
        msgs += s_handled(self, i);
    }
    return msgs ? (double)ns / (double)msgs : -1;
}

//  CPU and node a stage thread ran on, read back; -1 when not pinned
static void s_where(trial_t *self, int id, int *cpu, int *node)
{
    *cpu = *node = -1;
    if (id < 0 || cpuset_empty(&self->pl->inst[id].place.cpus))
        return;
    for (int t = 0; t < self->result->nthreads; t++)
        if (self->result->threads[t].tid == self->stage[id]->tid) {
            *cpu = self->result->threads[t].last_cpu;
            *node = self->result->threads[t].node;
        }
}

//  Loss the sequence numbers prove between the publishers and receiver
//  'to': for one origin (a direct link), or all of them
static int64_t s_seq_lost(trial_t *self, int to, int origin_id)
{
    const pipeline_t *pl = self->pl;
    if (pl->inst[to].role != ROLE_SUBSCRIBER)
        return -1;
    int64_t lost = 0;
    for (int i = 0; i < pl->count[0]; i++) {
        int id = pl->first[0] + i;
        if (origin_id >= 0 && id != origin_id)
            continue;
        const origin_t *o = &self->stage[to]->origins[pl->inst[id].instance];
        lost += (int64_t)(self->last.sent[id] - o->next) + (int64_t)o->gaps;
    }
    return lost;
}

static void s_make_rows(trial_t *self)
{
    trial_result_t *result = self->result;
    for (int l = 0; l < self->nlinks; l++) {
        const link_t *link = &self->links[l];
        link_row_t *row = &result->links[result->nlinks++];
        row->hop = link->hop + 1;
        s_link_name(self, link, row->from, row->to);
        row->transport = self->pl->hops[link->hop].params.transport;
        row->sent = self->last.link_sent[l];
        row->received = self->last.link_received[l];
        row->seconds = self->s1.t - self->s0.t;
        row->window_received =
            self->s1.link_received[l] - self->s0.link_received[l];
        s_where(self, link->from, &row->from_cpu, &row->from_node);
        s_where(self, link->to, &row->to_cpu, &row->to_node);
        row->from_cpu_ns = s_cpu_per_msg(self, link->from, link->from_stage);
        row->to_cpu_ns = s_cpu_per_msg(self, link->to, link->hop + 1);
        bool direct = link->from >= 0 &&
                      self->pl->inst[link->from].role == ROLE_PUBLISHER;
        row->seq_lost = s_seq_lost(self, link->to, direct ? link->from : -1);
    }
}

//  The hops' counters and the sequence numbers must tell the same loss
static int s_verify(trial_t *self, errbuf_t *err)
{
    const pipeline_t *pl = self->pl;
    const trial_result_t *result = self->result;
    for (int d = 0; d < pl->n; d++) {
        if (pl->inst[d].role != ROLE_SUBSCRIBER)
            continue;
        if (self->stage[d]->misordered)
            return err_set(err, "stage %s: %llu messages out of sequence",
                           pl->inst[d].name,
                           (unsigned long long)self->stage[d]->misordered);
        int64_t counted = 0, proven = s_seq_lost(self, d, -1);
        for (int l = 0; l < result->nlinks; l++) {
            const link_t *link = &self->links[l];
            if (link->hop + 1 < pl->nstages - 1 || link->to == d)
                counted += (int64_t)(result->links[l].sent -
                                     result->links[l].received);
        }
        if (counted != proven)
            return err_set(err,
                           "loss accounting: the hops' counters lose "
                           "%lld messages on the way to %s, its "
                           "sequence numbers prove %lld",
                           (long long)counted, pl->inst[d].name,
                           (long long)proven);
    }
    return 0;
}

//  ------------------------------------------------------------------------

static int s_measure(trial_t *self, errbuf_t *err)
{
    if (s_go(self, err) || s_warm_up(self, err))
        return -1;
    s_read_threads(self, false); //  the I/O threads whose CPU time counts
    if (s_snapshot(self, &self->s0, err))
        return -1;
    s_read_threads(self, true);
    if (s_window(self, err))
        return -1;
    s_stop_publishers(self);
    if (s_drain(self, err) || s_stop(self, err))
        return -1;
    s_make_rows(self);
    return s_verify(self, err);
}

int trial_run(pipeline_t *pl, const machine_t *machine, uint32_t size,
              int repeat, trial_result_t *result, char *warnings,
              size_t warnings_len, errbuf_t *err)
{
    trial_t *self = calloc(1, sizeof *self);
    self->pl = pl;
    self->machine = machine;
    self->timeout_ms = (int)(pl->params.timeout * 1000);
    self->result = result;
    self->warnings = warnings;
    self->warnings_len = warnings_len;
    warnings[0] = 0;
    s_make_links(self);
    memset(result, 0, sizeof *result);
    result->size = size;
    result->repeat = repeat;
    result->links = calloc((size_t)self->nlinks, sizeof(link_row_t));
    result->threads = calloc(THREADS_MAX, sizeof(thread_row_t));
    int rc = s_start(self, size, err) ? -1 : s_measure(self, err);
    if (rc)
        s_abort(self);
    else if (s_teardown(self, err))
        rc = -1;
    free(self);
    return rc;
}

void trial_result_free(trial_result_t *result)
{
    free(result->links);
    free(result->threads);
    result->links = NULL;
    result->threads = NULL;
}
