/*  plot_script: DIR/plot.gp from the chart list; see plot_script.h.

    Line charts (msgs/s, MB/s, sweep) share one shape: a log2 size axis
    labelled with the measured sizes, medians joined by lines, min-max
    error bars.  MB/s gets a linked right axis in Gbit/s, the unit of
    libzmq's own graphs.  The bar chart puts msgs/s (left axis) beside
    loss % (right axis, 0-100) for every link at one size.  A search's
    knee is two panels over the rate offered: what each hop delivered
    (beside the line delivered = offered), and what it lost.  A stage's
    system calls are rowstacked histograms: ns per message by call, one
    bar per size, and the same as shares.
*/
#include "report/plot_script.h"

#include "base/outfile.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define PLOT_LOG_SPAN 20

//  A gnuplot double-quoted string: \ and " escaped, newline as \n
static void s_quote(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if ((unsigned char)*p >= ' ')
            fputc(*p, out);
    }
    fputc('"', out);
}

static void s_set_quoted(FILE *out, const char *what, const char *text)
{
    fprintf(out, "set %s ", what);
    s_quote(out, text);
    fputc('\n', out);
}

//  "plot" and a curve per series, each the data file's block of that
//  index drawn as how says ("using 1:2 with lines"), titled with the
//  series' name; the line is left open for what else the chart draws
static void s_plot_blocks(FILE *out, const plot_chart_t *chart, const char *how)
{
    fputs("plot ", out);
    for (int i = 0; i < chart->series.n; i++) {
        fputs(i ? ", \\\n     " : "", out);
        s_quote(out, i ? "" : chart->data);
        fprintf(out, " index %d %s title ", i, how);
        s_quote(out, chart->series.v[i]);
    }
}

//  Sixteen line types, each its own colour (Okabe and Ito's eight, told
//  apart also by those who see few colours), dash and point, so that a
//  chart printed in grey still tells every line from the others: no two
//  share a point type, and neighbours differ in dash too.  `reset` leaves
//  line types as they are: set once for the whole script.
static void s_linetypes(FILE *out)
{
    static const char *const colours[8] = {"#0072b2", "#e69f00", "#009e73",
                                           "#cc79a7", "#56b4e9", "#d55e00",
                                           "#000000", "#f0e442"};
    //  five filled shapes, the same five open, then + x * and the
    //  pentagons: a line and the one five after it share a dash, never
    //  a shape's fill
    static const int points[16] = {7,  5,  9, 11, 13, 6,  4,  8,
                                   10, 12, 1, 2,  3,  14, 15, 0};
    for (int i = 0; i < 16; i++)
        fprintf(out, "set linetype %d lc rgb \"%s\" dt %d pt %d\n", i + 1,
                colours[i % 8], 1 + i % 5, points[i]);
    fputs("set linetype cycle 16\n", out);
}

//  The key: beside the plot, framed, so that it covers no line's end
static void s_key(FILE *out)
{
    fputs("set key outside right top vertical box\n", out);
}

static void s_prologue(FILE *out, plot_term_t term)
{
    fputs("# hopbench charts: written by `hopbench plot`, paths relative to "
          "this directory.\n"
          "# Rerun by hand: gnuplot " PLOT_SCRIPT "\n",
          out);
    if (term == PLOT_TERM_SVG)
        fputs("set terminal svg size 1100,650 noenhanced font "
              "\"sans,11\" background \"white\"\n",
              out);
    else
        fputs("if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
              "    set terminal pngcairo size 1100,650 noenhanced "
              "font \"sans,11\"\n"
              "} else {\n"
              "    set terminal png size 1100,650 noenhanced\n"
              "}\n",
              out);
    fputs("set datafile commentschars \"#\"\n", out);
    s_linetypes(out);
}

//  8, 512, 1K, 16K, 1M: how --sizes spells them
static void s_size_label(unsigned size, char *buf, size_t len)
{
    if (size >= 1u << 20 && size % (1u << 20) == 0)
        snprintf(buf, len, "%uM", size >> 20);
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, len, "%uK", size >> 10);
    else
        snprintf(buf, len, "%u", size);
}

