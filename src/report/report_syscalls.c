/*  report_syscalls: --profile syscalls, as syscalls.csv and as a block
    under each size's table.

    syscalls.csv: one row per traced trial (size, repeat) x stage x
    thread x syscall, as trial/results.h orders them (per stage its
    "all/all" total, then per thread its "all" row and its calls):

        topology,size,repeat,stage,thread,syscall,calls,total_ns,
        calls_per_msg,ns_per_msg,messages,seconds,cpu_ns,utime_ns,
        stime_ns,kernel_share,lost,host,pattern,mode, then the sweep_KEY
        columns

    calls: calls that began and ended while the window was open; total_ns:
    the time between their entries and exits (elapsed: a blocking call's
    includes its wait); per message: over what the stage handled in the
    window (messages; connect: its clients' connections; seconds: the
    stage's window, so messages / seconds is the traced trial's rate
    there).  Only the "all" rows fill cpu_ns (a stage's: its threads' CPU
    clocks over the window; a thread's: utime + stime), utime_ns and
    stime_ns (/proc/TID/stat, in clock ticks' steps), kernel_share (stime
    over utime + stime) and lost (records the kernel dropped for want of
    room, two a call: those calls are missing).

    The block: the profile's cost first (the traced twins' delivered rate,
    what the sinks took, against the untraced repeats', the median of the
    pairs' ratios; a search's one twin against its confirmation), then
    per stage its totals over the size's repeats and its five system
    calls that took the most time.
*/
#include "report/report.h"

#include "report/columns.h"

#include <stdlib.h>
#include <string.h>

#define TOP_CALLS 5

static double s_share(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : -1;
}

void report_syscalls_header(FILE *out, const report_info_t *info)
{
    columns_header(out, &columns_syscalls, info);
}

void report_syscalls_rows(FILE *out, const report_info_t *info,
                          const trial_result_t *trial)
{
    char repeat[16];
    snprintf(repeat, sizeof repeat, "%d", trial->repeat);
    column_ctx_t ctx = {.info = info, .size = trial->size, .repeat = repeat};
    columns_rows(out, &columns_syscalls, ctx, trial->syscalls, trial->nsyscalls,
                 sizeof *trial->syscalls, false);
}

//  ------------------------------------------------------------------------
//  The table's block

//  What the sinks took in the window, per second: the links into a stage
//  that no link starts from (the last hop of a chain, a tree's leaves)
static double s_delivered(const trial_result_t *trial)
{
    double rate = 0;
    for (int l = 0; l < trial->nlinks; l++) {
        bool onward = false;
        for (int k = 0; k < trial->nlinks && !onward; k++)
            onward = streq(trial->links[k].from, trial->links[l].to);
        if (!onward)
            rate += link_rate(&trial->links[l]);
    }
    return rate;
}

//  "system calls ...: it ran at 0.78 x the untraced rate (1,690,123
//  against 2,160,456 msgs/s, median of 3 pairs) ..."; a search's twin
//  is its confirmation's
static void s_cost(FILE *out, const trial_result_t *plain,
                   const trial_result_t *traced, int n, const char *unit,
                   bool search)
{
    double *v = calloc((size_t)(3 * n + 1), sizeof *v);
    if (!v)
        return;
    double *ratio = v, *a = v + n, *b = v + 2 * n;
    int pairs = 0;
    for (int r = 0; r < n; r++) {
        a[pairs] = s_delivered(&plain[r]);
        b[pairs] = s_delivered(&traced[r]);
        if (a[pairs] > 0)
            ratio[pairs] = b[pairs] / a[pairs], pairs++;
    }
    char ta[32], tb[32];
    if (pairs > 0)
        fprintf(out,
                "      system calls in the window (profile = syscalls), "
                "traced in a twin of %s: it ran at %.2f x the "
                "untraced rate (%s against %s %s, median of %d pair%s), "
                "the profile's cost\n",
                search ? "the search's confirmation, at its rate"
                       : "each repeat",
                report_median(ratio, pairs),
                report_grouped(report_median(b, pairs), tb, sizeof tb),
                report_grouped(report_median(a, pairs), ta, sizeof ta), unit,
                pairs, pairs == 1 ? "" : "s");
    free(v);
}

//  One stage's, or one thread's syscall's, figures over the repeats
typedef struct {
    const syscall_row_t *first; //  its names
    uint64_t calls, total_ns, messages, cpu_ns, utime_ns, stime_ns, lost;
} sum_t;

static void s_add(sum_t *sum, const syscall_row_t *row)
{
    sum->first = sum->first ? sum->first : row;
    sum->calls += row->calls, sum->total_ns += row->total_ns;
    sum->messages += row->messages, sum->cpu_ns += row->cpu_ns;
    sum->utime_ns += row->utime_ns, sum->stime_ns += row->stime_ns;
    sum->lost += row->lost;
}

static bool s_same(const syscall_row_t *a, const syscall_row_t *b)
{
    return streq(a->stage, b->stage) && streq(a->host, b->host) &&
           streq(a->thread, b->thread) && streq(a->syscall, b->syscall);
}

