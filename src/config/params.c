/*  params: the table of topology keys, and reading/writing their values.

    Options are data (as in fio's options.c): adding a key is one row here,
    one field in params_t and one enum value.  Values are parsed strictly:
    numbers must be whole numbers in range, booleans true/false (also
    1/0, yes/no, on/off), enums one of their names.
*/
#include "config/params.h"

#include "base/check.h"

#include <string.h>

const char *const params_pattern_names[] = {"pubsub", "pushpull", "reqrep",
                                            "connect", NULL};
const char *const params_transport_names[] = {"inproc", "ipc", "tcp", NULL};
const char *const params_process_names[] = {"thread", "own", NULL};
const char *const params_placement_names[] = {"none",  "compact", "spread",
                                              "split", "all",     NULL};
const char *const params_mode_names[] = {"capacity", "flood", "search", NULL};
const char *const params_profile_names[] = {"none", "syscalls", NULL};
const char *const params_order_names[] = {"auto", "sequential", "interleave",
                                          NULL};

//  What each value of an enum means, in the order of its names
static const char *const s_pattern_help[] = {
    "XPUB publishers, XSUB/XPUB proxies, SUB subscribers: messages per "
    "second per hop; what a PUB end drops at the HWM is loss",
    "PUSH, PULL/PUSH proxies, PULL: the same, lossless (PUSH blocks "
    "instead of dropping), as libzmq's local_thr and remote_thr",
    "REQ, ROUTER/DEALER proxies, REP: round trips per second; latency.csv "
    "has their distribution",
    "a publisher feeds a broker at rate; SUB clients connect, take one "
    "message and close, again and again: connections per second on the "
    "clients' hop",
    NULL};
static const char *const s_transport_help[] = {
    "within the process: the stages it joins share one libzmq context",
    "a Unix domain socket in the run's private 0700 directory",
    "127.0.0.1 on a free port, unless endpoint names one", NULL};
static const char *const s_placement_help[] = {
    "no pinning",
    "every stage on node 0, one physical core each, SMT siblings last",
    "adjacent stages on different nodes: every hop crosses a socket",
    "the publisher side on node 0, the subscriber side on node 1: one "
    "crossing",
    "every distinct assignment of the stages to nodes, each run as one "
    "value of a sweep of nodes, with a summary ranking them (plan lists "
    "them; see NUMA in hopbench(1))",
    NULL};
static const char *const s_process_help[] = {
    "a thread of hopbench's own process",
    "a process of its own, this binary started as hopbench stage (its hops "
    "cannot be inproc)",
    NULL};

static const char *const s_mode_help[] = {
    "ZMQ_XPUB_NODROP on every publisher and proxy: a slow stage slows the "
    "path, nothing is lost, msgs/s is what the pipeline carries",
    "PUB drop semantics, the publisher flat out; rows whose rate the HWM and "
    "libzmq's command batching set are marked (hwm_bound)",
    "paced publishers with PUB drop semantics: the highest offered rate "
    "that loses at most loss_ratio on every hop (search.csv)",
    NULL};

static const char *const s_profile_help[] = {
    "nothing is traced",
    "each repeat runs twice, one of the two traced (they alternate which "
    "goes first): every system call of every stage thread and its libzmq "
    "threads while the window is open, counted and timed from the "
    "kernel's raw_syscalls tracepoints, into syscalls.csv and a block "
    "under each size; results.csv keeps the untraced twin, and the traced "
    "one's rate against it is the profile's cost (root, or "
    "kernel.perf_event_paranoid = -1); mode = search traces one twin per "
    "search, after it: its confirmation's rate and length, on its pipeline",
    NULL};

static const char *const s_order_help[] = {
    "interleave when the run sweeps a key and repeats sizes (repeat >= 2), "
    "else sequential",
    "every repeat of a combination, then the next combination",
    "repeat 1 of every combination, then repeat 2 of every combination, and "
    "so on: a drifting machine weighs on every combination alike (each "
    "combination's stages are started again for each round)",
    NULL};

//  A row names only the fields its type uses
#define T         LEVEL_TOPOLOGY
#define S         LEVEL_STAGE
#define H         LEVEL_HOP
#define C         LEVEL_CONTROLLER
#define AT(field) .offset = offsetof(params_t, field)
#define TEXT(field, lim)                                                       \
    AT(field), .length = sizeof(((params_t *)0)->field), .limit = #lim
#define RANGE(lo, hi) .min = (lo), .max = (hi)
//  lo <= value < hi
#define RANGE_BELOW(lo, hi) .min = (lo), .max = (hi), .below = true
#define ENUM(names)                                                            \
    .choices = params_##names##_names, .choice_help = s_##names##_help

