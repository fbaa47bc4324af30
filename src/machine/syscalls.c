/*  syscalls: the raw_syscalls tracepoints of some threads, through
    perf_event_open (syscalls.h says what is counted and why this way).

        thread t:  sys_enter --+
                               +--> ring buffer t --drain thread--> calls[nr]
                   sys_exit ---+    (time; time + nr)                ns[nr]

    The drain thread sleeps in poll until a ring is a quarter full (the
    rest is slack for a drain thread kept off the CPU), or until
    stop wakes it; it is the only reader of the rings until it has ended,
    then stop reads what is left.  No locks: one reader at a time.
*/
#define _GNU_SOURCE
#include "machine/syscalls.h"

#include "base/check.h"

#include <errno.h>
#include <libaudit.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES     1024 //  per thread, 4 MiB, halved until mmap takes it
#define RING_PAGES_MIN 16
#define OTHER          SYSCALLS_NR_MAX //  numbers beyond the table

static const char *const s_tracefs_dirs[] = {"/sys/kernel/tracing",
                                             "/sys/kernel/debug/tracing"};

typedef struct {
    pid_t tid;
    int enter_fd, exit_fd;
    uint64_t exit_id; //  PERF_EVENT_IOC_ID of exit_fd: which sample is which
    struct perf_event_mmap_page *ring;
    size_t ring_len;
    bool pending; //  an entry seen, its exit not yet
    uint64_t entered;
    uint64_t utime0, stime0; //  ticks at start
    uint64_t calls[OTHER + 1], ns[OTHER + 1];
    syscalls_thread_t out;
} traced_t;

struct syscalls_s {
    int n;
    traced_t *thread;
    int wake_fd; //  eventfd: stop tells the drain thread to end
    pthread_t drain;
    bool draining;
    int machine; //  libaudit's, for the names
};

//  ------------------------------------------------------------------------
//  tracefs, the tracepoints' ids

//  Where raw_syscalls' ids can be read: into dir, or errno of the first
static bool s_found(char *dir, size_t len, int *errnum)
{
    char path[300];
    *errnum = 0;
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/events/raw_syscalls/sys_exit/id",
                 s_tracefs_dirs[i]);
        if (access(path, R_OK) == 0) {
            snprintf(dir, len, "%s", s_tracefs_dirs[i]);
            return true;
        }
        *errnum = *errnum ? *errnum : errno;
    }
    return false;
}

//  The tracefs directory holding raw_syscalls, mounted first if it is
//  not (as perf does); -1 with err saying what is missing
static int s_tracefs(char *dir, size_t len, errbuf_t *err)
{
    int errnum;
    if (s_found(dir, len, &errnum))
        return 0;
    if (errnum == EACCES)
        return err_set(err,
                       "cannot read %s/events/raw_syscalls: permission "
                       "denied (tracefs is root's: run as root)",
                       s_tracefs_dirs[0]);
    mount("nodev", s_tracefs_dirs[0], "tracefs", 0, NULL);
    if (s_found(dir, len, &errnum))
        return 0;
    struct stat st;
    if (stat("/sys/kernel/tracing/events", &st) == 0)
        return err_set(err, "this kernel has no raw_syscalls tracepoints "
                            "(/sys/kernel/tracing/events/raw_syscalls: a "
                            "kernel built with CONFIG_FTRACE_SYSCALLS has "
                            "them)");
    return err_set(err, "no tracefs at /sys/kernel/tracing (as root: mount -t "
                        "tracefs nodev /sys/kernel/tracing; the kernel needs "
                        "CONFIG_FTRACE_SYSCALLS)");
}

static int s_event_id(const char *dir, const char *event, errbuf_t *err)
{
    char path[320];
    int id = -1;
    snprintf(path, sizeof path, "%s/events/raw_syscalls/%s/id", dir, event);
    FILE *file = fopen(path, "r");
    if (!file || fscanf(file, "%d", &id) != 1 || id < 0)
        err_set(err, "cannot read %s: %s", path,
                file ? "not a number" : strerror(errno));
    if (file)
        fclose(file);
    return id;
}

