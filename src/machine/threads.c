/*  threads: read this process's threads from /proc/self/task.

    CPU time comes from the thread's CPU clock, which Linux lets a process
    read for any of its threads by TID (the clock id pthread_getcpuclockid
    builds): nanoseconds, where /proc's utime and stime count 10 ms ticks.
*/
#define _GNU_SOURCE
#include "machine/threads.h"

#include "base/check.h"
#include "base/limits.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

//  Linux's per-thread CPU clock id: (~tid << 3) | PERTHREAD | SCHED
#define THREAD_CPU_CLOCK(tid) ((clockid_t)((~(unsigned)(tid)) << 3) | 6)

static void s_read_line(const char *path, const char *key, char *out,
                        size_t len)
{
    FILE *file = fopen(path, "r");
    char line[512];
    size_t klen = strlen(key);
    out[0] = 0;
    while (file && fgets(line, sizeof line, file))
        if (strncmp(line, key, klen) == 0) {
            char *value = line + klen + strspn(line + klen, " \t");
            value[strcspn(value, "\n")] = 0;
            snprintf(out, len, "%s", value);
            break;
        }
    if (file)
        fclose(file);
}

//  Field 39 of stat, counted after the ")" that ends the name
static int s_last_cpu(pid_t pid, pid_t tid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    FILE *file = fopen(path, "r");
    size_t len = file ? fread(text, 1, sizeof text - 1, file) : 0;
    if (file)
        fclose(file);
    text[len] = 0;
    char *p = strrchr(text, ')');
    if (!p)
        return -1;
    int field = 2;
    for (p++; *p && field < 39; p++)
        if (*p == ' ')
            field++;
    return field == 39 ? atoi(p) : -1;
}

static void s_read_task(pid_t pid, pid_t tid, task_t *task)
{
    char path[64];
    task->pid = pid;
    task->tid = tid;
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    s_read_line(path, "", task->name, sizeof task->name);
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    s_read_line(path, "Cpus_allowed_list:", task->allowed,
                sizeof task->allowed);
    task->last_cpu = s_last_cpu(pid, tid);
}

int threads_scan(pid_t pid, task_t *out, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    int n = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) && n < max) {
        pid_t tid = (pid_t)atoi(entry->d_name);
        if (tid > 0)
            s_read_task(pid, tid, &out[n++]);
    }
    closedir(dir);
    return n;
}

//  A thread's /proc schedstat: ns on a CPU, ns waiting on a run queue;
//  how many of the two it read
static int s_schedstat(pid_t tid, unsigned long long *run,
                       unsigned long long *waited)
{
    char path[64], text[128] = "";
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)tid);
    FILE *file = fopen(path, "r");
    int n = file && fgets(text, sizeof text, file)
                ? sscanf(text, "%llu %llu", run, waited)
                : 0;
    if (file)
        fclose(file);
    return n;
}

uint64_t threads_cpu_ns(pid_t tid)
{
    struct timespec ts;
    if (clock_gettime(THREAD_CPU_CLOCK(tid), &ts) == 0)
        return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    //  a thread of another process (a stage's own): its schedstat, also ns
    unsigned long long ns = 0, waited;
    s_schedstat(tid, &ns, &waited);
    return ns;
}

threads_wait_t threads_wait(pid_t tid)
{
    threads_wait_t wait = {-1, -1};
    char path[64], value[64];
    unsigned long long run, waited;
    if (s_schedstat(tid, &run, &waited) == 2)
        wait.wait_ns = (int64_t)waited;
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    s_read_line(path, "nonvoluntary_ctxt_switches:", value, sizeof value);
    if (value[0])
        wait.preempted = atoll(value);
    return wait;
}

