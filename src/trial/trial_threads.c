/*  trial_threads: the read-back of threads and memory while a trial's
    window is open.

    Every thread of the run, here and in the stages' own processes (and
    on their hosts), is named as the roster (pipeline/roster.h) names it
    and checked against it: placed where the plan says, and nothing more
    or less; what it is goes into the result's threads (threads.csv).  A
    thread that serves a stage without being its own (libzmq's, a czmq
    actor's) is a helper: trial_edge.c charges its CPU time to that
    stage.  Each stage's memory is read back by node (memory.csv).  At
    the window's edges every thread's run-queue wait, and each host's
    steal, is read where it runs (trial_starve.c says what they mean).
*/
#include "trial/trial_state.h"

#include "base/mono.h"

#include <stdlib.h>
#include <string.h>

//  Whose a thread is, and what it is called
typedef struct {
    int owner;      //  instance id, -1: the controller
    char label[48]; //  threads.csv's thread: "main", "ZMQbg/IO/0", ...
    bool helper;    //  its CPU time counts for its stage
} owner_t;

//  A thread of a stage's own process (i: the stage whose handle read it;
//  -1: this process) that is not a stage's: its main thread, czmq's
//  context, or something unplanned
static owner_t s_process_thread(trial_t *self, const task_t *task, int i)
{
    owner_t who = {i, "", false};
    bool czmq = strncmp(task->name, "ZMQbg/", 6) == 0;
    if (i < 0 && czmq && roster_czmq_owner(self->w.pl) >= 0)
        who.owner = roster_czmq_owner(self->w.pl);
    if (task->tid == task->pid)
        snprintf(who.label, sizeof who.label, "%s", i < 0 ? "main" : "process");
    else if (czmq && i >= 0 && !pipeline_czmq_actor(self->w.pl, i))
        snprintf(who.label, sizeof who.label, "process/%s", task->name);
    else
        snprintf(who.label, sizeof who.label, "%s", task->name);
    //  a czmq actor's I/O (here, or in its own process) is its stage's;
    //  a process's own czmq context only carries its control channel
    who.helper =
        czmq && who.owner >= 0 && (i < 0 || pipeline_czmq_actor(self->w.pl, i));
    return who;
}

//  Which stage a thread serves: its own thread, a libzmq thread of its
//  context ("PREFIX/ZMQbg/IO/0"), its engine's ("hbz:ID"), the relay to
//  its process ("hbr:ID"), or its process's own; else the controller's.
//  scanner: the stage whose handle read it (its process, here or on its
//  host), -1: this process
static owner_t s_owner(trial_t *self, const task_t *task, int scanner)
{
    owner_t who = {-1, "", true};
    const char *host =
        scanner >= 0 ? stage_handle_host(self->stage[scanner]) : "";
    for (int i = 0; i < self->w.pl->n; i++)
        if (stage_handle_shared(self->stage[i])->tid == task->tid &&
            streq(stage_handle_host(self->stage[i]), host))
            return (owner_t){i, "main", false};
    const char *rest;
    int prefix = threads_zmq_prefix(task->name, &rest), id;
    for (int k = 0; prefix >= 1 && k < self->w.pl->nctx; k++) {
        const context_plan_t *ctx = &self->w.pl->ctx[k];
        if (ctx->prefix != prefix ||
            !streq(pipeline_host(self->w.pl, ctx->owner), host))
            continue;
        who.owner = ctx->owner;
        snprintf(who.label, sizeof who.label, "%s", rest);
        return who;
    }
    if (sscanf(task->name, "hbz:%d", &id) == 1 && id >= 0 &&
        id < self->w.pl->n) { //  a czmq actor's thread, named as its engine
        who = (owner_t){id, "", true};
        snprintf(who.label, sizeof who.label, "%s",
                 engine_name(self->w.pl->inst[id].params.engine));
        return who;
    }
    if (sscanf(task->name, "hbr:%d", &id) == 1 && id >= 0 && id < self->w.pl->n)
        return (owner_t){id, "relay", false};
    return s_process_thread(self, task, scanner);
}