//  One tracepoint on one thread, off; its samples carry an identifier
//  and the time (CLOCK_MONOTONIC), and 'raw' adds the tracepoint's fields.
//  'wake': the bytes in its ring that wake a reader (0: never)
static int s_open(int config, pid_t tid, bool raw, uint32_t wake)
{
    struct perf_event_attr attr = {
        .type = PERF_TYPE_TRACEPOINT,
        .size = sizeof attr,
        .config = (uint64_t)config,
        .sample_period = 1,
        .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME |
                       (raw ? PERF_SAMPLE_RAW : 0),
        .disabled = 1,
        .watermark = 1,
        .wakeup_watermark = wake,
        .use_clockid = 1,
        .clockid = CLOCK_MONOTONIC,
    };
    return (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

//  What perf_event_open's errno means here, and how to get past it
static int s_open_error(int errnum, pid_t tid, errbuf_t *err)
{
    if (errnum == EACCES || errnum == EPERM) {
        int paranoid = 2;
        FILE *file = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        if (file && fscanf(file, "%d", &paranoid) != 1)
            paranoid = 2;
        if (file)
            fclose(file);
        return err_set(err,
                       "perf_event_open on raw_syscalls (thread %d): %s "
                       "(tracepoints need root or CAP_PERFMON, or "
                       "sysctl kernel.perf_event_paranoid=-1; it is %d)",
                       (int)tid, strerror(errnum), paranoid);
    }
    if (errnum == ENOSYS)
        return err_set(err, "perf_event_open: not in this kernel, or "
                            "blocked here (a container's seccomp)");
    return err_set(err, "perf_event_open on raw_syscalls (thread %d): %s",
                   (int)tid, strerror(errnum));
}

int syscalls_probe(errbuf_t *err)
{
    char dir[64];
    int id;
    if (s_tracefs(dir, sizeof dir, err) ||
        (id = s_event_id(dir, "sys_enter", err)) < 0)
        return -1;
    int fd = s_open(id, 0, false, 0);
    if (fd < 0)
        return s_open_error(errno, gettid(), err);
    close(fd);
    return 0;
}

//  ------------------------------------------------------------------------
//  utime and stime

//  Fields 14 and 15 of /proc/TID/stat, after the name in parentheses
static void s_times(pid_t tid, uint64_t *utime, uint64_t *stime)
{
    char path[64], text[1024] = "";
    unsigned long long u = 0, s = 0;
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)tid, (int)tid);
    FILE *file = fopen(path, "r");
    if (file && fgets(text, sizeof text, file)) {
        const char *rest = strrchr(text, ')');
        if (rest && sscanf(rest + 1,
                           " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                           "%llu %llu",
                           &u, &s) != 2)
            u = s = 0;
    }
    if (file)
        fclose(file);
    *utime = u, *stime = s;
}

//  ------------------------------------------------------------------------
//  The rings

//  One record: an entry (id, time), an exit (id, time, raw: common
//  fields, then the syscall number), or lost records
static void s_record(traced_t *t, const struct perf_event_header *h)
{
    const uint64_t *words = (const uint64_t *)(h + 1);
    if (h->type == PERF_RECORD_LOST && h->size >= 24) {
        t->out.lost += words[1];
        t->pending = false; //  what follows may not be this entry's exit
        return;
    }
    if (h->type != PERF_RECORD_SAMPLE || h->size < 24)
        return;
    if (words[0] != t->exit_id) {
        t->pending = true;
        t->entered = words[1];
        return;
    }
    //  u32 size, then the raw fields: 8 bytes common, long id, long ret
    if (!t->pending || h->size < 24 + 4 + 16)
        return;
    int64_t nr;
    memcpy(&nr, (const char *)(words + 2) + 4 + 8, sizeof nr);
    int slot = nr >= 0 && nr < OTHER ? (int)nr : OTHER;
    t->calls[slot]++;
    t->ns[slot] += words[1] - t->entered;
    t->pending = false;
}

