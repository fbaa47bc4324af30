/*  wire: frames about a stage, both ways (see wire.h).

    Every taker is strict about what it needs and lenient about what it
    does not: a missing frame reads as 0 or "", a malformed histogram is
    refused whole.  Nothing here trusts a count it is sent to size memory.
*/
#include "crew/wire.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

int wire_protocol(void)
{
    const char *fake = getenv("HOPBENCH_TEST_PROTOCOL");
    return fake && *fake ? atoi(fake) : WIRE_PROTOCOL;
}

long long wire_pop_ll(zmsg_t *msg)
{
    char *text = zmsg_popstr(msg);
    long long value = text ? strtoll(text, NULL, 10) : 0;
    zstr_free(&text);
    return value;
}

double wire_pop_double(zmsg_t *msg)
{
    char *text = zmsg_popstr(msg);
    double value = text ? strtod(text, NULL) : 0;
    zstr_free(&text);
    return value;
}

void wire_pop_text(zmsg_t *msg, char *buf, size_t len)
{
    char *text = zmsg_popstr(msg);
    snprintf(buf, len, "%s", text ? text : "");
    zstr_free(&text);
}

//  ------------------------------------------------------------------------
//  A trial's hops

void wire_add_hops(zmsg_t *msg, const pipeline_t *pl, int id)
{
    for (int h = 0; h < pl->nhops; h++) {
        const hop_plan_t *hop = &pl->hops[h];
        if (hop->up != pl->inst[id].stage && hop->down != pl->inst[id].stage)
            continue;
        zmsg_addstrf(msg, "%d", h);
        zmsg_addstrf(msg, "%d", hop->nendpoints);
        for (int e = 0; e < hop->nendpoints; e++)
            zmsg_addstr(msg, hop->endpoint[e]);
        //  the run's CURVE keys too: the other end's pipeline made others
        zmsg_addstr(msg, hop->server_public);
        zmsg_addstr(msg, hop->server_secret);
        zmsg_addstr(msg, hop->client_public);
        zmsg_addstr(msg, hop->client_secret);
    }
}

void wire_take_hops(zmsg_t *msg, pipeline_t *pl)
{
    while (zmsg_size(msg) >= 2) {
        int hop = (int)wire_pop_ll(msg), count = (int)wire_pop_ll(msg);
        bool valid = hop >= 0 && hop < pl->nhops && count >= 0 &&
                     count <= PIPELINE_MAX_BINDERS;
        hop_plan_t scratch, *plan = valid ? &pl->hops[hop] : &scratch;
        plan->nendpoints = valid ? count : 0;
        for (int e = 0; e < count; e++) {
            char ep[PIPELINE_ENDPOINT_MAX];
            wire_pop_text(msg, ep, sizeof ep);
            if (valid)
                memcpy(plan->endpoint[e], ep, sizeof ep);
        }
        wire_pop_text(msg, plan->server_public, sizeof plan->server_public);
        wire_pop_text(msg, plan->server_secret, sizeof plan->server_secret);
        wire_pop_text(msg, plan->client_public, sizeof plan->client_public);
        wire_pop_text(msg, plan->client_secret, sizeof plan->client_secret);
    }
}

//  ------------------------------------------------------------------------
//  The histogram: five header words (count, min, max, sum low, sum high),
//  then (index, count) for every bucket that has samples

static void s_put(byte *at, uint64_t value)
{
    for (int i = 0; i < 8; i++)
        at[i] = (byte)(value >> (8 * i));
}

static uint64_t s_get(const byte *at)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value |= (uint64_t)at[i] << (8 * i);
    return value;
}

void wire_add_histogram(zmsg_t *msg, const histogram_t *h)
{
    size_t used = 0;
    for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++)
        used += h->counts[i] != 0;
    size_t size = 8 * (5 + 2 * used);
    byte *data = malloc(size), *at = data;
    if (!data) {
        zmsg_addmem(msg, NULL, 0);
        return;
    }
    uint64_t words[5] = {h->count, h->min, h->max, (uint64_t)h->sum,
                         (uint64_t)(h->sum >> 64)};
    for (int w = 0; w < 5; w++, at += 8)
        s_put(at, words[w]);
    for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++)
        if (h->counts[i]) {
            s_put(at, i), s_put(at + 8, h->counts[i]);
            at += 16;
        }
    zmsg_addmem(msg, data, size);
    free(data);
}