//  The log2 size axis, a tick at each measured size
static void s_size_axis(FILE *out, const plot_chart_t *chart)
{
    unsigned first = chart->sizes[0], last = chart->sizes[chart->nsizes - 1];
    fputs("set logscale x 2\n"
          "set xlabel \"message size (bytes, K = 1024, log scale)\"\n",
          out);
    fprintf(out, "set xrange [%g:%g]\nset xtics (", first / 1.4, last * 1.4);
    for (int i = 0; i < chart->nsizes; i++) {
        char label[32];
        s_size_label(chart->sizes[i], label, sizeof label);
        fprintf(out, "%s\"%s\" %u", i ? ", " : "", label, chart->sizes[i]);
    }
    fputs(")\nset mxtics 1\n", out);
}

static void s_title(FILE *out, const plot_chart_t *chart, const char *what)
{
    char title[3 * PLOT_NAME], note[128];
    if (chart->repeats > 1)
        snprintf(note, sizeof note,
                 "median of %d measurements per point; %s: min to max",
                 chart->repeats,
                 chart->kind == PLOT_HOPS ? "whiskers" : "error bars");
    else
        snprintf(note, sizeof note, "one measurement per point");
    snprintf(title, sizeof title, "%s: %s\n(%s)", chart->name, what, note);
    s_set_quoted(out, "title", title);
}

static void s_output(FILE *out, const plot_chart_t *chart)
{
    fputs("\nreset\n", out);
    s_set_quoted(out, "output", chart->png);
}

//  The x factor that nudges line i of n sideways (log scale), when lines
//  with error bars at the same size would hide each other; 1 otherwise
static double s_nudge(int i, int n, bool apart)
{
    double step = apart && n > 1 ? fmin(0.04, 0.3 / (n - 1)) : 0;
    return pow(2, (i - (n - 1) / 2.0) * step);
}

//  One line per block of the data file: y, its low and high (gnuplot's
//  using, after the x column), as error bars.  Apart: each line nudged
//  sideways (a few % of an octave) so that bars of lines at the same size
//  do not hide each other.
static void s_lines(FILE *out, const plot_chart_t *chart, bool apart,
                    const char *y)
{
    int n = chart->series.n;
    fputs("plot ", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", \\\n     " : "", out);
        s_quote(out, i ? "" : chart->data);
        fprintf(out,
                " index %d using ($1*%.4f):%s with yerrorlines lw 2 ps 0.9 "
                "title ",
                i, s_nudge(i, n, apart), y);
        s_quote(out, chart->series.v[i]);
    }
}

//  ...from column (median, min, max), apart when repeated; and around
//  each point of which a repeat was starved (column PLOT_STARVED), a
//  black ring
static void s_column_lines(FILE *out, const plot_chart_t *chart, int column)
{
    char y[32];
    snprintf(y, sizeof y, "%d:%d:%d", column, column + 1, column + 2);
    s_lines(out, chart, chart->repeats > 1, y);
    for (int i = 0; chart->starved && i < chart->series.n; i++) {
        fputs(", \\\n     ", out);
        s_quote(out, "");
        fprintf(out,
                " index %d using ($1*%.4f):($%d > 0 ? $%d : NaN) with points "
                "pt 6 ps 2.6 lw 2 lc rgb \"black\" %s",
                i, s_nudge(i, chart->series.n, chart->repeats > 1),
                PLOT_STARVED, column,
                i ? "notitle"
                  : "title \"starved (a stage waited for a "
                    "CPU)\"");
    }
    fputc('\n', out);
}

//  Ticks at 1, 2, 5 x 10^k over [lo, hi]: a log axis with only decades
//  labelled is hard to read.  si: 20k, 5M; else %g
static void s_log_tics(FILE *out, const char *axis, double lo, double hi,
                       bool si)
{
    fprintf(out, "set logscale %s\nset %srange [%g:%g]\nset %stics (", axis,
            axis, lo, hi, axis);
    static const int steps[] = {1, 2, 5};
    int n = 0;
    for (double decade = pow(10, floor(log10(lo))); decade <= hi; decade *= 10)
        for (int i = 0; i < 3; i++) {
            double v = steps[i] * decade;
            if (v < lo || v > hi)
                continue;
            fprintf(out, "%s", n++ ? ", " : "");
            if (si && v >= 1e6)
                fprintf(out, "\"%gM\" %g", v / 1e6, v);
            else if (si && v >= 1e3)
                fprintf(out, "\"%gk\" %g", v / 1e3, v);
            else
                fprintf(out, "\"%g\" %g", v, v);
        }
    fputs(")\n", out);
}

