/*  trial_counters: what a trial's counters mean.

    A snapshot reads every counter at one moment: the senders' and receivers'
    relaxed atomics, the proxies' counts, the clock, and each stage's CPU
    time (its thread, plus the libzmq and engine threads charged to it,
    which trial_threads.c finds).  After the drain, the rows are made,
    and the hops' losses are checked against what the sinks' sequence
    numbers prove.  What can be is a function of the pipeline, the links
    (trial_links.c) and the snapshots alone (a link's sent count, a
    window's differences, a path's loss), and the selftest holds it.
*/
#include "trial/trial_state.h"

#include "base/check.h"
#include "base/mono.h"
#include "config/topology.h"
#include "machine/machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

//  What a link was sent by snap: its senders' counts
static uint64_t s_link_sent(const pipeline_t *pl, const link_t *link,
                            const snapshot_t *snap)
{
    //  connect: a client's hop counts the cycles it began
    if (pl->params.pattern == PATTERN_CONNECT && pipeline_is_sink(pl, link->to))
        return snap->sent[link->to];
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(pl, link, ids);
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += snap->sent[ids[i]];
    //  a receiver of N sockets takes N copies of each message
    return sum * (uint64_t)pipeline_sockets(pl, link->to);
}

//  ------------------------------------------------------------------------
//  Snapshots