int wire_take_histogram(zmsg_t *msg, histogram_t *h)
{
    zframe_t *frame = zmsg_pop(msg);
    size_t size = frame ? zframe_size(frame) : 0;
    const byte *at = frame ? zframe_data(frame) : NULL;
    int rc = -1;
    histogram_reset(h);
    if (size >= 40 && (size - 40) % 16 == 0) {
        h->count = s_get(at), h->min = s_get(at + 8), h->max = s_get(at + 16);
        h->sum = (unsigned __int128)s_get(at + 32) << 64 | s_get(at + 24);
        rc = 0;
        for (size_t off = 40; off < size && rc == 0; off += 16) {
            uint64_t index = s_get(at + off);
            if (index >= HISTOGRAM_BUCKETS)
                rc = -1;
            else
                h->counts[index] = s_get(at + off + 8);
        }
    }
    if (rc)
        histogram_reset(h);
    zframe_destroy(&frame);
    return rc;
}

//  ------------------------------------------------------------------------
//  The shared block, after a trial

void wire_add_shared(zmsg_t *msg, const stage_shared_t *shared, int norigins)
{
    zmsg_addstrf(msg, "%d", (int)shared->tid);
    zmsg_addstrf(msg, "%llu", (unsigned long long)shared->misordered);
    zmsg_addstrf(msg, "%llu", (unsigned long long)shared->late);
    zmsg_addstrf(msg, "%d", shared->mem_node);
    zmsg_addstrf(msg, "%llu", (unsigned long long)shared->window_start_ns);
    zmsg_addstrf(msg, "%llu", (unsigned long long)shared->window_end_ns);
    zmsg_addstr(msg, shared->pin_error.msg);
    zmsg_addstrf(msg, "%d", norigins);
    for (int o = 0; o < norigins; o++) {
        const origin_t *origin = &shared->origins[o];
        zmsg_addstrf(msg, "%llu %llu %llu", (unsigned long long)origin->next,
                     (unsigned long long)origin->gaps,
                     (unsigned long long)atomic_load(&origin->received));
    }
    wire_add_histogram(msg, &shared->latency);
    wire_add_sockets(msg, shared, true);
}

int wire_take_shared(zmsg_t *msg, stage_shared_t *shared, int norigins)
{
    shared->tid = (pid_t)wire_pop_ll(msg);
    shared->misordered = (uint64_t)wire_pop_ll(msg);
    shared->late = (uint64_t)wire_pop_ll(msg);
    shared->mem_node = (int)wire_pop_ll(msg);
    shared->window_start_ns = (uint64_t)wire_pop_ll(msg);
    shared->window_end_ns = (uint64_t)wire_pop_ll(msg);
    wire_pop_text(msg, shared->pin_error.msg, sizeof shared->pin_error.msg);
    if (wire_pop_ll(msg) != norigins)
        return -1;
    for (int o = 0; o < norigins; o++) {
        char text[80];
        unsigned long long next, gaps, received;
        wire_pop_text(msg, text, sizeof text);
        if (sscanf(text, "%llu %llu %llu", &next, &gaps, &received) != 3)
            return -1;
        shared->origins[o].next = next;
        shared->origins[o].gaps = gaps;
        atomic_store(&shared->origins[o].received, received);
    }
    return wire_take_histogram(msg, &shared->latency) ||
                   wire_take_sockets(msg, shared, true)
               ? -1
               : 0;
}

void wire_add_sockets(zmsg_t *msg, const stage_shared_t *shared, bool behind)
{
    int n = shared->nsockets > 1 ? shared->nsockets : 0, words = behind ? 2 : 1;
    size_t size = 8 * (size_t)words * (size_t)n;
    byte *data = size ? malloc(size) : NULL;
    if (!data) {
        zmsg_addmem(msg, NULL, 0);
        return;
    }
    for (int s = 0; s < n; s++) {
        byte *at = data + 8 * (size_t)words * (size_t)s;
        s_put(at, atomic_load(&shared->sockets[s].received));
        if (behind)
            s_put(at + 8, shared->sockets[s].behind);
    }
    zmsg_addmem(msg, data, size);
    free(data);
}