//  The y axis from 0, or a log one when the values span more than
//  PLOT_LOG_SPAN times: on a linear axis the large sizes would lie flat.
//  scale: the right axis in the left one's units (0: none)
static void s_y_axis(FILE *out, const double range[2], const char *label,
                     bool si, double scale)
{
    bool log = range[0] > 0 && range[1] > PLOT_LOG_SPAN * range[0];
    char text[PLOT_NAME];
    snprintf(text, sizeof text, "%s%s", label, log ? ", log scale" : "");
    s_set_quoted(out, "ylabel", text);
    if (log) {
        s_log_tics(out, "y", range[0] / 1.5, range[1] * 1.5, si);
        if (scale > 0)
            s_log_tics(out, "y2", range[0] / 1.5 * scale,
                       range[1] * 1.5 * scale, false);
        return;
    }
    //  room above the top point, so that it does not sit on the frame
    if (range[1] > 0)
        fprintf(out, "set yrange [0:%g]\n", range[1] * 1.12);
    else
        fputs("set yrange [0:*]\n", out);
    fprintf(out, "set format y \"%s\"\n", si ? "%.1s%c" : "%g");
    if (scale > 0)
        fprintf(out, "set y2tics\nset link y2 via y*%g inverse y/%g\n", scale,
                scale);
}

static void s_line_chart(FILE *out, const plot_chart_t *chart)
{
    s_output(out, chart);
    s_size_axis(out, chart);
    fputs("set grid xtics ytics\nset ytics nomirror\n", out);
    if (chart->kind == PLOT_MBPS) {
        s_title(out, chart, "throughput of each hop against message size");
        s_y_axis(out, chart->mbps, "MB/s received (1 MB = 10^6 bytes)", false,
                 0.008);
        //  MB/s grows with size: the bottom right corner is the free one
        fputs("set y2label \"Gbit/s\"\nset format y2 \"%g\"\n", out);
        s_key(out);
        s_column_lines(out, chart, 5);
        return;
    }
    s_title(out, chart,
            chart->kind == PLOT_SWEEP ? chart->what
                                      : "messages per second of each hop "
                                        "against message size");
    s_y_axis(out, chart->rate, "messages/s received (k = 10^3, M = 10^6)", true,
             0);
    s_key(out);
    s_column_lines(out, chart, 2);
}

//  A swept key's values at evenly spaced places, a line per size
static void s_value_chart(FILE *out, const plot_chart_t *chart)
{
    int n = chart->ticks.n;
    s_output(out, chart);
    char label[PLOT_NAME + 40];
    snprintf(label, sizeof label, "%s (the values swept, evenly spaced)",
             chart->key);
    s_set_quoted(out, "xlabel", label);
    fprintf(out, "set xrange [-0.5:%g]\nset xtics (", n - 0.5);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", out);
        s_quote(out, chart->ticks.v[i]);
        fprintf(out, " %d", i);
    }
    fputs(")\nset grid xtics ytics\nset ytics nomirror\n", out);
    s_title(out, chart, chart->what);
    if (chart->kind == PLOT_COST)
        s_y_axis(out, chart->rate,
                 "sender's CPU ns per message delivered (per connection)",
                 false, 0);
    else
        s_y_axis(out, chart->rate, "messages/s received (k = 10^3, M = 10^6)",
                 true, 0);
    s_key(out);
    s_plot_blocks(out, chart, "using 1:2:3:4 with yerrorlines lw 2 ps 0.9");
    fputc('\n', out);
}

