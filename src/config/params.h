/*  params: every topology key, in one table (name, where it may appear,
    type, default, help), and the struct that holds their values.

    The same table serves the topology file, --set, --sweep, the effective
    config that a run writes, `hopbench --help-keys` and the man page
    hopbench-topology(5), which is made from it at build time.  A params_t is kept at each level (topology,
    stage, hop) with a mark for the keys given there; the effective value
    for a stage or hop is its own, else the topology's, else the default.
*/
#ifndef HOPBENCH_PARAMS_H
#define HOPBENCH_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "base/limits.h"
#include "config/engines.h"
#include "config/sizes.h"

typedef enum {
    PATTERN_PUBSUB,
    PATTERN_PUSHPULL,
    PATTERN_REQREP,
    PATTERN_CONNECT
} pattern_t;
typedef enum { TRANSPORT_INPROC, TRANSPORT_IPC, TRANSPORT_TCP } transport_t;
typedef enum { PROCESS_THREAD, PROCESS_OWN } process_t;
//  What a pubsub run measures (README: Modes)
typedef enum { MODE_CAPACITY, MODE_FLOOD, MODE_SEARCH } run_mode_t;
//  What a run traces besides its counters (docs/GUIDE.md: profiles)
typedef enum { PROFILE_NONE, PROFILE_SYSCALLS } profile_t;
//  The order of a sweep's repeats (docs/STATISTICS.md: interleaving)
typedef enum { ORDER_AUTO, ORDER_SEQUENTIAL, ORDER_INTERLEAVE } order_t;

//  search: the loss ratios one search judges its trials against, ascending
#define PARAMS_MAX_RATIOS 4
typedef struct {
    int n;
    double ratio[PARAMS_MAX_RATIOS];
} ratios_t;

//  Where a key may be given
enum {
    LEVEL_TOPOLOGY = 1, //  children of "topology = NAME", and --set KEY=...
    LEVEL_STAGE = 2,    //  children of a stage, and --set STAGE.KEY=...
    LEVEL_HOP = 4,      //  children of "hop", and --set hopN.KEY=...
    LEVEL_CONTROLLER = 8 //  children of "controller", and --set
                         //  controller.KEY=...: hopbench's own threads
};

typedef enum {
    KEY_PATTERN,
    KEY_SIZES,
    KEY_MESSAGES,
    KEY_DURATION,
    KEY_WARMUP,
    KEY_REPEAT,
    KEY_CONFIDENCE,
    KEY_PRECISION,
    KEY_MAX_REPEAT,
    KEY_ORDER,
    KEY_TIMEOUT,
    KEY_TRANSPORT,
    KEY_ENDPOINT,
    KEY_HWM,
    KEY_MODE,
    KEY_PLACEMENT,
    KEY_SIBLINGS,
    KEY_NODES,
    KEY_MAX_PLACEMENTS,
    KEY_IO_THREADS,
    KEY_IO_CPUS,
    KEY_NODE,
    KEY_CPUS,
    KEY_COUNT,
    KEY_ENGINE,
    KEY_RATE,
    KEY_ZEROCOPY,
    KEY_PROCESS,
    KEY_NETNS,
    KEY_HOST,
    KEY_CURVE,
    KEY_LOSS_RATIO,
    KEY_P99_US,
    KEY_SEARCH_PRECISION,
    KEY_SEARCH_TRIALS,
    KEY_SEARCH_TRIAL,
    KEY_SEARCH_CONFIRM,
    KEY_SEARCH_REUSE,
    KEY_PROFILE,
    KEY_TOPICS,
    KEY_TOPIC_SIZE,
    KEY_TOPIC_ORDER,
    KEY_SEED,
    KEY_SUBSCRIBE,
    KEY_SUBSCRIPTIONS,
    KEY_FRAMES,
    KEY_CONSUME_NS,
    KEY_STARVED_PCT,
    KEY_SOCKETS,
    KEY_TCP_BUFFER,
    KEY_STALL_RATIO,
    KEY_LATENCY_AT,
    KEY_COST,
    KEY_SIZE_GOAL_SECONDS,
    KEY_SIZE_EXCEED_RATIO,
    KEY_SIZE_WINDOW,
    KEY_SIZE_WINDOWS,
    KEY_SIZE_BUDGET,
    KEY_COUNT_OF_KEYS
} param_key_t;

