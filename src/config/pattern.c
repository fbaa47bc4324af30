/*  pattern: the one table of roles and sockets per pattern (pattern.h).  */
#include "config/pattern.h"

#include "config/params.h"

#include <zmq.h>

const char *const pattern_role_names[] = {
    "publisher", "subscriber", "proxy",   "pusher",
    "puller",    "requester",  "replier", NULL};

static const pattern_ends_t s_ends[] = {
    [PATTERN_PUBSUB] = {ROLE_PUBLISHER, ROLE_SUBSCRIBER, ZMQ_XPUB, ZMQ_SUB,
                        ZMQ_XSUB, ZMQ_XPUB},
    [PATTERN_PUSHPULL] = {ROLE_PUSHER, ROLE_PULLER, ZMQ_PUSH, ZMQ_PULL,
                          ZMQ_PULL, ZMQ_PUSH},
    [PATTERN_REQREP] = {ROLE_REQUESTER, ROLE_REPLIER, ZMQ_REQ, ZMQ_REP,
                        ZMQ_ROUTER, ZMQ_DEALER},
    [PATTERN_CONNECT] = {ROLE_PUBLISHER, ROLE_SUBSCRIBER, ZMQ_XPUB, ZMQ_SUB,
                         ZMQ_XSUB, ZMQ_XPUB},
};

const pattern_ends_t *pattern_ends(int pattern)
{
    return &s_ends[pattern];
}

bool pattern_is_source(role_t role)
{
    return role == ROLE_PUBLISHER || role == ROLE_PUSHER ||
           role == ROLE_REQUESTER;
}

bool pattern_is_sink(role_t role)
{
    return role == ROLE_SUBSCRIBER || role == ROLE_PULLER ||
           role == ROLE_REPLIER;
}

int pattern_socket(int pattern, role_t role, bool back)
{
    const pattern_ends_t *ends = &s_ends[pattern];
    if (role == ROLE_PROXY)
        return back ? ends->back_socket : ends->front_socket;
    return pattern_is_source(role) ? ends->source_socket : ends->sink_socket;
}

const char *pattern_socket_name(int type)
{
    static const struct {
        int type;
        const char *name;
    } names[] = {
        {ZMQ_XPUB, "XPUB"}, {ZMQ_XSUB, "XSUB"},     {ZMQ_SUB, "SUB"},
        {ZMQ_PUSH, "PUSH"}, {ZMQ_PULL, "PULL"},     {ZMQ_REQ, "REQ"},
        {ZMQ_REP, "REP"},   {ZMQ_ROUTER, "ROUTER"}, {ZMQ_DEALER, "DEALER"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].type == type)
            return names[i].name;
    return "?";
}
