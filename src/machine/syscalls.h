/*  syscalls: every system call some threads make while tracing is on,
    counted and timed, from the kernel's raw_syscalls tracepoints
    (--profile syscalls).

    One tracer per set of threads of this host (a stage's thread and its
    libzmq threads), opened before a window and switched on and off at its
    edges, so nothing is traced outside it.  Each thread gets two
    perf_event_open events, raw_syscalls:sys_enter and sys_exit, writing
    into one ring buffer of its own: the entry's time (a 24-byte record)
    and the exit's time and syscall number (56 bytes), nothing else, so
    the kernel writes as little as it can per call.  A drain thread of the
    tracer empties the rings when they are a quarter full (it sleeps
    otherwise) and pairs each exit with the entry before it: a call counts
    when it both began and ended with tracing on, and its time is the
    elapsed time between the two (a blocking epoll_wait's includes its
    sleep).  Records that did not fit (a full ring) are counted as lost,
    and the calls they belong to are missing.  At the edges each thread's utime and stime are read from
    /proc/PID/task/TID/stat too, for the share of its CPU time spent in
    the kernel.  Names come from libaudit's table for this machine, on the
    host that traced.

    Why perf_event_open and not the perf tool: docs/GUIDE.md ("What the
    profile costs") has the measurement.  Nothing here is on a stage's
    timed path: the kernel writes the records in the traced thread's
    system calls, which is the profile's cost, measured and printed.
*/
#ifndef HOPBENCH_SYSCALLS_H
#define HOPBENCH_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/errbuf.h"

#define SYSCALLS_NR_MAX   1024 //  syscall numbers told apart (x86-64: 0-462)
#define SYSCALLS_NAME_MAX 32
//  The drain thread's name: the profile's own, no thread of the run
#define SYSCALLS_THREAD_NAME "hbt:trace"

typedef struct syscalls_s syscalls_t;

//  One system call of one thread, while tracing was on
typedef struct {
    char name[SYSCALLS_NAME_MAX]; //  "sendto", or "syscall_N" if unknown
    uint64_t calls;
    uint64_t total_ns; //  elapsed between entry and exit, summed
} syscall_count_t;

//  One thread's calls and CPU time while tracing was on
typedef struct {
    pid_t tid;
    uint64_t utime_ns, stime_ns; //  /proc/TID/stat, in clock ticks' steps
    uint64_t lost; //  records the kernel dropped, a full ring (two a call)
    int ncalls;    //  distinct syscalls, busiest first
    syscall_count_t *calls;
} syscalls_thread_t;

//  Can this host trace system calls?  0, or -1 with err naming what is
//  missing and how to get it (tracefs, the tracepoints, permission)
int syscalls_probe(errbuf_t *err);

//  A tracer over these threads of this host, opened and off
syscalls_t *syscalls_new(const pid_t *tids, int n, errbuf_t *err);
//  Tracing on (the window opens) and off (it closes): a few ioctls and
//  /proc reads each, so that every stage's edges are close together
int syscalls_start(syscalls_t *self, errbuf_t *err);
int syscalls_stop(syscalls_t *self, errbuf_t *err);
//  After stop: the rest of the rings drained, the drain thread ended, the
//  threads' counts made final
int syscalls_read(syscalls_t *self, errbuf_t *err);
//  Thread i (the order of tids) after read, valid until destroy
const syscalls_thread_t *syscalls_thread(syscalls_t *self, int i);
void syscalls_destroy(syscalls_t **self_p);
//  A thread's calls, where they were allocated for it (crew/wire.h)
void syscalls_thread_free(syscalls_thread_t *thread);

//  A syscall number's name on this machine ("syscall_N" if unknown)
void syscalls_name(int nr, char *buf, size_t len);

int syscalls_test(bool verbose);

#endif
