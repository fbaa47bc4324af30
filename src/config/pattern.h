/*  pattern: what each pattern is made of, in one table.

        pattern    source          proxy front/back   sink
        pubsub     publisher XPUB  XSUB / XPUB        subscriber SUB
        pushpull   pusher PUSH     PULL / PUSH        puller PULL
        reqrep     requester REQ   ROUTER / DEALER    replier REP
        connect    publisher XPUB  XSUB / XPUB        subscriber SUB (per
                                                      connection)

    The topology checks a pipeline's stages against the roles here; the
    stages open the sockets here; nothing else names a socket type.
*/
#ifndef HOPBENCH_PATTERN_H
#define HOPBENCH_PATTERN_H

#include <stdbool.h>

typedef enum {
    ROLE_PUBLISHER,
    ROLE_SUBSCRIBER,
    ROLE_PROXY,
    ROLE_PUSHER,
    ROLE_PULLER,
    ROLE_REQUESTER,
    ROLE_REPLIER
} role_t;

//  The words a topology file uses for each role, NULL-terminated
extern const char *const pattern_role_names[];

typedef struct {
    role_t source, sink;            //  the first and the last stage
    int source_socket, sink_socket; //  ZMQ_* socket types
    int front_socket, back_socket;  //  a proxy's upstream and downstream side
} pattern_ends_t;

//  Roles that start a path (publisher, pusher, requester) and that end one
//  (subscriber, puller, replier), whatever the pattern
bool pattern_is_source(role_t role);
bool pattern_is_sink(role_t role);
//  The ends of a pattern (PATTERN_*)
const pattern_ends_t *pattern_ends(int pattern);
//  The socket a role opens in a pattern; for a proxy, its back or front
int pattern_socket(int pattern, role_t role, bool back);
//  "XPUB", "ROUTER", ...
const char *pattern_socket_name(int type);

#endif