void threads_steal(int64_t *steal, int64_t *total)
{
    unsigned long long f[8] = {0};
    char text[256] = "";
    FILE *file = fopen("/proc/stat", "r");
    int n = file && fgets(text, sizeof text, file)
                ? sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
                         &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7])
                : 0;
    if (file)
        fclose(file);
    *steal = *total = -1;
    if (n < 8)
        return;
    *steal = (int64_t)f[7];
    *total = 0;
    for (int i = 0; i < 8; i++)
        *total += (int64_t)f[i];
}

//  The longest name the kernel keeps (TASK_COMM_LEN - 1)
#define S_COMM_MAX 15
//  "PREFIX/ZMQbg/IO/N" whole: a 3-digit prefix (a context's number among
//  its machine's, each of which starts two threads at least), a 2-digit
//  N at most
_Static_assert(LIMIT_THREADS / 2 < 1000 && LIMIT_IO_THREADS <= 100,
               "a libzmq I/O thread's name fits the kernel's 15 characters");

int threads_zmq_prefix(const char *name, const char **rest)
{
    static const char reaper[] = "ZMQbg/Reaper";
    char *end;
    long prefix = strtol(name, &end, 10);
    if (end == name || *end != '/' || strncmp(end + 1, "ZMQbg/", 6) != 0)
        return -1;
    *rest = end + 1;
    //  cut by the kernel: "ZMQbg/Reape", "ZMQbg/Reap" (IO/N is never
    //  ambiguous: LIMIT_THREADS and LIMIT_IO_THREADS keep it whole)
    size_t len = strlen(*rest);
    if (strlen(name) == S_COMM_MAX && len > 6 && len < sizeof reaper - 1 &&
        strncmp(*rest, reaper, len) == 0)
        *rest = reaper;
    return (int)prefix;
}

int threads_test(bool verbose)
{
    (void)verbose;
    task_t tasks[THREADS_MAX];
    int n = threads_scan(getpid(), tasks, THREADS_MAX);
    CHECK(n >= 1);
    bool found = false;
    for (int i = 0; i < n; i++)
        if (tasks[i].tid == gettid()) {
            found = true;
            CHECK(tasks[i].last_cpu >= 0 && tasks[i].allowed[0]);
        }
    CHECK(found);
    //  CPU time moves when this thread works
    uint64_t before = threads_cpu_ns(gettid());
    volatile uint64_t sink = 0;
    for (int i = 0; i < 20000000; i++)
        sink += (uint64_t)i;
    CHECK(threads_cpu_ns(gettid()) > before);
    CHECK(threads_cpu_ns(gettid()) > 0);

    threads_wait_t wait = threads_wait(gettid());
    CHECK(wait.wait_ns >= 0 && wait.preempted >= 0);
    int64_t steal, total;
    threads_steal(&steal, &total);
    CHECK(steal >= 0 && total > 0);

    const char *rest;
    CHECK(threads_zmq_prefix("3/ZMQbg/IO/0", &rest) == 3);
    CHECK(strcmp(rest, "ZMQbg/IO/0") == 0);
    CHECK(threads_zmq_prefix("12/ZMQbg/Reaper", &rest) == 12);
    CHECK(threads_zmq_prefix("128/ZMQbg/Reape", &rest) == 128);
    CHECK(strcmp(rest, "ZMQbg/Reaper") == 0);
    CHECK(threads_zmq_prefix("1000/ZMQbg/Reap", &rest) == 1000);
    CHECK(strcmp(rest, "ZMQbg/Reaper") == 0);
    CHECK(threads_zmq_prefix("128/ZMQbg/IO/63", &rest) == 128);
    CHECK(strcmp(rest, "ZMQbg/IO/63") == 0);
    CHECK(threads_zmq_prefix("12/ZMQbg/Reape", &rest) == 12); //  not cut
    CHECK(strcmp(rest, "ZMQbg/Reape") == 0);
    CHECK(threads_zmq_prefix("ZMQbg/IO/0", &rest) == -1);
    CHECK(threads_zmq_prefix("hopbench", &rest) == -1);
    return 0;
}
