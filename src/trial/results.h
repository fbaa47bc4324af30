/*  results: what one trial measured, kept apart from how it is shown.

    A trial is one size and repetition (new sockets and endpoints, the
    combination's stage threads and contexts).  Its
    links are the rows of results.csv (one per hop, or per link when a hop
    fans in or out, or one for all the hops into a proxy that cannot tell
    its senders apart); its threads are the rows of threads.csv.  Reports
    (report_*.c) read these and nothing else.
*/
#ifndef HOPBENCH_RESULTS_H
#define HOPBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/histogram.h"
#include "config/params.h"
#include "machine/pin.h"
#include "machine/syscalls.h"

#define RESULTS_NAME_MAX  40
#define RESULTS_WHERE_MAX 384 //  "0+1+2+...": the CPUs of 64 instances

#define RESULTS_TRANSPORT_MAX 16 //  "inproc+ipc+tcp"

typedef struct {
    int hop; //  1-based, sources first; hop 1 starts at a publisher
    char from[RESULTS_NAME_MAX], to[RESULTS_NAME_MAX];
    //  the hosts of its ends (host = NAME), "" for the controller's
    char from_host[RESULTS_NAME_MAX], to_host[RESULTS_NAME_MAX];
    //  "tcp"; a row that sums the hops into a proxy of several transports
    //  names them all, "ipc+tcp"
    char transport[RESULTS_TRANSPORT_MAX];
    bool from_source, to_sink; //  its ends: a publisher, a subscriber
    uint64_t sent;             //  handed to the hop's socket, whole trial
    uint64_t received;         //  taken from it, whole trial, after draining
    double seconds;            //  the window's length, at the receiving end
    double sent_seconds;       //  ...and at the sending end
    //  The longer of the window's two edges' spans: from the first
    //  reading of a stage's counters at an edge to the last (the counts
    //  are interpolated to the edge's instant between them), seconds; -1
    //  when the window has no such edges (reqrep: the requesters time it)
    double edge_span;
    uint64_t window_received; //  received during the window
    uint64_t window_sent;     //  sent during the window (offered load)
    double bound_rate;        //  flood: the rate the HWM allows, 0: none
    int hwm_bound;            //  flood: the rate is that bound (1/0)
    //  read back: a CPU (node), or where the instances a row aggregates
    //  (pub.*) disagree, their CPUs (nodes) ascending, joined by '+';
    //  -1 when not pinned
    char from_cpu[RESULTS_WHERE_MAX], to_cpu[RESULTS_WHERE_MAX];
    char from_node[RESULTS_WHERE_MAX], to_node[RESULTS_WHERE_MAX];
    double from_cpu_ns, to_cpu_ns; //  CPU per message in the window, or -1
    int64_t seq_lost; //  proven by sequence numbers, -1: not checked
    //  Topics (trial/trial_topics.c): what the link should have carried
    //  of its downstream's topics (= sent where it takes everything), and
    //  that over what its sources sent
    uint64_t expected;
    double selectivity;
    //  Starvation (trial_starve.c): the share of the window the busiest
    //  thread of each end waited on a run queue for a CPU (read on its
    //  host), the most of its ends' hosts' steal shares; -1 where unknown
    //  (a host that could not read them).  starved: 1 when an end waited
    //  more than starved_pct, 0 no, -1 unknown
    double from_wait_pct, to_wait_pct, steal_pct;
    int starved;
    char starved_note[400]; //  starved: the stage, its wait, its CPUs' others
    //  Stalls (trial_stall.c): its slowest stretch of the window, at
    //  least TRIAL_STALL_SPAN long: msgs/s and seconds; stalled: that
    //  rate is below stall_ratio of the trial's median per-link rate
    double slowest_rate, slowest_seconds;
    int stalled;
    //  The SUB sockets at its receiving end (sockets = N, else 1), and
    //  the slowest and fastest one's rate in the window (N = 1: the row's)
    int sockets;
    double min_socket_rate, max_socket_rate;
} link_row_t;

//  The figures of a link that have a median over a size's repeats: each
//  names a number of link_row_t, and is a double of the same name in
//  trial/summary.h's link_summary_t, the median of the repeats' values.
//  LINK_OPTIONAL: a figure some repeat may not know (a negative value),
//  whose median is then -1.  A new figure of the row with a median is its
//  field above and its line here
#define LINK_OPTIONAL 1
#define LINK_MEDIANS(X)                                                        \
    X(sent, 0)                                                                 \
    X(received, 0)                                                             \
    X(expected, 0)                                                             \
    X(selectivity, 0)                                                          \
    X(seconds, 0)                                                              \
    X(min_socket_rate, 0)                                                      \
    X(max_socket_rate, 0)                                                      \
    X(from_cpu_ns, LINK_OPTIONAL)                                              \
    X(to_cpu_ns, LINK_OPTIONAL)                                                \
    X(seq_lost, LINK_OPTIONAL)

//  One SUB socket of a subscriber of several (sockets.csv)
typedef struct {
    char stage[RESULTS_NAME_MAX]; //  its instance
    int socket;                   //  1-based
    uint64_t received;            //  whole trial, after draining
    int64_t lost;     //  on its link: its share of expected - received
    double rate;      //  msgs/s in the window
    int64_t seq_lost; //  proven by its sequence numbers, all the way
} socket_row_t;

