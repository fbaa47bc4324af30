/*  request: what a command asks of the run layer, as data.

    The command line (app/cli) fills one of these for run, plan and check
    (and the commands to come that take a topology); the run layer reads
    the files it names (run/inputs), assembles what runs from them
    (run/assemble) and runs or prints it (run/command).  Nothing here
    knows of getopt or of cli_t: a request can as well be made by a test.
    The strings and arrays are the caller's, alive for the call.
*/
#ifndef HOPBENCH_REQUEST_H
#define HOPBENCH_REQUEST_H

#include <stdbool.h>

#include "base/limits.h"
#include "run/run.h"

//  --machine HOST=FILE: a host planned on a description
typedef struct {
    char host[LIMIT_NAME + 1];
    const char *path;
} run_machine_file_t;

typedef struct {
    const char *command;                    //  "run", "plan", "check"
    const char *target;                     //  the topology file, "-": stdin
    const char (*sets)[LIMIT_SET_TEXT + 1]; //  --set, in order
    int nsets;
    const char *const *sweeps; //  --sweep KEY=VALUES
    int nsweeps;
    const char *machine; //  --machine FILE, NULL: this machine
    const run_machine_file_t *machine_files; //  --machine HOST=FILE
    int nmachine_files;
    const char *hosts;           //  --hosts FILE
    const char *cert;            //  --cert SECRET_FILE
    bool ssh;                    //  --ssh
    const char *remote_hopbench; //  --remote-hopbench PATH
    format_t format;
    const char *output; //  --output DIR
    bool quiet;
    bool verbose; //  check: draw the topology
    bool plot;
    bool report; //  run --report: report.html at the end
    bool keep_going;
    bool per_socket;
    const char *command_line;
} run_request_t;

#endif