//  Its thread's and its helpers' CPU time, read where they run
static int s_cpu_ns(trial_t *self, int id, uint64_t *ns, errbuf_t *err)
{
    pid_t tids[THREADS_MAX];
    int n = 0;
    tids[n++] = stage_handle_shared(self->stage[id])->tid;
    for (int i = 0; i < self->nhelpers && n < THREADS_MAX; i++)
        if (self->helper_owner[i] == id)
            tids[n++] = self->helper_tid[i];
    return stage_handle_cpu_ns(self->stage[id], tids, n, ns, err);
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
//  stages' counters are in snap; a CPU time that cannot be read (its
//  host lost) ends the trial as a counter would
int trial_snapshot_finish(trial_t *self, snapshot_t *snap, errbuf_t *err)
{
    for (int i = 0; i < self->pl->n; i++)
        if (s_cpu_ns(self, i, &snap->cpu_ns[i], err))
            return -1;
    for (int l = 0; l < self->nlinks; l++)
        snap->link_sent[l] = s_link_sent(self->pl, &self->links[l], snap);
    return 0;
}

//  Every stage's counters, one after another, each at its own time
int trial_snapshot(trial_t *self, snapshot_t *snap, errbuf_t *err)
{
    for (int i = 0; i < self->pl->n; i++) {
        double width;
        if (trial_read_stage(self, i, snap, &width, err))
            return -1;
    }
    return trial_snapshot_finish(self, snap, err);
}

//  ------------------------------------------------------------------------
//  Rows

//  Messages a stage handled in the window: sent by a source, taken in by a
//  proxy or sink
static uint64_t s_handled(const pipeline_t *pl, const snapshot_t *s0,
                          const snapshot_t *s1, int id)
{
    if (pipeline_is_source(pl, id))
        return s1->sent[id] - s0->sent[id];
    return s1->received[id] - s0->received[id];
}

//  CPU per message of instances ids[0..n-1]; per connection when 'per'
//  names a connector
static double s_cpu_per_msg(const pipeline_t *pl, const snapshot_t *s0,
                            const snapshot_t *s1, const int *ids, int n,
                            int per)
{
    uint64_t ns = 0, msgs = 0;
    for (int k = 0; k < n; k++) {
        ns += s1->cpu_ns[ids[k]] - s0->cpu_ns[ids[k]];
        msgs += s_handled(pl, s0, s1, ids[k]);
    }
    if (per >= 0)
        msgs = s_handled(pl, s0, s1, per);
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

//  What a sink of 'sockets' SUB sockets is proven to have lost of an
//  origin that sent 'sent': N sockets: next is the furthest one's, gaps
//  hold the others' lag (stages/sockets.c)
static int64_t s_origin_lost(uint64_t sent, const origin_t *seen, int sockets)
{
    return (int64_t)(sent - (seen->next & STAGE_COUNT_MASK)) * sockets +
           (int64_t)seen->gaps;
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
        lost +=
            s_origin_lost(self->last.sent[id], seen, pipeline_sockets(pl, to));
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
//  allow?  Told from the mechanism: the sending XPUB dropped at a full
//  pipe (the link lost) while the receiving stage was not the limit (it
//  was busy less than HWM_BUSY of a CPU), up to 10 % above the computed
//  bound: from a tenth of it where the machine starved the row (a shared
//  CPU stretches the pauses between refills, and the pause still sets
//  the rate), from a quarter where it did not.  Far below the bound the
//  bytes or the sender's I/O thread set the rate (64 KiB over tcp runs
//  at a few hundredths of it).  Where the
//  receiving end's CPU time is unknown, from 25 % below the bound
#define HWM_BUSY 0.8
static void s_hwm_bound(const pipeline_t *pl, const link_t *link, double tsc_hz,
                        link_row_t *row)
{
    const params_t *hop = &pl->hops[link->hop].params;
    if (pl->params.pattern != PATTERN_PUBSUB || pl->params.mode != MODE_FLOOD)
        return;
    row->bound_rate = results_hwm_bound(hop->transport, hop->hwm, tsc_hz);
    double rate = link_rate(row);
    if (row->bound_rate <= 0 || link_lost(row) <= 0)
        return;
    bool receiver_idle = row->to_cpu_ns > 0 &&
                         row->to_cpu_ns * rate / 1e9 < HWM_BUSY;
    bool starved = row->starved > 0;
    double low = !receiver_idle ? (row->to_cpu_ns > 0 ? 2 : 0.75)
                 : starved      ? 0.1
                                : 0.25;
    row->hwm_bound = rate >= low * row->bound_rate &&
                     rate <= 1.1 * row->bound_rate;
}

void trial_hwm_rows(trial_t *self)
{
    for (int l = 0; l < self->nlinks; l++)
        s_hwm_bound(self->pl, &self->links[l], self->spec.tsc_hz,
                    &self->result->links[l]);
}

//  "tcp", or for a summed row over hops of several kinds "ipc+tcp"
static void s_transport(const pipeline_t *pl, const link_t *link, char *buf)
{
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
static void s_hosts(const pipeline_t *pl, const int *ids, int n, char *buf)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < n; k++) {
        const char *host = pipeline_host(pl, ids[k]);
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = strcmp(pipeline_host(pl, ids[j]), host) == 0;
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
    int n = trial_link_senders(self->pl, link, ids);
    s_hosts(self->pl, ids, n, row->from_host);
    snprintf(row->to_host, sizeof row->to_host, "%s",
             pipeline_host(self->pl, link->to));
    s_where(self, ids, n, row->from_cpu, row->from_node);
    s_where(self, &link->to, 1, row->to_cpu, row->to_node);
    row->from_cpu_ns = s_cpu_per_msg(self->pl, &self->s0, &self->s1, ids, n,
                                     client ? link->to : -1);
    row->to_cpu_ns =
        s_cpu_per_msg(self->pl, &self->s0, &self->s1, &link->to, 1, -1);
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
    result->norigins = pl->norigins;
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].origin >= 0)
            result->published[pl->inst[i].origin] = self->last.sent[i];
    for (int l = 0; l < self->nlinks; l++) {
        const link_t *link = &self->links[l];
        link_row_t *row = &result->links[result->nlinks++];
        bool client = connect && pipeline_is_sink(pl, link->to);
        row->hop = link->hop + 1;
        trial_link_name(self, link, row->from, row->to);
        s_transport(pl, link, row->transport);
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
        row->seq_lost = s_seq_lost(self, link->to, link->origins);
    }
}

int64_t trial_seq_lost(trial_t *self, int sink)
{
    return s_seq_lost(self, sink, trial_origins_at(self->pl, sink));
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

//  What the rows' counters lose on sink d's paths: the links into it and,
//  each of its sockets missing it, into every proxy upstream of it
static int64_t s_path_lost(const pipeline_t *pl, const link_t *links,
                           const link_row_t *rows, int n, int d)
{
    int64_t lost = 0;
    for (int l = 0; l < n; l++) {
        int to = links[l].to;
        int64_t link = (int64_t)(rows[l].sent - rows[l].received);
        if (to == d)
            lost += link;
        else if (!pipeline_is_sink(pl, to) && pipeline_reaches(pl, to, d))
            lost += link * pipeline_sockets(pl, d);
    }
    return lost;
}

//  A link that took more than it was sent (or, with topics, more than the
//  messages of its topics that were sent) holds a count that cannot be
//  true: two links sharing one socket, or a counter misread.  Never a
//  figure: the run ends here, naming the link and both counts
static int s_verify_possible(trial_t *self, errbuf_t *err)
{
    if (self->pl->params.pattern == PATTERN_CONNECT)
        return 0;
    for (int l = 0; l < self->result->nlinks; l++) {
        const link_row_t *row = &self->result->links[l];
        if (row->received > row->expected)
            return err_set(err,
                           "hop %d (%s -> %s): received %llu, more than the "
                           "%llu it was %s: counts that cannot be true "
                           "(do two links share one endpoint?)",
                           row->hop, row->from, row->to,
                           (unsigned long long)row->received,
                           (unsigned long long)row->expected,
                           row->expected == row->sent ? "sent"
                                                      : "due of its topics");
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
    if (s_verify_possible(self, err) || s_verify_filtered(self, err))
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
        int64_t counted = trial_topics_filters(self, d)
                              ? trial_topics_path_lost(self, d)
                              : s_path_lost(pl, self->links, result->links,
                                            result->nlinks, d);
        int64_t proven = s_seq_lost(self, d, trial_origins_at(pl, d));
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
//  proxy that tells its senders apart (reads every header) as the hop it ends

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

//  Each such proxy's row is named by the first hop it ends
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

//  ------------------------------------------------------------------------
//  Selftest: the counters' arithmetic on pipelines read from text

//  A pipeline from a topology's text, on a two-node machine file
static pipeline_t *s_test_pipeline(const char *text, topology_t **topo,
                                   machine_t **machine)
{
    errbuf_t err;
    *topo = topology_load_text("t.cfg", text, &err);
    *machine = machine_new_file("numa/vm-2x2.cfg", &err);
    if (!*topo || !*machine || topology_validate(*topo, &err))
        return NULL;
    return pipeline_new(*topo, *machine, &err);
}

//  Links of a fan-in into proxy p of 'engine', fanned out to two
//  subscribers (pub.1 pub.2 p sub.1 sub.2: ids 0 .. 4): what each counts
static int s_test_links(const char *engine, int nlinks, link_t *links,
                        snapshot_t *snap)
{
    char text[256];
    snprintf(text, sizeof text,
             "topology = t\npublisher = pub\n    count = 2\nhop\n"
             "proxy = p\n    engine = %s\nhop\nsubscriber = sub\n"
             "    count = 2\n    sockets = 3\n",
             engine);
    topology_t *topo;
    machine_t *machine;
    pipeline_t *pl = s_test_pipeline(text, &topo, &machine);
    CHECK(pl && trial_links_of(pl, links) == nlinks);
    int ids[PIPELINE_MAX_INSTANCES];
    //  the first link: both publishers summed, or pub.1's own
    bool summed = nlinks == 3;
    CHECK(links[0].hop == 0 && links[0].to == 2);
    CHECK(links[0].from == (summed ? -1 : 0));
    CHECK(trial_link_senders(pl, &links[0], ids) == (summed ? 2 : 1));
    CHECK(links[0].origins == (summed ? 3u : 1u));
    //  what a link was sent: its senders' sum, times a sink's sockets
    memset(snap, 0, sizeof *snap);
    snap->sent[0] = 10, snap->sent[1] = 5, snap->sent[2] = 14;
    CHECK(s_link_sent(pl, &links[0], snap) == (summed ? 15u : 10u));
    CHECK(links[nlinks - 1].from == 2 && links[nlinks - 1].to == 4);
    CHECK(s_link_sent(pl, &links[nlinks - 1], snap) == 14 * 3);
    char buf[RESULTS_NAME_MAX];
    s_transport(pl, &links[0], buf);
    CHECK(strcmp(buf, "tcp") == 0);
    s_hosts(pl, ids, 1, buf);
    CHECK(strcmp(buf, "") == 0);
    //  sub.1's paths: its own link and, per socket, the proxy's ins
    link_row_t rows[4] = {{.sent = 15, .received = 12},
                          {.sent = 42, .received = 40},
                          {.sent = 42, .received = 41},
                          {.sent = 5, .received = 5}};
    CHECK(s_path_lost(pl, links, rows, nlinks, 3) ==
          (summed ? 3 * 3 + 2 : 3 * 3 + 2 * 3 + 1));
    pipeline_destroy(&pl);
    machine_destroy(&machine);
    topology_destroy(&topo);
    return 0;
}

int trial_counters_test(bool verbose)
{
    (void)verbose;
    link_t *links = calloc(TRIAL_MAX_LINKS, sizeof *links);
    snapshot_t *snap = calloc(2, sizeof *snap);
    CHECK(links && snap);
    //  steerable cannot tell pub.1 from pub.2: one row for both
    CHECK(s_test_links("steerable", 3, links, snap) == 0);
    //  the forwarder reads every header: a row per publisher
    CHECK(s_test_links("forwarder", 4, links, snap) == 0);

    //  a window's differences: a source's sends, anyone else's takes
    topology_t *topo;
    machine_t *machine;
    pipeline_t *pl = s_test_pipeline("topology = t\npublisher = a\nhop\n"
                                     "subscriber = b\n",
                                     &topo, &machine);
    CHECK(pl && pl->n == 2);
    snap[1].sent[0] = 100, snap[1].received[1] = 90;
    snap[0].sent[0] = 40, snap[0].received[1] = 30;
    snap[1].cpu_ns[0] = 1200, snap[0].cpu_ns[0] = 600;
    CHECK(s_handled(pl, &snap[0], &snap[1], 0) == 60);
    CHECK(s_handled(pl, &snap[0], &snap[1], 1) == 60);
    int ids[] = {0, 1};
    CHECK(s_cpu_per_msg(pl, &snap[0], &snap[1], ids, 1, -1) == 10);
    snap[1].received[1] = 30; //  nothing taken: no figure
    CHECK(s_cpu_per_msg(pl, &snap[0], &snap[1], ids + 1, 1, -1) == -1);
    pipeline_destroy(&pl);
    machine_destroy(&machine);
    topology_destroy(&topo);

    //  a sink of 2 sockets, 3 behind an origin that sent 10, 1 gap
    origin_t seen = {.next = 7, .gaps = 1};
    CHECK(s_origin_lost(10, &seen, 2) == 7);
    //  CPUs and nodes: "-1" first for an unpinned member
    char buf[RESULTS_WHERE_MAX];
    cpuset_t set;
    cpuset_clear(&set);
    s_join(&set, false, buf, sizeof buf);
    CHECK(strcmp(buf, "-1") == 0);
    cpuset_add(&set, 2);
    cpuset_add(&set, 3);
    s_join(&set, false, buf, sizeof buf);
    CHECK(strcmp(buf, "2+3") == 0);
    s_join(&set, true, buf, sizeof buf);
    CHECK(strcmp(buf, "-1+2+3") == 0);
    free(links);
    free(snap);
    return 0;
}