typedef struct {
    char stage[RESULTS_NAME_MAX]; //  an instance, or "controller"
    char host[RESULTS_NAME_MAX];  //  where it runs, "" for the controller's
    char thread[48]; //  "main", or libzmq's name ("ZMQbg/IO/0"): see
                     //  pipeline/roster.h
    pid_t tid;
    char allowed[256];
    int last_cpu;
    int node;     //  of last_cpu
    int mem_node; //  main threads: node of a message buffer it
                  //  allocated; -1 otherwise
    //  In the window: the share of it spent waiting on a run queue, and
    //  the times it was preempted (read on its host); -1: unknown
    double wait_pct;
    int64_t preempted;
} thread_row_t;

//  The pages of one region of memory a stage writes, by node (memory.csv)
typedef struct {
    char stage[RESULTS_NAME_MAX];
    const char *region; //  counters, messages, stack, zerocopy
    int node;           //  the stage's node in the plan, -1: not pinned
    pin_pages_t pages;
} memory_row_t;

//  A latency distribution: "e2e", or the hop (1-based) it ends at
typedef struct {
    char hop[8];
    histogram_t histogram; //  nanoseconds
} latency_row_t;

//  --profile syscalls: what a stage's threads did in system calls while
//  the window was open (syscalls.csv).  Per stage, in this order: one row
//  thread "all", syscall "all" (the stage's threads together), then per
//  thread one row syscall "all" (every call it made) followed by one row
//  per syscall it made, the most time first.  Only "all" rows carry the
//  CPU fields
typedef struct {
    char stage[RESULTS_NAME_MAX];    //  an instance
    char host[RESULTS_NAME_MAX];     //  where it runs, "" for the controller's
    char thread[48];                 //  as threads.csv names it, or "all"
    char syscall[SYSCALLS_NAME_MAX]; //  "sendto", or "all"
    //  calls that began and ended in the window, and the time between
    //  their entries and exits
    uint64_t calls, total_ns;
    //  what the stage handled in the window (connect: the connections its
    //  clients made); per-message figures divide by it
    uint64_t messages;
    double seconds; //  the stage's window, between its own two readings
    bool totals;    //  an "all" row: the fields below are filled
    //  the stage's: its threads' CPU clocks; a thread's: utime + stime
    uint64_t cpu_ns;
    uint64_t utime_ns, stime_ns; //  /proc's, in clock ticks' steps
    uint64_t lost; //  records the kernel dropped (two a call): calls missing
} syscall_row_t;

//  A link's rate over one step of the window (timeline.csv): the link
//  (an index of the trial's links), the step's end in seconds into the
//  window, and what the link took over the step per second
typedef struct {
    int link;
    double seconds, rate;
} timeline_row_t;

//  A trial has at most one latency row per stage (e2e, and one per
//  forwarder in between): allocate pl->nstages of them

typedef struct {
    uint32_t size;
    int repeat; //  1-based
    int nlinks;
    link_row_t *links;
    double sources_rate; //  what every source sent in the window, msgs/s
    int starved;    // 1 yes, 0 no, -1 unknown: any row starved (trial_starve.c)
    int stalled;    //  rows that stalled (trial_stall.c); retried: how often
    int retried;    //  the trial was run again for it (run.c)
    bool cut_short; //  its window ended early: lost beyond spec.give_up
    uint64_t late;  //  messages of an earlier trial its receivers took
                    //  (stages/sequence.h): neither received nor lost
    //  What each origin (publisher instance, in instance order) sent in
    //  the whole trial, warm-up included: the counts expected is computed
    //  from (metadata.json's "published")
    int norigins;
    uint64_t published[LIMIT_ORIGINS];
    //  Its overhead: from its start to the window's, and from the
    //  window's end to its own; and its pipeline: "fresh", "reused" (one
    //  an earlier trial left up) or "fallback:WHY" (fresh, as the one
    //  left up could not serve: late, verify, drain)
    double setup_seconds, drain_seconds;
    char pipeline[32];
    int nthreads;
    thread_row_t *threads;
    int nmemory;
    memory_row_t *memory; //  STAGE_MEMORY_REGIONS per instance at most
    int nlatency;
    latency_row_t *latency;
    bool traced; //  --profile syscalls traced this trial: its rows
    int nsyscalls;
    syscall_row_t *syscalls;
    int nsockets; //  the sockets of subscribers of several, in order
    socket_row_t *sockets;
    int ntimeline; //  each link's rate over the window, step by step
    timeline_row_t *timeline;
} trial_result_t;

static inline double link_rate(const link_row_t *link)
{
    return link->seconds > 0 ? link->window_received / link->seconds : 0;
}

//  What a link lost: expected - received (sent - received where its
//  downstream takes every topic)
static inline int64_t link_lost(const link_row_t *link)
{
    return (int64_t)(link->expected - link->received);
}

static inline double link_sent_rate(const link_row_t *link)
{
    return link->sent_seconds > 0 ? link->window_sent / link->sent_seconds : 0;
}

//  The most a flooding XPUB delivers per pipe: libzmq 4.3.4's send reads
//  the socket's commands (activate_write among them) at most once per
//  max_command_delay = 3,000,000 TSC ticks, and a full pipe drops until
//  then; a pipe holds the HWM over tcp and ipc, SNDHWM + RCVHWM over
//  inproc.  0 when there is no bound (hwm 0) or the TSC rate is unknown
static inline double results_hwm_bound(int transport, int hwm, double tsc_hz)
{
    double pipe = transport == TRANSPORT_INPROC ? 2.0 * hwm : hwm;
    return tsc_hz > 0 ? pipe * tsc_hz / 3e6 : 0;
}

void trial_result_free(trial_result_t *result);

#endif
