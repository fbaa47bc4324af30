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

#include "pipeline/plan.h"

//  Where each host's stages are planned: the machine of host 'host' ("":
//  the controller's)
typedef struct {
    const char *host;
    const machine_t *machine;
} pipeline_machine_t;

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
//  The SUB sockets instance id reads (sockets = N on a pubsub
//  subscriber), 1 for every other
int pipeline_sockets(const pipeline_t *self, int id);
//  ...and over every subscriber of the pipeline (0 outside pubsub)
long pipeline_total_sockets(const pipeline_t *self);
//  Does every XPUB push back instead of dropping at its HWM
//  (ZMQ_XPUB_NODROP: pubsub in mode = capacity)?
bool pipeline_backpressure(const pipeline_t *self);

//  Selftests: a topology's text, validated and planned on the live
//  machine, with what it was made of (pipeline_fixture_free frees all,
//  also after a failure).  -1: err says why
typedef struct {
    topology_t *topo;
    machine_t *machine;
    pipeline_t *pl;
} pipeline_fixture_t;
int pipeline_fixture_new(pipeline_fixture_t *self, const char *text,
                         errbuf_t *err);
void pipeline_fixture_free(pipeline_fixture_t *self);

int pipeline_test(bool verbose);

#endif
