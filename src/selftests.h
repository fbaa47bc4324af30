/*  selftests: the list of module selftests that tests/selftest runs.  */
#ifndef HOPBENCH_SELFTESTS_H
#define HOPBENCH_SELFTESTS_H

#include <stdbool.h>

#include "cpuset.h"
#include "zpl.h"
#include "sizes.h"
#include "params.h"
#include "topology.h"
#include "pipeline.h"
#include "threads.h"
#include "cli.h"
#include "zcpool.h"
#include "sweep.h"
#include "zones.h"
#include "actor.h"
#include "histogram.h"
#include "machine.h"
#include "placement.h"
#include "plot_data.h"

static const struct {
    const char *name;
    int (*test)(bool verbose);
} selftests[] = {
    {"cpuset", cpuset_test},       {"zpl", zpl_test},
    {"sizes", sizes_test},         {"params", params_test},
    {"topology", topology_test},   {"pipeline", pipeline_test},
    {"threads", threads_test},     {"cli", cli_test},
    {"zcpool", zcpool_test},       {"sweep", sweep_test},
    {"zones", zones_test},         {"actor", actor_test},
    {"histogram", histogram_test}, {"machine", machine_test},
    {"placement", placement_test}, {"plot_data", plot_data_test},
};

#endif