const option_t params_options[KEY_COUNT_OF_KEYS] = {
    [KEY_PATTERN] = {.name = "pattern",
                     .levels = T,
                     .type = TYPE_ENUM,
                     AT(pattern),
                     ENUM(pattern),
                     .fallback = "pubsub",
                     .help = "what flows: pubsub (PUB/XSUB-XPUB/SUB), "
                             "pushpull, reqrep, connect; stage names must "
                             "match it"},
    [KEY_SIZES] = {.name = "sizes",
                   .levels = T,
                   .type = TYPE_SIZES,
                   AT(sizes),
                   .fallback = "8..131072",
                   .help = "message sizes in bytes: 8..131072 (doubling) or "
                           "64,1024,65536; K and M suffixes"},
    [KEY_MESSAGES] = {.name = "messages",
                      .levels = T,
                      .type = TYPE_U64,
                      AT(messages),
                      RANGE(0, 1e12),
                      .fallback = "0",
                      .help = "the window closes when every receiver of the "
                              "last stage has taken this many (reqrep: round "
                              "trips, default 5000); 0: use duration"},
    [KEY_DURATION] = {.name = "duration",
                      .levels = T,
                      .type = TYPE_DOUBLE,
                      AT(duration),
                      RANGE(0.01, 3600),
                      .fallback = "1",
                      .help = "measurement window in seconds (when messages "
                              "= 0)"},
    [KEY_WARMUP] = {.name = "warmup",
                    .levels = T,
                    .type = TYPE_DOUBLE,
                    AT(warmup),
                    RANGE(0, 600),
                    .fallback = "0.2",
                    .help = "seconds of traffic before the window opens (not "
                            "counted in msgs_per_sec)"},
    [KEY_REPEAT] = {.name = "repeat",
                    .levels = T,
                    .type = TYPE_INT,
                    AT(repeat),
                    RANGE(1, LIMIT_REPEAT),
                    .fallback = "1",
                    .help = "repetitions of each size (the same stage threads "
                            "and contexts; new sockets and endpoints each); "
                            "mode = search: searches of each size"},
    [KEY_CONFIDENCE] = {.name = "confidence",
                        .levels = T,
                        .type = TYPE_DOUBLE,
                        AT(confidence),
                        RANGE(0.5, 0.999),
                        .fallback = "0.95",
                        .help = "with 3 or more repeats, each median's "
                                "interval (ci_low, ci_high) covers the true "
                                "median with this probability, from order "
                                "statistics"},
    [KEY_PRECISION] = {.name = "precision",
                       .levels = T,
                       .type = TYPE_DOUBLE,
                       AT(precision),
                       RANGE(0, 0.5),
                       .fallback = "0",
                       .help = "repeat each size until every hop's interval "
                               "is within this share of its median (0.05: "
                               "+-5 %), from repeat (default 3 here) to "
                               "max_repeat; 0: exactly repeat times"},
    [KEY_MAX_REPEAT] = {.name = "max_repeat",
                        .levels = T,
                        .type = TYPE_INT,
                        AT(max_repeat),
                        RANGE(1, LIMIT_REPEAT),
                        .fallback = "30",
                        .help = "precision: at most this many repeats of a "
                                "size; rows still wider are precise = 0"},
    [KEY_ORDER] = {.name = "order",
                   .levels = T,
                   .type = TYPE_ENUM,
                   AT(order),
                   ENUM(order),
                   .fallback = "auto",
                   .help = "a sweep's repeats: sequential (all of a "
                           "combination's, then the next), interleave "
                           "(round by round over the combinations), auto "
                           "(interleave with --sweep and repeat >= 2)"},
    [KEY_TIMEOUT] = {.name = "timeout",
                     .levels = T,
                     .type = TYPE_DOUBLE,
                     AT(timeout),
                     RANGE(0.5, 3600),
                     .fallback = "10",
                     .help = "seconds a stage may take to answer, or a hop to "
                             "deliver its first message, before the run "
                             "fails"},
    [KEY_TRANSPORT] = {.name = "transport",
                       .levels = T | H,
                       .type = TYPE_ENUM,
                       AT(transport),
                       ENUM(transport),
                       .fallback = "tcp",
                       .help = "inproc, ipc or tcp; on the topology it is the "
                               "default for hops that name none ('hop = ipc' "
                               "is short for a hop with transport = ipc)"},
    [KEY_ENDPOINT] = {.name = "endpoint",
                      .levels = H,
                      .type = TYPE_STRING,
                      TEXT(endpoint, LIMIT_ENDPOINT),
                      .fallback = "",
                      .accepted = "an endpoint of the hop's transport "
                                  "(tcp://HOST:PORT, ipc://PATH, "
                                  "inproc://NAME), each hop its own socket "
                                  "(an ipc file however spelt, a tcp address "
                                  "and port, 0.0.0.0 holding its port on "
                                  "every address)",
                      .help = "the hop's endpoint, e.g. tcp://127.0.0.1:5555; "
                              "empty: 127.0.0.1 on a free port, an ipc path "
                              "in a private directory, a unique inproc name"},
    [KEY_HWM] = {.name = "hwm",
                 .levels = T | H,
                 .type = TYPE_INT,
                 AT(hwm),
                 RANGE(0, 1e9),
                 .fallback = "1000",
                 .help = "high-water mark, messages, both ends of a hop (0: "
                         "none); subscriptions are not held to it"},
    [KEY_MODE] = {.name = "mode",
                  .levels = T,
                  .type = TYPE_ENUM,
                  AT(mode),
                  ENUM(mode),
                  .fallback = "capacity",
                  .help = "what a pubsub run measures: capacity (back-"
                          "pressure end to end), flood (drops at the HWM), "
                          "search (the sustainable rate)"},
    [KEY_PLACEMENT] = {.name = "placement",
                       .levels = T,
                       .type = TYPE_ENUM,
                       AT(placement),
                       ENUM(placement),
                       .fallback = "none",
                       .help = "where stages run on a NUMA machine: none, "
                               "compact, spread, split, or all (every "
                               "distinct assignment, one run each); a "
                               "stage's node or cpus wins over it"},
    [KEY_SIBLINGS] = {.name = "siblings",
                      .levels = T,
                      .type = TYPE_BOOL,
                      AT(siblings),
                      .fallback = "true",
                      .help = "let stage threads share a core's SMT siblings "
                              "when a node runs out of free cores"},
    [KEY_NODES] = {.name = "nodes",
                   .levels = T,
                   .type = TYPE_STRING,
                   TEXT(nodes, LIMIT_SWEEP_VALUE),
                   .fallback = "",
                   .accepted = "one node number or - per stage, in pipeline "
                               "order, joined by +: 0+0+1, 0+-+1",
                   .help = "the node of each stage in pipeline order, "
                           "joined by + (0+0+1; - leaves a stage to the "
                           "placement); wins over placement, and a stage's "
                           "own node or cpus wins over it"},
    [KEY_MAX_PLACEMENTS] = {.name = "max_placements",
                            .levels = T,
                            .type = TYPE_INT,
                            AT(max_placements),
                            RANGE(1, LIMIT_SWEEP_VALUES),
                            .fallback = "64",
                            .help = "placement = all refuses a study of more "
                                    "distinct assignments than this"},
    [KEY_IO_THREADS] = {.name = "io_threads",
                        .levels = T | S,
                        .type = TYPE_INT,
                        AT(io_threads),
                        RANGE(1, LIMIT_IO_THREADS),
                        .fallback = "1",
                        .help = "libzmq I/O threads of a stage's context"},
    [KEY_IO_CPUS] = {.name = "io_cpus",
                     .levels = T | S,
                     .type = TYPE_STRING,
                     TEXT(io_cpus, LIMIT_CPUS_TEXT),
                     .fallback = "node",
                     .accepted = "node, stage, or a CPU list in numactl "
                                 "syntax: 0-3,8",
                     .help = "CPUs of a stage's libzmq I/O threads: node "
                             "(every CPU of the stage's node), stage (the "
                             "stage thread's own, as taskset pins a whole "
                             "process), or a CPU list"},
    [KEY_NODE] = {.name = "node",
                  .levels = S | C,
                  .type = TYPE_INT,
                  AT(node),
                  RANGE(-1, LIMIT_NODE_ID),
                  .fallback = "-1",
                  .help = "NUMA node of the stage, or of hopbench's own "
                          "threads under controller (-1: the placement "
                          "decides)"},
    [KEY_CPUS] = {.name = "cpus",
                  .levels = S | C,
                  .type = TYPE_STRING,
                  TEXT(cpus, LIMIT_CPUS_TEXT),
                  .fallback = "",
                  .accepted = "a CPU list in numactl syntax: 0-3,8",
                  .help = "CPUs of the stage thread, or of hopbench's own "
                          "threads under controller, numactl syntax (0-3,8); "
                          "wins over node and placement"},
    [KEY_COUNT] = {.name = "count",
                   .levels = S,
                   .type = TYPE_INT,
                   AT(count),
                   RANGE(1, LIMIT_COUNT),
                   .fallback = "1",
                   .help = "instances of a publisher or subscriber stage "
                           "(fan-in, fan-out), named NAME.1 .. NAME.N"},
    [KEY_ENGINE] = {.name = "engine",
                    .levels = T | S,
                    .type = TYPE_ENUM,
                    AT(engine),
                    .choices = engines_names,
                    .choice_help = engines_help,
                    .fallback = "steerable",
                    .help = "the proxy's engine: the loop that carries its "
                            "messages from frontend to backend"},
    [KEY_RATE] = {.name = "rate",
                  .levels = T,
                  .type = TYPE_DOUBLE,
                  AT(rate),
                  RANGE(0, 1e9),
                  .fallback = "0",
                  .help = "messages per second per publisher (0: as fast as "
                          "possible)"},
    [KEY_ZEROCOPY] = {.name = "zerocopy",
                      .levels = T,
                      .type = TYPE_BOOL,
                      AT(zerocopy),
                      .fallback = "false",
                      .help = "publishers send with zmq_msg_init_data from a "
                              "pool of node-local buffers, reused after "
                              "libzmq frees them"},
    [KEY_PROCESS] = {.name = "process",
                     .levels = S,
                     .type = TYPE_ENUM,
                     AT(process),
                     ENUM(process),
                     .fallback = "thread",
                     .help = "thread: the stage runs in hopbench's process; "
                             "own: in a process of its own (ps shows "
                             "hopbench:NAME)"},
    [KEY_NETNS] = {.name = "netns",
                   .levels = S,
                   .type = TYPE_STRING,
                   TEXT(netns, LIMIT_ZONE_NAME),
                   .fallback = "",
                   .accepted = "a zone name: up to 10 letters, digits, _ and -",
                   .help = "zone: a network namespace hopbench makes for the "
                           "run (root); tcp hops out of it cross a veth "
                           "pair"},
    [KEY_HOST] = {.name = "host",
                  .levels = S,
                  .type = TYPE_STRING,
                  TEXT(host, LIMIT_HOST_LIST),
                  .fallback = "",
                  .accepted = "a host of the --hosts file (letters, digits, "
                              "_ and -), or a comma list of them and of "
                              "ranges (h3..h66)",
                  .help = "the host the stage runs on, through the agent the "
                          "--hosts file names for it (hopbench agent); a "
                          "list h2,h3 (or a range h2..h9) puts the stage's "
                          "instances on them in turn; empty: where hopbench "
                          "run runs.  Its hops "
                          "to other hosts must be tcp"},
    [KEY_CURVE] = {.name = "curve",
                   .levels = T | H,
                   .type = TYPE_BOOL,
                   AT(curve),
                   .fallback = "false",
                   .help = "CURVE encryption on tcp hops: a server keypair "
                           "per hop made for the run, its clients given the "
                           "server key"},
    [KEY_LOSS_RATIO] = {.name = "loss_ratio",
                        .levels = T,
                        .type = TYPE_RATIOS,
                        AT(loss_ratio),
                        RANGE_BELOW(0, 1),
                        .fallback = "0",
                        .help = "search: the share of a hop's messages it "
                                "may lose and pass (0: no drop rate, NDR; "
                                "0.005: a partial drop rate, PDR); a list "
                                "(0,0.005) judges one search's trials "
                                "against each, a rate found for each"},
    [KEY_P99_US] = {.name = "p99_us",
                    .levels = T,
                    .type = TYPE_DOUBLE,
                    AT(p99_us),
                    RANGE(0, 1e9),
                    .fallback = "0",
                    .help = "search: a trial passes only if its end-to-end "
                            "p99 latency is at most this many microseconds "
                            "(0: any; sizes of 16 bytes or more)"},
    [KEY_SEARCH_PRECISION] = {.name = "search_precision",
                              .levels = T,
                              .type = TYPE_DOUBLE,
                              AT(search_precision),
                              RANGE(0.0001, 0.5),
                              .fallback = "0.01",
                              .help = "search: stop when (fail - pass) / "
                                      "fail is at most this"},
    [KEY_SEARCH_TRIALS] = {.name = "search_trials",
                           .levels = T,
                           .type = TYPE_INT,
                           AT(search_trials),
                           RANGE(2, 100),
                           .fallback = "12",
                           .help = "search: at most this many trials per "
                                   "size (and loss ratio) before the "
                                   "confirmations (4 more when none of "
                                   "them passed)"},
    [KEY_SEARCH_TRIAL] = {.name = "search_trial",
                          .levels = T,
                          .type = TYPE_DOUBLE,
                          AT(search_trial),
                          RANGE(0.05, 3600),
                          .fallback = "1",
                          .help = "search: seconds of each trial's window"},
    [KEY_SEARCH_CONFIRM] = {.name = "search_confirm",
                            .levels = T,
                            .type = TYPE_DOUBLE,
                            AT(search_confirm),
                            RANGE(0.05, 3600),
                            .fallback = "5",
                            .help = "search: seconds of the trial that "
                                    "confirms the rate found (a trial "
                                    "that has lost more than it may "
                                    "ends early)"},
    [KEY_SEARCH_REUSE] = {.name = "search_reuse",
                          .levels = T,
                          .type = TYPE_BOOL,
                          AT(search_reuse),
                          .fallback = "true",
                          .help = "search: a size's trials run on one "
                                  "pipeline that stays up between them "
                                  "(drained and checked); false: each on a "
                                  "fresh one"},
    [KEY_PROFILE] = {.name = "profile",
                     .levels = T,
                     .type = TYPE_ENUM,
                     AT(profile),
                     ENUM(profile),
                     .fallback = "none",
                     .help = "what is traced in the window besides the "
                             "counters: none, or syscalls (every stage's "
                             "system calls, in a traced twin of each "
                             "repeat, or of a search's confirmation: "
                             "syscalls.csv)"},
    [KEY_TOPICS] = {.name = "topics",
                    .levels = T | S,
                    .type = TYPE_INT,
                    AT(topics),
                    RANGE(1, LIMIT_TOPICS),
                    .fallback = "1",
                    .help = "publishers: topics 0 .. N-1, each message's "
                            "topic a function of the publisher instance, "
                            "its sequence and seed; with 1 (and frames = 1) "
                            "messages carry no topic"},
    [KEY_TOPIC_SIZE] = {.name = "topic_size",
                        .levels = T | S,
                        .type = TYPE_INT,
                        AT(topic_size),
                        RANGE(1, LIMIT_TOPIC_SIZE),
                        .fallback = "8",
                        .help = "publishers: bytes of a topic, its number in "
                                "zero-padded decimal (00000042); the same "
                                "on every publisher"},
    [KEY_TOPIC_ORDER] = {.name = "topic_order",
                         .levels = T | S,
                         .type = TYPE_STRING,
                         TEXT(topic_order, ),
                         .fallback = "roundrobin",
                         .accepted = "roundrobin, uniform or zipf:S (0 < S "
                                     "<= 10, e.g. zipf:1.1)",
                         .help = "publishers: roundrobin (0, 1, .., N-1 in "
                                 "turn), uniform (every topic as often, "
                                 "spread), zipf:S (topic t in proportion "
                                 "to 1/(t+1)^S, spread)"},
    [KEY_SEED] = {.name = "seed",
                  .levels = T,
                  .type = TYPE_U64,
                  AT(seed),
                  RANGE(0, 1e18),
                  .fallback = "1",
                  .help = "the topics' order and each publisher instance's "
                          "starting point in it"},
    [KEY_SUBSCRIBE] = {.name = "subscribe",
                       .levels = T | S,
                       .type = TYPE_STRING,
                       TEXT(subscribe, LIMIT_SWEEP_VALUE),
                       .fallback = "all",
                       .accepted = "all, a count (10), a share (25%) or a "
                                   "list of topic numbers and ranges "
                                   "(0-9,40)",
                       .help = "subscribers: the topics taken; a count or "
                               "share K gives subscriber q (all "
                               "subscribers, from 0) topics q, q+s, q+2s, "
                               ".., s = topics / K; a list is the same for "
                               "every instance"},
    [KEY_SUBSCRIPTIONS] = {.name = "subscriptions",
                           .levels = T | S,
                           .type = TYPE_INT,
                           AT(subscriptions),
                           RANGE(0, LIMIT_SUBSCRIPTIONS),
                           .fallback = "0",
                           .help = "subscribers: this many more "
                                   "subscriptions, to topics nobody sends: "
                                   "they load every XPUB's trie and change "
                                   "no traffic"},
    [KEY_FRAMES] = {.name = "frames",
                    .levels = T,
                    .type = TYPE_INT,
                    AT(frames),
                    RANGE(1, 2),
                    .fallback = "1",
                    .help = "1: a message is one frame that starts with "
                            "its topic; 2: a topic frame, then a payload "
                            "frame of size bytes (the guide's envelope)"},
    [KEY_CONSUME_NS] = {.name = "consume_ns",
                        .levels = T | S,
                        .type = TYPE_INT,
                        AT(consume_ns),
                        RANGE(0, 1e9),
                        .fallback = "0",
                        .help = "subscribers: spin this many ns on the TSC "
                                "after each message, the stage's own CPU "
                                "busy (a slow subscriber; give one of a "
                                "fan-out a stage of its own).  capacity: "
                                "back-pressure, it sets every subscriber's "
                                "rate; flood: only it drops, its pipe "
                                "overflowing; search: the NDR found is its.  "
                                "A steerable broker above answers its "
                                "counters only between sends: check warns "
                                "when 1000 x consume_ns nears the timeout"},
    [KEY_STARVED_PCT] = {.name = "starved_pct",
                         .levels = T,
                         .type = TYPE_DOUBLE,
                         AT(starved_pct),
                         RANGE(0, 100),
                         .fallback = "5",
                         .help = "a row is starved (results.csv's starved = "
                                 "1) when a thread of one of its stages "
                                 "waited on a run queue for a CPU more than "
                                 "this share of the window (percent)"},
    [KEY_SOCKETS] = {.name = "sockets",
                     .levels = T | S,
                     .type = TYPE_INT,
                     AT(sockets),
                     RANGE(1, LIMIT_SOCKETS),
                     .fallback = "1",
                     .help = "subscribers of pubsub: SUB sockets per "
                             "instance, each its own connection to the "
                             "same upstream, all read by the instance's "
                             "one thread; a link's sent is its upstream's "
                             "count times this (every socket takes a "
                             "copy), received the sockets' sum"},
    [KEY_TCP_BUFFER] = {.name = "tcp_buffer",
                        .levels = T | H,
                        .type = TYPE_INT,
                        AT(tcp_buffer),
                        RANGE(0, 1 << 30),
                        .fallback = "0",
                        .help = "tcp hops: ZMQ_SNDBUF and ZMQ_RCVBUF, "
                                "bytes, on both ends (0: the kernel's, "
                                "autotuned): bounds what a slow hop holds "
                                "in flight beyond its hwm, so that a "
                                "capacity run drains in seconds"},
    [KEY_STALL_RATIO] = {.name = "stall_ratio",
                         .levels = T,
                         .type = TYPE_DOUBLE,
                         AT(stall_ratio),
                         RANGE(0, 1),
                         .fallback = "0.01",
                         .help = "a window in which a link delivered less "
                                 "than this share of the trial's median "
                                 "per-link rate (per message sent: over "
                                 "its sockets and topics' share) for half "
                                 "a second "
                                 "(or more) stalled: the trial is retried "
                                 "once, then reported as stalled; 0: off"},
    [KEY_LATENCY_AT] = {.name = "latency_at",
                        .levels = T,
                        .type = TYPE_RATIOS,
                        AT(latency_at),
                        RANGE(0.01, 1),
                        .fallback = "",
                        .help = "search: after a rate is found (each loss "
                                "ratio's), an open-loop trial paced at each "
                                "of these fractions of it (0.1,0.5,0.9), "
                                "search_trial long: p50 to max end to end "
                                "from the intended send times, a row per "
                                "fraction in latency.csv (latency_at, "
                                "found_per_sec); empty: none"},
    [KEY_COST] = {.name = "cost",
                  .levels = S,
                  .type = TYPE_DOUBLE,
                  AT(cost),
                  RANGE(0, 1e9),
                  .fallback = "0",
                  .help = "hopbench size: what one instance of this "
                          "broker costs in your unit (a VM, money), instead "
                          "of the cores it takes; every broker of a "
                          "candidate then needs one (or its host's cost)"},
    [KEY_SIZE_GOAL_SECONDS] = {.name = "size_goal_seconds",
                               .levels = T,
                               .type = TYPE_DOUBLE,
                               AT(size_goal_seconds),
                               RANGE(0.05, 3600),
                               .fallback = "5",
                               .help = "hopbench size: the trial-seconds at "
                                       "rate x (1 + headroom) that decide "
                                       "loss (MLRsearch's goal duration "
                                       "sum), in trials search_trial long"},
    [KEY_SIZE_EXCEED_RATIO] = {.name = "size_exceed_ratio",
                               .levels = T,
                               .type = TYPE_DOUBLE,
                               AT(size_exceed_ratio),
                               RANGE(0, 0.99),
                               .fallback = "0.2",
                               .help = "hopbench size: the share of those "
                                       "trial-seconds that may lose more "
                                       "than loss (MLRsearch's goal exceed "
                                       "ratio; 0.5 as MLRsearch recommends "
                                       "for benchmarks)"},
    [KEY_SIZE_WINDOW] = {.name = "size_window",
                         .levels = T,
                         .type = TYPE_DOUBLE,
                         AT(size_window),
                         RANGE(0.01, 3600),
                         .fallback = "1",
                         .help = "hopbench size: seconds of each window of "
                                 "the open-loop trials at rate whose p99s "
                                 "give the p99's interval"},
    [KEY_SIZE_WINDOWS] = {.name = "size_windows",
                          .levels = T,
                          .type = TYPE_INT,
                          AT(size_windows),
                          RANGE(3, 1000),
                          .fallback = "10",
                          .help = "hopbench size: windows before a p99 is "
                                  "judged (then 5 more at a time while its "
                                  "interval straddles the bound)"},
    [KEY_SIZE_BUDGET] = {.name = "size_budget",
                         .levels = T,
                         .type = TYPE_DOUBLE,
                         AT(size_budget),
                         RANGE(0.1, 86400),
                         .fallback = "30",
                         .help = "hopbench size: the most trial-seconds one "
                                 "criterion (capacity, loss, p99) may take; "
                                 "then it is undecided"},
};
#undef T
#undef S
#undef H
#undef C
#undef AT
#undef TEXT
#undef RANGE
#undef ENUM