//  A bar's label: its lines one under the other for a few bars; for more,
//  on one line, slanted, so that neighbours do not run together
static void s_bar_label(FILE *out, const char *label, bool flat)
{
    char text[PLOT_NAME];
    snprintf(text, sizeof text, "%s", label);
    for (char *p = text; flat && *p; p++)
        if (*p == '\n')
            *p = ' ';
    s_quote(out, text);
}

static void s_bar_axes(FILE *out, const plot_chart_t *chart)
{
    bool flat = chart->series.n > 4;
    fputs(
        "set style fill solid 0.85 border -1\nset boxwidth 0.36\n"
        "set grid ytics\nset yrange [0:*]\nset offsets 0, 0, graph 0.15, 0\n"
        "set format y \"%.1s%c\"\nset ytics nomirror\n"
        "set ylabel \"messages/s received (k = 10^3, M = 10^6)\"\n"
        "set y2range [0:115]\nset y2tics 0, 20, 100\nset format y2 \"%g%%\"\n",
        out);
    fprintf(out, "set y2label \"lost (%% of what the hop %s)\"\n",
            chart->expected ? "was expected to carry" : "was sent");
    fprintf(out, "set key outside right top box\nset bmargin %d\n",
            flat ? 9 : 6);
    fprintf(out, "set xrange [-0.6:%g]\nset xtics nomirror %s(",
            chart->series.n - 0.4, flat ? "rotate by 25 right " : "");
    for (int i = 0; i < chart->series.n; i++) {
        fputs(i ? ", " : "", out);
        s_bar_label(out, chart->series.v[i], flat);
        fprintf(out, " %d", i);
    }
    fputs(")\n", out);
}

//  msgs/s bars (left) beside loss % bars (right axis), one pair per link
static void s_bar_chart(FILE *out, const plot_chart_t *chart)
{
    char what[PLOT_NAME];
    snprintf(what, sizeof what, "every hop at %u-byte messages", chart->size);
    s_output(out, chart);
    s_title(out, chart, what);
    s_bar_axes(out, chart);
    fputs("plot ", out);
    s_quote(out, chart->data);
    fprintf(out,
            " using ($1-0.19):2 with boxes lc rgb \"#4472c4\" "
            "title \"messages/s received%s\", \\\n",
            chart->repeats > 1 ? " (median)" : "");
    if (chart->repeats > 1)
        fputs("     \"\" using ($1-0.19):3:(0):($4-$3) with vectors heads "
              "size screen 0.008,90 lc rgb \"black\" lw 1.5 "
              "title \"min to max\", \\\n",
              out);
    fprintf(out,
            "     \"\" using ($1-0.19):4:6 with labels offset 0,0.8 "
            "notitle, \\\n"
            "     \"\" using ($1+0.19):5 axes x1y2 with boxes lc rgb "
            "\"#d9534f\" fs pattern 2 title \"lost, %% of %s (right axis)\", "
            "\\\n"
            "     \"\" using ($1+0.19):5:7 axes x1y2 with labels offset 0,0.8 "
            "notitle\n",
            chart->expected ? "expected" : "sent");
}

//  One panel of a knee: column col of every block against the rate offered
static void s_knee_panel(FILE *out, const plot_chart_t *chart, int col,
                         bool diagonal)
{
    char how[64];
    snprintf(how, sizeof how, "using 1:%d with linespoints lw 2 ps 0.9", col);
    s_plot_blocks(out, chart, how);
    if (diagonal)
        fputs(", \\\n     x with lines dt 2 lc rgb \"gray50\" "
              "title \"delivered = offered\"",
              out);
    fputc('\n', out);
}

