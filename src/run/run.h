/*  run: a whole run: every combination of a sweep (one when nothing is
    swept), every size, every repetition (or a search per size), each a
    trial; results written as they come.  A combination's stage threads,
    processes and contexts live for all of its trials (order =
    interleave: for its trials of one round, repeat r of every size);
    each trial opens new sockets on new endpoints.

    Exit status: 0 success; 1 the run failed (a stage died, a
    timeout, a hop delivered nothing); 2 a plan the machine cannot honour;
    130 / 143 interrupted by SIGINT / SIGTERM.  What finished before a
    failure or an interrupt stays in results.csv.
*/
#ifndef HOPBENCH_RUN_H
#define HOPBENCH_RUN_H

#include <stdbool.h>

#include "crew/fleet.h"
#include "machine/machine.h"
#include "config/sweep.h"
#include "config/topology.h"
#include "report/report_placements.h"
#include "run/session.h"

typedef struct {
    format_t format;
    const char *output; //  NULL: results/<UTC>-<topology>
    bool quiet;
    const char *command_line;
    const sweep_t *sweep; //  keys and values; topos[i] is combination i
    bool *stages_left;    //  out: a stage thread could not be ended
    bool plot;            //  charts after a successful run (--plot)
    bool report;          //  report.html at the end (--report), also
                          //  after Ctrl-C, of what finished
    bool keep_going;      //  a stalled trial does not fail the run
    bool per_socket;      //  --per-socket: sockets.csv
    fleet_t *fleet;       //  the hosts stages name (--hosts), or NULL
    placements_t *study;  //  placement = all: its assignments are the
                          //  sweep's last key; figures go here, and the
                          //  run ends with its summary (placements.csv)
} run_options_t;

int run_topologies(topology_t *const *topos, int ntopos,
                   const machine_t *machine, const run_options_t *options);

#endif
