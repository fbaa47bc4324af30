/*  trial_counters: what a trial's counters mean.

    Links are the rows of results.csv: one per hop, or one per (from, to)
    pair where a hop fans in or out and its receiving end can tell senders
    apart (sinks and the forwarder read every header; zmq_proxy_steerable
    and zproxy cannot, so a fan-in into them is one row, "pub.*").  A
    snapshot reads every counter at one moment: the senders' and receivers'
    relaxed atomics, the proxies' counts, the clock, and each stage's CPU
    time (its thread, plus the libzmq and engine threads charged to it).
    After the drain, the rows are made, and the hops' losses are checked
    against what the sinks' sequence numbers prove.
*/
#include "trial/trial_state.h"

#include "base/mono.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//  ------------------------------------------------------------------------
//  Links

_Static_assert(LIMIT_ORIGINS <= 64, "a link's origins fit one uint64_t");

//  The origins whose messages reach instance 'from' (a source: its own)
static uint64_t s_origins_at(const pipeline_t *pl, int from)
{
    uint64_t mask = 0;
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].origin >= 0 && pipeline_reaches(pl, i, from))
            mask |= 1ULL << pl->inst[i].origin;
    return mask;
}

static void s_add_link(trial_t *self, int hop, int from, int to)
{
    const pipeline_t *pl = self->pl;
    uint64_t origins = 0;
    if (from >= 0)
        origins = s_origins_at(pl, from);
    else
        for (int h = pipeline_hop_in(pl, to); h >= 0;
             h = pipeline_next_hop_in(pl, to, h))
            for (int u = 0; u < pl->count[pl->hops[h].up]; u++)
                origins |= s_origins_at(pl, pl->first[pl->hops[h].up] + u);
    if (self->nlinks < TRIAL_MAX_LINKS)
        self->links[self->nlinks++] = (link_t){hop, from, to, origins};
}

//  The instances upstream of 'to' over all of its hops
static int s_senders(const pipeline_t *pl, int to)
{
    int n = 0;
    for (int h = pipeline_hop_in(pl, to); h >= 0;
         h = pipeline_next_hop_in(pl, to, h))
        n += pl->count[pl->hops[h].up];
    return n;
}

//  One row per (from, to) pair of each hop, in hop order; a receiver that
//  cannot tell its senders apart and has several gets one row for them
//  all, at its first hop
void trial_make_links(trial_t *self)
{
    const pipeline_t *pl = self->pl;
    for (int h = 0; h < pl->nhops; h++) {
        int up = pl->hops[h].up, down = pl->hops[h].down;
        for (int d = 0; d < pl->count[down]; d++) {
            int to = pl->first[down] + d;
            if (pipeline_sees_origins(pl, to) || s_senders(pl, to) == 1) {
                for (int u = 0; u < pl->count[up]; u++)
                    s_add_link(self, h, pl->first[up] + u, to);
            } else if (pipeline_hop_in(pl, to) == h)
                s_add_link(self, h, -1, to);
        }
    }
}

int trial_link_senders(const trial_t *self, const link_t *link, int *ids)
{
    const pipeline_t *pl = self->pl;
    int n = 0;
    if (link->from >= 0) {
        ids[0] = link->from;
        return 1;
    }
    for (int h = pipeline_hop_in(pl, link->to); h >= 0;
         h = pipeline_next_hop_in(pl, link->to, h))
        for (int u = 0; u < pl->count[pl->hops[h].up]; u++)
            ids[n++] = pl->first[pl->hops[h].up] + u;
    return n;
}

//  "pub.*", "edge-a+edge-b" or "pa.*+pb.*": the stages a summed row takes
//  from, "*" when their names do not fit
static void s_senders_name(const trial_t *self, int to, char *from)
{
    const pipeline_t *pl = self->pl;
    size_t used = 0;
    from[0] = 0;
    for (int h = pipeline_hop_in(pl, to); h >= 0;
         h = pipeline_next_hop_in(pl, to, h)) {
        int up = pl->hops[h].up;
        used += (size_t)snprintf(from + used, RESULTS_NAME_MAX - used,
                                 "%s%s%s", used ? "+" : "",
                                 pl->topo->stages[up].name,
                                 pl->count[up] > 1 ? ".*" : "");
        if (used >= RESULTS_NAME_MAX) {
            snprintf(from, RESULTS_NAME_MAX, "*");
            return;
        }
    }
}