//  Everything the kernel has written to thread t's ring so far
static void s_drain_ring(traced_t *t)
{
    struct perf_event_mmap_page *ring = t->ring;
    uint64_t head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = ring->data_tail, size = ring->data_size;
    const char *data = (const char *)ring + ring->data_offset;
    uint64_t copy[8]; //  a record that wraps around the end, ours are small
    while (tail < head) {
        const struct perf_event_header *h = (const void *)(data + tail % size);
        if (h->size < sizeof *h)
            break; //  cannot happen: the kernel writes whole records
        uint64_t off = tail % size;
        if (off + h->size > size && h->size <= sizeof copy) {
            memcpy(copy, data + off, size - off);
            memcpy((char *)copy + (size - off), data, h->size - (size - off));
            h = (const void *)copy;
        }
        if (off + h->size <= size || h == (const void *)copy)
            s_record(t, h);
        tail += h->size;
    }
    __atomic_store_n(&ring->data_tail, tail, __ATOMIC_RELEASE);
}

static void *s_drain(void *args)
{
    syscalls_t *self = args;
    struct pollfd fds[self->n + 1];
    for (int i = 0; i < self->n; i++)
        fds[i] = (struct pollfd){self->thread[i].enter_fd, POLLIN, 0};
    fds[self->n] = (struct pollfd){self->wake_fd, POLLIN, 0};
    while (poll(fds, (nfds_t)self->n + 1, -1) >= 0 || errno == EINTR) {
        if (fds[self->n].revents)
            break;
        for (int i = 0; i < self->n; i++)
            if (fds[i].revents & POLLIN)
                s_drain_ring(&self->thread[i]);
    }
    return NULL;
}

//  ------------------------------------------------------------------------
//  A tracer

//  Thread t's entry event with a ring of its own, as large as mmap
//  allows, which wakes the drain thread when a quarter full
static int s_ring(traced_t *t, int enter_id, errbuf_t *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int errnum = 0;
    for (size_t pages = RING_PAGES; pages >= RING_PAGES_MIN; pages /= 2) {
        t->enter_fd =
            s_open(enter_id, t->tid, false, (uint32_t)(pages * page / 4));
        if (t->enter_fd < 0)
            return s_open_error(errno, t->tid, err);
        size_t len = (pages + 1) * page;
        void *ring =
            mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->enter_fd, 0);
        if (ring != MAP_FAILED) {
            t->ring = ring;
            t->ring_len = len;
            return 0;
        }
        errnum = errno;
        close(t->enter_fd);
        t->enter_fd = -1;
    }
    return err_set(err, "thread %d: no ring buffer for its trace: %s",
                   (int)t->tid, strerror(errnum));
}

//  Thread t's two events, the exit's samples into the entry's ring
static int s_attach(traced_t *t, int enter_id, int exit_id, errbuf_t *err)
{
    if (s_ring(t, enter_id, err))
        return -1;
    t->exit_fd = s_open(exit_id, t->tid, true, 0);
    if (t->exit_fd < 0)
        return s_open_error(errno, t->tid, err);
    if (ioctl(t->exit_fd, PERF_EVENT_IOC_SET_OUTPUT, t->enter_fd) ||
        ioctl(t->exit_fd, PERF_EVENT_IOC_ID, &t->exit_id))
        return err_set(err, "thread %d: its trace's ring buffer: %s",
                       (int)t->tid, strerror(errno));
    return 0;
}

