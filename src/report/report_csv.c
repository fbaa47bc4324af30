/*  report_csv: results.csv, latency.csv, threads.csv and memory.csv.

    results.csv: the contract columns (REPORT_CSV_COLUMNS), then
    from_cpu_ns_per_msg, to_cpu_ns_per_msg (CPU time of the stage's thread
    and its libzmq I/O threads over the window, per message it handled;
    empty when unknown), seq_lost (loss proven by the receiver's sequence
    numbers on the way from the publishers, on rows that end at a
    subscriber; empty elsewhere), sent_per_sec (what the sending end handed
    to the hop during the window, per second of the sending end's own
    window: the offered load), mode (capacity, flood, search; empty for
    reqrep and connect), hwm_bound (1: a flood row whose rate is the one
    the HWM and libzmq's command batching allow, trial/results.h),
    from_host, to_host (the hosts of the hop's ends, host = NAME; empty
    for a stage where the controller runs), ci_low, ci_high, ci_coverage,
    precise (below), expected (what the hop should have carried of its
    downstream's subscribed topics: sent where it takes every topic; lost
    is expected - received, trial/trial_topics.c), selectivity (the share
    of its sources' messages its downstream subscribed to, 1 for all),
    loss_ratio (mode = search: the loss ratio whose confirmed rate the row
    is, one set of rows per ratio; empty elsewhere), from_wait_pct,
    to_wait_pct, steal_pct, starved (trial/trial_starve.c),
    sockets (the SUB sockets at its receiving end, sockets = N, else 1),
    min_socket_msgs_per_sec, max_socket_msgs_per_sec (the slowest and
    fastest of them in the window; with one socket, msgs_per_sec), then
    one sweep_KEY column per swept key.

    sockets.csv (--per-socket, when a subscriber has several sockets):
    topology,size,repeat,stage,socket,received,lost,msgs_per_sec,seq_lost,
    then the sweep_KEY columns: a row per socket and trial; lost is on its
    link (its instance's rows' expected over N, less what it took: the
    sockets' add up to the rows'), seq_lost what its sequence numbers
    prove it missed from the publishers on (trial/trial_sockets.c).
    from_cpu, to_cpu, from_node, to_node: a number, or for a row that
    stands for several stage instances (a fan-in into a proxy that cannot
    tell them apart: pub.*) whose CPUs differ, the CPUs ascending joined by
    '+' ("0+1+2+3": one CSV field, no quotes); -1 not pinned, "-1+2" where
    some are and some are not.

    With 3 or more repeats a size also has one `repeat = median` row per
    link after its repeats (trial/summary.h): every number in it is the
    median of that column over the repeats (so its msgs_per_sec is not
    received / seconds); from_cpu .. to_node are the repeats' when they
    all agree, else -1.  Only these rows fill ci_low and ci_high (the
    interval of the median msgs/s at `confidence`; mb_per_sec's is the
    same times size / 10^6), ci_coverage (the interval's exact coverage:
    below the confidence when there were too few repeats for it, 6 at
    0.95, and then the interval is min to max) and, with --precision,
    precise (1: within it, 0: max_repeat ran out first).  Per-repeat rows
    leave the four empty.

    latency.csv gains mode, then p50_ci_low_us, p50_ci_high_us,
    p99_ci_low_us, p99_ci_high_us: filled on its `repeat = median` rows,
    where each figure is the median over the repeats of that percentile
    (the `repeat = all` rows merge the repeats' distributions instead).

    threads.csv: the contract columns (stage is "controller" for
    hopbench's own threads), size, repeat, mem_node, host (as in
    results.csv), then the sweep_KEY columns.  memory.csv: per trial,
    stage and region (counters, messages, stack, zerocopy) the stage's
    node in the plan (-1: not pinned), the region's pages, how many are in
    memory, how many of those are on the stage's node (empty when it has
    none), by_node ("0:9 1:1", node:pages), size, repeat, sweep_KEY
    columns.
*/
#include "report/report.h"

#include "config/params.h"

#include <ctype.h>

//  "sweep_" and the key with non-alphanumerics turned into '_'
static void s_sweep_column(FILE *out, const char *key)
{
    fputs(",sweep_", out);
    for (const char *p = key; *p; p++)
        fputc(isalnum((unsigned char)*p) ? *p : '_', out);
}

void report_csv_header(FILE *out, const report_info_t *info)
{
    fputs(REPORT_CSV_COLUMNS, out);
    fputs(",from_cpu_ns_per_msg,to_cpu_ns_per_msg,seq_lost,sent_per_sec,mode,"
          "hwm_bound,from_host,to_host,ci_low,ci_high,ci_coverage,precise,"
          "expected,selectivity,loss_ratio,from_wait_pct,to_wait_pct,"
          "steal_pct,starved,sockets,min_socket_msgs_per_sec,"
          "max_socket_msgs_per_sec",
          out);
    for (int i = 0; i < info->nsweep; i++)
        s_sweep_column(out, info->sweep_key[i]);
    fputc('\n', out);
    fflush(out);
}