void trial_link_name(trial_t *self, const link_t *link, char *from, char *to)
{
    const pipeline_t *pl = self->pl;
    if (link->from >= 0)
        snprintf(from, RESULTS_NAME_MAX, "%s", pl->inst[link->from].name);
    else
        s_senders_name(self, link->to, from);
    snprintf(to, RESULTS_NAME_MAX, "%s", pl->inst[link->to].name);
}

//  Does a link's receiving end count it apart from its other links (it
//  tells origins apart, and the link carries only some of what it takes:
//  from one source, or over one of several hops)?
static bool s_per_origin(const trial_t *self, const link_t *link)
{
    const pipeline_t *pl = self->pl;
    return link->from >= 0 && pipeline_sees_origins(pl, link->to) &&
           (pipeline_is_source(pl, link->from) ||
            pipeline_next_hop_in(pl, link->to, pipeline_hop_in(pl, link->to)) >=
                0);
}

//  What a receiver that tells origins apart took of a link's origins
static uint64_t s_origins_received(trial_t *self, const link_t *link)
{
    uint64_t sum = 0;
    for (int o = 0; o < self->pl->norigins; o++)
        if (link->origins >> o & 1)
            sum += stage_handle_origin(self->stage[link->to], o);
    return sum;
}

static uint64_t s_link_sent(trial_t *self, const link_t *link,
                            const snapshot_t *snap)
{
    //  connect: a client's hop counts the cycles it began
    if (self->pl->params.pattern == PATTERN_CONNECT &&
        pipeline_is_sink(self->pl, link->to))
        return snap->sent[link->to];
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(self, link, ids);
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += snap->sent[ids[i]];
    //  a receiver of N sockets takes N copies of each message
    return sum * (uint64_t)pipeline_sockets(self->pl, link->to);
}

//  ------------------------------------------------------------------------
//  Snapshots

//  Its thread's and its helpers' CPU time, read where they run
static uint64_t s_cpu_ns(trial_t *self, int id)
{
    pid_t tids[THREADS_MAX];
    int n = 0;
    tids[n++] = stage_handle_shared(self->stage[id])->tid;
    for (int i = 0; i < self->nhelpers && n < THREADS_MAX; i++)
        if (self->helper_owner[i] == id)
            tids[n++] = self->helper_tid[i];
    return stage_handle_cpu_ns(self->stage[id], tids, n);
}

//  Stage i's counters into snap, and right after them its links' own
//  counts, the clock read on both sides: the counts were true at some
//  instant between the two readings; at[i] is their middle, *width the
//  time between them
int trial_read_stage(trial_t *self, int i, snapshot_t *snap, double *width,
                     errbuf_t *err)
{
    stage_counts_t counts;
    double before = mono_seconds();
    if (stage_handle_counts(self->stage[i], &counts, err))
        return -1;
    snap->sent[i] = counts.sent;
    snap->received[i] = counts.received;
    for (int l = 0; l < self->nlinks; l++) {
        const link_t *link = &self->links[l];
        if (link->to == i)
            snap->link_received[l] = s_per_origin(self, link)
                                         ? s_origins_received(self, link)
                                         : counts.received;
    }
    double after = mono_seconds();
    snap->at[i] = snap->t = (before + after) / 2;
    *width = self->width[i] = after - before;
    return 0;
}

//  What the links were sent, and every stage's CPU time, after the
//  stages' counters are in snap
void trial_snapshot_finish(trial_t *self, snapshot_t *snap)
{
    for (int i = 0; i < self->pl->n; i++)
        snap->cpu_ns[i] = s_cpu_ns(self, i);
    for (int l = 0; l < self->nlinks; l++)
        snap->link_sent[l] = s_link_sent(self, &self->links[l], snap);
}

//  Every stage's counters, one after another, each at its own time
int trial_snapshot(trial_t *self, snapshot_t *snap, errbuf_t *err)
{
    for (int i = 0; i < self->pl->n; i++) {
        double width;
        if (trial_read_stage(self, i, snap, &width, err))
            return -1;
    }
    trial_snapshot_finish(self, snap);
    return 0;
}

//  ------------------------------------------------------------------------
//  Read-back of threads: where every thread is while the window is open,
//  each named as the roster (pipeline/roster.h) names it, and checked
//  against it: placed where the plan says, and nothing more or less

//  Whose a thread is, and what it is called
typedef struct {
    int owner;       //  instance id, -1: the controller
    char label[48];  //  threads.csv's thread: "main", "ZMQbg/IO/0", ...
    bool helper;     //  its CPU time counts for its stage
} owner_t;