const char *params_retired(const char *name)
{
    if (strcmp(name, "nodrop") == 0)
        return "nodrop is gone: mode = capacity (the default) is "
               "ZMQ_XPUB_NODROP back-pressure, mode = flood drops at the HWM";
    return NULL;
}

int params_min_repeat(const params_t *params)
{
    return params->precision > 0 && !params->set[KEY_REPEAT] ? 3
                                                             : params->repeat;
}

int params_max_repeat(const params_t *params)
{
    int least = params_min_repeat(params);
    return params->precision > 0 && params->max_repeat > least
               ? params->max_repeat
               : least;
}

const option_t *params_option(const char *name)
{
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if (strcmp(params_options[k].name, name) == 0)
            return &params_options[k];
    return NULL;
}

void params_defaults(params_t *params)
{
    memset(params, 0, sizeof *params);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        int rc = params_set(params, &params_options[k],
                            params_options[k].fallback, NULL);
        (void)rc; //  defaults are valid by construction (params_test)
    }
    memset(params->set, 0, sizeof params->set);
    memset(params->line, 0, sizeof params->line);
}

const char *params_levels_text(unsigned levels)
{
    static const char *const text[] = {"",
                                       "topology",
                                       "stage",
                                       "topology, stage",
                                       "hop",
                                       "topology, hop",
                                       "stage, hop",
                                       "topology, stage, hop",
                                       "controller",
                                       "topology, controller",
                                       "stage, controller",
                                       "topology, stage, controller",
                                       "hop, controller",
                                       "topology, hop, controller",
                                       "stage, hop, controller",
                                       "topology, stage, hop, controller"};
    return text[levels & 15];
}