//  The combination's values, and the end of the row
static void s_sweep_values(FILE *out, const report_info_t *info)
{
    for (int i = 0; i < info->nsweep; i++)
        fprintf(out, ",%s", info->sweep_value[i]);
    fputc('\n', out);
}

static void s_optional(FILE *out, double value, const char *format)
{
    fputc(',', out);
    if (value >= 0)
        fprintf(out, format, value);
}

void report_csv_rows(FILE *out, const report_info_t *info,
                     const trial_result_t *trial)
{
    for (int l = 0; l < trial->nlinks; l++) {
        const link_row_t *row = &trial->links[l];
        double rate = link_rate(row);
        fprintf(out,
                "%s,%s,%u,%d,%d,%s,%s,%s,%llu,%llu,%lld,%.6f,%.1f,%.3f,"
                "%s,%s,%s,%s",
                info->topology, info->pattern, trial->size, trial->repeat,
                row->hop, row->from, row->to, row->transport,
                (unsigned long long)row->sent,
                (unsigned long long)row->received, (long long)link_lost(row),
                row->seconds, rate, rate * trial->size / 1e6, row->from_cpu,
                row->to_cpu, row->from_node, row->to_node);
        s_optional(out, row->from_cpu_ns, "%.1f");
        s_optional(out, row->to_cpu_ns, "%.1f");
        s_optional(out, (double)row->seq_lost, "%.0f");
        fprintf(out, ",%.1f,%s,%d,%s,%s,,,,,%llu,%.6g", link_sent_rate(row),
                info->mode, row->hwm_bound, row->from_host, row->to_host,
                (unsigned long long)row->expected, row->selectivity);
        fprintf(out, ",%s", info->loss_ratio);
        s_optional(out, row->from_wait_pct, "%.2f");
        s_optional(out, row->to_wait_pct, "%.2f");
        s_optional(out, row->steal_pct, "%.2f");
        fprintf(out, ",%d", row->starved);
        fprintf(out, ",%d,%.1f,%.1f", row->sockets, row->min_socket_rate,
                row->max_socket_rate);
        s_sweep_values(out, info);
    }
    fflush(out);
}

//  A median: whole numbers as they are, halves as halves
static void s_number(FILE *out, double value)
{
    fprintf(out, value == (double)(long long)value ? "%.0f" : "%.1f", value);
}

void report_csv_median_rows(FILE *out, const report_info_t *info,
                            const summary_t *summary)
{
    for (int l = 0; l < summary->nlinks; l++) {
        const link_summary_t *s = &summary->links[l];
        fprintf(out, "%s,%s,%u,median,%d,%s,%s,%s,", info->topology,
                info->pattern, summary->size, s->hop, s->from, s->to,
                s->transport);
        s_number(out, s->sent);
        fputc(',', out);
        s_number(out, s->received);
        fputc(',', out);
        s_number(out, s->lost);
        fprintf(out, ",%.6f,%.1f,%.3f,%s,%s,%s,%s", s->seconds, s->rate,
                s->mbps, s->from_cpu, s->to_cpu, s->from_node, s->to_node);
        s_optional(out, s->from_cpu_ns, "%.1f");
        s_optional(out, s->to_cpu_ns, "%.1f");
        fputc(',', out);
        if (s->seq_lost >= 0)
            s_number(out, s->seq_lost);
        fprintf(out, ",%.1f,%s,%d,%s,%s,%.1f,%.1f,%.4f,", s->sent_rate,
                info->mode, s->hwm_bound, s->from_host, s->to_host, s->ci.low,
                s->ci.high, s->ci.coverage);
        if (s->precise >= 0)
            fprintf(out, "%d", s->precise);
        fputc(',', out);
        s_number(out, s->expected);
        fprintf(out, ",%.6g,%s", s->selectivity, info->loss_ratio);
        s_optional(out, s->from_wait_pct, "%.2f");
        s_optional(out, s->to_wait_pct, "%.2f");
        s_optional(out, s->steal_pct, "%.2f");
        fprintf(out, ",%d", s->starved > 0 ? 1 : s->starved);
        fprintf(out, ",%d,%.1f,%.1f", s->sockets, s->min_socket_rate,
                s->max_socket_rate);
        s_sweep_values(out, info);
    }
    fflush(out);
}

void report_sockets_header(FILE *out, const report_info_t *info)
{
    fputs("topology,size,repeat,stage,socket,received,lost,msgs_per_sec,"
          "seq_lost",
          out);
    for (int i = 0; i < info->nsweep; i++)
        s_sweep_column(out, info->sweep_key[i]);
    fputc('\n', out);
    fflush(out);
}

void report_sockets_rows(FILE *out, const report_info_t *info,
                         const trial_result_t *trial)
{
    for (int s = 0; s < trial->nsockets; s++) {
        const socket_row_t *row = &trial->sockets[s];
        fprintf(out, "%s,%u,%d,%s,%d,%llu,%lld,%.1f,%lld", info->topology,
                trial->size, trial->repeat, row->stage, row->socket,
                (unsigned long long)row->received, (long long)row->lost,
                row->rate, (long long)row->seq_lost);
        s_sweep_values(out, info);
    }
    fflush(out);
}

