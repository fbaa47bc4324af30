/*  pipeline: a topology expanded into what will run.

        topology (as written)  ->  pipeline (as run)
        publisher pub count 2      instances pub.1 pub.2 (origins 0 and 1)
        hop tcp                    hop 1: proxy binds tcp://127.0.0.1:PORT
        proxy p1                   instance p1, its own libzmq context
        hop inproc                 hop 2: shared context (inproc needs one)
        subscriber sub             instance sub, in p1's context

    A topology may be a tree (config/shape.h): each hop joins the stage it
    names upstream to the one downstream, and a stage's sockets attach to
    all of its hops (a proxy's XSUB to every hop in, its XPUB to every hop
    out).  Every publisher instance is an origin, numbered across all
    publisher stages in instance order, so a receiver tells apart every
    publisher that reaches it.

    Every stage instance gets its effective params, its place (placement),
    its context, and for each hop the side that binds and the endpoints.
    The controller (hopbench's own threads) gets its housekeeping place
    once the stages have theirs; roster.h lists every thread a run starts.
    Stages joined by inproc hops share one context, created by the group's
    first instance (the owner) and terminated by it last; every other
    instance owns a context of its own.  A hop binds at its proxy end (the
    upstream one if both are proxies), else at its end with fewer instances
    (upstream on a tie); each binding instance has its own endpoint and
    every instance of the other end connects to all of them.
*/
#ifndef HOPBENCH_PIPELINE_H
#define HOPBENCH_PIPELINE_H

#include "base/errbuf.h"
#include "machine/machine.h"
#include "config/engines.h"
#include "config/params.h"
#include "machine/placement.h"
#include "config/topology.h"

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
    int prefix; //  ZMQ_THREAD_NAME_PREFIX: "PREFIX/ZMQbg/IO/0"
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

//  Where each host's stages are planned: the machine of host 'host' ("":
//  the controller's)
typedef struct {
    const char *host;
    const machine_t *machine;
} pipeline_machine_t;

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

//  Expand and place; the topology must be validated.  -1: err says why
//  (a placement the machine cannot honour, too many instances).  Each
//  host's stages are planned apart ('host = NAME'; "" for stages without),
//  here all on one machine
pipeline_t *pipeline_new(const topology_t *topo, const machine_t *machine,
                         errbuf_t *err);
//  The same with a machine per host; the stages of a host not in the list
//  are not planned (their place is left unpinned: a stage's own process
//  plans only its host's)
pipeline_t *pipeline_new_on(const topology_t *topo,
                            const pipeline_machine_t *machines, int n,
                            errbuf_t *err);
//  The run's hosts, for pipeline_resolve (kept by pointer)
void pipeline_set_hosts(pipeline_t *self, const pipeline_host_t *hosts, int n);
//  The host of instance id: its name, "" for the controller's
const char *pipeline_host(const pipeline_t *self, int id);
void pipeline_destroy(pipeline_t **self_p);

//  Endpoints for one trial: unique inproc names, ipc paths in ipc_dir,
//  free 127.0.0.1 ports; endpoints named in the topology are kept.  A hop
//  bound on another host binds that host's address on a port it found
//  free, ipc in its own directory; one bound here towards another host
//  binds the address that host sees the controller at
int pipeline_resolve(pipeline_t *self, const char *ipc_dir, int trial,
                     errbuf_t *err);

//  About how many files (sockets, pollers, mailboxes, connections) a run
//  of it opens in one process of this host, this one or a stage's own
//  (process = own) whichever opens more, to compare with RLIMIT_NOFILE
long pipeline_files(const pipeline_t *self);
//  On host's agent, where every stage is a process of its own: the most
//  files one of its stages opens (0: none there)
long pipeline_host_files(const pipeline_t *self, const char *host);

//  Does instance id bind on hop h (0-based)?  Which endpoint index?
bool pipeline_binds(const pipeline_t *self, int h, int id, int *endpoint);
//  The first hop an instance receives from / sends to, -1 if none (in a
//  chain, its only one)
int pipeline_hop_in(const pipeline_t *self, int id);
int pipeline_hop_out(const pipeline_t *self, int id);
//  Its next hop in / out after hop 'after' (-1 to start), -1 when none
int pipeline_next_hop_in(const pipeline_t *self, int id, int after);
int pipeline_next_hop_out(const pipeline_t *self, int id, int after);
//  Sources (publisher, pusher, requester) and sinks (subscriber, puller,
//  replier), wherever they are in the tree
bool pipeline_is_source(const pipeline_t *self, int id);
bool pipeline_is_sink(const pipeline_t *self, int id);
//  Do instance a's messages reach instance b (a == b counts)?
bool pipeline_reaches(const pipeline_t *self, int a, int b);
//  The source instance whose origin (message header) is 'origin', -1
int pipeline_origin_instance(const pipeline_t *self, int origin);
//  Does this receiving instance tell its messages' origins apart (it reads
//  every header: sinks and a proxy whose engine tells senders apart)?
bool pipeline_sees_origins(const pipeline_t *self, int id);
//  Is instance id a proxy whose engine is a czmq actor (a thread of its
//  own named as the engine; its sockets, so its I/O, in czmq's context)?
//  Inline: the roster asks it, and the pipeline asks the roster
static inline bool pipeline_czmq_actor(const pipeline_t *self, int id)
{
    const instance_t *inst = &self->inst[id];
    return inst->role == ROLE_PROXY &&
           engine_can(inst->params.engine, TRAIT_CZMQ_ACTOR);
}
//  The SUB sockets instance id reads (sockets = N on a pubsub
//  subscriber), 1 for every other
int pipeline_sockets(const pipeline_t *self, int id);
//  ...and over every subscriber of the pipeline (0 outside pubsub)
long pipeline_total_sockets(const pipeline_t *self);
//  Does every XPUB push back instead of dropping at its HWM
//  (ZMQ_XPUB_NODROP: pubsub in mode = capacity)?
bool pipeline_backpressure(const pipeline_t *self);

int pipeline_test(bool verbose);

#endif
