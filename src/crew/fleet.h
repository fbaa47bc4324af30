/*  fleet: the hosts of one run, each through its agent.

        controller --agent_link--> h1's agent   (hopbench agent on h1)
                   --agent_link--> h2's agent
                   --ssh---------> h3: hopbench agent --once (--ssh)

    Made before anything is planned, each host claimed in the order of
    their names (so that two runs after the same hosts cannot each hold
    some and both be refused): each host's agent says what its NUMA
    machine is, so each host's stages are planned on their own machine;
    and where it sees the controller, so hops bound here towards it bind
    an address it can reach.  For every combination the fleet hands each
    agent the combination's effective topology (SPEC: no file need exist
    on the agent's host) before crew starts its stages there.  With --ssh
    the fleet starts each agent itself over OpenSSH (agent_ssh.h) and
    stops it at the end.  A host given with --machine HOST=FILE (plan and
    check) is planned on that description and not connected to.
*/
#ifndef HOPBENCH_FLEET_H
#define HOPBENCH_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "config/hosts.h"
#include "crew/agent_link.h"
#include "machine/machine.h"
#include "pipeline/pipeline.h"

typedef struct fleet_s fleet_t;

//  A host planned on a description instead of its agent's machine (read
//  by the caller, copied by fleet_new)
typedef struct {
    const char *host;
    const machine_t *machine;
} fleet_machine_file_t;

typedef struct {
    const hosts_t *hosts; //  read by fleet_new only
    zcert_t *cert;        //  the controller's secret certificate (copied);
                          //  NULL: one for this run only (--ssh)
    bool ssh;             //  start each agent over ssh
    const char *remote_hopbench; //  its path there (NULL: "hopbench")
    double timeout;              //  the run's timeout: heartbeats, answers
    const fleet_machine_file_t *files;
    int nfiles;
} fleet_options_t;

//  Connect to (or start) the agents of the hosts named in names[0..n-1]
//  (duplicates are fine); NULL with err naming the host
fleet_t *fleet_new(const fleet_options_t *options, const char *const *names,
                   int n, errbuf_t *err);
//  BYE to every agent (each ends the run's stages and serves the next
//  controller): -1 with err naming the first host that did not answer
//  (lost meanwhile, or silent for the timeout); the others still hear it
int fleet_bye(fleet_t *self, errbuf_t *err);
//  BYE to every agent that has not had it (no answer awaited beyond the
//  timeout); stop what --ssh started
void fleet_destroy(fleet_t **self_p);

//  Hosts of the fleet, in order; name, link (NULL: planned on a file)
int fleet_size(const fleet_t *self);
const char *fleet_name(const fleet_t *self, int i);
const host_t *fleet_host(const fleet_t *self, int i);
agent_link_t *fleet_link(const fleet_t *self, const char *name);
const machine_t *fleet_machine(const fleet_t *self, const char *name);
//  Agent clock minus controller clock for host name, ns (0 for "")
double fleet_offset_ns(const fleet_t *self, const char *name);

//  What pipeline_new_on plans with: 'local' for "", each host's machine
int fleet_machines(const fleet_t *self, const machine_t *local,
                   pipeline_machine_t *out, int max);
//  What pipeline_resolve needs of the hosts (the fleet owns the table)
const pipeline_host_t *fleet_pipeline_hosts(const fleet_t *self, int *n);
//  After a failed trial: if a host of pl fell silent, wait (bounded by
//  its timeout) to see whether it is lost, and if it is, make that the
//  error: "stage proxy: host h2: no word from its agent ...", then what
//  the trial said, as the stage that said it saw the lost host: "; stage
//  pub is blocked on it (hop 1): ..." (it sends there), "waits on it"
//  (it takes from there), or "(then: ...)".  A lost host is the cause,
//  and the only host named: what its silence did to the trial (a timeout
//  elsewhere, on another host) is its effect
void fleet_blame(fleet_t *self, const pipeline_t *pl, errbuf_t *err);
//  Hand the combination's topology (the file at config) to the agent of
//  every host a stage of pl names, in two steps: every host asked (SPEC),
//  then every answer taken, within one wait, the hosts that failed named
//  together.  Meanwhile the stages can be asked to start: each agent
//  reads START after SPEC.  A failed ask has taken the answers already;
//  else the answers are owed before anything else is asked of the
//  fleet's links (their answers come in order)
int fleet_spec_ask(fleet_t *self, const pipeline_t *pl, const char *config,
                   errbuf_t *err);
int fleet_spec_take(fleet_t *self, errbuf_t *err);

//  Selftest: what a lost host's blame says (app/selftests.h)
int fleet_test(bool verbose);

#endif
