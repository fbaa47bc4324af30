/*  threads: every thread of this process as /proc tells it: name, allowed
    CPUs, the CPU it last ran on, and its CPU time.

    Used while a window is open to record where stage threads and libzmq's
    I/O threads really are (threads.csv), and to charge CPU time to stages.
    libzmq names its threads "PREFIX/ZMQbg/IO/N" and "PREFIX/ZMQbg/Reaper"
    when the context has ZMQ_THREAD_NAME_PREFIX: the prefix says whose
    context a thread serves.  The kernel keeps 15 characters of a name
    (TASK_COMM_LEN), so from the 100th context on the reaper reads back
    as "100/ZMQbg/Reape": a name cut there is completed (the prefix is a
    number, and no other libzmq thread name begins the same way).
*/
#ifndef HOPBENCH_THREADS_H
#define HOPBENCH_THREADS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/limits.h"

#define THREADS_MAX LIMIT_THREADS

typedef struct {
    pid_t pid; //  the process
    pid_t tid;
    char name[32];     //  the kernel's thread name (comm)
    char allowed[256]; //  Cpus_allowed_list, numactl list syntax
    int last_cpu;      //  "processor" field of /proc/.../stat
} task_t;

//  The threads of a process; returns how many, -1 if /proc is missing
int threads_scan(pid_t pid, task_t *out, int max);
//  One thread's CPU time in nanoseconds: its CPU clock in this process,
//  /proc/TID/schedstat in another; 0 if it is gone
uint64_t threads_cpu_ns(pid_t tid);
//  How long a thread of this host has waited on a run queue for a CPU
//  (ns, schedstat's second field) and how often it was preempted
//  (nonvoluntary_ctxt_switches); -1 in both if it cannot be read
typedef struct {
    int64_t wait_ns;
    int64_t preempted;
} threads_wait_t;
threads_wait_t threads_wait(pid_t tid);
//  This host's CPU time stolen by its hypervisor and all CPU time, in
//  clock ticks (/proc/stat's "cpu" line); -1 in both if unreadable
void threads_steal(int64_t *steal, int64_t *total);
//  The context prefix in a libzmq thread name ("3/ZMQbg/IO/0" -> 3), else
//  -1; *rest points at "ZMQbg/IO/0", or at the whole name of one the
//  kernel cut ("128/ZMQbg/Reape": "ZMQbg/Reaper")
int threads_zmq_prefix(const char *name, const char **rest);

int threads_test(bool verbose);

#endif
