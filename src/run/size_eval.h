/*  size_eval: one candidate of `hopbench size` measured (see size.h):
    capacity, loss at rate x (1 + headroom), p99 and busy cores at rate,
    --ndr's search; the verdict into its row.
*/
#ifndef HOPBENCH_SIZE_EVAL_H
#define HOPBENCH_SIZE_EVAL_H

#include "crew/crew.h"
#include "machine/machine.h"
#include "pipeline/pipeline.h"
#include "report/report.h"
#include "report/report_sizing.h"

typedef struct {
    pipeline_t *pl; //  the candidate, planned
    const params_t *params;
    const machine_t *machine;
    const sizing_target_t *target;
    const char *ipc_dir;
    int *trials; //  the run's trial count (unique inproc names)
    double tsc_hz;
    bool ndr;
    FILE *results, *latency;
    const report_info_t *info;
    sizing_row_t *row; //  in: size; out: the figures and verdict
    fleet_t *fleet;    //  the agents of its stages on other hosts, or NULL
    crew_t *crew;
} size_eval_t;

//  config: the candidate's effective topology in a file (stages in their
//  own process read it).  -1: a trial failed (err says why)
int size_eval(size_eval_t *self, const char *config, errbuf_t *err);

#endif
