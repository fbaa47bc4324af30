/*  size_eval: one candidate of `hopbench size` measured (see size.h):
    its capacity, its loss at rate x (1 + headroom) with the brokers'
    busy cores, its p99 at rate, --ndr's search, each decided by as much
    evidence as it takes (size_evidence.h) within the budget; and the
    proof of an answer at rate.  The verdict and its figures go into the
    candidate's row.
*/
#ifndef HOPBENCH_SIZE_EVAL_H
#define HOPBENCH_SIZE_EVAL_H

#include "pipeline/pipeline.h"
#include "report/report_sizing.h"
#include "run/session.h"

typedef struct {
    session_t *session; //  its trials run there, their rows go there
    pipeline_t *pl;     //  the candidate, planned and admitted
    const sizing_target_t *target;
    bool ndr;
    sizing_row_t *row; //  in: size; out: the figures and verdict
    //  out: each broker instance's busy cores at rate x (1 + headroom),
    //  the mean over the trials that lost no more than allowed (what its
    //  cost is counted from: size_cost.h); 0 for the other instances
    double busy[PIPELINE_MAX_INSTANCES];
} size_eval_t;

//  The candidate's stages up, its criteria, its stages down.  -1: a
//  trial failed (err says why)
int size_eval(size_eval_t *self, errbuf_t *err);

//  The proof of a candidate that meets: open-loop trials at rate for
//  'seconds' (windows of at most size_window, at least size_windows of
//  them): no more loss than allowed (as the loss criterion counts it)
//  and its p99 within the bound.  A proof that fails or is undecided
//  takes the candidate's "meets" away.  -1: a trial failed
int size_eval_prove(size_eval_t *self, double seconds, errbuf_t *err);

//  The brokers' busy cores from a trial's rows: each broker's CPU per
//  message times the messages it took per second, into busy[id] (pl's
//  instances; others 0); their sum
double size_eval_busy(const pipeline_t *pl, const trial_result_t *r,
                      double *busy);

#endif