//  A thread not where the plan put it is a warning.  Its allowed CPUs
//  say where it can run; a last CPU outside them only says it has not run
//  since it was moved there (czmq's threads, between combinations)
static void s_check_place(trial_t *self, const thread_row_t *row,
                          const cpuset_t *planned)
{
    char want[256], line[700];
    if (cpuset_empty(planned))
        return;
    cpuset_format(planned, want, sizeof want);
    if (strcmp(row->allowed, want) != 0) {
        snprintf(line, sizeof line,
                 "stage %s thread %s: allowed CPUs %s, last ran on CPU %d; "
                 "the plan says CPUs %s",
                 row->stage, row->thread, row->allowed, row->last_cpu, want);
        trial_warn(self, line);
    }
}

static void s_record_thread(trial_t *self, const task_t *task, int scanner,
                            const owner_t *who, bool *seen)
{
    trial_result_t *result = self->result;
    thread_row_t *row = &result->threads[result->nthreads++];
    *row = (thread_row_t){
        .tid = task->tid, .last_cpu = task->last_cpu, .mem_node = -1};
    snprintf(row->stage, sizeof row->stage, "%s",
             who->owner >= 0 ? self->w.pl->inst[who->owner].name
                             : "controller");
    snprintf(row->thread, sizeof row->thread, "%s", who->label);
    snprintf(row->allowed, sizeof row->allowed, "%s", task->allowed);
    const machine_t *machine =
        scanner >= 0 ? stage_handle_machine(self->stage[scanner]) : NULL;
    snprintf(row->host, sizeof row->host, "%s",
             scanner >= 0 ? stage_handle_host(self->stage[scanner]) : "");
    row->node =
        machine_node_of_cpu(machine ? machine : self->machine, row->last_cpu);
    if (who->owner >= 0 && strcmp(who->label, "main") == 0)
        row->mem_node = stage_handle_shared(self->stage[who->owner])->mem_node;
    const roster_entry_t *planned =
        roster_find(self->roster, self->nroster, who->owner, who->label);
    if (planned) {
        seen[planned - self->roster] = true;
        s_check_place(self, row, &planned->cpus);
        return;
    }
    char line[300];
    snprintf(line, sizeof line,
             "stage %s thread %s (tid %d): a thread the plan does not list",
             row->stage, row->thread, (int)row->tid);
    trial_warn(self, line);
}

//  What the plan lists that the run did not start
static void s_check_missing(trial_t *self, const bool *seen)
{
    for (int r = 0; r < self->nroster; r++) {
        const roster_entry_t *entry = &self->roster[r];
        char line[300];
        if (seen[r])
            continue;
        snprintf(line, sizeof line,
                 "stage %s thread %s: in the plan, but not among the run's "
                 "threads",
                 entry->owner >= 0 ? self->w.pl->inst[entry->owner].name
                                   : "controller",
                 entry->thread);
        trial_warn(self, line);
    }
}

//  ------------------------------------------------------------------------
//  Read-back of memory: the pages of what each stage writes, by node, as
//  the stage counted them at SETUP (stage.h)

static const char *const s_region_text[STAGE_MEMORY_REGIONS] = {
    "counters", "message buffer", "stack", "zerocopy pool"};

static void s_check_region(trial_t *self, const memory_row_t *row, int region)
{
    int present = row->pages.present;
    int on = pin_pages_on(&row->pages, row->node);
    if (row->node < 0 || present == 0 || on == present)
        return;
    char by_node[200], line[400];
    pin_pages_format(&row->pages, by_node, sizeof by_node);
    snprintf(line, sizeof line,
             "stage %s: %d of the %d pages of its %s are off node %d "
             "(pages by node: %s)",
             row->stage, present - on, present, s_region_text[region],
             row->node, by_node);
    trial_warn(self, line);
}

static void s_record_memory(trial_t *self)
{
    trial_result_t *result = self->result;
    for (int i = 0; i < self->w.pl->n; i++) {
        const stage_shared_t *shared = stage_handle_shared(self->stage[i]);
        for (int r = 0; r < STAGE_MEMORY_REGIONS; r++) {
            if (shared->memory[r].pages == 0)
                continue; //  none (no zerocopy pool)
            memory_row_t *row = &result->memory[result->nmemory++];
            snprintf(row->stage, sizeof row->stage, "%s",
                     self->w.pl->inst[i].name);
            row->region = stage_memory_names[r];
            row->node = self->w.pl->inst[i].place.node;
            row->pages = shared->memory[r];
            s_check_region(self, row, r);
        }
    }
}