static bool s_zproxy(const instance_t *inst)
{
    return inst->role == ROLE_PROXY && inst->params.engine == ENGINE_ZPROXY;
}

//  A thread of a stage's own process (i: the stage whose handle read it;
//  -1: this process) that is not a stage's: its main thread, czmq's
//  context, or something unplanned
static owner_t s_process_thread(trial_t *self, const task_t *task, int i)
{
    owner_t who = {i, "", false};
    bool czmq = strncmp(task->name, "ZMQbg/", 6) == 0;
    if (i < 0 && czmq && roster_czmq_owner(self->pl) >= 0)
        who.owner = roster_czmq_owner(self->pl);
    if (task->tid == task->pid)
        snprintf(who.label, sizeof who.label, "%s", i < 0 ? "main" : "process");
    else if (czmq && i >= 0 && !s_zproxy(&self->pl->inst[i]))
        snprintf(who.label, sizeof who.label, "process/%s", task->name);
    else
        snprintf(who.label, sizeof who.label, "%s", task->name);
    who.helper = czmq && who.owner >= 0; //  a zproxy's I/O
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
    for (int i = 0; i < self->pl->n; i++)
        if (stage_handle_shared(self->stage[i])->tid == task->tid &&
            streq(stage_handle_host(self->stage[i]), host))
            return (owner_t){i, "main", false};
    const char *rest;
    int prefix = threads_zmq_prefix(task->name, &rest), id;
    if (prefix >= 1 && prefix <= self->pl->nctx) {
        who.owner = self->pl->ctx[prefix - 1].owner;
        snprintf(who.label, sizeof who.label, "%s", rest);
        return who;
    }
    if (sscanf(task->name, "hbz:%d", &id) == 1 && id >= 0 && id < self->pl->n)
        return (owner_t){id, "zproxy", true};
    if (sscanf(task->name, "hbr:%d", &id) == 1 && id >= 0 && id < self->pl->n)
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
             who->owner >= 0 ? self->pl->inst[who->owner].name : "controller");
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
                 entry->owner >= 0 ? self->pl->inst[entry->owner].name
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
    for (int i = 0; i < self->pl->n; i++) {
        const stage_shared_t *shared = stage_handle_shared(self->stage[i]);
        for (int r = 0; r < STAGE_MEMORY_REGIONS; r++) {
            if (shared->memory[r].pages == 0)
                continue; //  none (no zerocopy pool)
            memory_row_t *row = &result->memory[result->nmemory++];
            snprintf(row->stage, sizeof row->stage, "%s",
                     self->pl->inst[i].name);
            row->region = stage_memory_names[r];
            row->node = self->pl->inst[i].place.node;
            row->pages = shared->memory[r];
            s_check_region(self, row, r);
        }
    }
}

//  This process's threads, and those of stages in their own process, here
//  or on their host; scanner[t]: the stage whose handle read task t, -1
//  for this process
static int s_scan(trial_t *self, task_t *tasks, int *scanner)
{
    int n = threads_scan(getpid(), tasks, THREADS_MAX);
    for (int t = 0; t < n; t++)
        scanner[t] = -1;
    for (int i = 0; i < self->pl->n && n >= 0; i++) {
        int more =
            stage_handle_threads(self->stage[i], tasks + n, THREADS_MAX - n);
        for (int t = n; t < n + more; t++)
            scanner[t] = i;
        n += more > 0 ? more : 0;
    }
    return n;
}

void trial_read_threads(trial_t *self, bool record)
{
    task_t *tasks = calloc(THREADS_MAX, sizeof *tasks);
    int *scanner = calloc(THREADS_MAX, sizeof *scanner);
    bool *seen = calloc((size_t)self->nroster + 1, sizeof *seen);
    int n = tasks && scanner && seen ? s_scan(self, tasks, scanner) : 0;
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
}

//  ------------------------------------------------------------------------
//  Rows

//  Messages a stage handled in the window: sent by a source, taken in by a
//  proxy or sink
static uint64_t s_handled(trial_t *self, int id)
{
    if (pipeline_is_source(self->pl, id))
        return self->s1.sent[id] - self->s0.sent[id];
    return self->s1.received[id] - self->s0.received[id];
}

