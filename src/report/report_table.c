/*  report_table: the human table, one block per message size.

    proxy (pubsub)  size 1024 B  window 1.00 s  median of 3 repeats
     hop  from -> to      transport    msgs/s  (min - max)         MB/s  lost  lost%  cpu ns/msg fr/to
       1  pub -> broker   tcp       1,234,567  (1.20M - 1.25M)   1264.2     0  0.00%        310 / 402

    msgs/s and MB/s are medians over the repetitions; lost and lost% add
    up every repetition; CPU per message is the median.  In flood mode a
    row whose rate is the HWM's bound (hwm_bound) ends with "HWM", and a
    line under the block says what sets it.
*/
#include "report/report.h"

#include "config/params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int s_compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double report_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, s_compare);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

const char *report_grouped(double value, char *buf, size_t len)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", value);
    int n = (int)strlen(digits), out = 0;
    for (int i = 0; i < n && out + 2 < (int)len; i++) {
        if (i && (n - i) % 3 == 0 && digits[i - 1] != '-')
            buf[out++] = ',';
        buf[out++] = digits[i];
    }
    buf[out] = 0;
    return buf;
}

const char *report_short(double value, char *buf, size_t len)
{
    if (value >= 1e6)
        snprintf(buf, len, "%.2fM", value / 1e6);
    else if (value >= 1e3)
        snprintf(buf, len, "%.1fk", value / 1e3);
    else
        snprintf(buf, len, "%.0f", value);
    return buf;
}

static void s_cpu(double from, double to, char *buf, size_t len)
{
    char a[16] = "-", b[16] = "-";
    if (from >= 0)
        snprintf(a, sizeof a, "%.0f", from);
    if (to >= 0)
        snprintf(b, sizeof b, "%.0f", to);
    snprintf(buf, len, "%s / %s", a, b);
}

//  Is link l HWM-bound in most repetitions?
static bool s_hwm_bound(const trial_result_t *trials, int ntrials, int l)
{
    int bound = 0;
    for (int t = 0; t < ntrials; t++)
        bound += trials[t].links[l].hwm_bound;
    return 2 * bound > ntrials;
}

static void s_row(FILE *out, const trial_result_t *trials, int ntrials, int l)
{
    double rate[ntrials], mb[ntrials], from_ns[ntrials], to_ns[ntrials];
    uint64_t sent = 0, lost = 0;
    for (int t = 0; t < ntrials; t++) {
        const link_row_t *row = &trials[t].links[l];
        rate[t] = link_rate(row);
        mb[t] = rate[t] * trials[t].size / 1e6;
        from_ns[t] = row->from_cpu_ns;
        to_ns[t] = row->to_cpu_ns;
        sent += row->sent;
        lost += row->sent - row->received;
    }
    const link_row_t *row = &trials[0].links[l];
    char link[2 * RESULTS_NAME_MAX + 8], rates[32], lo[16], hi[16], spread[40],
        lost_text[32], cpu[48];
    snprintf(link, sizeof link, "%s -> %s", row->from, row->to);
    double median = report_median(rate, ntrials); //  sorts rate[]
    snprintf(spread, sizeof spread, " ");
    if (ntrials > 1) {
        char range[32];
        snprintf(range, sizeof range, "(%s - %s)",
                 report_short(rate[0], lo, sizeof lo),
                 report_short(rate[ntrials - 1], hi, sizeof hi));
        snprintf(spread, sizeof spread, " %-19s", range);
    }
    s_cpu(report_median(from_ns, ntrials), report_median(to_ns, ntrials), cpu,
          sizeof cpu);
    fprintf(out, "%4d  %-22s %-9s %11s %s%10.1f %12s %6.2f%% %17s%s\n",
            row->hop, link, params_transport_names[row->transport],
            report_grouped(median, rates, sizeof rates), spread,
            report_median(mb, ntrials),
            report_grouped((double)lost, lost_text, sizeof lost_text),
            sent ? 100.0 * (double)lost / (double)sent : 0.0, cpu,
            s_hwm_bound(trials, ntrials, l) ? "  HWM" : "");
}

//  Under a flood block with HWM-bound rows: what sets their figure
static void s_hwm_note(FILE *out, const trial_result_t *trials, int ntrials)
{
    double bound = 0;
    for (int l = 0; l < trials[0].nlinks; l++)
        if (s_hwm_bound(trials, ntrials, l))
            bound = trials[0].links[l].bound_rate;
    if (bound <= 0)
        return;
    char text[32];
    fprintf(out,
            "      HWM: this rate is set by the HWM and libzmq's command "
            "batching, not by the pipeline:\n"
            "      a flooding XPUB delivers about pipe HWM x TSC Hz / 3e6 = "
            "%s msgs/s per pipe (mode = capacity measures the pipeline)\n",
            report_grouped(bound, text, sizeof text));
}

void report_table_size(FILE *out, const report_info_t *info,
                       const trial_result_t *trials, int ntrials)
{
    if (ntrials == 0)
        return;
    fprintf(out, "\n%s (%s%s%s)  size %u B  window %.2f s", info->topology,
            info->pattern, info->mode[0] ? ", " : "", info->mode,
            trials[0].size,
            trials[0].nlinks ? trials[0].links[0].seconds : 0.0);
    if (ntrials > 1)
        fprintf(out, "  median of %d repeats", ntrials);
    for (int i = 0; i < info->nsweep; i++)
        fprintf(out, "  %s=%s", info->sweep_key[i], info->sweep_value[i]);
    fprintf(out, "\n%4s  %-22s %-9s %11s %s%10s %12s %7s %17s\n", "hop",
            "from -> to", "transport", "msgs/s",
            ntrials > 1 ? " (min - max)        " : " ", "MB/s", "lost", "lost%",
            "cpu ns/msg fr/to");
    for (int l = 0; l < trials[0].nlinks; l++)
        s_row(out, trials, ntrials, l);
    s_hwm_note(out, trials, ntrials);
    fflush(out);
}

void report_table_latency(FILE *out, const latency_row_t *rows, int nrows,
                          const char *e2e)
{
    for (int r = 0; r < nrows; r++) {
        const histogram_t *h = &rows[r].histogram;
        char samples[32], what[32];
        if (strcmp(rows[r].hop, "e2e") == 0)
            snprintf(what, sizeof what, "%s", e2e);
        else
            snprintf(what, sizeof what, "to end of hop %s", rows[r].hop);
        fprintf(
            out,
            "      latency %-15s %s samples  mean %.1f  p50 %.1f  p90 "
            "%.1f  p99 %.1f  p99.9 %.1f  max %.1f us\n",
            what,
            report_grouped((double)histogram_count(h), samples, sizeof samples),
            histogram_mean(h) / 1e3, histogram_percentile(h, 50) / 1e3,
            histogram_percentile(h, 90) / 1e3,
            histogram_percentile(h, 99) / 1e3,
            histogram_percentile(h, 99.9) / 1e3, histogram_max(h) / 1e3);
    }
    fflush(out);
}

void report_table_clocks(FILE *out, const run_host_t *hosts, int nhosts)
{
    fputs("      clocks  ", out);
    for (int i = 0; i < nhosts; i++)
        fprintf(out, "%s%s %+.1f +- %.1f us", i ? ", " : "", hosts[i].name,
                hosts[i].clock_offset_ns / 1e3,
                hosts[i].clock_uncertainty_ns / 1e3);
    fputs(" against the controller's: one-way latency across hosts is "
          "corrected by these offsets and is no better than their "
          "uncertainty\n",
          out);
    fflush(out);
}
