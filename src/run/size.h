/*  size: `hopbench size FILE... --target ... [--try KEY=V1,V2]...`, the
    cheapest measured deployment that meets a target (docs/GUIDE.md,
    "Sizing a deployment").

    Candidates are the topology files crossed with the --try values (the
    sweep machinery's product).  Each is planned first: a plan that cannot
    run is "does not fit", with the planner's reason, or the hosts file's
    (a stage on a host it does not name).  Stages on other hosts run
    through their agents, one fleet for every candidate, as run's.  The
    rest are tried cheapest first (run/size_cost.h), each with its own
    stages (mode = search: PUB drop semantics, paced publishers), each
    step ending the candidate early when it fails:

        (a) capacity   one trial flat out, search_trial long: what got
                       through; below rate x (1 + headroom): fails
        (b) loss       a trial paced at rate x (1 + headroom),
                       search_confirm long: no hop may lose more than loss
        (c) p99        an open-loop trial at rate, search_trial long, timed
                       from the intended send times: p99 end to end, and
                       the brokers' busy cores (ns per message x rate)
        (d) --ndr      the full search, for the headroom it really has

    A failure whose trial was starved (a stage waited for a CPU:
    trial/trial_starve.c) is "inconclusive: the machine", not the
    deployment's; a pass on a starved machine is a pass.  Once one meets,
    dearer ones are measured only with --all (then the Pareto front).

    Exit status: 0 one meets; 3 none meets (the best named, with its
    shortfall and hop); 2 bad input; 1 a trial failed (a stage died, a
    host lost); 130/143 interrupted, the finished candidates reported.
*/
#ifndef HOPBENCH_SIZE_H
#define HOPBENCH_SIZE_H

#include <stdbool.h>

#include "base/limits.h"

//  Exit statuses: a size none of whose candidates meets; a size
//  undecided (its evidence straddles, or the machine starved what would
//  fail it)
#define SIZE_NOT_MET   3
#define SIZE_UNDECIDED 4

typedef struct {
    const char *const *files;
    int nfiles;
    const char (*sets)[LIMIT_SET_TEXT + 1]; //  --set and shorthands
    int nsets;
    const char *target;
    const char *const *tries;
    int ntries;
    bool all, ndr, extrapolate, quiet;
    double prove; //  --prove SECONDS: the answer at rate first, 0: not
    int format;   //  run.h's format_t
    const char *output;
    const char *command_line;
    //  stages on other hosts (host = NAME), as run takes them
    const char *hosts;           //  --hosts FILE
    const char *cert;            //  --cert SECRET_FILE
    bool ssh;                    //  --ssh
    const char *remote_hopbench; //  --remote-hopbench PATH
} size_options_t;

int size_main(const size_options_t *options);

#endif
