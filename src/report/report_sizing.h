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
    SIZING_MEETS,
    SIZING_CAPACITY, //  fails on capacity
    SIZING_LOSS,     //  fails on loss at rate x (1 + headroom)
    SIZING_P99,      //  fails on p99 at rate
    SIZING_NOFIT,    //  its plan cannot run here
    SIZING_MACHINE,  //  inconclusive: a failure whose trials were starved
    SIZING_UNTRIED   //  dearer than one that met (without --all)
} sizing_verdict_t;

extern const char *const sizing_verdict_names[];

typedef struct {
    int number;        //  1-based, in the order given
    char topology[64]; //  the file's topology name
    char tried[256];   //  "engine=forwarder io_threads=2", "" when none
    uint32_t size;
    double cost, brokers, generators;
    int sockets;       //  its subscribers' SUB sockets (connections)
    double capacity;   //  msgs/s offered that got through flat out, -1
    double confirmed;  //  the rate x (1 + headroom) it passed, 0: none,
                       //  -1: not measured
    double p99_us;     //  end to end at rate, -1: not measured
    double busy_cores; //  brokers' CPU at rate (ns/msg x msgs/s), -1
    double ndr;        //  --ndr: the search's rate, -1
    sizing_verdict_t verdict;
    double figure;  //  the figure that decided it (msgs/s, ratio, us)
    char hop[128];  //  the hop that set it, "" when none
    char why[512];  //  a sentence: the reason, the starved stage
    bool pareto;    //  --all: on the front of cost against rate
    bool starved;   //  a trial of it was starved
    double seconds; //  wall time its measuring took, -1: not measured
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

void report_sizing_csv(FILE *out, const sizing_row_t *rows, int n);
//  The answer line (best: the cheapest that met, or -1), then the table
void report_sizing_table(FILE *out, const sizing_row_t *rows, int n, int best,
                         const sizing_target_t *target, bool pareto);
void report_sizing_json(FILE *out, const sizing_row_t *rows, int n, int best,
                        const sizing_target_t *target);
//  sizing.dat and plot.gp in dir, then gnuplot: sizing.png
int report_sizing_chart(const char *dir, const sizing_row_t *rows, int n,
                        const sizing_target_t *target, errbuf_t *err);

#endif