//  CPU per message of instances ids[0..n-1]; per connection when 'per'
//  names a connector
static double s_cpu_per_msg(trial_t *self, const int *ids, int n, int per)
{
    uint64_t ns = 0, msgs = 0;
    for (int k = 0; k < n; k++) {
        ns += self->s1.cpu_ns[ids[k]] - self->s0.cpu_ns[ids[k]];
        msgs += s_handled(self, ids[k]);
    }
    if (per >= 0)
        msgs = s_handled(self, per);
    return msgs ? (double)ns / (double)msgs : -1;
}

//  "3", or "2+3": a set's members joined by '+', with "-1" first when
//  some were not pinned ("-1" alone when none was)
static void s_join(const cpuset_t *set, bool unpinned, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s",
                                   unpinned || cpuset_empty(set) ? "-1" : "");
    for (int v = cpuset_next(set, -1); v >= 0 && used < len;
         v = cpuset_next(set, v))
        used += (size_t)snprintf(buf + used, len - used, "%s%d",
                                 used ? "+" : "", v);
}

//  The CPU and node instance i's stage thread ran on, read back; false
//  when it is not pinned or was not found
static bool s_ran_on(trial_t *self, int i, int *cpu, int *node)
{
    pid_t tid = stage_handle_shared(self->stage[i])->tid;
    const char *host = stage_handle_host(self->stage[i]);
    if (cpuset_empty(&self->pl->inst[i].place.cpus))
        return false; //  not pinned: -1, wherever it ran
    for (int t = 0; t < self->result->nthreads; t++) {
        const thread_row_t *row = &self->result->threads[t];
        if (row->tid == tid && streq(row->host, host) && row->last_cpu >= 0) {
            *cpu = row->last_cpu;
            *node = row->node;
            return true;
        }
    }
    return false;
}

//  CPUs and nodes the stage threads of a row ran on, read back: one
//  instance, or every sender of a summed row (pub.*)
static void s_where(trial_t *self, const int *ids, int n, char *cpu,
                    char *node)
{
    cpuset_t cpus, nodes;
    cpuset_clear(&cpus);
    cpuset_clear(&nodes);
    bool unpinned = false;
    for (int k = 0; k < n; k++) {
        int c, d;
        if (!s_ran_on(self, ids[k], &c, &d)) {
            unpinned = true;
            continue;
        }
        cpuset_add(&cpus, c);
        if (d >= 0)
            cpuset_add(&nodes, d);
    }
    s_join(&cpus, unpinned, cpu, RESULTS_WHERE_MAX);
    s_join(&nodes, unpinned, node, RESULTS_WHERE_MAX);
}

//  Loss the sequence numbers prove between the sources and sink 'to', for
//  the origins in 'origins'
static int64_t s_seq_lost(trial_t *self, int to, uint64_t origins)
{
    const pipeline_t *pl = self->pl;
    if (!pipeline_is_sink(pl, to) || pl->params.pattern == PATTERN_CONNECT)
        return -1;
    if (trial_topics_filters(self, to))
        return trial_topics_seq_lost(self, to, origins);
    int64_t lost = 0;
    for (int id = 0; id < pl->n; id++) {
        int o = pl->inst[id].origin;
        if (o < 0 || !(origins >> o & 1))
            continue;
        const origin_t *seen = &stage_handle_shared(self->stage[to])->origins[o];
        //  N sockets: next is the furthest one's, gaps hold the others'
        //  lag (stages/sockets.c)
        lost +=
            (int64_t)(self->last.sent[id] - (seen->next & STAGE_COUNT_MASK)) *

                pipeline_sockets(pl, to) +
            (int64_t)seen->gaps;
    }
    return lost;
}

//  How long the window was for instances ids[0..n-1], between their own
//  two readings (their mean)
static double s_seconds(const trial_t *self, const int *ids, int n)
{
    if (self->pl->params.pattern == PATTERN_REQREP)
        return self->window_seconds; //  the requesters time themselves
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += self->s1.at[ids[k]] - self->s0.at[ids[k]];
    return n ? sum / n : 0;
}

//  Flood: is the hop's rate the one its HWM and libzmq's command batching
//  allow?  Only where the hop dropped: that is what the bound is about.
//  From 25 % below the bound (a shared CPU stretches the pauses between
//  refills: the pause is still what sets the rate) to 10 % above it
static void s_hwm_bound(const trial_t *self, const link_t *link,
                        link_row_t *row)
{
    const pipeline_t *pl = self->pl;
    const params_t *hop = &pl->hops[link->hop].params;
    if (pl->params.pattern != PATTERN_PUBSUB || pl->params.mode != MODE_FLOOD)
        return;
    row->bound_rate =
        results_hwm_bound(hop->transport, hop->hwm, self->spec.tsc_hz);
    double rate = link_rate(row);
    row->hwm_bound = row->bound_rate > 0 && link_lost(row) > 0 &&
                     rate >= 0.75 * row->bound_rate &&
                     rate <= 1.1 * row->bound_rate;
}

