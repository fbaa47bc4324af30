/*  report_placements: the study of placement = all, as a plan and as a
    run's summary (see report_placements.h).

    Design: figures are kept per (group, size, assignment) as they come;
    the summary sorts each (group, size) block by last-hop rate at the
    end.  Nothing here measures or plans: run/study.c fills the study,
    run.c the figures.
*/
#include "report/report_placements.h"

#include "report/report.h"

#include <stdlib.h>
#include <string.h>

//  ------------------------------------------------------------------------
//  Figures

//  Each hop's rate in one trial: its rows' rates added (fan-out, fan-in)
static void s_hop_rates(const trial_result_t *trial, double *hop, int nhops)
{
    for (int h = 0; h < nhops; h++)
        hop[h] = 0;
    for (int l = 0; l < trial->nlinks; l++) {
        int h = trial->links[l].hop - 1;
        if (h >= 0 && h < nhops)
            hop[h] += link_rate(&trial->links[l]);
    }
}

static void s_latency(placement_figures_t *f, const trial_result_t *merged)
{
    f->p50_us = f->p99_us = -1;
    for (int r = 0; merged && r < merged->nlatency; r++)
        if (strcmp(merged->latency[r].hop, "e2e") == 0) {
            const histogram_t *h = &merged->latency[r].histogram;
            f->p50_us = histogram_percentile(h, 50) / 1e3;
            f->p99_us = histogram_percentile(h, 99) / 1e3;
        }
}

static placement_figures_t *s_room(placements_t *self)
{
    if (self->nfigures == self->room) {
        int room = self->room ? 2 * self->room : 64;
        placement_figures_t *more =
            realloc(self->figures, (size_t)room * sizeof *more);
        if (!more)
            return NULL;
        self->figures = more;
        self->room = room;
    }
    return &self->figures[self->nfigures++];
}

int placements_add(placements_t *self, int assignment, int group,
                   const char *group_text, const trial_result_t *trials, int n,
                   const trial_result_t *merged)
{
    int nhops = self->nhops;
    placement_figures_t *f = n > 0 ? s_room(self) : NULL;
    double *rates =
        calloc((size_t)(n > 0 ? n : 1) * (size_t)self->nstages, sizeof *rates);
    if (n <= 0 || !f || !rates) {
        free(rates);
        return n <= 0 ? 0 : -1;
    }
    *f = (placement_figures_t){
        .assignment = assignment, .group = group, .size = trials[0].size};
    f->repeats = n;
    for (int t = 0; t < n; t++)
        s_hop_rates(&trials[t], rates + (size_t)t * (size_t)self->nstages,
                    nhops);
    double column[LIMIT_REPEAT];
    for (int h = 0; h < nhops; h++) {
        for (int t = 0; t < n; t++)
            column[t] = rates[(size_t)t * (size_t)self->nstages + h];
        f->hop[h] = report_median(column, n);
        if (h == nhops - 1)
            f->rate = f->hop[h], f->low = column[0], f->high = column[n - 1];
    }
    free(rates);
    s_latency(f, merged);
    if (group >= self->ngroups && group < LIMIT_SWEEP_COMBOS) {
        self->ngroups = group + 1;
        snprintf(self->group_text[group], sizeof self->group_text[group], "%s",
                 group_text);
    }
    return 0;
}

void placements_free(placements_t *self)
{
    free(self->figures);
    self->figures = NULL;
    self->nfigures = self->room = 0;
}

//  ------------------------------------------------------------------------
//  Words

//  "2" / "1+2": the crossing hops, 1-based; "-" when none
static void s_crossing_list(const placements_t *self, const placement_t *p,
                            char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int h = 0; h < self->nhops && used < len; h++)
        if (p->crosses[h])
            used += (size_t)snprintf(buf + used, len - used, "%s%d",
                                     used ? "+" : "", h + 1);
    if (!used)
        snprintf(buf, len, "-");
}

//  "pub+broker+sub": what each place in a nodes value stands for
static void s_stage_list(const placements_t *self, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int s = 0; s < self->nstages && used < len; s++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", s ? "+" : "",
                                 self->stage_names[s]);
}

