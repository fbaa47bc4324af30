/*  run: a whole sweep for one topology: every size, every repetition,
    each a trial on a fresh pipeline; results written as they come.

    Exit status (DESIGN): 0 success; 1 the run failed (a stage died, a
    timeout, a hop delivered nothing); 2 a plan the machine cannot honour.
    The sizes finished before a failure stay in results.csv.
*/
#ifndef HOPBENCH_RUN_H
#define HOPBENCH_RUN_H

#include <stdbool.h>

#include "machine.h"
#include "topology.h"

typedef enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } format_t;

typedef struct {
    format_t format;
    const char *output; //  NULL: results/<UTC>-<topology>
    bool quiet;
    const char *command_line;
    bool plot; //  charts after a run that succeeded (see plot.h)
} run_options_t;

int run_topology(const topology_t *topo, const machine_t *machine,
                 const run_options_t *options);

#endif
