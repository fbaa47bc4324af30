/*  hosts: the hosts of a run across machines, from --hosts FILE (ZPL).

        host = h1
            agent = tcp://169.254.77.1:7800   # where its hopbench agent listens
            cert = keys/h1.cert               # the agent's public certificate
            address = 169.254.77.1            # where its tcp hops bind
            cost = 3                          # hopbench size: what it costs
        host = h2
            agent = tcp://169.254.77.2:7800
            cert = keys/h2.cert

    A stage names its host with `host = NAME`; a stage without one runs
    where the controller runs.  `cert` is a czmq zcert public file (the
    agent runs with its _secret twin), read now (config/certfile),
    relative to the hosts file's folder; it may be left out only when
    hopbench starts the agents itself (--ssh: each agent then makes a
    certificate for the run and says it over ssh).  `address` defaults to
    the agent's address.  `cost` is what the host costs in the user's unit,
    for `hopbench size` (run/size_cost.h).  Every
    mistake is refused at its file:line; nothing here connects anywhere.
*/
#ifndef HOPBENCH_HOSTS_H
#define HOPBENCH_HOSTS_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "base/limits.h"
#include "config/topology.h"

#define HOSTS_ADDR_MAX 64

typedef struct {
    char name[LIMIT_NAME + 1];
    char agent[LIMIT_ENDPOINT + 1];     //  tcp://ADDR:PORT of its agent
    char agent_address[HOSTS_ADDR_MAX]; //  ADDR of that
    int agent_port;
    char cert[512];               //  the agent's public certificate, "" none
    char public_key[41];          //  Z85, read from cert ("" without one)
    char address[HOSTS_ADDR_MAX]; //  where its tcp hops bind
    double cost;                  //  what it costs (hopbench size), 0: none
    int line;                     //  of "host = NAME"
} host_t;

//  As many hosts as the file has (its size, LIMIT_FILE_BYTES, bounds
//  them): the array grows as they are read
typedef struct {
    char path[256];
    int n, room;
    host_t *host;
} hosts_t;

//  Load and check the file's text (path names it in messages, and anchors
//  cert paths; a cert that is a FIFO may take 'wait' seconds, as
//  readfile's); NULL with "path:line: why"
hosts_t *hosts_load_text(const char *path, const char *text, double wait,
                         errbuf_t *err);
void hosts_destroy(hosts_t **self_p);

//  The host called name, or NULL
const host_t *hosts_find(const hosts_t *self, const char *name);
//  Does any stage of the topology name a host?
bool hosts_wanted(const topology_t *topo);
//  Every host a stage names is in the file (hosts NULL: no --hosts was
//  given); errors at the stage's host key
int hosts_check_topology(const hosts_t *self, const topology_t *topo,
                         errbuf_t *err);
//  Every host of the file a certificate (not needed with --ssh)
int hosts_check_certs(const hosts_t *self, const topology_t *topo,
                      errbuf_t *err);

int hosts_test(bool verbose);

#endif