//  "tcp", or for a summed row over hops of several kinds "ipc+tcp"
static void s_transport(const trial_t *self, const link_t *link, char *buf)
{
    const pipeline_t *pl = self->pl;
    unsigned kinds = 1u << pl->hops[link->hop].params.transport;
    for (int h = link->from < 0 ? pipeline_hop_in(pl, link->to) : -1; h >= 0;
         h = pipeline_next_hop_in(pl, link->to, h))
        kinds |= 1u << pl->hops[h].params.transport;
    size_t used = 0;
    buf[0] = 0;
    for (int t = 0; params_transport_names[t]; t++)
        if (kinds >> t & 1)
            used += (size_t)snprintf(buf + used, RESULTS_TRANSPORT_MAX - used,
                                     "%s%s", used ? "+" : "",
                                     params_transport_names[t]);
}

//  "h2", or for a summed row whose senders are on several hosts "h2+h3"
//  ("*" when they do not fit); "" for the controller's
static void s_hosts(const trial_t *self, const int *ids, int n, char *buf)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < n; k++) {
        const char *host = pipeline_host(self->pl, ids[k]);
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = strcmp(pipeline_host(self->pl, ids[j]), host) == 0;
        if (seen)
            continue;
        used += (size_t)snprintf(buf + used, RESULTS_NAME_MAX - used, "%s%s",
                                 k ? "+" : "", host);
        if (used >= RESULTS_NAME_MAX) {
            snprintf(buf, RESULTS_NAME_MAX, "*");
            return;
        }
    }
}

//  Where a row's ends are: hosts, CPUs, nodes, CPU per message
static void s_row_places(trial_t *self, const link_t *link, link_row_t *row,
                         bool client)
{
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(self, link, ids);
    s_hosts(self, ids, n, row->from_host);
    snprintf(row->to_host, sizeof row->to_host, "%s",
             pipeline_host(self->pl, link->to));
    s_where(self, ids, n, row->from_cpu, row->from_node);
    s_where(self, &link->to, 1, row->to_cpu, row->to_node);
    row->from_cpu_ns = s_cpu_per_msg(self, ids, n, client ? link->to : -1);
    row->to_cpu_ns = s_cpu_per_msg(self, &link->to, 1, -1);
    row->sent_seconds = client ? row->seconds : s_seconds(self, ids, n);
}

//  What the sources sent in the window, each over its own time
static double s_sources_rate(const trial_t *self)
{
    double sum = 0;
    for (int i = 0; i < self->pl->n; i++) {
        double seconds = s_seconds(self, &i, 1);
        if (pipeline_is_source(self->pl, i) && seconds > 0)
            sum += (double)(self->s1.sent[i] - self->s0.sent[i]) / seconds;
    }
    return sum;
}

void trial_make_rows(trial_t *self)
{
    trial_result_t *result = self->result;
    const pipeline_t *pl = self->pl;
    bool connect = pl->params.pattern == PATTERN_CONNECT;
    result->sources_rate = s_sources_rate(self);
    for (int l = 0; l < self->nlinks; l++) {
        const link_t *link = &self->links[l];
        link_row_t *row = &result->links[result->nlinks++];
        bool client = connect && pipeline_is_sink(pl, link->to);
        row->hop = link->hop + 1;
        trial_link_name(self, link, row->from, row->to);
        s_transport(self, link, row->transport);
        row->from_source = link->from >= 0 && pipeline_is_source(pl, link->from);
        row->to_sink = pipeline_is_sink(pl, link->to);
        row->sent = self->last.link_sent[l];
        row->received = self->last.link_received[l];
        row->seconds = s_seconds(self, &link->to, 1);
        row->window_received =
            self->s1.link_received[l] - self->s0.link_received[l];
        row->window_sent = self->s1.link_sent[l] - self->s0.link_sent[l];
        s_row_places(self, link, row, client);
        trial_topics_row(self, l, row);
        s_hwm_bound(self, link, row);
        row->seq_lost = s_seq_lost(self, link->to, link->origins);
    }
}

int64_t trial_seq_lost(trial_t *self, int sink)
{
    return s_seq_lost(self, sink, s_origins_at(self->pl, sink));
}