static void s_knee_chart(FILE *out, const plot_chart_t *chart)
{
    char title[3 * PLOT_NAME], found[64] = "no rate passed";
    if (chart->found > 0)
        snprintf(found, sizeof found, "found: %.0f msgs/s offered",
                 chart->found);
    snprintf(title, sizeof title,
             "%s: the search at %u-byte messages\n(one point per trial; %s, "
             "dotted)",
             chart->name, chart->size, found);
    s_output(out, chart);
    fputs("set multiplot layout 2,1\n", out);
    s_set_quoted(out, "title", title);
    fputs("set grid xtics ytics\n"
          "set xlabel \"messages/s offered (all publishers)\"\n",
          out);
    s_key(out);
    double lo = chart->offered[0], hi = chart->offered[1];
    if (lo > 0 && hi > PLOT_LOG_SPAN * lo)
        s_log_tics(out, "x", lo / 1.5, hi * 1.5, true);
    else
        fputs("set xrange [0:*]\nset format x \"%.1s%c\"\n", out);
    if (chart->found > 0)
        fprintf(out,
                "set arrow from %g, graph 0 to %g, graph 1 nohead dt 3 "
                "lw 2 lc rgb \"black\"\n",
                chart->found, chart->found);
    //  the delivered axis follows the points, not the diagonal
    if (lo > 0 && hi > PLOT_LOG_SPAN * lo && chart->rate[0] > 0)
        s_log_tics(out, "y", chart->rate[0] / 1.5, chart->rate[1] * 1.5, true);
    else
        fprintf(out, "set yrange [0:%g]\nset format y \"%%.1s%%c\"\n",
                chart->rate[1] * 1.15);
    fputs("set ylabel \"messages/s delivered\"\n", out);
    s_knee_panel(out, chart, 2, true);
    fputs("unset logscale y\nset ytics autofreq\n", out);
    fputs("unset title\nset ylabel \"lost (% of what the hop was sent)\"\n"
          "set yrange [0:*]\nset format y \"%g%%\"\n",
          out);
    s_knee_panel(out, chart, 3, false);
    fputs("unset multiplot\n", out);
}

//  The ratio axis of compare's chart: a log scale, so that half and double
//  lie as far from 0 %, ticks at round ratios (finer for a narrow range)
//  labelled as deltas
static void s_ratio_axis(FILE *out, double lo, double hi)
{
    static const double coarse[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
                                    2,    5,    10,   20,  50,  100, 0};
    static const double medium[] = {0.05, 0.1, 0.2, 0.3, 0.5,  0.7,
                                    0.8,  0.9, 1,   1.1, 1.25, 1.5,
                                    2,    3,   5,   10,  20,   0};
    static const double fine[] = {0.8,  0.9,  0.95, 0.98, 0.99, 1,
                                  1.01, 1.02, 1.05, 1.1,  1.25, 0};
    const double *ticks = hi / lo > 20 ? coarse : hi / lo > 1.5 ? medium : fine;
    fprintf(out, "set logscale y\nset yrange [%g:%g]\nset ytics (", lo, hi);
    for (int i = 0, n = 0; ticks[i] > 0; i++)
        if (ticks[i] >= lo && ticks[i] <= hi) //  labels are formats: %%
            fprintf(out, "%s\"%+g%%%%\" %g", n++ ? ", " : "",
                    100 * (ticks[i] - 1), ticks[i]);
    fputs(")\n", out);
}

//  compare's chart: each link's delta (median, and the interval as error
//  bars) against size, on the ratio other / base, a line at 0 %
static void s_delta_chart(FILE *out, const plot_chart_t *chart)
{
    char title[3 * PLOT_NAME];
    double lo = fmax(1 + fmin(chart->rate[0], 0) / 100, 0.005);
    double hi = fmax(1 + fmax(chart->rate[1], 0) / 100, lo * 1.01);
    s_output(out, chart);
    s_size_axis(out, chart);
    snprintf(title, sizeof title, "%s\n(%s)", chart->name, chart->what);
    s_set_quoted(out, "title", title);
    fputs("set grid xtics ytics\nset ytics nomirror\n"
          "set ylabel \"delta of msgs/s received (other / base - 1, log "
          "scale of the ratio)\"\n"
          "set arrow from graph 0, first 1 to graph 1, first 1 nohead "
          "lw 1.5 lc rgb \"black\"\n"
          "set key outside right top box\n",
          out);
    s_ratio_axis(out, lo / 1.15, hi * 1.15);
    s_lines(out, chart, true, "(1+$2/100):(1+$3/100):(1+$4/100)");
    fputc('\n', out);
}

