/*  report_plan: print a pipeline's plan (`hopbench plan`).  */
#ifndef HOPBENCH_REPORT_PLAN_H
#define HOPBENCH_REPORT_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "machine/machine.h"
#include "pipeline/pipeline.h"

//  Table, or CSV with exactly stage,role,thread,node,cpus
void report_plan(FILE *out, const pipeline_t *pl, const machine_t *machine,
                 bool csv);

#endif