int wire_take_sockets(zmsg_t *msg, stage_shared_t *shared, bool behind)
{
    zframe_t *frame = zmsg_pop(msg);
    size_t size = frame ? zframe_size(frame) : 0, words = behind ? 2 : 1;
    const byte *at = frame ? zframe_data(frame) : NULL;
    int n = shared->nsockets > 1 ? shared->nsockets : 0;
    int rc = frame && size == 8 * words * (size_t)n ? 0 : -1;
    for (int s = 0; s < n && rc == 0; s++, at += 8 * words) {
        atomic_store(&shared->sockets[s].received, s_get(at));
        if (behind)
            shared->sockets[s].behind = s_get(at + 8);
    }
    zframe_destroy(&frame);
    return rc;
}

//  ------------------------------------------------------------------------
//  Threads

void wire_add_tasks(zmsg_t *msg, const task_t *tasks, int n)
{
    for (int t = 0; t < n; t++) {
        zmsg_addstrf(msg, "%d", (int)tasks[t].pid);
        zmsg_addstrf(msg, "%d", (int)tasks[t].tid);
        zmsg_addstr(msg, tasks[t].name);
        zmsg_addstr(msg, tasks[t].allowed);
        zmsg_addstrf(msg, "%d", tasks[t].last_cpu);
    }
}

int wire_take_tasks(zmsg_t *msg, task_t *tasks, int max)
{
    int n = 0;
    while (zmsg_size(msg) >= 5 && n < max) {
        task_t *task = &tasks[n++];
        task->pid = (pid_t)wire_pop_ll(msg);
        task->tid = (pid_t)wire_pop_ll(msg);
        wire_pop_text(msg, task->name, sizeof task->name);
        wire_pop_text(msg, task->allowed, sizeof task->allowed);
        task->last_cpu = (int)wire_pop_ll(msg);
    }
    return n;
}

//  ------------------------------------------------------------------------
//  Run-queue waits: one frame "steal ticks" (the host's /proc/stat), then
//  one "wait_ns preempted" per thread asked of, in its order

void wire_add_waits(zmsg_t *msg, int64_t steal, int64_t ticks,
                    const threads_wait_t *waits, int n)
{
    zmsg_addstrf(msg, "%lld %lld", (long long)steal, (long long)ticks);
    for (int t = 0; t < n; t++)
        zmsg_addstrf(msg, "%lld %lld", (long long)waits[t].wait_ns,
                     (long long)waits[t].preempted);
}

//  Two numbers of one frame, "A B", or -1
static int s_pair(zmsg_t *msg, int64_t *a, int64_t *b)
{
    char *text = zmsg_popstr(msg), *mid = text, *end = text;
    if (text) {
        *a = strtoll(text, &mid, 10);
        *b = mid != text && *mid == ' ' ? strtoll(mid + 1, &end, 10) : 0;
    }
    int rc = text && end != text && end != mid + 1 && *end == 0 ? 0 : -1;
    zstr_free(&text);
    return rc;
}

int wire_take_waits(zmsg_t *msg, int64_t *steal, int64_t *ticks,
                    threads_wait_t *waits, int n)
{
    if (zmsg_size(msg) != (size_t)n + 1 || s_pair(msg, steal, ticks))
        return -1;
    for (int t = 0; t < n; t++)
        if (s_pair(msg, &waits[t].wait_ns, &waits[t].preempted))
            return -1;
    return 0;
}

//  ------------------------------------------------------------------------
//  Traced threads (--profile syscalls): per thread one frame "tid utime
//  stime lost ncalls", then ncalls frames "name calls total_ns"

void wire_add_syscalls(zmsg_t *msg, const syscalls_thread_t *threads, int n)
{
    for (int t = 0; t < n; t++) {
        const syscalls_thread_t *th = &threads[t];
        zmsg_addstrf(msg, "%d %llu %llu %llu %d", (int)th->tid,
                     (unsigned long long)th->utime_ns,
                     (unsigned long long)th->stime_ns,
                     (unsigned long long)th->lost, th->ncalls);
        for (int c = 0; c < th->ncalls; c++)
            zmsg_addstrf(msg, "%s %llu %llu", th->calls[c].name,
                         (unsigned long long)th->calls[c].calls,
                         (unsigned long long)th->calls[c].total_ns);
    }
}

