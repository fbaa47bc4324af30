/*  report_placements: placement = all, the study of every distinct
    assignment of stages to nodes: what `plan` lists, and the summary a
    run ends with.

        placement all: 4 distinct assignments of 3 stages to 2 nodes (of
        8; nodes 0-1 are alike); nodes lists pub+broker+sub
        size 64 B, median of 3 repetitions (min - max; ...)
         rank  nodes   crossings  last hop msg/s  (min - max)   crossing hops
            1  0+0+0           0       1,520,000  (...)         -
            2  0+0+1           1       1,210,000  (...)         hop 2 broker -> sub -20.4%

    The study's assignments come from run/study.c, each one value of a
    sweep of `nodes`; the figures from run.c, per size and assignment.
    An assignment's last-hop rate is what the last stage's instances take
    together (the sum of the last hop's rows), the median over the
    repetitions, with min-max when there are 3 or more (no confidence
    intervals here yet).  Ranks go by that rate; in rate mode the
    end-to-end latency (p50, p99, the repetitions merged) is shown too and
    ranked on its own.  Each crossing hop is shown with what it pays: its
    own rate against the best rate it has in an assignment where it does
    not cross.  With other swept keys the summary has a block per
    combination of their values.
*/
#ifndef HOPBENCH_REPORT_PLACEMENTS_H
#define HOPBENCH_REPORT_PLACEMENTS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/limits.h"
#include "machine/assignments.h"
#include "machine/machine.h"
#include "pipeline/pipeline.h"
#include "trial/results.h"

#define PLACEMENTS_MAX LIMIT_SWEEP_VALUES

//  One assignment of the study
typedef struct {
    char nodes[LIMIT_SWEEP_VALUE + 1]; //  the nodes value: "0+0+1"
    int crossings;                     //  hops between two nodes
    bool crosses[LIMIT_STAGES];        //  which (0-based)
    char controller_cpus[64];          //  the controller's CPUs, "3"
    int controller_node;               //  and node; -1: not pinned
    bool crowded;                      //  a node has more stage threads
                                       //  than CPUs: they share them
} placement_t;

//  What one size of one assignment measured
typedef struct {
    int assignment, group; //  index in the study; of the other keys' values
    uint32_t size;
    int repeats;
    double rate, low, high;   //  last hop: median, min, max
    double hop[LIMIT_STAGES]; //  each hop's median rate
    double p50_us, p99_us;    //  end to end, -1: none
} placement_figures_t;

typedef struct {
    const topology_t *topo;
    int nstages, nhops;
    char stage_names[LIMIT_STAGES][LIMIT_NAME + 1];
    char hop_names[LIMIT_STAGES][2 * LIMIT_NAME + 8]; //  "broker -> sub"
    int n;                                            //  assignments that run
    placement_t placement[PLACEMENTS_MAX];
    int nrefused; //  assignments the machine cannot honour
    char refused[PLACEMENTS_MAX][LIMIT_SWEEP_VALUE + 1];
    char why[PLACEMENTS_MAX][sizeof(errbuf_t)];
    assign_count_t counted;
    int nnodes;      //  the machine's
    char alike[256]; //  which nodes are alike
    char note[300];  //  why there is only one, when there is
    bool rate_mode;
    //  filled by the run
    int ngroups;
    char group_text[LIMIT_SWEEP_COMBOS][128]; //  the other keys' values
    int nfigures, room;
    placement_figures_t *figures;
} placements_t;

//  After the repetitions of one size of one assignment: its figures
//  (trials[0..n-1], and the repetitions' latency merged)
int placements_add(placements_t *self, int assignment, int group,
                   const char *group_text, const trial_result_t *trials, int n,
                   const trial_result_t *merged);
void placements_free(placements_t *self);

//  The study as a plan: each assignment, its crossings, the controller's
//  CPU, and what cannot run and why (table or CSV)
void report_placements_plan(FILE *out, const placements_t *self,
                            const machine_t *machine, bool csv);
//  The summary of a run: per group and size, the assignments ranked
void report_placements(FILE *out, const placements_t *self);
//  placements.csv: the same, one row per group, size and assignment
void report_placements_csv(FILE *out, const placements_t *self);

#endif