static void s_headline(FILE *out, const placements_t *self, const char *lead)
{
    char stages[600];
    s_stage_list(self, stages, sizeof stages);
    fprintf(out,
            "%s%.0f distinct assignment%s of %d stages to %d node%s (of "
            "%.0f; %s); nodes lists %s\n",
            lead, self->counted.count, self->counted.count == 1 ? "" : "s",
            self->nstages, self->nnodes, self->nnodes == 1 ? "" : "s",
            self->counted.total, self->alike, stages);
    if (self->note[0])
        fprintf(out, "# %s\n", self->note);
    for (int a = 0; a < self->n; a++)
        if (self->placement[a].crowded)
            fprintf(out,
                    "# nodes %s: a node has fewer CPUs than its stage "
                    "threads, so they share its CPUs\n",
                    self->placement[a].nodes);
    for (int r = 0; r < self->nrefused; r++)
        fprintf(out, "# not measured: nodes %s: %s\n", self->refused[r],
                self->why[r]);
}

//  ------------------------------------------------------------------------
//  As a plan

void report_placements_plan(FILE *out, const placements_t *self,
                            const machine_t *machine, bool csv)
{
    char hops[256], lead[700];
    if (csv) {
        fputs("assignment,nodes,crossings,crossing_hops,controller_cpus,"
              "controller_node,measured,why\n",
              out);
        for (int a = 0; a < self->n; a++) {
            const placement_t *p = &self->placement[a];
            s_crossing_list(self, p, hops, sizeof hops);
            fprintf(out, "%d,%s,%d,%s,\"%s\",%d,1,\n", a + 1, p->nodes,
                    p->crossings, hops, p->controller_cpus, p->controller_node);
        }
        for (int r = 0; r < self->nrefused; r++)
            fprintf(out, ",%s,,,,,0,\"%s\"\n", self->refused[r], self->why[r]);
        return;
    }
    snprintf(lead, sizeof lead,
             "# %s on %s (%s), placement all: ", self->topo->name,
             machine->name, machine->source);
    s_headline(out, self, lead);
    fprintf(out, "%10s  %-12s %9s  %-16s %s\n", "assignment", "nodes",
            "crossings", "controller", "crossing hops");
    for (int a = 0; a < self->n; a++) {
        const placement_t *p = &self->placement[a];
        size_t used = 0;
        hops[0] = 0;
        for (int h = 0; h < self->nhops && used < sizeof hops; h++)
            if (p->crosses[h])
                used += (size_t)snprintf(hops + used, sizeof hops - used,
                                         "%shop %d %s", used ? ", " : "", h + 1,
                                         self->hop_names[h]);
        char home[96] = "not pinned";
        if (p->controller_node >= 0)
            snprintf(home, sizeof home, "CPU %s (node %d)", p->controller_cpus,
                     p->controller_node);
        fprintf(out, "%10d  %-12s %9d  %-16s %s\n", a + 1, p->nodes,
                p->crossings, home, used ? hops : "-");
    }
}

//  ------------------------------------------------------------------------
//  A run's summary

//  The figures of one (group, size) block, best last-hop rate first
static int s_block(const placements_t *self, int group, uint32_t size,
                   placement_figures_t **block)
{
    int n = 0;
    for (int f = 0; f < self->nfigures; f++)
        if (self->figures[f].group == group && self->figures[f].size == size)
            block[n++] = &self->figures[f];
    for (int i = 1; i < n; i++) //  few: insertion sort, stable
        for (int j = i; j > 0 && block[j]->rate > block[j - 1]->rate; j--) {
            placement_figures_t *t = block[j];
            block[j] = block[j - 1];
            block[j - 1] = t;
        }
    return n;
}

//  The best rate hop h has where it does not cross, -1: it always does
static double s_uncrossed(const placements_t *self,
                          placement_figures_t *const *block, int n, int h)
{
    double best = -1;
    for (int i = 0; i < n; i++)
        if (!self->placement[block[i]->assignment].crosses[h] &&
            block[i]->hop[h] > best)
            best = block[i]->hop[h];
    return best;
}

//  "hop 2 broker -> sub -20.4%": each crossing hop and what it pays
static void s_pays(const placements_t *self, placement_figures_t *const *block,
                   int n, const placement_figures_t *f, char *buf, size_t len)
{
    const placement_t *p = &self->placement[f->assignment];
    size_t used = 0;
    buf[0] = 0;
    for (int h = 0; h < self->nhops && used < len; h++) {
        if (!p->crosses[h])
            continue;
        double best = s_uncrossed(self, block, n, h);
        char pays[32] = "";
        if (best > 0)
            snprintf(pays, sizeof pays, " %+.1f%%",
                     100.0 * (f->hop[h] - best) / best);
        used +=
            (size_t)snprintf(buf + used, len - used, "%shop %d %s%s",
                             used ? ", " : "", h + 1, self->hop_names[h], pays);
    }
    if (!used)
        snprintf(buf, len, "-");
}