//  One panel of a syscalls chart: every series stacked, as they are
//  (share false) or as a share of the bar's total (column n + 2)
static void s_stack_panel(FILE *out, const plot_chart_t *chart, bool share)
{
    int n = chart->series.n, total = n + 2;
    fputs("plot ", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", \\\n     " : "", out);
        s_quote(out, i ? "" : chart->data);
        if (share)
            fprintf(out, " using ($%d > 0 ? 100*$%d/$%d : 0)", total, i + 2,
                    total);
        else
            fprintf(out, " using %d", i + 2);
        fputs(i ? " title " : ":xtic(1) title ", out);
        s_quote(out, chart->series.v[i]);
    }
    fputc('\n', out);
}

//  --profile syscalls: a stage's ns per message by system call, one
//  stacked bar per size, and below the same as shares of each bar
static void s_syscalls_chart(FILE *out, const plot_chart_t *chart)
{
    char title[3 * PLOT_NAME];
    snprintf(title, sizeof title,
             "%s: ns per message in system calls, by call\n(entry to exit, "
             "a blocking call's wait included; the stage's threads summed, "
             "median of the repeats)",
             chart->name);
    s_output(out, chart);
    fputs("set multiplot layout 2,1\n", out);
    s_set_quoted(out, "title", title);
    fputs("set style data histograms\nset style histogram rowstacked\n"
          "set style fill solid 0.85 border -1\nset boxwidth 0.7\n"
          "set grid ytics\nset key outside right top box\n"
          "set xlabel \"message size (bytes)\"\nset yrange [0:*]\n"
          "set ylabel \"ns per message\"\nset format y \"%.1s%c\"\n",
          out);
    s_stack_panel(out, chart, false);
    fputs("unset title\nset yrange [0:100]\nset format y \"%g%%\"\n"
          "set ylabel \"share of the stage's time in calls\"\n",
          out);
    s_stack_panel(out, chart, true);
    fputs("unset multiplot\n", out);
}

//  latency_at: p50 and p99 against the rate offered, the rate found
//  dotted (plot_latency_at.h)
static void s_latload_chart(FILE *out, const plot_chart_t *chart)
{
    char title[3 * PLOT_NAME];
    snprintf(title, sizeof title,
             "%s: latency against load at %u-byte messages\n(end to end, "
             "open loop; found: %.0f msgs/s offered, dotted)",
             chart->name, chart->size, chart->found);
    s_output(out, chart);
    s_set_quoted(out, "title", title);
    fputs("set grid xtics ytics\n"
          "set xlabel \"messages/s offered (all publishers)\"\n"
          "set ylabel \"latency (us)\"\nset format x \"%.1s%c\"\n",
          out);
    s_key(out);
    fprintf(out, "set xrange [0:%g]\nset yrange [0:%g]\n",
            1.05 * fmax(chart->found, chart->offered[1]),
            1.15 * chart->rate[1]);
    if (chart->found > 0)
        fprintf(out,
                "set arrow from %g, graph 0 to %g, graph 1 nohead dt 3 "
                "lw 2 lc rgb \"black\"\n",
                chart->found, chart->found);
    fputs("plot ", out);
    s_quote(out, chart->data);
    fputs(" using 1:2 with linespoints lw 2 pt 7 title \"p50\", \\\n     "
          "'' using 1:3 with linespoints lw 2 pt 5 title \"p99\"\n",
          out);
}

