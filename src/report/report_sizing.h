/*  report_sizing: what `hopbench size` found, shown: the answer line,
    the table of candidates, sizing.csv, sizing.json and the chart (cost
    against confirmed rate, the target line, p99 beside each point).
    Measuring is run/size.c's; these functions only print its rows.

    sizing.csv has a row per candidate and size; its columns are the
    table columns_sizing (report/columns_more.c), which hopbench(1) lists.
*/
#ifndef HOPBENCH_REPORT_SIZING_H
#define HOPBENCH_REPORT_SIZING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/errbuf.h"

typedef enum {
    SIZING_MEETS,    //  every criterion met, and (the answer) its proof
    SIZING_CAPACITY, //  fails on capacity
    SIZING_LOSS,     //  fails on loss at rate x (1 + headroom)
    SIZING_P99,      //  fails on p99 at rate
    SIZING_NOFIT,    //  its plan cannot run here
    SIZING_MACHINE,  //  inconclusive: what would fail it was starved
    SIZING_UNTRIED,  //  not measured (dearer than one that met, ...)
    SIZING_PROOF,    //  met, then failed its proof at rate
    SIZING_UNDECIDED //  the evidence straddles a bound within the budget
} sizing_verdict_t;

extern const char *const sizing_verdict_names[];

//  A figure with its interval (the bounds -1 when it has none)
typedef struct {
    double value, low, high;
} sizing_figure_t;

typedef struct {
    int number;        //  1-based, in the order given
    char file[256];    //  its topology file
    char topology[64]; //  the file's topology name
    char tried[256];   //  "engine=forwarder io_threads=2", "" when none
    uint32_t size;
    //  cost: what the deployment takes, in cost_unit ("cores": the
    //  brokers' busy cores at rate x (1 + headroom) rounded up per
    //  broker, or the CPUs their cpus = reserve, whichever is larger;
    //  "hosts": the cost = of the hosts that carry its brokers; "yours":
    //  the brokers' own cost =); planned before it is measured
    double cost, planned_cost;
    char cost_unit[8];
    double brokers;           //  the CPUs the brokers' cpus = reserve
    double generators;        //  the CPUs the load generators may run on
    int sockets;              //  its subscribers' SUB sockets (connections)
    sizing_figure_t capacity; //  msgs/s flat out, mean of its trials
    int capacity_trials;
    double confirmed; //  the rate x (1 + headroom) it passed, 0: none,
                      //  -1: not measured
    //  loss at rate x (1 + headroom): trial-seconds that lost at most
    //  loss, more (not starved), more but starved; the worst ratio
    double loss_good, loss_bad, loss_starved, loss_worst;
    sizing_figure_t p99_us; //  end to end at rate, over its windows
    int p99_windows;
    double busy_cores; //  the brokers' CPU at rate x (1 + headroom), -1
    double ndr;        //  --ndr: the search's rate, -1
    sizing_verdict_t verdict;
    char decided_by[16]; //  capacity, loss, p99 or proof; "" none
    double figure;       //  the figure that decided it (msgs/s, ratio, us)
    char hop[128];       //  the hop that set it, "" when none
    char why[512];       //  a sentence: the reason, the starved stage
    bool pareto;         //  on the front of cost against capacity, of those
                         //  that meet
    bool starved;        //  a trial of it was starved
    bool answer;         //  its size's answer (proven)
    //  the proof at rate (the answer, and those whose proof failed):
    //  seconds, its worst window's loss ratio, p99; seconds 0: none
    double proof_seconds, proof_loss;
    sizing_figure_t proof_p99_us;
    double trial_seconds; //  the windows' seconds its verdict rests on
    double seconds;       //  wall time its measuring took, -1: none
} sizing_row_t;

//  What `hopbench size` is asked to meet (--target)
typedef struct {
    double rate;     //  msgs/s, all publishers together
    double p99_us;   //  0: any
    double loss;     //  loss ratio allowed
    double headroom; //  the share above rate that must pass
} sizing_target_t;

//  The rate a candidate must carry without loss: rate x (1 + headroom)
static inline double sizing_offered(const sizing_target_t *t)
{
    return t->rate * (1 + t->headroom);
}

//  sizing.csv: a row per candidate and size, the target on every row
void report_sizing_csv(FILE *out, const sizing_row_t *rows, int n,
                       const sizing_target_t *target);
//  The answer lines (a size's: its row with answer set, or the best
//  candidate, its shortfall and hop), then the table
void report_sizing_table(FILE *out, const sizing_row_t *rows, int n,
                         const sizing_target_t *target, bool pareto,
                         bool interrupted);
//  fits: --extrapolate's (report/sizing_fit.h), sizing.json's "fits";
//  NULL: none
struct sizing_fit;
void report_sizing_json(FILE *out, const sizing_row_t *rows, int n,
                        const sizing_target_t *target, bool interrupted,
                        const struct sizing_fit *fits, int nfits);
//  sizing.dat and plot.gp in dir, then gnuplot: sizing.png
int report_sizing_chart(const char *dir, const sizing_row_t *rows, int n,
                        const sizing_target_t *target, errbuf_t *err);

#endif