//  This process's threads, and those of stages in their own process, here
//  or on their host, into *tasks; scanner[t]: the stage whose handle read
//  task t, -1 for this process.  Each machine's read-back takes at most
//  THREADS_MAX (LIMIT_THREADS counts them per machine), so the arrays
//  grow by that much before each.  The number read; -1 with err when a
//  host cannot say, or out of memory
static int s_grow(task_t **tasks, int **scanner, int n, int room,
                  errbuf_t *err)
{
    task_t *more = realloc(*tasks, (size_t)(n + room) * sizeof *more);
    if (more)
        *tasks = more;
    int *also =
        more ? realloc(*scanner, (size_t)(n + room) * sizeof *also) : NULL;
    if (also)
        *scanner = also;
    return also ? 0 : err_set(err, "the threads read back: out of memory");
}

//  The threads this process reads of its own at most: LIMIT_THREADS of
//  the run's, and a link's for each host (one per instance at most)
#define S_OWN_MAX (THREADS_MAX + PIPELINE_MAX_INSTANCES)

static int s_scan(trial_t *self, task_t **tasks, int **scanner, errbuf_t *err)
{
    //  this process's: its stages' threads, and a link's per host
    if (s_grow(tasks, scanner, 0, S_OWN_MAX, err))
        return -1;
    int n = threads_scan(getpid(), *tasks, S_OWN_MAX);
    n = n > 0 ? n : 0;
    for (int t = 0; t < n; t++)
        (*scanner)[t] = -1;
    for (int i = 0; i < self->w.pl->n; i++)
        stage_handle_ask(self->stage[i], STAGE_ASK_THREADS, NULL, 0);
    for (int i = 0; i < self->w.pl->n; i++) {
        if (s_grow(tasks, scanner, n, THREADS_MAX, err))
            return -1;
        int more =
            stage_handle_threads(self->stage[i], *tasks + n, THREADS_MAX, err);
        if (more < 0)
            return -1;
        for (int t = n; t < n + more; t++)
            (*scanner)[t] = i;
        n += more;
    }
    return n;
}

//  Room for n helpers and (record) n rows of threads.csv
static int s_room(trial_t *self, int n, bool record, errbuf_t *err)
{
    size_t k = (size_t)(n > 0 ? n : 1);
    pid_t *tid = realloc(self->helper_tid, k * sizeof *tid);
    if (tid)
        self->helper_tid = tid;
    int *owner = tid ? realloc(self->helper_owner, k * sizeof *owner) : NULL;
    if (owner)
        self->helper_owner = owner;
    thread_row_t *rows = NULL;
    if (owner && record) {
        free(self->result->threads);
        self->result->nthreads = 0;
        rows = self->result->threads = calloc(k, sizeof *rows);
    }
    return owner && (rows || !record)
               ? 0
               : err_set(err, "the threads read back: out of memory");
}

int trial_read_threads(trial_t *self, bool record, errbuf_t *err)
{
    task_t *tasks = NULL;
    int *scanner = NULL;
    bool *seen = calloc((size_t)self->nroster + 1, sizeof *seen);
    int n = seen ? s_scan(self, &tasks, &scanner, err)
                 : err_set(err, "the threads read back: out of memory");
    if (n >= 0 && s_room(self, n, record, err))
        n = -1;
    self->nhelpers = 0;
    for (int t = 0; t < n; t++) {
        if (streq(tasks[t].name, SYSCALLS_THREAD_NAME))
            continue; //  --profile syscalls' own (machine/syscalls.h)
        owner_t who = s_owner(self, &tasks[t], scanner[t]);
        if (who.helper) {
            self->helper_tid[self->nhelpers] = tasks[t].tid;
            self->helper_owner[self->nhelpers++] = who.owner;
        }
        if (record)
            s_record_thread(self, &tasks[t], scanner[t], &who, seen);
    }
    if (record && n > 0) {
        s_check_missing(self, seen);
        s_record_memory(self);
    }
    free(tasks);
    free(scanner);
    free(seen);
    return n < 0 ? -1 : 0;
}

