/*  size_internal: what size.c (the candidates, their session and files)
    and size_answer.c (each size's answer: candidates measured cheapest
    first, the answer proven) share.  Private to src/run/size*.c.
*/
#ifndef HOPBENCH_SIZE_INTERNAL_H
#define HOPBENCH_SIZE_INTERNAL_H

#include "run/session.h"
#include "run/size.h"
#include "run/size_cost.h"
#include "run/size_target.h"

#define SIZE_MAX_ROWS LIMIT_SIZE_CANDIDATES //  files x --try x sizes

typedef struct {
    const size_options_t *o;
    sizing_target_t target;
    sweep_t tries;
    topology_t *topo[SIZE_MAX_ROWS];
    pipeline_t *pl[SIZE_MAX_ROWS];
    size_cost_t cost[SIZE_MAX_ROWS];
    sizing_row_t row[SIZE_MAX_ROWS];
    int n;
    machine_t *machine;
    fleet_t *fleet;                //  agents, when a stage names a host
    errbuf_t unfit[SIZE_MAX_ROWS]; //  why a candidate's hosts cannot be
    session_t *session;            //  its trials, their files and stages
    char candidate[16];            //  the one measured, 1 first (its rows)
    bool stages_left;              //  a stage thread could not be ended
    double overhead;               //  the most a trial took beyond its
                                   //  window so far (the progress bound)
} size_t_;

//  What became of a size (its rows'): answered, none meets (decided),
//  or undecided (the evidence, or the machine)
typedef enum { SIZE_ANSWERED, SIZE_NONE, SIZE_OPEN } size_outcome_t;

//  size_answer.c: every size's candidates measured and its answer
//  proven; -1 when a trial failed (err), or interrupted
int size_answer_all(size_t_ *self, errbuf_t *err);
size_outcome_t size_answer_outcome(const size_t_ *self, uint32_t size);
//  The most a candidate not yet measured can take, in seconds (with its
//  proof): what the progress line and the warning before the run say
double size_answer_bound(const size_t_ *self, int i);

#endif