void report_latency_header(FILE *out, const report_info_t *info)
{
    fputs("topology,pattern,size,repeat,hop,samples,mean_us,p50_us,p90_us,"
          "p99_us,p999_us,max_us,mode,p50_ci_low_us,p50_ci_high_us,"
          "p99_ci_low_us,p99_ci_high_us",
          out);
    for (int i = 0; i < info->nsweep; i++)
        s_sweep_column(out, info->sweep_key[i]);
    if (info->at.load)
        fputs(",latency_at,found_per_sec,found_loss_ratio", out);
    fputc('\n', out);
    fflush(out);
}

//  A latency row's end: the sweep's values, latency_at's columns
static void s_latency_tail(FILE *out, const report_info_t *info)
{
    for (int i = 0; i < info->nsweep; i++)
        fprintf(out, ",%s", info->sweep_value[i]);
    if (info->at.load && info->at.fraction > 0)
        fprintf(out, ",%g,%.1f,%g", info->at.fraction, info->at.found,
                info->at.ratio);
    else if (info->at.load)
        fputs(",,,", out);
    fputc('\n', out);
}

void report_latency_rows(FILE *out, const report_info_t *info, uint32_t size,
                         const char *repeat, const latency_row_t *rows,
                         int nrows)
{
    for (int r = 0; r < nrows; r++) {
        const histogram_t *h = &rows[r].histogram;
        fprintf(out, "%s,%s,%u,%s,%s,%llu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f",
                info->topology, info->pattern, size, repeat, rows[r].hop,
                (unsigned long long)histogram_count(h), histogram_mean(h) / 1e3,
                histogram_percentile(h, 50) / 1e3,
                histogram_percentile(h, 90) / 1e3,
                histogram_percentile(h, 99) / 1e3,
                histogram_percentile(h, 99.9) / 1e3, histogram_max(h) / 1e3);
        fprintf(out, ",%s,,,,", info->mode);
        s_latency_tail(out, info);
    }
    fflush(out);
}

void report_latency_median_rows(FILE *out, const report_info_t *info,
                                const summary_t *summary)
{
    for (int r = 0; r < summary->nlatency; r++) {
        const latency_summary_t *s = &summary->latency[r];
        fprintf(out,
                "%s,%s,%u,median,%s,%llu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,"
                "%.3f,%.3f,%.3f,%.3f",
                info->topology, info->pattern, summary->size, s->hop,
                (unsigned long long)s->samples, s->mean, s->p50, s->p90, s->p99,
                s->p999, s->max, info->mode, s->p50_ci.low, s->p50_ci.high,
                s->p99_ci.low, s->p99_ci.high);
        s_latency_tail(out, info);
    }
    fflush(out);
}

static void s_sweep_columns(FILE *out, const report_info_t *info)
{
    for (int i = 0; i < info->nsweep; i++)
        s_sweep_column(out, info->sweep_key[i]);
    fputc('\n', out);
    fflush(out);
}

void report_threads_header(FILE *out, const report_info_t *info)
{
    fputs("stage,thread,tid,allowed_cpus,last_cpu,node,size,repeat,mem_node,"
          "host,wait_pct,nonvoluntary_switches",
          out);
    s_sweep_columns(out, info);
}

void report_threads_rows(FILE *out, const report_info_t *info,
                         const trial_result_t *trial)
{
    for (int t = 0; t < trial->nthreads; t++) {
        const thread_row_t *row = &trial->threads[t];
        fprintf(out, "%s,%s,%d,\"%s\",%d,%d,%u,%d,%d,%s", row->stage,
                row->thread, (int)row->tid, row->allowed, row->last_cpu,
                row->node, trial->size, trial->repeat, row->mem_node,
                row->host);
        s_optional(out, row->wait_pct, "%.2f");
        s_optional(out, (double)row->preempted, "%.0f");
        s_sweep_values(out, info);
    }
    fflush(out);
}

void report_memory_header(FILE *out, const report_info_t *info)
{
    fputs("stage,region,node,pages,present,on_node,by_node,size,repeat", out);
    s_sweep_columns(out, info);
}

void report_memory_rows(FILE *out, const report_info_t *info,
                        const trial_result_t *trial)
{
    for (int m = 0; m < trial->nmemory; m++) {
        const memory_row_t *row = &trial->memory[m];
        char by_node[200];
        pin_pages_format(&row->pages, by_node, sizeof by_node);
        fprintf(out, "%s,%s,%d,%d,%d,", row->stage, row->region, row->node,
                row->pages.pages, row->pages.present);
        if (row->node >= 0)
            fprintf(out, "%d", pin_pages_on(&row->pages, row->node));
        fprintf(out, ",%s,%u,%d", by_node, trial->size, trial->repeat);
        s_sweep_values(out, info);
    }
    fflush(out);
}
