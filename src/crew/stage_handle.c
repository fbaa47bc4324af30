/*  stage_handle: one interface over every kind of stage (stage_handle.h).

    Chooses the kind once, prefixes every error with the stage's name, and
    keeps what all kinds share: the pointer to the stage's shared block
    (memory of this process, or mapped from the stage's own process), where
    the flags the trial sets are written.
*/
#include "crew/stage_handle.h"

#include "crew/stage_process.h"
#include "crew/stage_remote.h"
#include "crew/stage_thread.h"

#include <stdlib.h>
#include <string.h>

struct stage_handle_s {
    const pipeline_t *pl;
    const instance_t *inst;
    const stage_kind_t *kind;
    void *state;            //  the kind's
    stage_shared_t *shared; //  the stage's counters and flags (a mirror)
    const machine_t *machine;
    int64_t clock_ns;
    //  --profile syscalls, for a stage whose threads are this host's
    syscalls_t *tracer;
    syscalls_thread_t *traced; //  ntraced threads, read from the tracer
    int ntraced;
    errbuf_t trace_error; //  the first edge that failed, "" none
};

stage_handle_t *stage_handle_new(const pipeline_t *pl, int id,
                                 const stage_where_t *where, errbuf_t *err)
{
    stage_handle_t *self = calloc(1, sizeof *self);
    errbuf_t why = {.msg = "out of memory"};
    if (self) {
        self->pl = pl;
        self->inst = &pl->inst[id];
        self->machine = where->machine;
        self->clock_ns = where->clock_ns;
        if (self->inst->host[0]) {
            self->kind = &stage_remote_kind;
            self->state = where->link ? stage_remote_new(pl, id, where->link,
                                                         &self->shared, &why)
                                      : NULL;
            if (!where->link) {
                err_set(&why, "no agent");
                err_host(&why, self->inst->host);
            }
        } else if (self->inst->params.process == PROCESS_OWN) {
            self->kind = &stage_process_kind;
            self->state =
                stage_process_new(pl, id, where->config, where->ipc_dir, NULL,
                                  &self->shared, &why);
        } else {
            void *owner = where->ctx_owner ? where->ctx_owner->state : NULL;
            self->kind = &stage_thread_kind;
            self->state = stage_thread_new(pl, id, owner, NULL, &why);
            if (self->state)
                self->shared = stage_thread_shared(self->state);
        }
    }
    if (!self || !self->state) {
        if (err)
            *err = why;
        err_stage(err, pl->inst[id].name);
        free(self);
        return NULL;
    }
    return self;
}

int stage_handle_destroy(stage_handle_t **self_p, int timeout_ms)
{
    stage_handle_t *self = *self_p;
    if (!self)
        return 0;
    stage_handle_trace_close(self);
    if (self->kind->destroy(self->state, timeout_ms))
        return -1;
    free(self);
    *self_p = NULL;
    return 0;
}

//  "stage NAME: why", for every error a kind reports: its host and
//  reason kept, the stage its own
static int s_named(const stage_handle_t *self, int rc, errbuf_t *err,
                   const errbuf_t *why)
{
    if (rc && err) {
        *err = *why;
        err_stage(err, self->inst->name);
    }
    return rc;
}

int stage_handle_started(stage_handle_t *self, double until, errbuf_t *err)
{
    errbuf_t why;
    return self->kind->started
               ? s_named(self, self->kind->started(self->state, until, &why),
                         err, &why)
               : 0;
}

void stage_handle_end(stage_handle_t *self)
{
    if (self->kind->end)
        self->kind->end(self->state);
}

int stage_handle_ended(stage_handle_t *self, int timeout_ms, errbuf_t *err)
{
    errbuf_t why;
    return self->kind->ended
               ? s_named(self, self->kind->ended(self->state, timeout_ms, &why),
                         err, &why)
               : 0;
}

int stage_handle_send(stage_handle_t *self, const char *command, int timeout_ms,
                      errbuf_t *err)
{
    errbuf_t why;
    return s_named(self,
                   self->kind->send(self->state, command, timeout_ms, &why),
                   err, &why);
}

bool stage_handle_ready(stage_handle_t *self, int wait_ms)
{
    return self->kind->ready(self->state, wait_ms);
}

int stage_handle_wait(stage_handle_t *self, int timeout_ms, errbuf_t *err)
{
    errbuf_t why;
    return s_named(self, self->kind->wait(self->state, timeout_ms, &why), err,
                   &why);
}

int stage_handle_command(stage_handle_t *self, const char *command,
                         int timeout_ms, errbuf_t *err)
{
    if (stage_handle_send(self, command, timeout_ms, err))
        return -1;
    return stage_handle_wait(self, timeout_ms, err);
}

void stage_handle_ask(stage_handle_t *self, stage_ask_t what, const pid_t *tids,
                      int n)
{
    if (self->kind->ask)
        self->kind->ask(self->state, what, tids, n);
}

int stage_handle_counts(stage_handle_t *self, stage_counts_t *out,
                        errbuf_t *err)
{
    errbuf_t why;
    return s_named(self, self->kind->counts(self->state, out, &why), err, &why);
}

uint64_t stage_handle_origin(stage_handle_t *self, int origin)
{
    return atomic_load_explicit(&self->shared->origins[origin].received,
                                memory_order_relaxed);
}

const stage_shared_t *stage_handle_shared(stage_handle_t *self)
{
    return self->shared;
}

