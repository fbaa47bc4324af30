/*  agent_link: the controller's connection to one host's agent.

        controller                                       host h2
        fleet  --pipe----> link actor ==CURVE tcp==> hopbench agent
        stage p1 --mailbox--^  (DEALER)                  (ROUTER)
        stage p2 --mailbox--^

    The link actor owns the DEALER, a CURVE client with the controller's
    certificate and the agent's public key.  It forwards what the fleet
    asks (messages about the link: ID -1) and what each remote stage sends
    on its mailbox, and routes the agent's messages back by their ID.  It
    heartbeats both ways on its own thread, whatever the controller's
    thread is doing: when the agent has said nothing for 'timeout'
    seconds, or its connection closed, or its CURVE handshake refused this
    controller, the link is lost, and every mailbox (and the fleet) gets
    [LOST][ID][why] at once, so the trial ends within the timeout naming
    the host.  The clock offset is estimated here too (NTP-style, the
    sample with the smallest round trip of several).

    Claimed with HELLO: protocol versions are compared, and the agent
    says what it is (versions, kernel, CPU, NUMA machine) and where it
    sees the controller.  See docs/HOSTS.md for the protocol.
*/
#ifndef HOPBENCH_AGENT_LINK_H
#define HOPBENCH_AGENT_LINK_H

#include <czmq.h>
#include <stdbool.h>

#include "base/errbuf.h"

typedef struct agent_link_s agent_link_t;

//  What the agent said of itself in WELCOME, and the clock estimate
typedef struct {
    int protocol;
    char hopbench[32], libzmq[16], czmq[16];
    char hostname[64], kernel[128], cpu_model[128];
    int numa_nodes;
    char peer[64];      //  the controller's address as the agent sees it
    char run_dir[256];  //  the agent's private directory for the run
    char *machine;      //  its NUMA machine, as a description (ZPL)
    char syscalls[512]; //  why it cannot trace system calls, "": it can
    //  agent clock - controller clock (CLOCK_MONOTONIC), its uncertainty
    //  (half the best round trip), and that round trip
    double offset_ns, uncertainty_ns, rtt_ns;
} agent_info_t;

typedef struct {
    const char *name;       //  the host's name in the hosts file
    const char *endpoint;   //  tcp://ADDR:PORT of its agent
    const char *server_key; //  the agent's public key (Z85)
    const char *public_key; //  the controller's own pair (Z85)
    const char *secret_key;
    const char *controller; //  who asks, for the agent's "busy" answer
    double timeout;         //  silence that loses the link (both ways)
} agent_link_options_t;

//  Made in steps, so that a fleet's hosts are set up together (fleet.c):
//  open (the name resolved, the actor started, the CURVE handshake under
//  way: nothing is awaited), reached (the handshake done: the agent is
//  there), HELLO asked (the host claimed) then its answer taken (WELCOME
//  awaited), and the clock's samples asked of every host, then each
//  one's estimate taken.  A take waits as long after since (when it was
//  asked of every host) as its question allows, so a fleet's answers
//  take one wait, not one each.  Each says "host NAME: why" when it
//  fails (not allowed, busy, another protocol, no answer)
agent_link_t *agent_link_open(const agent_link_options_t *options,
                              errbuf_t *err);
bool agent_link_reached(agent_link_t *self);
int agent_link_hello_ask(agent_link_t *self, errbuf_t *err);
int agent_link_hello_take(agent_link_t *self, double since, errbuf_t *err);
//  The agent's endpoint, as the hosts file gives it
const char *agent_link_endpoint(const agent_link_t *self);
void agent_link_clock_ask(agent_link_t *self);
int agent_link_clock_take(agent_link_t *self, double since, errbuf_t *err);
//  BYE: the agent ends the run; -1 with "host NAME: why" when it does
//  not answer (its link lost, or silent for the timeout).  Said once
int agent_link_bye(agent_link_t *self, errbuf_t *err);
//  BYE (if not said yet, its answer not awaited beyond the timeout),
//  then close
void agent_link_destroy(agent_link_t **self_p);

const agent_info_t *agent_link_info(const agent_link_t *self);
const char *agent_link_name(const agent_link_t *self);
//  Lost for good?  why: the reason
bool agent_link_lost(agent_link_t *self, char *why, size_t len);
//  Lost because its agent said nothing for the timeout (not a closed
//  connection, nor a refused handshake)
bool agent_link_silent(agent_link_t *self);
//  Seconds since the agent last said anything
double agent_link_silence(agent_link_t *self);
//  The silence that loses it
double agent_link_timeout(const agent_link_t *self);
//  How long an answer of its agent is awaited: the timeout and a second,
//  so that an agent that fell silent is found lost first, and its loss
//  is the error
int agent_link_wait_ms(const agent_link_t *self);

//  A request about the link ([COMMAND][-1][args]) and its answer, or NULL
//  with "host NAME: why"; an [ERR][-1][why] answer is NULL too
zmsg_t *agent_link_ask(agent_link_t *self, zmsg_t **request, int timeout_ms,
                       errbuf_t *err);
//  The same in two steps, to ask every host before awaiting any answer:
//  the request posted (-1 with err when the link is lost), then its
//  answer taken, awaited until agent_link_wait_ms after since (mono
//  seconds: when every host was asked)
int agent_link_post(agent_link_t *self, zmsg_t **request, errbuf_t *err);
zmsg_t *agent_link_answer(agent_link_t *self, double since, errbuf_t *err);
//  Tests only, before the controller asks word of this host (a request's
//  first frame, or a stage's command: SETUP, RUN ...):
//  HOPBENCH_TEST_HOLD=WORD@HOST:PATH holds it there while PATH exists
//  (PATH.held says it is held; at most 30 s), so a test can place a
//  fault on the host the moment it is asked (tests/77-host-faults-timing.t)
void agent_link_hold(agent_link_t *self, const char *word);
//  Stage id's mailbox: what is sent on it goes to the agent as it is, the
//  agent's messages for id come out of it.  The link takes it on its own
//  thread, unawaited (a crew's stages are attached without a round trip
//  each); a second mailbox for an id that has one is closed there
zsock_t *agent_link_attach(agent_link_t *self, int id, errbuf_t *err);
void agent_link_detach(agent_link_t *self, int id, zsock_t **mailbox);

#endif