void params_accepted(const option_t *opt, char *buf, size_t len)
{
    size_t used = 0;
    switch (opt->type) {
    case TYPE_BOOL:
        snprintf(buf, len, "true or false (also 1/0, yes/no, on/off)");
        break;
    case TYPE_INT:
    case TYPE_U64:
        snprintf(buf, len, "a whole number from %.0f to %.0f", opt->min,
                 opt->max);
        break;
    case TYPE_DOUBLE:
        snprintf(buf, len, "a number from %.10g %s %.10g", opt->min,
                 opt->below ? "up to, not including," : "to", opt->max);
        break;
    case TYPE_ENUM:
        used = (size_t)snprintf(buf, len, "one of");
        for (int i = 0; opt->choices[i] && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s %s",
                                     i ? "," : "", opt->choices[i]);
        break;
    case TYPE_STRING:
        if (opt->accepted)
            snprintf(buf, len, "%s", opt->accepted);
        else
            snprintf(buf, len, "up to %zu characters, no spaces or quotes",
                     opt->length - 1);
        break;
    case TYPE_RATIOS:
        snprintf(buf, len,
                 "a number from %.10g up to, not including, %.10g, or a "
                 "comma list of up to %d of them, none twice",
                 opt->min, opt->max, PARAMS_MAX_RATIOS);
        break;
    case TYPE_SIZES:
        snprintf(buf, len,
                 "sizes and doubling ranges FIRST..LAST, separated by "
                 "commas, from %d to %uM bytes, up to %d sizes, none twice",
                 SIZES_MIN, SIZES_MAX_BYTES >> 20, SIZES_MAX);
        break;
    }
}