//  A filtered link that took more than its subscriptions let through: the
//  topic function and libzmq's filtering disagree
static int s_verify_filtered(trial_t *self, errbuf_t *err)
{
    for (int l = 0; l < self->result->nlinks; l++) {
        const link_row_t *row = &self->result->links[l];
        if (trial_topics_filters(self, self->links[l].to) &&
            row->received > row->expected)
            return err_set(err,
                           "hop %d (%s -> %s) took %llu messages, more than "
                           "the %llu of its subscribed topics that were sent",
                           row->hop, row->from, row->to,
                           (unsigned long long)row->received,
                           (unsigned long long)row->expected);
    }
    return 0;
}

//  Messages of an earlier trial (stages/sequence.h) counted to it; on a
//  pipeline set up for this trial there can be none
static int s_late(trial_t *self, int d, errbuf_t *err)
{
    uint64_t late = stage_handle_shared(self->stage[d])->late;
    self->result->late += late;
    if (late && !self->continuing)
        return err_set(err,
                       "stage %s: %llu messages of another trial on a "
                       "pipeline set up for this one",
                       self->pl->inst[d].name, (unsigned long long)late);
    return 0;
}

//  The hops' counters and the sequence numbers must tell the same loss:
//  for each sink, the links into it and into every proxy upstream of it
//  (its messages' paths: one from each publisher, in a tree); a sink that
//  takes only some topics, what its links and those above lost of them
int trial_verify(trial_t *self, errbuf_t *err)
{
    const pipeline_t *pl = self->pl;
    const trial_result_t *result = self->result;
    if (s_verify_filtered(self, err))
        return -1;
    for (int d = 0; d < pl->n; d++) {
        if (!pipeline_is_sink(pl, d) || pl->params.pattern == PATTERN_CONNECT)
            continue;
        uint64_t misordered = stage_handle_shared(self->stage[d])->misordered;
        if (misordered)
            return err_set(err, "stage %s: %llu messages out of sequence",
                           pl->inst[d].name, (unsigned long long)misordered);
        if (s_late(self, d, err))
            return -1;
        int64_t counted = trial_topics_path_lost(self, d);
        int64_t proven = s_seq_lost(self, d, s_origins_at(pl, d));
        for (int l = 0; l < result->nlinks && !trial_topics_filters(self, d);
             l++) {
            int to = self->links[l].to;
            //  what a proxy above lost, each of d's sockets missed
            if (to == d)
                counted += (int64_t)(result->links[l].sent -
                                     result->links[l].received);
            else if (!pipeline_is_sink(pl, to) && pipeline_reaches(pl, to, d))
                counted += (int64_t)(result->links[l].sent -
                                     result->links[l].received) *
                           pipeline_sockets(pl, d);
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
//  Latency: the sinks' (or requesters') histograms merged as "e2e"; each
//  forwarder's as the hop it ends

//  The histograms of every instance 'take' says yes to, merged as one row
static void s_add_latency(trial_t *self, const char *hop,
                          bool (*take)(const pipeline_t *, int), int stage)
{
    trial_result_t *result = self->result;
    latency_row_t *row = &result->latency[result->nlatency];
    snprintf(row->hop, sizeof row->hop, "%s", hop);
    histogram_reset(&row->histogram);
    for (int i = 0; i < self->pl->n; i++)
        if (take ? take(self->pl, i) : self->pl->inst[i].stage == stage)
            histogram_merge(&row->histogram,
                            &stage_handle_shared(self->stage[i])->latency);
    if (histogram_count(&row->histogram) > 0)
        result->nlatency++;
}

//  Each forwarder's row is named by the first hop it ends
void trial_make_latency(trial_t *self)
{
    const pipeline_t *pl = self->pl;
    bool reqrep = pl->params.pattern == PATTERN_REQREP;
    bool connect = pl->params.pattern == PATTERN_CONNECT;
    if (!reqrep && !connect && !self->spec.timed)
        return;
    for (int s = 0; s < pl->nstages && !reqrep && !connect; s++) {
        int first = pl->first[s];
        if (pl->inst[first].role != ROLE_PROXY ||
            !pipeline_sees_origins(pl, first))
            continue;
        char hop[12]; //  any int: -Wformat-truncation
        snprintf(hop, sizeof hop, "%d", pipeline_hop_in(pl, first) + 1);
        s_add_latency(self, hop, NULL, s);
    }
    s_add_latency(self, "e2e", reqrep ? pipeline_is_source : pipeline_is_sink,
                  -1);
}
