/*  plan: what a pipeline is made of, as data: its instances, their
    contexts, its hops and the hosts it runs on (pipeline.h expands a
    topology into it and answers questions about it; roster.h lists the
    threads it starts).  Types only, and the two questions the roster asks
    of an instance, so that the two read one plan and neither calls the
    other back.
*/
#ifndef HOPBENCH_PLAN_H
#define HOPBENCH_PLAN_H

#include "base/errbuf.h"
#include "machine/machine.h"
#include "config/engines.h"
#include "config/params.h"
#include "machine/placement.h"
#include "config/topology.h"

#include <string.h>

#define PIPELINE_MAX_INSTANCES LIMIT_INSTANCES
#define PIPELINE_MAX_BINDERS   LIMIT_BINDERS
#define PIPELINE_ENDPOINT_MAX  224

typedef struct {
    char name[TOPO_NAME_MAX + 12]; //  "sub.2", or "sub" when count is 1
    int id;                        //  index in pipeline.inst
    int stage;                     //  topology stage index
    int instance;                  //  index within the stage
    int origin;                    //  sources: index among all source
                                   //  instances (message headers), else -1
    role_t role;
    params_t params; //  effective
    place_t place;
    int ctx;                   //  index in pipeline.ctx
    char netns_path[64];       //  its zone's namespace (zones.h), or ""
    char host[LIMIT_NAME + 1]; //  where it runs (host = NAME), "": here
    //  Its host's housekeeping CPU: where a process of its own keeps its
    //  main and czmq threads (the controller's, on the controller's host)
    place_t home;
} instance_t;

typedef struct {
    int owner; //  instance that creates and terminates it
    int io_threads;
    int prefix; //  ZMQ_THREAD_NAME_PREFIX: "PREFIX/ZMQbg/IO/0", the
                //  context's number among its host's (from 1)
} context_plan_t;

typedef struct {
    params_t params;     //  effective (transport, endpoint, hwm)
    int up, down;        //  the stages it joins (topology stage indices)
    bool crosses;        //  its ends are in different zones (zones.h)
    char address[2][16]; //  ...then its link's upstream, downstream address
    bool upstream_binds;
    //  curve = true: Z85 keys made for the run (server, then client)
    char server_public[41], server_secret[41];
    char client_public[41], client_secret[41];
    int nendpoints; //  one per binding instance
    char endpoint[PIPELINE_MAX_BINDERS][PIPELINE_ENDPOINT_MAX];
} hop_plan_t;

//  What endpoints need of the run's hosts (crew/fleet.h fills it): where a
//  host's tcp hops bind, where the controller is as that host sees it,
//  its private directory for ipc, and free tcp ports on it
typedef struct {
    const char *name;
    const char *address;
    const char *peer;
    const char *ipc_dir;
    int (*ports)(void *arg, const char *address, int n, int *ports,
                 errbuf_t *err);
    void *arg;
} pipeline_host_t;

typedef struct {
    const topology_t *topo;
    params_t params; //  topology level, effective
    int n;
    instance_t inst[PIPELINE_MAX_INSTANCES];
    int first[TOPO_MAX_STAGES]; //  first instance of each stage
    int count[TOPO_MAX_STAGES]; //  instances of each stage
    int nstages;
    int nhops;
    hop_plan_t *hops;  //  nhops of them, in the topology's number order
    int norigins;      //  source instances, all stages
    int nctx;
    context_plan_t ctx[PIPELINE_MAX_INSTANCES];
    const pipeline_host_t *hosts; //  pipeline_set_hosts; NULL: none
    int nhosts;
    housekeeping_t controller; //  where hopbench's own threads go
    cpuset_t allowed;          //  the CPUs the plan could use (machine's)
} pipeline_t;

//  The first instance on instance id's host (the lowest id there): where
//  what a host holds once (its link, its plan, its sums) is counted
static inline int pipeline_host_first(const pipeline_t *self, int id)
{
    int first = 0;
    while (strcmp(self->inst[first].host, self->inst[id].host))
        first++;
    return first;
}

//  Is instance id a proxy whose engine is a czmq actor (a thread of its
//  own named as the engine; its sockets, so its I/O, in czmq's context)?
static inline bool pipeline_czmq_actor(const pipeline_t *self, int id)
{
    const instance_t *inst = &self->inst[id];
    return inst->role == ROLE_PROXY &&
           engine_can(inst->params.engine, TRAIT_CZMQ_ACTOR);
}

#endif
