/*  command: run, plan and check, the commands that take a topology, as
    the run layer does them for a request (run/request.h).  Each returns
    the exit status (cli_exits): 0, 1 a run that failed, 2 a usage or
    configuration error, printed once where it was found.
*/
#ifndef HOPBENCH_COMMAND_H
#define HOPBENCH_COMMAND_H

#include "run/request.h"

//  hopbench run: every combination, size and repeat; files in results/
int command_run(const run_request_t *req);
//  hopbench plan and check (req->command says which): the topology
//  validated and placed, printed as a plan, or as check's one line
int command_plan(const run_request_t *req);

#endif
