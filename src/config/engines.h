/*  engines: the proxy engines a user chooses by name, as data.

        engine     what it is                          what it cannot do
        steerable  libzmq's zmq_proxy_steerable        tell senders apart
        zproxy     czmq's zproxy actor                 inproc, HWM, CURVE,
                                                       back-pressure, reqrep
        forwarder  hopbench's own loop, reads headers  -

    One row per engine: its id, its name, its traits and one line of
    meaning (the --help-keys and man page text).  Every layer asks a
    trait, never an engine's id: pipeline/ (who tells senders apart),
    roster and crew (whose threads are czmq's), the topology's checks
    (what a hop or mode may ask of it).  stages/roles.c finds the ops of
    an engine by its name, proxy_NAME_ops in stages/proxy_NAME.c; so an
    engine is its file and one row here, whose traits must be true of
    the file (a forwarder's copy without TELLS_SENDERS_APART delivers
    nothing the counters see).
*/
#ifndef HOPBENCH_ENGINES_H
#define HOPBENCH_ENGINES_H

#include <stdbool.h>
#include <stddef.h>

//  What an engine does; a trait it lacks is a rule the topology checks
typedef enum {
    //  reads every message's header: a row per sender on a fan-in link;
    //  its file then counts per origin, as proxy_forwarder.c does (its
    //  received count is their sum, stage_received)
    TRAIT_TELLS_SENDERS_APART = 1 << 0,
    //  a czmq actor: a thread of its own named as the engine, its sockets
    //  in czmq's context (whose I/O threads are its I/O; so no inproc hop)
    TRAIT_CZMQ_ACTOR = 1 << 1,
    //  takes a hop's hwm (else libzmq's 1000)
    TRAIT_SETS_HWM = 1 << 2,
    //  takes CURVE keys
    TRAIT_TAKES_CURVE = 1 << 3,
    //  sets ZMQ_XPUB_NODROP when the pipeline asks for back-pressure
    TRAIT_HOLDS_BACKPRESSURE = 1 << 4,
    //  its counts of a reqrep hop are a reqrep's
    TRAIT_COUNTS_REQREP = 1 << 5,
    //  its counters are asked of its own loop, which answers between
    //  messages: a send held by back-pressure holds them back too
    TRAIT_ANSWERS_BETWEEN_MESSAGES = 1 << 6,
} engine_trait_t;

#define TRAITS_LIBZMQ_SOCKETS                                                  \
    (TRAIT_SETS_HWM | TRAIT_TAKES_CURVE | TRAIT_HOLDS_BACKPRESSURE |           \
     TRAIT_COUNTS_REQREP)

//  The table: ROW(ID, name, traits, meaning), in the order of the ids
#define ENGINES(ROW)                                                           \
    ROW(STEERABLE, steerable,                                                  \
        TRAITS_LIBZMQ_SOCKETS | TRAIT_ANSWERS_BETWEEN_MESSAGES,                \
        "libzmq's zmq_proxy_steerable, whose STATISTICS give the hop "         \
        "counters")                                                            \
    ROW(ZPROXY, zproxy, TRAIT_CZMQ_ACTOR,                                      \
        "czmq's zproxy actor, counted through its CAPTURE socket (one more "   \
        "send per message); no inproc hops, HWM or CURVE, and no "             \
        "back-pressure (mode = flood or search, not capacity)")                \
    ROW(FORWARDER, forwarder,                                                  \
        TRAITS_LIBZMQ_SOCKETS | TRAIT_TELLS_SENDERS_APART,                     \
        "hopbench's own loop: one zmq_poll, then up to 1000 non-blocking "     \
        "receives, each sent on; a row per publisher on a fan-in hop")

#define ENGINE_ID(id, name, traits, help) ENGINE_##id,
typedef enum { ENGINES(ENGINE_ID) ENGINE_COUNT } engine_id_t;
#undef ENGINE_ID

//  The names and meanings, NULL-terminated (the engine key's choices)
extern const char *const engines_names[];
extern const char *const engines_help[];

//  An engine's name ("?" for an id out of range)
const char *engine_name(int engine);
//  Whether the engine has the trait
bool engine_can(int engine, engine_trait_t trait);
//  The names of the engines that have the trait (has) or lack it,
//  "a, b or c"
void engines_with(engine_trait_t trait, bool has, char *buf, size_t len);

int engines_test(bool verbose);

#endif
