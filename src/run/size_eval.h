/*  size_eval: one candidate of `hopbench size` measured (see size.h):
    capacity, loss at rate x (1 + headroom), p99 and busy cores at rate,
    --ndr's search; the verdict into its row.
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
} size_eval_t;

//  The candidate's stages up, its steps, its stages down.  -1: a trial
//  failed (err says why)
int size_eval(size_eval_t *self, errbuf_t *err);

#endif
