/*  endpoint: what an endpoint named in a topology must look like.

    A hop's endpoint is bound at one end and connected to at the other,
    as written, so it must work both ways:

        tcp://HOST:PORT     HOST a name, an IPv4 address or [IPv6]; not *
                            (nobody can connect to it), not SOURCE;HOST
                            (nobody can bind it); PORT 1..65535, not *
        ipc://PATH          PATH not empty, not *, at most LIMIT_IPC_PATH
                            bytes (sun_path); @NAME is Linux's abstract
                            namespace
        inproc://NAME       NAME not empty

    The scheme is the hop's transport.  Checked at check time, so a run
    never fails on an endpoint libzmq would refuse; whether a host
    resolves, or a port is free, is for the run to find out.
*/
#ifndef HOPBENCH_ENDPOINT_H
#define HOPBENCH_ENDPOINT_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "config/params.h"

//  0, or -1 with "endpoint 'X': why" in err (the caller adds where)
int endpoint_check(const char *endpoint, transport_t transport, errbuf_t *err);

int endpoint_test(bool verbose);

#endif