void stage_handle_reset(stage_handle_t *self, const stage_trial_t *trial)
{
    stage_reset(self->shared, trial);
    self->shared->clock_ns = self->clock_ns;
    if (self->kind->reset)
        self->kind->reset(self->state, trial, self->clock_ns);
}

void stage_handle_record(stage_handle_t *self, stage_phase_t phase)
{
    atomic_store(&self->shared->recording, (int)phase);
    if (self->kind->record)
        self->kind->record(self->state, phase);
}

int stage_handle_sync(stage_handle_t *self, errbuf_t *err)
{
    errbuf_t why;
    return self->kind->sync
               ? s_named(self, self->kind->sync(self->state, &why), err, &why)
               : 0;
}

int stage_handle_threads(stage_handle_t *self, task_t *out, int max,
                         errbuf_t *err)
{
    errbuf_t why;
    if (self->kind->threads) {
        int n = self->kind->threads(self->state, out, max, &why);
        return n < 0 ? s_named(self, -1, err, &why) : n;
    }
    pid_t pid = self->kind->pid(self->state);
    int n = pid > 0 ? threads_scan(pid, out, max) : 0;
    return n > 0 ? n : 0; //  ended here: its end is told by its answers
}

int stage_handle_cpu_ns(stage_handle_t *self, const pid_t *tids, int n,
                        uint64_t *ns, errbuf_t *err)
{
    errbuf_t why;
    *ns = 0;
    if (self->kind->cpu_ns)
        return s_named(self, self->kind->cpu_ns(self->state, tids, n, ns, &why),
                       err, &why);
    for (int i = 0; i < n; i++)
        *ns += threads_cpu_ns(tids[i]);
    return 0;
}

int stage_handle_waits(stage_handle_t *self, const pid_t *tids, int n,
                       threads_wait_t *out, int64_t *steal, int64_t *ticks,
                       errbuf_t *err)
{
    errbuf_t why;
    if (self->kind->waits) {
        int rc =
            self->kind->waits(self->state, tids, n, out, steal, ticks, &why);
        if (rc > 0)
            for (int i = 0; i < n; i++)
                out[i] = (threads_wait_t){-1, -1};
        if (rc > 0)
            *steal = *ticks = -1;
        return s_named(self, rc, err, &why);
    }
    for (int i = 0; i < n; i++)
        out[i] = threads_wait(tids[i]);
    threads_steal(steal, ticks);
    return 0;
}

//  ------------------------------------------------------------------------
//  --profile syscalls: here with machine/syscalls, or by the kind

int stage_handle_trace_open(stage_handle_t *self, const pid_t *tids, int n,
                            errbuf_t *err)
{
    errbuf_t why;
    stage_handle_trace_close(self);
    if (self->kind->trace_open)
        return s_named(self, self->kind->trace_open(self->state, tids, n, &why),
                       err, &why);
    self->tracer = syscalls_new(tids, n, &why);
    self->traced = calloc((size_t)n + 1, sizeof *self->traced);
    if (self->tracer && !self->traced)
        err_set(&why, "out of memory");
    self->ntraced = n;
    return s_named(self, self->tracer && self->traced ? 0 : -1, err, &why);
}

void stage_handle_trace(stage_handle_t *self, bool on)
{
    errbuf_t why;
    if (self->kind->trace) {
        self->kind->trace(self->state, on);
        return;
    }
    if (!self->tracer)
        return;
    int rc = on ? syscalls_start(self->tracer, &why)
                : syscalls_stop(self->tracer, &why);
    if (rc && !self->trace_error.msg[0]) //  told at read
        self->trace_error = why;
}

int stage_handle_trace_read(stage_handle_t *self,
                            const syscalls_thread_t **threads, int *n,
                            errbuf_t *err)
{
    errbuf_t why;
    if (self->kind->trace_read)
        return s_named(self,
                       self->kind->trace_read(self->state, threads, n, &why),
                       err, &why);
    if (!self->tracer)
        return s_named(self, err_set(&why, "no tracer open"), err, &why);
    if (self->trace_error.msg[0])
        return s_named(self, -1, err, &self->trace_error);
    if (syscalls_read(self->tracer, &why))
        return s_named(self, -1, err, &why);
    for (int i = 0; i < self->ntraced; i++)
        self->traced[i] = *syscalls_thread(self->tracer, i);
    *threads = self->traced;
    *n = self->ntraced;
    return 0;
}

void stage_handle_trace_close(stage_handle_t *self)
{
    if (self->kind->trace_close)
        self->kind->trace_close(self->state);
    syscalls_destroy(&self->tracer);
    free(self->traced);
    self->traced = NULL;
    self->ntraced = 0;
    self->trace_error.msg[0] = 0;
}

const char *stage_handle_host(const stage_handle_t *self)
{
    return self->inst->host;
}

const machine_t *stage_handle_machine(const stage_handle_t *self)
{
    return self->machine;
}

int stage_handle_stop(stage_handle_t *self, errbuf_t *err)
{
    errbuf_t why;
    return s_named(self, self->kind->stop(self->state, &why), err, &why);
}

void stage_handle_abort(stage_handle_t *self)
{
    self->kind->abort(self->state);
}

pid_t stage_handle_pid(stage_handle_t *self)
{
    return self->kind->pid(self->state);
}

const char *stage_handle_kind(const stage_handle_t *self)
{
    return self->kind->name;
}
