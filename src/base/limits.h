/*  limits: every limit hopbench puts on what it is given, in one place.

    Design: each limit is a named constant here, and one row of
    limits_table (limits.c) says what it bounds and where it is checked:
    docs/LIMITS.md is that table in prose (limits_test checks that the two
    agree), and the man pages can be generated from it.  Modules keep their
    own names for the limits they enforce (TOPO_MAX_STAGES, SIZES_MAX, ...),
    defined from these.  A limit is checked where the input is read, and
    refused with exit 2 at file:line (or the --set / --sweep that gave it)
    naming the limit; nothing past a limit reaches a fixed-size array.
    Where a limit follows from others (links, binders, origins), a static
    assertion says so instead of a check.
*/
#ifndef HOPBENCH_LIMITS_H
#define HOPBENCH_LIMITS_H

#include <stdbool.h>
#include <stdio.h>

//  Files (topologies, machine descriptions)
#define LIMIT_FILE_BYTES                                                       \
    (1 << 20)         //  a ZPL file; lines have no limit of their own
#define LIMIT_FILE_WAIT                                                        \
    10 //  seconds a FIFO or pipe may take to end (--set timeout=S: that)
#define LIMIT_NAME 24 //  characters of a topology, stage or host name

//  The pipeline
#define LIMIT_STAGES     128 //  stages in a topology (links: one fewer)
#define LIMIT_COUNT      1024 //  instances of one stage (count = N)
#define LIMIT_SOCKETS    16384 //  SUB sockets of one subscriber instance
#define LIMIT_INSTANCES  1024 //  stage instances of a pipeline, all stages
#define LIMIT_IO_THREADS 64  //  libzmq I/O threads of one stage's context
#define LIMIT_THREADS    512 //  threads a run starts on one machine
#define LIMIT_ZONES      16  //  zones (netns = NAME) of a pipeline
#define LIMIT_ZONE_NAME  10  //  characters of a zone name
#define LIMIT_ZONE_HOPS  64  //  a hop crossing zones is among hops 1..64
#define LIMIT_MACHINE_FILES 128 //  --machine HOST=FILE options

//  A hop's binding end is one stage: a proxy (which runs once), else the
//  side of fewer instances, so publishers (LIMIT_ORIGINS) at most; its
//  endpoints are sent to every stage that connects them.  A receiver
//  tells apart at most LIMIT_ORIGINS publisher instances, all stages
//  (checked: a tree has several publisher stages).  The rows of a trial
//  (one per hop, or per (from, to) pair where a hop fans out or in) are
//  at most LIMIT_LINKS (checked when the pipeline is planned).  A stage's
//  host list is at most LIMIT_HOST_LIST characters: about 130 names of
//  11, and a range (h3..h1002) names a thousand
#define LIMIT_BINDERS   64
#define LIMIT_ORIGINS   64
#define LIMIT_HOST_LIST 1599
#define LIMIT_LINKS     4096

//  Values
#define LIMIT_SIZES     64          //  sizes in one list
#define LIMIT_SIZE_MIN  8           //  bytes: the sequence number's header
#define LIMIT_SIZE_MAX  (64u << 20) //  bytes of one message (64M)
#define LIMIT_REPEAT    1000        //  repetitions of each size (max_repeat)
#define LIMIT_ENDPOINT  199         //  characters of an endpoint
#define LIMIT_IPC_PATH  107         //  bytes of an ipc:// path (sun_path)
#define LIMIT_CPUS_TEXT 127         //  characters of a cpus list

//  Topics (config/topics.h)
#define LIMIT_TOPICS        1000000 //  topics of one publisher (topics)
#define LIMIT_TOPIC_SIZE    64      //  bytes of a topic (topic_size)
#define LIMIT_SUBSCRIPTIONS 1000000 //  extra subscriptions of a subscriber

//  The command line
#define LIMIT_SETS         128  //  --set options, shorthands included
#define LIMIT_SET_TEXT     255  //  characters of one --set KEY=VALUE
#define LIMIT_SWEEP_KEYS   8    //  --sweep options (one key each)
#define LIMIT_SWEEP_VALUES 64   //  values of one --sweep key (and the
                                //  assignments of placement = all)
#define LIMIT_SWEEP_COMBOS 1024 //  combinations of all --sweep keys
#define LIMIT_SWEEP_KEY    63   //  characters of a swept key
#define LIMIT_SWEEP_VALUE  127  //  characters of one swept value
#define LIMIT_SIZE_CANDIDATES 256 //  size: files x --try x sizes
#define LIMIT_COMPARE_RUNS 16   //  results directories of one compare
#define LIMIT_KEYGEN_NAME  64   //  characters of keygen --name

//  Machines (hopbench machine, --machine FILE)
#define LIMIT_CPUS    1024 //  CPU numbers 0..1023
#define LIMIT_NODES   64   //  NUMA nodes with CPUs
#define LIMIT_NODE_ID 1023 //  node numbers 0..1023

_Static_assert(LIMIT_INSTANCES <= 65535, "an instance id fits the two bytes "
                                         "of a subscriber's own topic");
_Static_assert(LIMIT_COUNT <= LIMIT_INSTANCES, "count fits the instances");
_Static_assert(LIMIT_STAGES <= LIMIT_INSTANCES, "each stage has an instance");
_Static_assert(LIMIT_BINDERS == LIMIT_ORIGINS && LIMIT_ORIGINS <= LIMIT_COUNT,
               "a hop's binders are publishers, or a proxy");

typedef struct {
    const char *name;  //  LIMIT_STAGES
    long value;        //  128
    const char *what;  //  "stages in a topology"
    const char *where; //  where it is checked, or what it follows from
} limit_t;

//  Every limit above, NULL-terminated
extern const limit_t limits_table[];

//  The table as text, one limit a line
void limits_print(FILE *out);

int limits_test(bool verbose);

#endif