void params_print_reference(FILE *out)
{
    int width = 3; //  the longest key names the first column's width
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++)
        if ((int)strlen(params_options[k].name) > width)
            width = (int)strlen(params_options[k].name);
    fprintf(out, "%-*s %-21s %-10s %s\n", width, "key", "where", "default",
            "meaning");
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        const option_t *opt = &params_options[k];
        char accepted[300];
        params_accepted(opt, accepted, sizeof accepted);
        fprintf(out, "%-*s %-21s %-10s %s\n", width, opt->name,
                params_levels_text(opt->levels),
                *opt->fallback ? opt->fallback : "\"\"", opt->help);
        fprintf(out, "%-*s accepts %s\n", width + 33, "", accepted);
    }
}

int params_test(bool verbose)
{
    (void)verbose;
    params_t params;
    errbuf_t err;
    char buf[256];

    //  Every default parses, and formats back to itself
    params_defaults(&params);
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        const option_t *opt = &params_options[k];
        CHECK(opt->name && opt->help && opt->levels);
        CHECK(params_set(&params, opt, opt->fallback, &err) == 0);
        params_format(&params, opt, buf, sizeof buf);
        CHECK(opt->type == TYPE_SIZES || strcmp(buf, opt->fallback) == 0);
    }
    //  An enum's names and their meanings pair up one to one
    for (int k = 0; k < KEY_COUNT_OF_KEYS; k++) {
        const option_t *opt = &params_options[k];
        CHECK((opt->type == TYPE_ENUM) == (opt->choices != NULL));
        for (int i = 0; opt->choice_help && opt->choices[i]; i++)
            CHECK(opt->choice_help[i] && (opt->choice_help[i + 1] == NULL) ==
                                             (opt->choices[i + 1] == NULL));
    }
    params_accepted(params_option("hwm"), buf, sizeof buf);
    CHECK(strcmp(buf, "a whole number from 0 to 1000000000") == 0);
    params_accepted(params_option("transport"), buf, sizeof buf);
    CHECK(strcmp(buf, "one of inproc, ipc, tcp") == 0);

    params_defaults(&params);
    CHECK(params.hwm == 1000 && params.transport == TRANSPORT_TCP);
    CHECK(params.sizes.n == 15 && !params.set[KEY_HWM]);

    CHECK(params_set(&params, params_option("transport"), "tpc", &err) == -1);
    CHECK(strcmp(err.msg, "unknown transport 'tpc' (inproc, ipc, tcp)") == 0);
    CHECK(params_set(&params, params_option("hwm"), "10x", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), "1.5", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), "-1", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), "", &err) == -1);
    CHECK(params_set(&params, params_option("hwm"), " 5", &err) == -1);
    CHECK(params_set(&params, params_option("curve"), "maybe", &err) == -1);
    CHECK(params_option("nodrop") == NULL && params_retired("nodrop"));
    CHECK(params_set(&params, params_option("mode"), "search", &err) == 0 &&
          params.mode == MODE_SEARCH);
    CHECK(params_set(&params, params_option("loss_ratio"), "1.5", &err) == -1);
    CHECK(params_set(&params, params_option("loss_ratio"), "1", &err) == -1);
    CHECK(strstr(err.msg, "loss_ratio must be at least 0 and less than 1, "
                          "not '1'"));
    CHECK(params_set(&params, params_option("loss_ratio"), "0.999", &err) == 0);
    CHECK(params_set(&params, params_option("loss_ratio"), "0.005,0", &err) ==
              0 &&
          params.loss_ratio.n == 2 && params.loss_ratio.ratio[0] == 0 &&
          params.loss_ratio.ratio[1] == 0.005);
    params_format(&params, params_option("loss_ratio"), buf, sizeof buf);
    CHECK(strcmp(buf, "0,0.005") == 0);
    CHECK(params_set(&params, params_option("loss_ratio"), "0,0", &err) == -1);
    CHECK(strcmp(err.msg, "loss_ratio: 0 twice in '0,0'") == 0);
    CHECK(params_set(&params, params_option("loss_ratio"), "0,.1,.2,.3,.4",
                     &err) == -1);
    CHECK(params_set(&params, params_option("loss_ratio"), "0,", &err) == -1);
    CHECK(params_set(&params, params_option("loss_ratio"), "0,1", &err) == -1);
    //  Whole numbers are decimal digits: the same text is refused everywhere
    CHECK(params_set(&params, params_option("hwm"), "1e3", &err) == -1);
    CHECK(strcmp(err.msg, "hwm must be a whole number, not '1e3'") == 0);
    CHECK(params_set(&params, params_option("messages"), "0x10", &err) == -1);
    CHECK(params_set(&params, params_option("count"), "2.0", &err) == -1);
    CHECK(params_set(&params, params_option("messages"), "99999999999999999999",
                     &err) == -1);
    CHECK(strcmp(err.msg, "messages must be between 0 and 1000000000000, not "
                          "'99999999999999999999'") == 0);
    CHECK(params_set(&params, params_option("rate"), "1e3", &err) == 0);
    CHECK(params.rate == 1000);
    CHECK(params_set(&params, params_option("sizes"), "0..-5", &err) == -1);
    CHECK(params_set(&params, params_option("duration"), "nan", &err) == -1);
    CHECK(params_set(&params, params_option("cpus"), "0 1", &err) == -1);
    CHECK(params_set(&params, params_option("endpoint"), "tcp://a\"b", &err) ==
          -1);
    CHECK(strstr(err.msg, "has a quote character"));

    CHECK(params_set(&params, params_option("hwm"), "100000", &err) == 0);
    CHECK(params.hwm == 100000 && params.set[KEY_HWM]);
    CHECK(params_set(&params, params_option("curve"), "yes", &err) == 0);
    CHECK(params.curve);
    CHECK(params_set(&params, params_option("duration"), "0.5", &err) == 0);
    CHECK(params.duration == 0.5);

    //  Overlay: the inner level's given keys win, the rest come from outer
    //  precision starts at 3 repeats unless repeat says otherwise
    params_defaults(&params);
    CHECK(params_min_repeat(&params) == 1 && params_max_repeat(&params) == 1);
    CHECK(params_set(&params, params_option("precision"), "0.05", &err) == 0);
    CHECK(params_min_repeat(&params) == 3 && params_max_repeat(&params) == 30);
    CHECK(params_set(&params, params_option("repeat"), "5", &err) == 0);
    CHECK(params_min_repeat(&params) == 5);
    CHECK(params_set(&params, params_option("confidence"), "1", &err) == -1);

    params_t outer, inner, merged;
    params_defaults(&outer);
    params_defaults(&inner);
    CHECK(params_set(&outer, params_option("transport"), "ipc", &err) == 0);
    CHECK(params_set(&outer, params_option("hwm"), "5", &err) == 0);
    CHECK(params_set(&inner, params_option("hwm"), "7", &err) == 0);
    params_overlay(&merged, &outer, &inner);
    CHECK(merged.transport == TRANSPORT_IPC && merged.hwm == 7);
    CHECK(params_option("nosuchkey") == NULL);
    return 0;
}