//  Every row like 'row' over the repeats, summed
static sum_t s_sum(const trial_result_t *traced, int n,
                   const syscall_row_t *row)
{
    sum_t sum = {0};
    for (int t = 0; t < n; t++)
        for (int r = 0; r < traced[t].nsyscalls; r++)
            if (s_same(&traced[t].syscalls[r], row))
                s_add(&sum, &traced[t].syscalls[r]);
    return sum;
}

//  The stage's syscall (of one of its threads) with the most time over
//  the repeats, but for the k already shown
static sum_t s_busiest(const trial_result_t *traced, int n,
                       const syscall_row_t *stage,
                       const syscall_row_t *const *shown, int k)
{
    sum_t best = {0};
    for (int t = 0; t < n; t++)
        for (int r = 0; r < traced[t].nsyscalls; r++) {
            const syscall_row_t *row = &traced[t].syscalls[r];
            bool taken = row->totals || !streq(row->stage, stage->stage) ||
                         !streq(row->host, stage->host);
            for (int j = 0; j < k && !taken; j++)
                taken = s_same(shown[j], row);
            sum_t sum = taken ? (sum_t){0} : s_sum(traced, n, row);
            if (sum.first && (!best.first || sum.total_ns > best.total_ns))
                best = sum;
        }
    return best;
}

static void s_line(FILE *out, const char *stage, const sum_t *s)
{
    char calls[32], ns[32];
    double m = s->messages ? (double)s->messages : 1;
    fprintf(out, "      %-14s %-20s %-16s %12s %10.4f %10s\n", stage,
            s->first->thread, s->first->syscall,
            report_grouped((double)s->calls, calls, sizeof calls),
            (double)s->calls / m,
            report_grouped((double)s->total_ns / m, ns, sizeof ns));
}

//  Did any thread of the stage send or receive on a socket (libzmq's
//  tcp and ipc engines: send and recv, which Linux makes sendto and
//  recvfrom)?  Its other calls are waits and wake-ups (poll, epoll_wait,
//  its mailbox's eventfd read and write)
static bool s_moves_data(const trial_result_t *traced, int n,
                         const syscall_row_t *stage)
{
    static const char *const data[] = {
        "sendto", "recvfrom", "sendmsg",  "recvmsg", "sendmmsg", "recvmmsg",
        "writev", "readv",    "sendfile", "splice",  NULL};
    for (int t = 0; t < n; t++)
        for (int r = 0; r < traced[t].nsyscalls; r++) {
            const syscall_row_t *row = &traced[t].syscalls[r];
            if (row->totals || row->calls == 0 ||
                !streq(row->stage, stage->stage) ||
                !streq(row->host, stage->host))
                continue;
            for (int d = 0; data[d]; d++)
                if (streq(row->syscall, data[d]))
                    return true;
        }
    return false;
}

//  A stage's total line, what its figures say, then its top calls
static void s_stage(FILE *out, const trial_result_t *traced, int n,
                    const syscall_row_t *total, const char *unit)
{
    sum_t s = s_sum(traced, n, total);
    s_line(out, total->stage, &s);
    double share = s_share(s.stime_ns, s.utime_ns + s.stime_ns);
    if (share >= 0)
        fprintf(out,
                "      %-14s kernel: %.0f%% of its threads' CPU time "
                "(stime over utime + stime)\n",
                "", 100 * share);
    if (s.messages && !s_moves_data(traced, n, total))
        fprintf(out,
                "      %-14s no socket send or receive: its %ss do not go "
                "through the kernel (its %.1f calls per 100 are libzmq's "
                "waits, wake-ups and checks)\n",
                "", unit, 100.0 * (double)s.calls / (double)s.messages);
    if (s.lost)
        fprintf(out,
                "      %-14s %llu records lost (the rings were full): "
                "these figures are short\n",
                "", (unsigned long long)s.lost);
    const syscall_row_t *shown[TOP_CALLS] = {NULL};
    for (int k = 0; k < TOP_CALLS; k++) {
        sum_t best = s_busiest(traced, n, total, shown, k);
        if (!best.first)
            break;
        shown[k] = best.first;
        s_line(out, "", &best);
    }
}

void report_syscalls_table(FILE *out, const report_info_t *info,
                           const trial_result_t *plain,
                           const trial_result_t *traced, int n)
{
    if (n <= 0 || !traced[0].traced)
        return;
    bool connect = streq(info->pattern, "connect");
    const char *unit = connect ? "connection" : "message";
    s_cost(out, plain, traced, n, connect ? "conn/s" : "msgs/s",
           info->search > 0);
    fprintf(out, "      %-14s %-20s %-16s %12s %10s %10s\n", "stage", "thread",
            "syscall", "calls", connect ? "calls/conn" : "calls/msg",
            connect ? "ns/conn" : "ns/msg");
    for (int r = 0; r < traced[0].nsyscalls; r++) {
        const syscall_row_t *row = &traced[0].syscalls[r];
        if (streq(row->thread, "all"))
            s_stage(out, traced, n, row, unit);
    }
    fflush(out);
}