//  A sizing's candidates: cost against the rate carried, a point type
//  per verdict, each point numbered, the target x (1 + headroom) dashed
static void s_sizing_chart(FILE *out, const plot_chart_t *chart)
{
    s_output(out, chart);
    s_set_quoted(out, "title",
                 "hopbench size: cost against the rate each candidate "
                 "carried\n(confirmed at the target x (1 + headroom), else "
                 "its capacity flat out; the target dashed)");
    fputs("set xlabel \"cost (broker CPUs, or cost = N)\"\n"
          "set ylabel \"messages/s offered (all publishers)\"\n"
          "set grid\nset xrange [0:*]\nset offsets 0.5, 0.5, 0, 0\n"
          "set format y \"%.1s%c\"\n",
          out);
    fprintf(out, "set yrange [0:%g]\n",
            1.2 * fmax(chart->rate[1], chart->found));
    s_key(out);
    fputs("plot ", out);
    for (int i = 0; i < chart->series.n; i++) {
        fputs(i ? ", \\\n     " : "", out);
        s_quote(out, i ? "" : chart->data);
        fprintf(out, " index %d using 1:2 with points ps 2 lw 2 title ", i);
        s_quote(out, chart->series.v[i]);
        fprintf(out,
                ", \\\n     '' index %d using 1:2:3 with labels offset 1.2,1 "
                "left notitle",
                i);
    }
    if (chart->found > 0)
        fprintf(out,
                "%s%g with lines dt 2 lw 2 lc rgb \"black\" title \"target x "
                "(1 + headroom)\"",
                chart->series.n ? ", \\\n     " : "", chart->found);
    fputc('\n', out);
}

//  Latency's quantiles: a line per size, on a scale of nines
static void s_quantiles_chart(FILE *out, const plot_chart_t *chart)
{
    char title[3 * PLOT_NAME];
    snprintf(title, sizeof title, "%s: end-to-end latency quantiles\n(%s)",
             chart->name, chart->what);
    s_output(out, chart);
    s_set_quoted(out, "title", title);
    fputs("set xrange [0.1:4.2]\nset xtics (\"p50\" 0.301, \"p90\" 1, "
          "\"p99\" 2, \"p99.9\" 3, \"p99.99\" 4)\n"
          "set xlabel \"quantile (a scale of nines)\"\n"
          "set grid xtics ytics\n",
          out);
    if (chart->rate[0] > 0)
        s_log_tics(out, "y", chart->rate[0] / 1.5, chart->rate[1] * 1.5, false);
    fputs("set ylabel \"latency (us, log scale)\"\n", out);
    s_key(out);
    s_plot_blocks(out, chart, "using 1:2 with linespoints lw 2 ps 1.2");
    fputc('\n', out);
}

//  Each link's rate over the window: a line per hop and what chart->what
//  says (repeat, a search's confirming trial; a sizing's joined windows)
static void s_timeline_chart(FILE *out, const plot_chart_t *chart)
{
    char title[3 * PLOT_NAME];
    snprintf(title, sizeof title,
             "%s: each hop's rate over the window at %u-byte messages\n(a "
             "point per poll of the counters; %s)",
             chart->name, chart->size, chart->what);
    s_output(out, chart);
    s_set_quoted(out, "title", title);
    fprintf(out,
            "set xlabel \"%s\"\nset xrange [0:%g]\n"
            "set ylabel \"messages/s received\"\nset yrange [0:%g]\n"
            "set format y \"%%.1s%%c\"\nset grid xtics ytics\n",
            chart->joined ? "seconds of the windows, end to end"
                          : "seconds into the window",
            chart->offered[1], 1.1 * chart->rate[1] + 1);
    s_key(out);
    s_plot_blocks(out, chart, "using 1:2 with linespoints lw 1.5 ps 0.6");
    fputc('\n', out);
}

int plot_script_write(const char *dir, const plot_charts_t *charts,
                      plot_term_t term, errbuf_t *err)
{
    FILE *out = outfile_create(dir, PLOT_SCRIPT, err);
    if (!out)
        return -1;
    s_prologue(out, term);
    for (int i = 0; i < charts->n; i++) {
        if (charts->v[i].kind == PLOT_HOPS)
            s_bar_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_DELTA)
            s_delta_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_KNEE)
            s_knee_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_LATLOAD)
            s_latload_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_SYSCALLS)
            s_syscalls_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_SIZING)
            s_sizing_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_QUANTILES)
            s_quantiles_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_TIMELINE)
            s_timeline_chart(out, &charts->v[i]);
        else if (charts->v[i].kind == PLOT_VALUE ||
                 charts->v[i].kind == PLOT_COST)
            s_value_chart(out, &charts->v[i]);
        else
            s_line_chart(out, &charts->v[i]);
    }
    fputs("\nunset output\n", out);
    return outfile_close(out, dir, PLOT_SCRIPT, 0, err);
}