//  Rank by latency (p50, lower first) of each row, 0 when it has none
static int s_latency_rank(placement_figures_t *const *block, int n, int i)
{
    if (block[i]->p50_us < 0)
        return 0;
    int rank = 1;
    for (int j = 0; j < n; j++)
        rank += block[j]->p50_us >= 0 && block[j]->p50_us < block[i]->p50_us;
    return rank;
}

static void s_summary_row(FILE *out, const placements_t *self,
                          placement_figures_t *const *block, int n, int i)
{
    const placement_figures_t *f = block[i];
    const placement_t *p = &self->placement[f->assignment];
    char rate[32], lo[16], hi[16], range[40] = "", pays[400], lat[64] = "";
    report_grouped(f->rate, rate, sizeof rate);
    if (f->repeats >= 3)
        snprintf(range, sizeof range, "(%s - %s)",
                 report_short(f->low, lo, sizeof lo),
                 report_short(f->high, hi, sizeof hi));
    if (self->rate_mode && f->p50_us >= 0)
        snprintf(lat, sizeof lat, "%9.1f %9.1f %5d", f->p50_us, f->p99_us,
                 s_latency_rank(block, n, i));
    s_pays(self, block, n, f, pays, sizeof pays);
    fprintf(out, "%5d  %-12s %9d  %13s %-19s %s%s%s\n", i + 1, p->nodes,
            p->crossings, rate, range, self->rate_mode ? lat : "",
            self->rate_mode ? "  " : "", pays);
}

static void s_summary_block(FILE *out, const placements_t *self, int group,
                            uint32_t size, placement_figures_t **block)
{
    int n = s_block(self, group, size, block);
    if (n == 0)
        return;
    int repeats = block[0]->repeats;
    fprintf(out, "\n%s%ssize %u B, %s%d repetition%s%s\n",
            self->group_text[group], self->group_text[group][0] ? ", " : "",
            size, repeats > 1 ? "median of " : "", repeats,
            repeats == 1 ? "" : "s",
            repeats >= 3 ? " (min - max; no confidence intervals yet)" : "");
    fprintf(out, "%5s  %-12s %9s  %13s %-19s %s%s\n", "rank", "nodes",
            "crossings", "last hop msg/s", "",
            self->rate_mode ? "   p50 us    p99 us  rank  " : "",
            "crossing hops (each against its best uncrossed rate)");
    for (int i = 0; i < n; i++)
        s_summary_row(out, self, block, n, i);
}

void report_placements(FILE *out, const placements_t *self)
{
    placement_figures_t **block =
        calloc((size_t)self->nfigures + 1, sizeof *block);
    if (!block)
        return;
    s_headline(out, self, "placement all: ");
    for (int g = 0; g < self->ngroups; g++)
        for (int f = 0; f < self->nfigures; f++) {
            const placement_figures_t *fig = &self->figures[f];
            bool first = true; //  each size once per group
            for (int e = 0; e < f && first; e++)
                first = self->figures[e].group != g ||
                        self->figures[e].size != fig->size;
            if (fig->group == g && first)
                s_summary_block(out, self, g, fig->size, block);
        }
    free(block);
}

void report_placements_csv(FILE *out, const placements_t *self)
{
    placement_figures_t **block =
        calloc((size_t)self->nfigures + 1, sizeof *block);
    if (!block)
        return;
    fputs("group,size,rank,nodes,crossings,crossing_hops,repeats,"
          "last_hop_msgs_per_sec,min,max,p50_us,p99_us\n",
          out);
    for (int f = 0; f < self->nfigures; f++) {
        const placement_figures_t *fig = &self->figures[f];
        int n = s_block(self, fig->group, fig->size, block), rank = 0;
        while (rank < n && block[rank] != fig)
            rank++;
        char hops[256];
        s_crossing_list(self, &self->placement[fig->assignment], hops,
                        sizeof hops);
        fprintf(out, "\"%s\",%u,%d,%s,%d,%s,%d,%.1f,%.1f,%.1f,",
                self->group_text[fig->group], fig->size, rank + 1,
                self->placement[fig->assignment].nodes,
                self->placement[fig->assignment].crossings, hops, fig->repeats,
                fig->rate, fig->low, fig->high);
        if (fig->p50_us >= 0)
            fprintf(out, "%.3f,%.3f\n", fig->p50_us, fig->p99_us);
        else
            fputs(",\n", out);
    }
    free(block);
    fflush(out);
}
