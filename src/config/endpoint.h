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

    Two hops must not name one socket in two spellings, so endpoints are
    compared in a canonical form: an ipc path as the file it will be
    (relative to the working directory, its directory resolved where it
    exists: //, /./, .. and symlinks; lexically where it does not), a tcp
    address as IPv4 numbers (localhost is 127.0.0.1; 127.1 and the other
    inet_aton forms are dotted quads) or IPv6 compressed, its port in
    decimal.  Names other than localhost are not resolved (check makes no
    DNS queries).  A wildcard bind (0.0.0.0, [::]) takes its port on
    every address, so it overlaps any address with that port.
*/
#ifndef HOPBENCH_ENDPOINT_H
#define HOPBENCH_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/errbuf.h"
#include "config/params.h"

//  0, or -1 with "endpoint 'X': why" in err (the caller adds where)
int endpoint_check(const char *endpoint, transport_t transport, errbuf_t *err);

//  The endpoint as the socket it will be, into out (len bytes); endpoint
//  must have passed endpoint_check
void endpoint_canonical(const char *endpoint, char *out, size_t len);
//  Do two canonical endpoints name one socket: the same, or tcp on one
//  port where either address is a wildcard?
bool endpoint_overlap(const char *a, const char *b);

int endpoint_test(bool verbose);

#endif
