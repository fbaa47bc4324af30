/*  trial_counters: what a trial's counters mean.

    After the drain, the rows are made from the window (trial_window.h:
    the snapshots trial_edge.c read, the links, the stages' blocks) and
    the threads read back, and the hops' losses are checked against what
    the sinks' sequence numbers prove.  All of it is a function of the
    window, the topics (trial_topics.c) and the result's thread rows: it
    reads no stage and no clock, and the selftest holds it on windows
    made by hand (a link's sent count, a window's differences, a path's
    loss, counts that cannot be true).
*/
#include "trial/trial_counters.h"

#include "base/check.h"
#include "trial/trial_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
static bool s_ran_on(const trial_window_t *w, const trial_result_t *result,
                     int i, int *cpu, int *node)
{
    pid_t tid = w->shared[i]->tid;
    const char *host = pipeline_host(w->pl, i);
    if (cpuset_empty(&w->pl->inst[i].place.cpus))
        return false; //  not pinned: -1, wherever it ran
    for (int t = 0; t < result->nthreads; t++) {
        const thread_row_t *row = &result->threads[t];
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
static void s_where(const trial_window_t *w, const trial_result_t *result,
                    const int *ids, int n, char *cpu, char *node)
{
    cpuset_t cpus, nodes;
    cpuset_clear(&cpus);
    cpuset_clear(&nodes);
    bool unpinned = false;
    for (int k = 0; k < n; k++) {
        int c, d;
        if (!s_ran_on(w, result, ids[k], &c, &d)) {
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
static int64_t s_seq_lost(const trial_window_t *w, trial_topics_t *topics,
                          int to, uint64_t origins)
{
    const pipeline_t *pl = w->pl;
    if (!pipeline_is_sink(pl, to) || pl->params.pattern == PATTERN_CONNECT)
        return -1;
    const origin_t *seen = w->shared[to]->origins;
    if (trial_topics_filters(topics, to))
        return trial_topics_seq_lost(topics, &w->last, to, seen, origins);
    int64_t lost = 0;
    for (int id = 0; id < pl->n; id++) {
        int o = pl->inst[id].origin;
        if (o < 0 || !(origins >> o & 1))
            continue;
        lost +=
            s_origin_lost(w->last.sent[id], &seen[o], pipeline_sockets(pl, to));
    }
    return lost;
}

//  How long the window was for instances ids[0..n-1], between their own
//  two readings (their mean)
static double s_seconds(const trial_window_t *w, const int *ids, int n)
{
    if (w->pl->params.pattern == PATTERN_REQREP)
        return w->seconds; //  the requesters time themselves
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += w->s1.at[ids[k]] - w->s0.at[ids[k]];
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
    bool receiver_idle =
        row->to_cpu_ns > 0 && row->to_cpu_ns * rate / 1e9 < HWM_BUSY;
    bool starved = row->starved > 0;
    double low = !receiver_idle ? (row->to_cpu_ns > 0 ? 2 : 0.75)
                 : starved      ? 0.1
                                : 0.25;
    row->hwm_bound =
        rate >= low * row->bound_rate && rate <= 1.1 * row->bound_rate;
}

void trial_counters_hwm(const trial_window_t *w, double tsc_hz,
                        trial_result_t *result)
{
    for (int l = 0; l < w->nlinks && l < result->nlinks; l++)
        s_hwm_bound(w->pl, &w->links[l], tsc_hz, &result->links[l]);
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
static void s_row_places(const trial_window_t *w, const trial_result_t *result,
                         const link_t *link, link_row_t *row, bool client)
{
    int ids[PIPELINE_MAX_INSTANCES];
    int n = trial_link_senders(w->pl, link, ids);
    s_hosts(w->pl, ids, n, row->from_host);
    snprintf(row->to_host, sizeof row->to_host, "%s",
             pipeline_host(w->pl, link->to));
    s_where(w, result, ids, n, row->from_cpu, row->from_node);
    s_where(w, result, &link->to, 1, row->to_cpu, row->to_node);
    row->from_cpu_ns =
        s_cpu_per_msg(w->pl, &w->s0, &w->s1, ids, n, client ? link->to : -1);
    row->to_cpu_ns = s_cpu_per_msg(w->pl, &w->s0, &w->s1, &link->to, 1, -1);
    row->sent_seconds = client ? row->seconds : s_seconds(w, ids, n);
}

//  What the sources sent in the window, each over its own time
static double s_sources_rate(const trial_window_t *w)
{
    double sum = 0;
    for (int i = 0; i < w->pl->n; i++) {
        double seconds = s_seconds(w, &i, 1);
        if (pipeline_is_source(w->pl, i) && seconds > 0)
            sum += (double)(w->s1.sent[i] - w->s0.sent[i]) / seconds;
    }
    return sum;
}

void trial_counters_rows(const trial_window_t *w, trial_topics_t *topics,
                         trial_result_t *result)
{
    const pipeline_t *pl = w->pl;
    bool connect = pl->params.pattern == PATTERN_CONNECT;
    result->sources_rate = s_sources_rate(w);
    result->norigins = pl->norigins;
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].origin >= 0)
            result->published[pl->inst[i].origin] = w->last.sent[i];
    for (int l = 0; l < w->nlinks; l++) {
        const link_t *link = &w->links[l];
        link_row_t *row = &result->links[result->nlinks++];
        bool client = connect && pipeline_is_sink(pl, link->to);
        row->hop = link->hop + 1;
        trial_link_name(pl, link, row->from, row->to);
        s_transport(pl, link, row->transport);
        row->from_source =
            link->from >= 0 && pipeline_is_source(pl, link->from);
        row->to_sink = pipeline_is_sink(pl, link->to);
        row->sent = w->last.link_sent[l];
        row->received = w->last.link_received[l];
        row->seconds = s_seconds(w, &link->to, 1);
        row->window_received = w->s1.link_received[l] - w->s0.link_received[l];
        row->window_sent = w->s1.link_sent[l] - w->s0.link_sent[l];
        s_row_places(w, result, link, row, client);
        trial_topics_row(topics, &w->last, l, row);
        row->seq_lost = s_seq_lost(w, topics, link->to, link->origins);
    }
}

int64_t trial_counters_seq_lost(const trial_window_t *w, trial_topics_t *topics,
                                int sink)
{
    return s_seq_lost(w, topics, sink, trial_origins_at(w->pl, sink));
}

//  A filtered link that took more than its subscriptions let through: the
//  topic function and libzmq's filtering disagree
static int s_verify_filtered(const trial_window_t *w,
                             const trial_topics_t *topics,
                             const trial_result_t *result, errbuf_t *err)
{
    for (int l = 0; l < result->nlinks; l++) {
        const link_row_t *row = &result->links[l];
        if (trial_topics_filters(topics, w->links[l].to) &&
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
static int s_verify_possible(const trial_window_t *w,
                             const trial_result_t *result, errbuf_t *err)
{
    if (w->pl->params.pattern == PATTERN_CONNECT)
        return 0;
    for (int l = 0; l < result->nlinks; l++) {
        const link_row_t *row = &result->links[l];
        if (row->received > row->expected)
            return err_set(
                err,
                "hop %d (%s -> %s): received %llu, more than the "
                "%llu it was %s: counts that cannot be true "
                "(do two links share one endpoint?)",
                row->hop, row->from, row->to, (unsigned long long)row->received,
                (unsigned long long)row->expected,
                row->expected == row->sent ? "sent" : "due of its topics");
    }
    return 0;
}

//  Messages of an earlier trial (stages/sequence.h) counted to it; on a
//  pipeline set up for this trial there can be none
static int s_late(const trial_window_t *w, int d, bool continuing,
                  trial_result_t *result, errbuf_t *err)
{
    uint64_t late = w->shared[d]->late;
    result->late += late;
    if (late && !continuing) {
        err_set(err,
                "%llu messages of another trial on a pipeline set up for "
                "this one",
                (unsigned long long)late);
        return err_stage(err, w->pl->inst[d].name);
    }
    return 0;
}

//  The hops' counters and the sequence numbers must tell the same loss:
//  for each sink, the links into it and into every proxy upstream of it
//  (its messages' paths: one from each publisher, in a tree); a sink that
//  takes only some topics, what its links and those above lost of them
int trial_counters_verify(const trial_window_t *w, trial_topics_t *topics,
                          bool continuing, trial_result_t *result,
                          errbuf_t *err)
{
    const pipeline_t *pl = w->pl;
    if (s_verify_possible(w, result, err) ||
        s_verify_filtered(w, topics, result, err))
        return -1;
    for (int d = 0; d < pl->n; d++) {
        if (!pipeline_is_sink(pl, d) || pl->params.pattern == PATTERN_CONNECT)
            continue;
        uint64_t misordered = w->shared[d]->misordered;
        if (misordered) {
            err_set(err, "%llu messages out of sequence",
                    (unsigned long long)misordered);
            return err_stage(err, pl->inst[d].name);
        }
        if (s_late(w, d, continuing, result, err))
            return -1;
        int64_t counted =
            trial_topics_filters(topics, d)
                ? trial_topics_path_lost(topics, &w->last, d)
                : s_path_lost(pl, w->links, result->links, result->nlinks, d);
        int64_t proven = s_seq_lost(w, topics, d, trial_origins_at(pl, d));
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
static void s_add_latency(const trial_window_t *w, trial_result_t *result,
                          const char *hop,
                          bool (*take)(const pipeline_t *, int), int stage)
{
    latency_row_t *row = &result->latency[result->nlatency];
    snprintf(row->hop, sizeof row->hop, "%s", hop);
    histogram_reset(&row->histogram);
    for (int i = 0; i < w->pl->n; i++)
        if (take ? take(w->pl, i) : w->pl->inst[i].stage == stage)
            histogram_merge(&row->histogram, &w->shared[i]->latency);
    if (histogram_count(&row->histogram) > 0)
        result->nlatency++;
}

//  Each such proxy's row is named by the first hop it ends
void trial_counters_latency(const trial_window_t *w, bool timed,
                            trial_result_t *result)
{
    const pipeline_t *pl = w->pl;
    bool reqrep = pl->params.pattern == PATTERN_REQREP;
    bool connect = pl->params.pattern == PATTERN_CONNECT;
    if (!reqrep && !connect && !timed)
        return;
    for (int s = 0; s < pl->nstages && !reqrep && !connect; s++) {
        int first = pl->first[s];
        if (pl->inst[first].role != ROLE_PROXY ||
            !pipeline_sees_origins(pl, first))
            continue;
        char hop[12]; //  any int: -Wformat-truncation
        snprintf(hop, sizeof hop, "%d", pipeline_hop_in(pl, first) + 1);
        s_add_latency(w, result, hop, NULL, s);
    }
    s_add_latency(w, result, "e2e",
                  reqrep ? pipeline_is_source : pipeline_is_sink, -1);
}

//  ------------------------------------------------------------------------
//  Selftest: the counters' arithmetic on windows made by hand

//  Links of a fan-in into proxy p of 'engine', fanned out to two
//  subscribers (pub.1 pub.2 p sub.1 sub.2: ids 0 .. 4): what each counts
static int s_test_links(const char *engine, int nlinks)
{
    char text[256];
    snprintf(text, sizeof text,
             "topology = t\npublisher = pub\n    count = 2\nhop\n"
             "proxy = p\n    engine = %s\nhop\nsubscriber = sub\n"
             "    count = 2\n    sockets = 3\n",
             engine);
    trial_fixture_t f;
    CHECK(trial_fixture_new(&f, text) == 0 && f.w->nlinks == nlinks);
    const pipeline_t *pl = f.pl;
    const link_t *links = f.w->links;
    snapshot_t *snap = &f.w->last;
    int ids[PIPELINE_MAX_INSTANCES];
    //  the first link: both publishers summed, or pub.1's own
    bool summed = nlinks == 3;
    CHECK(links[0].hop == 0 && links[0].to == 2);
    CHECK(links[0].from == (summed ? -1 : 0));
    CHECK(trial_link_senders(pl, &links[0], ids) == (summed ? 2 : 1));
    CHECK(links[0].origins == (summed ? 3u : 1u));
    char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
    trial_link_name(pl, &links[0], from, to);
    CHECK(strcmp(from, summed ? "pub.*" : "pub.1") == 0 &&
          strcmp(to, "p") == 0);
    //  what a link was sent: its senders' sum, times a sink's sockets
    snap->sent[0] = 10, snap->sent[1] = 5, snap->sent[2] = 14;
    CHECK(trial_link_sent(pl, &links[0], snap) == (summed ? 15u : 10u));
    CHECK(links[nlinks - 1].from == 2 && links[nlinks - 1].to == 4);
    CHECK(trial_link_sent(pl, &links[nlinks - 1], snap) == 14 * 3);
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
    trial_fixture_destroy(&f);
    return 0;
}

//  pub -> p -> sub (ids 0, 1, 2), pub pinned to CPU 1: a window of 2 s in
//  which 2000 messages crossed each link, and after the drain pub had
//  sent 2200, of which sub took 2190 (its sequence numbers: 10 gaps)
static void s_test_window(trial_fixture_t *f)
{
    trial_window_t *w = f->w;
    const uint64_t s0[] = {100, 90, 80}, s1[] = {2100, 2090, 2080};
    const uint64_t last[] = {2200, 2200, 2190};
    for (int i = 0; i < 3; i++) {
        w->s0.at[i] = 1, w->s1.at[i] = 3;
        w->s0.sent[i] = i < 2 ? s0[i] : 0, w->s0.received[i] = s0[i];
        w->s1.sent[i] = i < 2 ? s1[i] : 0, w->s1.received[i] = s1[i];
        w->last.sent[i] = i < 2 ? last[i] : 0, w->last.received[i] = last[i];
        w->s1.cpu_ns[i] = 2000 * 300;
    }
    for (int l = 0; l < 2; l++) {
        w->s0.link_sent[l] = s0[l], w->s0.link_received[l] = s0[l + 1];
        w->s1.link_sent[l] = s1[l], w->s1.link_received[l] = s1[l + 1];
        w->last.link_sent[l] = last[l];
        w->last.link_received[l] = last[l + 1];
    }
    w->s0.t = 1, w->s1.t = 3, w->seconds = 2;
    f->shared[0]->tid = 42;
    f->shared[2]->origins[0] = (origin_t){.next = 2200, .gaps = 10};
    f->shared[2]->misordered = f->shared[2]->late = 0;
}

//  The rows made anew from f's window
static int s_test_rows(trial_fixture_t *f, trial_result_t *result)
{
    result->nlinks = 0;
    result->links = f->rows;
    trial_counters_rows(f->w, NULL, result);
    return result->nlinks;
}

static int s_test_verify(void)
{
    trial_fixture_t f;
    CHECK(trial_fixture_new(&f, "topology = t\npublisher = pub\n"
                                "    cpus = 1\nhop\nproxy = p\nhop\n"
                                "subscriber = sub\n") == 0);
    thread_row_t thread = {.tid = 42, .last_cpu = 1, .node = 0};
    trial_result_t result = {.threads = &thread, .nthreads = 1};
    s_test_window(&f);
    CHECK(s_test_rows(&f, &result) == 2);
    const link_row_t *row = f.rows;
    CHECK(row[0].hop == 1 && strcmp(row[0].from, "pub") == 0 &&
          strcmp(row[0].to, "p") == 0 && row[0].from_source);
    CHECK(row[1].hop == 2 && row[1].to_sink && !row[1].from_source);
    CHECK(row[0].sent == 2200 && row[0].received == 2200);
    CHECK(row[1].expected == 2200 && link_lost(&row[1]) == 10);
    CHECK(row[1].window_received == 2000 && row[1].seconds == 2);
    CHECK(link_rate(&row[1]) == 1000 && row[0].selectivity == 1);
    CHECK(row[0].seq_lost == -1 && row[1].seq_lost == 10);
    CHECK(strcmp(row[0].from_cpu, "1") == 0 &&
          strcmp(row[0].from_node, "0") == 0);
    CHECK(strcmp(row[0].to_cpu, "-1") == 0 && row[0].to_cpu_ns == 300);
    CHECK(result.sources_rate == 1000 && result.published[0] == 2200);
    CHECK(trial_counters_seq_lost(f.w, NULL, 2) == 10);
    errbuf_t err;
    CHECK(trial_counters_verify(f.w, NULL, false, &result, &err) == 0);
    //  what the sequence numbers prove must be what the counters lose
    f.shared[2]->origins[0].gaps = 9;
    CHECK(trial_counters_verify(f.w, NULL, false, &result, &err) == -1);
    CHECK(strcmp(err.msg, "loss accounting: the hops' counters lose 10 "
                          "messages on the way to sub, its sequence "
                          "numbers prove 9") == 0);
    //  a link that took more than it was sent: never a figure
    s_test_window(&f);
    f.w->last.link_received[1] = 2201;
    s_test_rows(&f, &result);
    CHECK(trial_counters_verify(f.w, NULL, false, &result, &err) == -1);
    CHECK(strstr(err.msg, "hop 2 (p -> sub): received 2201, more than the "
                          "2200 it was sent: counts that cannot be true"));
    s_test_window(&f);
    s_test_rows(&f, &result);
    f.shared[2]->misordered = 3;
    CHECK(trial_counters_verify(f.w, NULL, false, &result, &err) == -1);
    CHECK(strcmp(err.msg, "stage sub: 3 messages out of sequence") == 0);
    //  another trial's messages: an error on a pipeline set up for this
    //  trial, counted on one that stayed up
    f.shared[2]->misordered = 0, f.shared[2]->late = 2;
    CHECK(trial_counters_verify(f.w, NULL, false, &result, &err) == -1);
    CHECK(strstr(err.msg, "stage sub: 2 messages of another trial"));
    result.late = 0;
    CHECK(trial_counters_verify(f.w, NULL, true, &result, &err) == 0);
    CHECK(result.late == 2);
    //  latency: the sinks' histograms as e2e, when messages are timed
    latency_row_t latency[3];
    result.latency = latency;
    histogram_reset(&f.shared[2]->latency);
    histogram_record(&f.shared[2]->latency, 5000);
    trial_counters_latency(f.w, false, &result);
    CHECK(result.nlatency == 0);
    trial_counters_latency(f.w, true, &result);
    CHECK(result.nlatency == 1 && strcmp(latency[0].hop, "e2e") == 0 &&
          histogram_count(&latency[0].histogram) == 1);
    trial_fixture_destroy(&f);
    return 0;
}

int trial_counters_test(bool verbose)
{
    (void)verbose;
    //  steerable cannot tell pub.1 from pub.2: one row for both
    CHECK(s_test_links("steerable", 3) == 0);
    //  the forwarder reads every header: a row per publisher
    CHECK(s_test_links("forwarder", 4) == 0);
    CHECK(s_test_verify() == 0);

    //  a window's differences: a source's sends, anyone else's takes
    trial_fixture_t f;
    CHECK(trial_fixture_new(&f, "topology = t\npublisher = a\nhop\n"
                                "subscriber = b\n") == 0);
    const pipeline_t *pl = f.pl;
    snapshot_t *a = &f.w->s0, *b = &f.w->s1;
    CHECK(pl->n == 2);
    b->sent[0] = 100, b->received[1] = 90;
    a->sent[0] = 40, a->received[1] = 30;
    b->cpu_ns[0] = 1200, a->cpu_ns[0] = 600;
    CHECK(s_handled(pl, a, b, 0) == 60);
    CHECK(s_handled(pl, a, b, 1) == 60);
    int ids[] = {0, 1};
    CHECK(s_cpu_per_msg(pl, a, b, ids, 1, -1) == 10);
    b->received[1] = 30; //  nothing taken: no figure
    CHECK(s_cpu_per_msg(pl, a, b, ids + 1, 1, -1) == -1);
    trial_fixture_destroy(&f);

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
    return 0;
}
