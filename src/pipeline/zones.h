/*  zones: network namespaces for stages that name one (netns = NAME).

        default namespace        zone "edge"                zone "far"
                                 pub --127.0.0.1--> broker ==veth==> sub
                                                   169.254.X.1/30   .2/30

    For a run, each zone is a namespace "hbPID-NAME" with its loopback up;
    each hop whose ends are in different zones (or one in a zone, one in
    the default namespace) gets a veth pair of its own, one end in each
    namespace, with the two addresses of a private link-local /30.  A tcp
    hop across zones binds and connects on those addresses; a tcp hop
    inside one zone uses that zone's 127.0.0.1.  A stage enters its zone
    (setns) when its thread starts, before its context exists, so its
    libzmq I/O threads are born there too.  Everything is made with
    iproute2's ip, needs root, and is removed when the run ends, also
    after an error or a signal.
*/
#ifndef HOPBENCH_ZONES_H
#define HOPBENCH_ZONES_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/errbuf.h"
#include "pipeline/pipeline.h"

typedef struct zones_s zones_t;

//  Does any stage of the pipeline name a zone?
bool zones_wanted(const pipeline_t *pl);
//  Make the zones and links of a pipeline, and write into it each
//  instance's namespace path and each crossing hop's addresses
zones_t *zones_create(pipeline_t *pl, errbuf_t *err);
//  Remove every namespace and link made
void zones_destroy(zones_t **self_p);
//  Fill a pipeline (in a stage's own process) with what zones_create of
//  the controller 'owner' wrote: the same names, derived the same way
void zones_describe(pipeline_t *pl, pid_t owner);
//  Enter the namespace at path (the calling thread only)
int zones_enter(const char *path, errbuf_t *err);

int zones_test(bool verbose);

#endif