//  One thread's frames into th (its calls allocated); -1 if malformed
static int s_take_thread(zmsg_t *msg, syscalls_thread_t *th)
{
    char text[160];
    int tid, ncalls;
    unsigned long long u, s, lost;
    *th = (syscalls_thread_t){0};
    wire_pop_text(msg, text, sizeof text);
    if (sscanf(text, "%d %llu %llu %llu %d", &tid, &u, &s, &lost, &ncalls) !=
            5 ||
        ncalls < 0 || ncalls > SYSCALLS_NR_MAX + 1 ||
        (size_t)ncalls > zmsg_size(msg))
        return -1;
    *th = (syscalls_thread_t){.tid = tid, .utime_ns = u, .stime_ns = s,
                              .lost = lost};
    th->calls = calloc((size_t)ncalls + 1, sizeof *th->calls);
    if (!th->calls)
        return -1;
    for (; th->ncalls < ncalls; th->ncalls++) {
        syscall_count_t *call = &th->calls[th->ncalls];
        unsigned long long calls, ns;
        wire_pop_text(msg, text, sizeof text);
        if (sscanf(text, "%31s %llu %llu", call->name, &calls, &ns) != 3)
            return -1;
        call->calls = calls, call->total_ns = ns;
    }
    return 0;
}

int wire_take_syscalls(zmsg_t *msg, syscalls_thread_t *threads, int max)
{
    int n = 0;
    while (zmsg_size(msg) > 0 && n < max) {
        if (s_take_thread(msg, &threads[n])) {
            for (int t = 0; t <= n; t++)
                syscalls_thread_free(&threads[t]);
            return -1;
        }
        n++;
    }
    return n;
}

//  ------------------------------------------------------------------------
//  Selftest: what one end adds, the other takes

static int s_test_shared(void)
{
    stage_shared_t *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    CHECK(a && b);
    stage_reset(a, &(stage_trial_t){64, 0, true, 0});
    a->tid = 4242, a->misordered = 3, a->late = 5, a->mem_node = 1;
    a->window_start_ns = 10, a->window_end_ns = 20000000000ULL;
    snprintf(a->pin_error.msg, sizeof a->pin_error.msg, "no CPU 9");
    a->origins[1].next = 77, a->origins[1].gaps = 2;
    atomic_store(&a->origins[1].received, 75);
    for (uint64_t v = 1; v < 5000000; v *= 3)
        histogram_record(&a->latency, v);
    zmsg_t *msg = zmsg_new();
    wire_add_shared(msg, a, 2);
    CHECK(wire_take_shared(msg, b, 2) == 0 && zmsg_size(msg) == 0);
    CHECK(b->tid == 4242 && b->misordered == 3 && b->mem_node == 1);
    CHECK(b->late == 5); //  another trial's messages travel too
    CHECK(b->window_end_ns == 20000000000ULL && b->window_start_ns == 10);
    CHECK(streq(b->pin_error.msg, "no CPU 9"));
    CHECK(b->origins[1].next == 77 && b->origins[1].gaps == 2);
    CHECK(atomic_load(&b->origins[1].received) == 75);
    CHECK(memcmp(&a->latency, &b->latency, sizeof a->latency) == 0);
    wire_add_shared(msg, a, 2);
    CHECK(wire_take_shared(msg, b, 3) == -1); //  not the origins it wants
    zmsg_destroy(&msg);
    msg = zmsg_new();
    zmsg_addmem(msg, "short", 5);
    CHECK(wire_take_histogram(msg, &b->latency) == -1);
    CHECK(histogram_count(&b->latency) == 0);
    zmsg_destroy(&msg);
    free(a);
    free(b);
    return 0;
}

//  A subscriber of three sockets: its counts at the edges, and with what
//  each is behind after the trial; a block of another number refuses them
static int s_test_sockets(void)
{
    stage_shared_t *a = calloc(1, stage_shared_bytes(3)),
                   *b = calloc(1, stage_shared_bytes(3)),
                   *c = calloc(1, stage_shared_bytes(2));
    CHECK(a && b && c);
    a->nsockets = b->nsockets = 3, c->nsockets = 2;
    for (int s = 0; s < 3; s++) {
        atomic_store(&a->sockets[s].received, 1000 + (uint64_t)s);
        a->sockets[s].behind = 7 * (uint64_t)s;
    }
    zmsg_t *msg = zmsg_new();
    wire_add_sockets(msg, a, false);
    CHECK(wire_take_sockets(msg, b, false) == 0 && zmsg_size(msg) == 0);
    CHECK(atomic_load(&b->sockets[2].received) == 1002 && b->sockets[2].behind == 0);
    wire_add_shared(msg, a, 1);
    CHECK(wire_take_shared(msg, b, 1) == 0 && zmsg_size(msg) == 0);
    CHECK(b->sockets[2].behind == 14 && atomic_load(&b->sockets[0].received) == 1000);
    wire_add_sockets(msg, a, true);
    CHECK(wire_take_sockets(msg, c, true) == -1); //  two sockets, not three
    stage_shared_t one = {0};
    wire_add_sockets(msg, &one, true); //  a stage of one socket: empty
    CHECK(zframe_size(zmsg_first(msg)) == 0 && wire_take_sockets(msg, &one, true) == 0);
    zmsg_destroy(&msg);
    free(a);
    free(b);
    free(c);
    return 0;
}