syscalls_t *syscalls_new(const pid_t *tids, int n, errbuf_t *err)
{
    syscalls_t *self = calloc(1, sizeof *self);
    char dir[64];
    int enter_id = -1, exit_id = -1;
    if (!self || !(self->thread = calloc((size_t)n + 1, sizeof(traced_t)))) {
        free(self);
        err_set(err, "a system call tracer: out of memory");
        return NULL;
    }
    self->wake_fd = eventfd(0, EFD_CLOEXEC);
    self->machine = audit_detect_machine();
    for (int i = 0; i < n; i++)
        self->thread[i] = (traced_t){.tid = tids[i], -1, -1};
    self->n = n;
    int rc = self->wake_fd < 0 ? err_set(err, "eventfd: %s", strerror(errno))
             : s_tracefs(dir, sizeof dir, err) ||
                     (enter_id = s_event_id(dir, "sys_enter", err)) < 0 ||
                     (exit_id = s_event_id(dir, "sys_exit", err)) < 0
                 ? -1
                 : 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = s_attach(&self->thread[i], enter_id, exit_id, err);
    if (rc == 0 && pthread_create(&self->drain, NULL, s_drain, self) != 0)
        rc = err_set(err, "the tracer's drain thread: cannot start");
    self->draining = rc == 0;
    //  named before it can be seen: the read-back leaves it out
    if (rc == 0)
        pthread_setname_np(self->drain, SYSCALLS_THREAD_NAME);
    if (rc)
        syscalls_destroy(&self);
    return self;
}

static int s_switch(syscalls_t *self, unsigned long request, errbuf_t *err)
{
    for (int i = 0; i < self->n; i++) {
        traced_t *t = &self->thread[i];
        if (ioctl(t->enter_fd, request, 0) || ioctl(t->exit_fd, request, 0))
            return err_set(err, "thread %d: tracing %s: %s", (int)t->tid,
                           request == PERF_EVENT_IOC_ENABLE ? "on" : "off",
                           strerror(errno));
    }
    return 0;
}

int syscalls_start(syscalls_t *self, errbuf_t *err)
{
    for (int i = 0; i < self->n; i++) {
        traced_t *t = &self->thread[i];
        s_times(t->tid, &t->utime0, &t->stime0);
    }
    return s_switch(self, PERF_EVENT_IOC_ENABLE, err);
}

