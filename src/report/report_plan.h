/*  report_plan: print a pipeline's plan (`hopbench plan`).  */
#ifndef HOPBENCH_REPORT_PLAN_H
#define HOPBENCH_REPORT_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "machine/machine.h"
#include "pipeline/pipeline.h"

//  Table, or CSV: stage,role,thread,node,cpus (the contract), then
//  engine,runs_in; stages on several hosts each planned on its machine
//  (machines[0] is the controller's, ""), a host column after runs_in
//  when n > 1
void report_plan_on(FILE *out, const pipeline_t *pl,
                    const pipeline_machine_t *machines, int n, bool csv);

#endif