static int s_test_syscalls(void)
{
    syscall_count_t calls[2] = {{"sendto", 10, 5000}, {"epoll_wait", 3, 9}};
    syscalls_thread_t a[2] = {{.tid = 7, .utime_ns = 10000000,
                               .stime_ns = 20000000, .lost = 1, .ncalls = 2,
                               .calls = calls},
                              {.tid = 8}},
                      b[3];
    zmsg_t *msg = zmsg_new();
    wire_add_syscalls(msg, a, 2);
    CHECK(wire_take_syscalls(msg, b, 3) == 2 && zmsg_size(msg) == 0);
    CHECK(b[0].tid == 7 && b[0].stime_ns == 20000000 && b[0].lost == 1);
    CHECK(b[0].ncalls == 2 && streq(b[0].calls[1].name, "epoll_wait"));
    CHECK(b[0].calls[0].calls == 10 && b[0].calls[0].total_ns == 5000);
    CHECK(b[1].tid == 8 && b[1].ncalls == 0);
    for (int t = 0; t < 2; t++)
        syscalls_thread_free(&b[t]);
    zmsg_addstr(msg, "7 1 2 0 5"); //  five calls promised, none sent
    CHECK(wire_take_syscalls(msg, b, 3) == -1);
    zmsg_destroy(&msg);
    return 0;
}

static int s_test_waits(void)
{
    threads_wait_t a[2] = {{123456789, 3}, {-1, -1}}, b[2];
    int64_t steal, ticks;
    zmsg_t *msg = zmsg_new();
    wire_add_waits(msg, 7, 90000, a, 2);
    CHECK(wire_take_waits(msg, &steal, &ticks, b, 2) == 0);
    CHECK(steal == 7 && ticks == 90000 && zmsg_size(msg) == 0);
    CHECK(b[0].wait_ns == 123456789 && b[0].preempted == 3);
    CHECK(b[1].wait_ns == -1 && b[1].preempted == -1);
    wire_add_waits(msg, 7, 90000, a, 2); //  one thread more asked of
    CHECK(wire_take_waits(msg, &steal, &ticks, b, 3) == -1);
    zmsg_destroy(&msg);
    msg = zmsg_new();
    wire_add_waits(msg, 7, 90000, a, 2); //  ...or one fewer
    CHECK(wire_take_waits(msg, &steal, &ticks, b, 1) == -1);
    zmsg_destroy(&msg);
    msg = zmsg_new();
    zmsg_addstr(msg, "7 9");
    zmsg_addstr(msg, "12"); //  a wait without its preemptions
    CHECK(wire_take_waits(msg, &steal, &ticks, b, 1) == -1);
    zmsg_destroy(&msg);
    return 0;
}

int wire_test(bool verbose)
{
    (void)verbose;
    task_t tasks[2] = {{.pid = 10, .tid = 11, .name = "ZMQbg/IO/0",
                        .allowed = "0-3", .last_cpu = 2},
                       {.pid = 10, .tid = 12, .name = "a b", .allowed = "1",
                        .last_cpu = 1}};
    task_t back[4];
    zmsg_t *msg = zmsg_new();
    wire_add_tasks(msg, tasks, 2);
    CHECK(wire_take_tasks(msg, back, 4) == 2);
    CHECK(back[1].tid == 12 && back[1].pid == 10 && streq(back[1].name, "a b"));
    CHECK(streq(back[0].allowed, "0-3") && back[0].last_cpu == 2);
    zmsg_addstr(msg, "12x");
    CHECK(wire_pop_ll(msg) == 12 && wire_pop_ll(msg) == 0);
    zmsg_destroy(&msg);
    CHECK(wire_protocol() >= 1);
    return s_test_shared() || s_test_sockets() || s_test_syscalls() ||
           s_test_waits();
}
