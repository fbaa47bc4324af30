/*  trial_starve: did the machine, not the pipeline, set a trial's figures?

    Linux counts, for every thread, the time it waited on a run queue for
    a CPU (/proc/TID/schedstat) and the times it was preempted
    (nonvoluntary_ctxt_switches).  Read for every thread of threads.csv
    when the window opens and when it closes, they say what share of the
    window each thread was ready to run but not running (wait_pct), and
    /proc/stat says what share the hypervisor stole.  A row whose stage's
    busiest thread waited more than starved_pct of the window is starved:
    its rate is the scheduler's.  A stage on another host is unknown (-1):
    its agent does not read these (local only).
*/
#include "trial/trial_state.h"

#include "machine/cpuset.h"

#include <string.h>

static bool s_local(const thread_row_t *row)
{
    return row->host[0] == 0;
}

void trial_starve_open(trial_t *self)
{
    trial_result_t *result = self->result;
    for (int t = 0; t < result->nthreads; t++) {
        thread_row_t *row = &result->threads[t];
        threads_wait_t wait = {-1, -1};
        if (s_local(row))
            wait = threads_wait(row->tid);
        row->wait0_ns = wait.wait_ns;
        row->preempted0 = wait.preempted;
        row->wait_pct = row->preempted = -1;
    }
    threads_steal(&self->steal0, &self->ticks0);
}

void trial_starve_close(trial_t *self)
{
    trial_result_t *result = self->result;
    double window_ns = self->window_seconds * 1e9;
    for (int t = 0; t < result->nthreads; t++) {
        thread_row_t *row = &result->threads[t];
        if (!s_local(row) || row->wait0_ns < 0 || window_ns <= 0)
            continue;
        threads_wait_t wait = threads_wait(row->tid);
        if (wait.wait_ns < row->wait0_ns)
            continue; //  gone, or its tid taken again
        row->wait_pct =
            100.0 * (double)(wait.wait_ns - row->wait0_ns) / window_ns;
        if (wait.preempted >= row->preempted0 && row->preempted0 >= 0)
            row->preempted = wait.preempted - row->preempted0;
    }
    int64_t steal, ticks;
    threads_steal(&steal, &ticks);
    self->steal_pct = -1;
    if (self->steal0 >= 0 && steal >= self->steal0 && ticks > self->ticks0)
        self->steal_pct = 100.0 * (double)(steal - self->steal0) /
                          (double)(ticks - self->ticks0);
}

//  The busiest-waiting thread of the stages ids[0..n-1]; NULL when
//  none is known (every one on another host)
static const thread_row_t *s_busiest(trial_t *self, const int *ids, int n,
                                     bool *unknown)
{
    const thread_row_t *worst = NULL;
    *unknown = false;
    for (int k = 0; k < n; k++) {
        const char *name = self->pl->inst[ids[k]].name;
        bool seen = false;
        for (int t = 0; t < self->result->nthreads; t++) {
            const thread_row_t *row = &self->result->threads[t];
            if (strcmp(row->stage, name) != 0 || row->wait_pct < 0)
                continue;
            seen = true;
            if (!worst || row->wait_pct > worst->wait_pct)
                worst = row;
        }
        *unknown |= !seen;
    }
    return worst;
}

static void s_cpus(const char *text, cpuset_t *set)
{
    cpuset_t all;
    errbuf_t ignored;
    cpuset_clear(&all);
    for (int c = 0; c < LIMIT_CPUS; c++)
        cpuset_add(&all, c);
    if (cpuset_parse(text, &all, set, &ignored))
        cpuset_clear(set);
}

//  "stage broker waited 34.1 % of the window for a CPU (thread main);
//  busy threads that may run on its CPUs 1: pub/main, sub/ZMQbg/IO/0"
static void s_note(trial_t *self, const thread_row_t *worst, char *note,
                   size_t len)
{
    cpuset_t mine, theirs;
    s_cpus(worst->allowed, &mine);
    size_t used = (size_t)snprintf(
        note, len,
        "stage %s waited %.1f %% of the window for a CPU (thread %s); "
        "busy threads that may run on its CPUs %s:",
        worst->stage, worst->wait_pct, worst->thread, worst->allowed);
    int shared = 0;
    for (int t = 0; t < self->result->nthreads && used < len; t++) {
        const thread_row_t *row = &self->result->threads[t];
        if (row == worst || !s_local(row) || row->wait_pct <= 0)
            continue; //  one that never waited to run hardly ran
        s_cpus(row->allowed, &theirs);
        bool meet = false;
        for (int c = cpuset_next(&mine, -1); c >= 0 && !meet;
             c = cpuset_next(&mine, c))
            meet = cpuset_has(&theirs, c);
        if (meet)
            used +=
                (size_t)snprintf(note + used, len - used, "%s %s/%s",
                                 shared++ ? "," : "", row->stage, row->thread);
    }
    if (!shared && used < len)
        snprintf(note + used, len - used, " none");
}

//  One end of a row: its busiest thread's wait, or -1
static double s_end(trial_t *self, const int *ids, int n,
                    const thread_row_t **worst, bool *unknown)
{
    *worst = s_busiest(self, ids, n, unknown);
    return *worst ? (*worst)->wait_pct : -1;
}

void trial_starve_rows(trial_t *self)
{
    trial_result_t *result = self->result;
    double limit = self->pl->params.starved_pct;
    result->starved = 0;
    for (int l = 0; l < result->nlinks; l++) {
        link_row_t *row = &result->links[l];
        int ids[PIPELINE_MAX_INSTANCES];
        int n = trial_link_senders(self->pl, &self->links[l], ids);
        const thread_row_t *from, *to;
        bool from_unknown, to_unknown;
        row->from_wait_pct = s_end(self, ids, n, &from, &from_unknown);
        row->to_wait_pct = s_end(self, &self->links[l].to, 1, &to, &to_unknown);
        row->steal_pct = self->steal_pct;
        const thread_row_t *worst =
            !to || (from && from->wait_pct > to->wait_pct) ? from : to;
        row->starved = worst && worst->wait_pct > limit ? 1
                       : from_unknown || to_unknown     ? -1
                                                        : 0;
        row->starved_note[0] = 0;
        if (row->starved == 1)
            s_note(self, worst, row->starved_note, sizeof row->starved_note);
        if (row->starved == 1 || (row->starved < 0 && result->starved == 0))
            result->starved = row->starved;
    }
}