static int s_busier(const void *a, const void *b)
{
    const syscall_count_t *x = a, *y = b;
    return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

//  Thread t's counts as rows, busiest first
static int s_rows(syscalls_t *self, traced_t *t, errbuf_t *err)
{
    int n = 0;
    for (int nr = 0; nr <= OTHER; nr++)
        n += t->calls[nr] > 0;
    t->out.calls = calloc((size_t)n + 1, sizeof *t->out.calls);
    if (!t->out.calls)
        return err_set(err, "a system call tracer: out of memory");
    for (int nr = 0; nr <= OTHER; nr++) {
        if (t->calls[nr] == 0)
            continue;
        syscall_count_t *row = &t->out.calls[t->out.ncalls++];
        const char *name =
            nr < OTHER ? audit_syscall_to_name(nr, self->machine) : "other";
        if (name)
            snprintf(row->name, sizeof row->name, "%s", name);
        else
            snprintf(row->name, sizeof row->name, "syscall_%d", nr);
        row->calls = t->calls[nr];
        row->total_ns = t->ns[nr];
    }
    qsort(t->out.calls, (size_t)t->out.ncalls, sizeof *t->out.calls, s_busier);
    return 0;
}

int syscalls_stop(syscalls_t *self, errbuf_t *err)
{
    int rc = s_switch(self, PERF_EVENT_IOC_DISABLE, err);
    long tick = sysconf(_SC_CLK_TCK);
    uint64_t tick_ns = tick > 0 ? 1000000000ULL / (uint64_t)tick : 10000000;
    for (int i = 0; i < self->n; i++) {
        traced_t *t = &self->thread[i];
        uint64_t u, s;
        s_times(t->tid, &u, &s);
        t->out.tid = t->tid;
        t->out.utime_ns = u > t->utime0 ? (u - t->utime0) * tick_ns : 0;
        t->out.stime_ns = s > t->stime0 ? (s - t->stime0) * tick_ns : 0;
    }
    return rc;
}

//  The drain thread told to end, and waited for
static void s_end_drain(syscalls_t *self)
{
    if (!self->draining)
        return;
    uint64_t one = 1;
    if (write(self->wake_fd, &one, sizeof one) != sizeof one)
        pthread_cancel(self->drain);
    pthread_join(self->drain, NULL);
    self->draining = false;
}

int syscalls_read(syscalls_t *self, errbuf_t *err)
{
    s_end_drain(self);
    for (int i = 0; i < self->n; i++) {
        traced_t *t = &self->thread[i];
        s_drain_ring(t);
        free(t->out.calls);
        t->out.calls = NULL;
        t->out.ncalls = 0;
        if (s_rows(self, t, err))
            return -1;
    }
    return 0;
}

const syscalls_thread_t *syscalls_thread(syscalls_t *self, int i)
{
    return i >= 0 && i < self->n ? &self->thread[i].out : NULL;
}

void syscalls_destroy(syscalls_t **self_p)
{
    syscalls_t *self = *self_p;
    if (!self)
        return;
    s_end_drain(self);
    for (int i = 0; i < self->n; i++) {
        traced_t *t = &self->thread[i];
        if (t->ring)
            munmap(t->ring, t->ring_len);
        if (t->exit_fd >= 0)
            close(t->exit_fd);
        if (t->enter_fd >= 0)
            close(t->enter_fd);
        free(t->out.calls);
    }
    if (self->wake_fd >= 0)
        close(self->wake_fd);
    free(self->thread);
    free(self);
    *self_p = NULL;
}

void syscalls_thread_free(syscalls_thread_t *thread)
{
    free(thread->calls);
    thread->calls = NULL;
    thread->ncalls = 0;
}

void syscalls_name(int nr, char *buf, size_t len)
{
    const char *name = audit_syscall_to_name(nr, audit_detect_machine());
    if (name)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "syscall_%d", nr);
}

//  ------------------------------------------------------------------------
//  Selftest: this thread's own calls, where tracing is possible

int syscalls_test(bool verbose)
{
    char name[SYSCALLS_NAME_MAX];
    syscalls_name(SYS_getppid, name, sizeof name);
    CHECK(strcmp(name, "getppid") == 0);
    syscalls_name(SYS_sendto, name, sizeof name);
    CHECK(strcmp(name, "sendto") == 0);
    syscalls_name(100000, name, sizeof name);
    CHECK(strcmp(name, "syscall_100000") == 0);
    errbuf_t err;
    if (syscalls_probe(&err)) {
        if (verbose)
            printf("# syscalls: no tracing here: %s\n", err.msg);
        return 0;
    }
    pid_t self_tid = gettid();
    syscalls_t *tracer = syscalls_new(&self_tid, 1, &err);
    CHECK(tracer != NULL);
    for (int i = 0; i < 50; i++)
        getppid(); //  before: not counted
    CHECK(syscalls_start(tracer, &err) == 0);
    for (int i = 0; i < 1000; i++)
        getppid();
    CHECK(syscalls_stop(tracer, &err) == 0);
    for (int i = 0; i < 50; i++)
        getppid(); //  after: not counted
    CHECK(syscalls_read(tracer, &err) == 0);
    const syscalls_thread_t *t = syscalls_thread(tracer, 0);
    CHECK(t && t->tid == self_tid && t->lost == 0);
    uint64_t calls = 0;
    for (int c = 0; c < t->ncalls; c++)
        if (strcmp(t->calls[c].name, "getppid") == 0)
            calls = t->calls[c].calls;
    CHECK(calls == 1000);
    CHECK(syscalls_thread(tracer, 1) == NULL);
    syscalls_destroy(&tracer);
    CHECK(tracer == NULL);
    return 0;
}
