/*  agent: `hopbench agent`, which serves the stages a controller on
    another host asks this host to run.

        hopbench agent --bind tcp://169.254.77.2:7800 --allow keys/ctl.cert
                       --cert keys/h2.cert_secret [--once]

    One run at a time.  The control channel is a ROUTER socket of czmq's
    context, a CURVE server with --cert's keys (or a certificate made for
    this agent's life, its public key said on stdout), and czmq's zauth on
    that same context lets in only controllers whose public key is in
    --allow: anyone else fails the CURVE handshake (ZAP 400) before a
    message of theirs is read.  A controller says HELLO with its protocol
    version: another version is refused with both named; a second
    controller while one is served hears "busy, serving HOST since T".
    The agent heartbeats its controller and, when it has heard nothing for
    the run's timeout or the controller's connection closed (it ended, or
    was killed), ends the run's stages and serves the next one.
    --once ends the agent after one run, as --ssh starts it; with --allow
    - the keys come on stdin, and the agent ends when its stdin closes.

    The agent runs nothing but hopbench stages (agent_run.h).
*/
#ifndef HOPBENCH_AGENT_H
#define HOPBENCH_AGENT_H

#include <stdbool.h>

typedef struct {
    const char *bind;  //  tcp://ADDR:PORT
    const char *allow; //  a certificate, a directory of them, or "-"
    const char *cert;  //  its secret certificate; NULL: one for now
    bool once;         //  one run, then exit
} agent_options_t;

//  Serve until interrupted (or after one run with once); the exit status:
//  0, 1 when the control channel cannot be bound, 2 for bad options
int agent_main(const agent_options_t *options);

#endif