//  ------------------------------------------------------------------------
//  Run-queue waits at the window's edges: this host's threads from its
//  /proc, each other host's in one question to its agent (through its
//  first stage)

//  The waits of host 'asker's host's threads, and its steal into each
//  of its instances; a host that cannot tell (an older agent) leaves
//  them -1 and is said once, at the window's start; -1 when it is lost
//  The threads of host 'asker's host, into tids and their rows of
//  threads.csv into rows: how many
static int s_host_tids(trial_t *self, int asker, pid_t *tids, int *rows)
{
    const trial_result_t *result = self->result;
    const char *host = self->w.pl->inst[asker].host;
    int n = 0;
    for (int t = 0; t < result->nthreads && n < THREADS_MAX; t++)
        if (streq(result->threads[t].host, host)) {
            rows[n] = t;
            tids[n++] = result->threads[t].tid;
        }
    return n;
}

static int s_host_waits(trial_t *self, int asker, trial_waits_t *into, bool say,
                        errbuf_t *err)
{
    const pipeline_t *pl = self->w.pl;
    const char *host = pl->inst[asker].host;
    pid_t tids[THREADS_MAX] = {0};
    int rows[THREADS_MAX];
    threads_wait_t got[THREADS_MAX];
    int n = s_host_tids(self, asker, tids, rows);
    int64_t steal, ticks;
    errbuf_t why;
    int rc = stage_handle_waits(self->stage[asker], tids, n, got, &steal,
                                &ticks, &why);
    if (rc < 0) {
        *err = why; //  the host's loss, as the handle says it
        return -1;
    }
    for (int k = 0; k < n; k++)
        into->wait[rows[k]] = got[k];
    for (int i = 0; i < pl->n; i++)
        if (streq(pl->inst[i].host, host))
            into->steal[i] = steal, into->ticks[i] = ticks;
    if (rc > 0 && say) {
        char line[600];
        snprintf(line, sizeof line,
                 "host %s did not read its stages' run-queue waits (%.300s; an "
                 "agent older than this hopbench answers so): their rows' "
                 "from_wait_pct, to_wait_pct, steal_pct and starved are -1 "
                 "(unknown)",
                 host, why.msg);
        trial_warn(self, line);
    }
    into->refused |= rc > 0;
    return 0;
}

int trial_read_waits(trial_t *self, int edge, errbuf_t *err)
{
    const pipeline_t *pl = self->w.pl;
    const trial_result_t *result = self->result;
    trial_waits_t *into = &self->starve.edge[edge];
    int64_t steal, ticks;
    if (trial_starve_room(&self->starve, result->nthreads))
        return err_set(err, "the waits read back: out of memory");
    into->refused = false;
    into->from = mono_seconds(); //  before the first reading
    threads_steal(&steal, &ticks);
    for (int i = 0; i < pl->n; i++)
        into->steal[i] = steal, into->ticks[i] = ticks;
    for (int t = 0; t < result->nthreads; t++)
        into->wait[t] = result->threads[t].host[0]
                            ? (threads_wait_t){-1, -1}
                            : threads_wait(result->threads[t].tid);
    //  every host asked before any reply is read: they answer together
    bool *first = calloc((size_t)pl->n + 1, sizeof *first);
    if (!first)
        return err_set(err, "the waits read back: out of memory");
    pid_t tids[THREADS_MAX];
    int rows[THREADS_MAX], rc = 0;
    for (int i = 0; i < pl->n; i++) {
        first[i] = pl->inst[i].host[0] && pipeline_host_first(pl, i) == i;
        if (first[i])
            stage_handle_ask(self->stage[i], STAGE_ASK_WAITS, tids,
                             s_host_tids(self, i, tids, rows));
    }
    for (int i = 0; i < pl->n && rc == 0; i++)
        if (first[i] && s_host_waits(self, i, into, edge == 0, err))
            rc = -1;
    free(first);
    if (rc)
        return -1;
    into->to = mono_seconds(); //  after the last
    return 0;
}
