/*  selftests: the list of module selftests that tests/selftest runs.  */
#ifndef HOPBENCH_SELFTESTS_H
#define HOPBENCH_SELFTESTS_H

#include <stdbool.h>

#include "machine/cpuset.h"
#include "config/zpl.h"
#include "config/sizes.h"
#include "config/params.h"
#include "config/shape.h"
#include "config/topology.h"
#include "pipeline/pipeline.h"
#include "pipeline/roster.h"
#include "machine/threads.h"
#include "app/cli.h"
#include "app/roff.h"
#include "stages/zcpool.h"
#include "config/sweep.h"
#include "pipeline/zones.h"
#include "base/actor.h"
#include "base/csv.h"
#include "base/errbuf.h"
#include "base/histogram.h"
#include "base/limits.h"
#include "base/number.h"
#include "base/readfile.h"
#include "base/stats.h"
#include "config/certfile.h"
#include "config/endpoint.h"
#include "config/hosts.h"
#include "crew/fleet.h"
#include "crew/wire.h"
#include "agent/keys.h"
#include "machine/machine.h"
#include "machine/assignments.h"
#include "machine/io_cpus.h"
#include "machine/placement.h"
#include "report/plot_data.h"
#include "trial/search.h"
#include "trial/latency_at.h"
#include "run/size_target.h"
#include "run/size_cost.h"
#include "run/usl.h"
#include "trial/summary.h"
#include "machine/tsc.h"
#include "machine/syscalls.h"
#include "config/topics.h"
#include "pipeline/traffic.h"
#include "stages/sockets.h"
#include "stages/topic.h"

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
    {"histogram", histogram_test}, {"machine_file", machine_file_test},
    {"machine_live", machine_live_test},
    {"placement", placement_test}, {"plot_data", plot_data_test},
    {"roff", roff_test},           {"csv", csv_test},
    {"search", search_test},       {"tsc", tsc_test},
    {"limits", limits_test},       {"endpoint", endpoint_test},
    {"stats", stats_test},         {"summary", summary_test},
    {"hosts", hosts_test},         {"wire", wire_test},
    {"fleet", fleet_test},
    {"keys", keys_test},           {"io_cpus", io_cpus_test},
    {"roster", roster_test},       {"assignments", assignments_test},
    {"shape", shape_test},         {"syscalls", syscalls_test},
    {"readfile", readfile_test},   {"certfile", certfile_test},
    {"errbuf", errbuf_test},       {"number", number_test},
    {"topics", topics_test},       {"traffic", traffic_test},
    {"topic", topic_test},         {"sockets", sockets_test},
    {"latency_at", latency_at_test},
    {"size_target", size_target_test}, {"size_cost", size_cost_test},
    {"usl", usl_test},
};

#endif
