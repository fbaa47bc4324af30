/*  trial_profile: --profile syscalls in one trial (trial_spec_t.profile).

        read-back: whose thread is whose
        -> every stage's tracer opened where its threads run, off
        -> all switched on, then the window's first snapshot (T0)
           ... the window ...
        -> its last snapshot (T1), then all switched off
        -> each stage's threads read: rows of the result (results.h)

    A stage's threads are its own and the libzmq and engine threads the
    read-back charges to it (trial_threads.c: the helpers), traced here
    or by its host's agent (stage_handle_trace_*).  Opening comes first for
    every stage so that the edges themselves are a few ioctls each, close
    to the snapshots.  Rows name each thread as threads.csv does; their
    per-message figures divide by what the stage handled in the window.
*/
#include "trial/trial_state.h"

#include <stdlib.h>
#include <string.h>

//  Stage i's thread and the helpers charged to it
static int s_tids(const trial_t *self, int i, pid_t *tids)
{
    int n = 0;
    tids[n++] = stage_handle_shared(self->stage[i])->tid;
    for (int h = 0; h < self->nhelpers && n < THREADS_MAX; h++)
        if (self->helper_owner[h] == i)
            tids[n++] = self->helper_tid[h];
    return n;
}

int trial_profile_start(trial_t *self, errbuf_t *err)
{
    if (!self->spec.profile)
        return 0;
    pid_t tids[THREADS_MAX];
    self->tracing = true;
    for (int i = 0; i < self->w.pl->n; i++)
        if (stage_handle_trace_open(self->stage[i], tids, s_tids(self, i, tids),
                                    err))
            return -1;
    for (int i = 0; i < self->w.pl->n; i++)
        stage_handle_trace(self->stage[i], true);
    return 0;
}

//  What stage i handled in the window: sent by a source, taken in by the
//  others; connect: the connections of its clients (every stage's unit)
static uint64_t s_messages(const trial_t *self, int i)
{
    const pipeline_t *pl = self->w.pl;
    if (pl->params.pattern == PATTERN_CONNECT && !pipeline_is_sink(pl, i)) {
        uint64_t sum = 0;
        for (int s = 0; s < pl->n; s++)
            if (pipeline_is_sink(pl, s))
                sum += s_messages(self, s);
        return sum;
    }
    if (pipeline_is_source(pl, i))
        return self->w.s1.sent[i] - self->w.s0.sent[i];
    return self->w.s1.received[i] - self->w.s0.received[i];
}

//  The name threads.csv gives thread tid of stage i ("tid N" if none)
static void s_label(const trial_t *self, int i, pid_t tid, char *buf,
                    size_t len)
{
    const char *host = stage_handle_host(self->stage[i]);
    const trial_result_t *result = self->result;
    for (int t = 0; t < result->nthreads; t++)
        if (result->threads[t].tid == tid &&
            streq(result->threads[t].host, host)) {
            snprintf(buf, len, "%s", result->threads[t].thread);
            return;
        }
    snprintf(buf, len, "tid %d", (int)tid);
}

static syscall_row_t *s_row(trial_t *self, int i, const char *thread,
                            const char *syscall)
{
    syscall_row_t *row = &self->result->syscalls[self->result->nsyscalls++];
    *row = (syscall_row_t){.messages = s_messages(self, i),
                           .seconds = self->w.s1.at[i] - self->w.s0.at[i]};
    snprintf(row->stage, sizeof row->stage, "%s", self->w.pl->inst[i].name);
    snprintf(row->host, sizeof row->host, "%s",
             stage_handle_host(self->stage[i]));
    snprintf(row->thread, sizeof row->thread, "%s", thread);
    snprintf(row->syscall, sizeof row->syscall, "%s", syscall);
    return row;
}

//  Thread th's row "all", then one per syscall it made
static void s_thread_rows(trial_t *self, int i, const syscalls_thread_t *th,
                          syscall_row_t *stage)
{
    char label[48];
    s_label(self, i, th->tid, label, sizeof label);
    syscall_row_t *total = s_row(self, i, label, "all");
    total->totals = true;
    total->utime_ns = th->utime_ns, total->stime_ns = th->stime_ns;
    total->cpu_ns = th->utime_ns + th->stime_ns;
    total->lost = th->lost;
    for (int c = 0; c < th->ncalls; c++) {
        syscall_row_t *row = s_row(self, i, label, th->calls[c].name);
        row->calls = th->calls[c].calls;
        row->total_ns = th->calls[c].total_ns;
        total->calls += row->calls, total->total_ns += row->total_ns;
    }
    stage->calls += total->calls, stage->total_ns += total->total_ns;
    stage->utime_ns += total->utime_ns, stage->stime_ns += total->stime_ns;
    stage->lost += total->lost;
}

//  Stage i's rows: its total, then its threads'
static void s_stage_rows(trial_t *self, int i, const syscalls_thread_t *th,
                         int n)
{
    syscall_row_t *stage = s_row(self, i, "all", "all");
    stage->totals = true;
    stage->cpu_ns = self->w.s1.cpu_ns[i] - self->w.s0.cpu_ns[i];
    for (int t = 0; t < n; t++)
        s_thread_rows(self, i, &th[t], stage);
}

int trial_profile_stop(trial_t *self, errbuf_t *err)
{
    if (!self->tracing)
        return 0;
    for (int i = 0; i < self->w.pl->n; i++)
        stage_handle_trace(self->stage[i], false);
    const syscalls_thread_t *threads[PIPELINE_MAX_INSTANCES];
    int counts[PIPELINE_MAX_INSTANCES], rows = 0;
    for (int i = 0; i < self->w.pl->n; i++) {
        if (stage_handle_trace_read(self->stage[i], &threads[i], &counts[i],
                                    err))
            return -1;
        rows += 1 + counts[i];
        for (int t = 0; t < counts[i]; t++)
            rows += threads[i][t].ncalls;
    }
    trial_result_t *result = self->result;
    if (!(result->syscalls = calloc((size_t)rows, sizeof *result->syscalls)))
        return err_set(err, "a trial's system calls: out of memory");
    for (int i = 0; i < self->w.pl->n; i++)
        s_stage_rows(self, i, threads[i], counts[i]);
    result->traced = true;
    return 0;
}

void trial_profile_end(trial_t *self)
{
    if (!self->tracing)
        return;
    for (int i = 0; i < self->w.pl->n; i++)
        stage_handle_trace_close(self->stage[i]);
    self->tracing = false;
}
