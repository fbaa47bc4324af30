/*  report_plan: print a pipeline's plan (`hopbench plan`).  */
#ifndef HOPBENCH_REPORT_PLAN_H
#define HOPBENCH_REPORT_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "machine/machine.h"
#include "pipeline/pipeline.h"

//  Table, or CSV: stage,role,thread,node,cpus (the contract), then
//  engine,runs_in (room after them for where a host joins)
void report_plan(FILE *out, const pipeline_t *pl, const machine_t *machine,
                 bool csv);

#endif