typedef struct {
    int pattern;
    sizes_t sizes;
    uint64_t messages;
    double duration;
    double warmup;
    int repeat;
    double confidence; //  of each median's interval
    double precision;  //  repeat until every hop's interval is this
                       //  narrow (a share of the median), 0: off
    int max_repeat;    //  ...but at most this many repeats
    int order;         //  order_t: a sweep's repeats, round by round?
    double timeout;
    int transport;
    char endpoint[LIMIT_ENDPOINT + 1];
    int hwm;
    int mode;
    int placement;
    bool siblings;
    char nodes[LIMIT_SWEEP_VALUE + 1]; //  "0+0+1": each stage's node
    int max_placements;                //  placement = all: at most this many
    int io_threads;
    char io_cpus[LIMIT_CPUS_TEXT + 1]; //  node, stage or a CPU list
    int node;
    char cpus[LIMIT_CPUS_TEXT + 1];
    int count;
    int engine;
    double rate;
    bool zerocopy;
    int process;
    char netns[LIMIT_ZONE_NAME + 1];
    char host[LIMIT_HOST_LIST + 1]; //  its host(s) (--hosts), "": here
    bool curve;
    ratios_t loss_ratio; //  search: loss allowed on every hop, each
    double p99_us;     //  search: end-to-end p99 allowed, 0: any
    double search_precision;
    int search_trials;
    double search_trial, search_confirm;
    bool search_reuse; //  a size's trials on one pipeline, kept up
    int profile;
    //  Topics (config/topics.h): publishers' topics, subscribers' share
    int topics;
    int topic_size;
    char topic_order[24]; //  roundrobin, uniform, zipf:S
    uint64_t seed;
    char subscribe[LIMIT_SWEEP_VALUE + 1]; //  all, K, P%, 0-9,40
    int subscriptions;                     //  extra ones, matching nothing
    int frames;                            //  1, or 2: topic, payload
    int consume_ns;              //  a subscriber's busy loop after each message
    double starved_pct; //  a stage that waited more of the window: starved
    int sockets;                 //  a subscriber's SUB sockets (connections)
    int tcp_buffer;              //  a tcp hop's kernel buffers, bytes, 0: the kernel's
    double stall_ratio; //  a link slower than this share of the median
    ratios_t latency_at; //  search: open-loop trials at these fractions of
                         //  each rate found (latency against load)
    double cost; //  hopbench size: what a broker instance costs in the
                 //  user's unit, 0: the cores it takes
    //  hopbench size's evidence: trial-seconds that decide loss, the
    //  share of them that may lose, a p99 window, how many at first, the
    //  most trial-seconds a criterion may take before it is undecided
    double size_goal_seconds, size_exceed_ratio, size_window;
    int size_windows;
    double size_budget;
    bool set[KEY_COUNT_OF_KEYS]; //  given at this level
    //  Where each given key came from, for messages about it found later:
    //  > 0 its line in the file, < 0 the -line'th --set or --sweep
    //  (topology_where), 0 not given; params_set leaves it to the caller
    int line[KEY_COUNT_OF_KEYS];
} params_t;

typedef enum {
    TYPE_BOOL,
    TYPE_INT,
    TYPE_U64,
    TYPE_DOUBLE,
    TYPE_ENUM,
    TYPE_STRING,
    TYPE_SIZES,
    TYPE_RATIOS //  numbers from min to below max, a comma list
} type_t;

//  One key.  A row names only the fields its type uses; everything
//  --help-keys and hopbench-topology(5) say about a key comes from here
typedef struct {
    const char *name;
    unsigned levels; //  LEVEL_* bits: where it may be given
    type_t type;
    size_t offset;
    size_t length;                  //  TYPE_STRING buffer size
    const char *limit;              //  ...the limit it is (LIMIT_NAME)
    const char *const *choices;     //  TYPE_ENUM names, NULL-terminated
    const char *const *choice_help; //  TYPE_ENUM: what each name means
    double min, max;                //  TYPE_INT, TYPE_U64, TYPE_DOUBLE
    bool below;                     //  ...and values stay below max
    const char *fallback;           //  default, as it would be written
    const char *accepted;           //  TYPE_STRING: what a value looks like
    const char *help;
} option_t;

extern const option_t params_options[KEY_COUNT_OF_KEYS];
extern const char *const params_pattern_names[];
extern const char *const params_transport_names[];
extern const char *const params_placement_names[];
extern const char *const params_process_names[];
extern const char *const params_mode_names[];
extern const char *const params_profile_names[];
extern const char *const params_order_names[];

//  The option called 'name', or NULL
const option_t *params_option(const char *name);
//  A key that is no longer one: what to write instead, else NULL
const char *params_retired(const char *name);
//  Repeats of a size: the fewest (repeat, or 3 when precision is asked and
//  repeat was not given) and the most (max_repeat with precision, else
//  the fewest)
int params_min_repeat(const params_t *params);
int params_max_repeat(const params_t *params);
//  Every key at its default, none marked as given
void params_defaults(params_t *params);
//  Parse 'value' for 'opt' into params and mark it given; errors say
//  "KEY: why" (callers add file:line or --set)
int params_set(params_t *params, const option_t *opt, const char *value,
               errbuf_t *err);
//  The value as text, as params_set would read it back
void params_format_ratios(const ratios_t *list, char *buf, size_t len);
void params_format(const params_t *params, const option_t *opt, char *buf,
                   size_t len);
//  inner's given keys over outer: the effective values for a stage/hop,
//  each key with the line it came from
void params_overlay(params_t *out, const params_t *outer,
                    const params_t *inner);
//  What a value may be: "a whole number from 0 to 1000000000", "one of
//  inproc, ipc, tcp", or the row's own accepted text
void params_accepted(const option_t *opt, char *buf, size_t len);
//  Reference of every key for --help-keys: key, where, default, meaning,
//  then an indented line of what it accepts
void params_print_reference(FILE *out);
//  "levels" as words: "topology, hop"
const char *params_levels_text(unsigned levels);

int params_test(bool verbose);

#endif
