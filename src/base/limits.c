/*  limits: the table of hopbench's limits (see limits.h).

    One row per constant, in the order of limits.h.  "where" names the
    input that is checked and the message's prefix, so a reader of
    docs/LIMITS.md knows what error to expect; limits_test checks that
    every row is in that file with its value.
*/
#include "base/limits.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

#define ROW(name, what, where)                                                 \
    {                                                                          \
#name, (long)(name), what, where                                       \
    }

const limit_t limits_table[] = {
    ROW(LIMIT_FILE_BYTES,
        "bytes of an input file (topology, machine, hosts, certificate)",
        "reading: PATH: larger than ..."),
    ROW(LIMIT_FILE_WAIT,
        "seconds a FIFO or pipe given as an input file may take to end "
        "(the command line's timeout when --set gives one)",
        "reading: PATH: no end of file within ..."),
    ROW(LIMIT_NAME, "characters of a topology, stage or host name",
        "file:line of the name"),
    ROW(LIMIT_STAGES, "stages in a topology, chain or tree (links: one fewer)",
        "file:line of the first stage past it"),
    ROW(LIMIT_COUNT, "instances of one stage (count)",
        "file:line of count, or its --set"),
    ROW(LIMIT_SOCKETS, "SUB sockets of one subscriber instance (sockets)",
        "file:line of sockets, or its --set"),
    ROW(LIMIT_INSTANCES, "stage instances of a pipeline, all stages",
        "check/plan: file:line of the count (or stage) that passes it"),
    ROW(LIMIT_IO_THREADS, "libzmq I/O threads of one stage (io_threads)",
        "file:line of io_threads, or its --set"),
    ROW(LIMIT_THREADS,
        "threads a run starts on one machine (stages, libzmq I/O and "
        "reaper; each host's counted apart)",
        "check/plan: file:line of the io_threads (or stage) that passes it"),
    ROW(LIMIT_ZONES, "zones (distinct netns names) of a pipeline",
        "check: file:line of the netns that passes it"),
    ROW(LIMIT_ZONE_NAME, "characters of a zone name (netns)",
        "file:line of netns"),
    ROW(LIMIT_ZONE_HOPS, "hop number of a hop that crosses zones",
        "check: file:line of the netns that makes it cross"),
    ROW(LIMIT_MACHINE_FILES, "--machine HOST=FILE options", "command line"),
    ROW(LIMIT_BINDERS,
        "endpoints of one hop: instances of the stage that binds it",
        "follows from LIMIT_ORIGINS: a proxy (run once) binds both its "
        "hops, else the publishers bind when they are fewer"),
    ROW(LIMIT_ORIGINS,
        "publisher instances of a topology, all stages (the "
        "publishers a receiver tells apart)",
        "check: file:line of the count that passes it"),
    ROW(LIMIT_HOST_LIST,
        "characters of a stage's host list (host; a range, h3..h1002, "
        "names any number)",
        "file:line of host, or its --set"),
    ROW(LIMIT_LINKS,
        "result rows of one trial (a row per hop, or per (from, to) pair "
        "where a hop fans out or in)",
        "check/plan: file:line of the count that passes it"),
    ROW(LIMIT_SIZES, "sizes in one list", "file:line of sizes, or --sizes"),
    ROW(LIMIT_SIZE_MIN, "smallest message size, bytes",
        "file:line of sizes, or --sizes"),
    ROW(LIMIT_SIZE_MAX, "largest message size, bytes (64M)",
        "file:line of sizes, or --sizes"),
    ROW(LIMIT_REPEAT, "repetitions of each size (repeat, max_repeat)",
        "file:line of repeat or max_repeat, or --repeat, --max-repeat"),
    ROW(LIMIT_ENDPOINT, "characters of an endpoint",
        "file:line of endpoint, or its --set"),
    ROW(LIMIT_IPC_PATH, "bytes of an ipc:// endpoint's path (sun_path)",
        "check: file:line of endpoint"),
    ROW(LIMIT_CPUS_TEXT, "characters of a cpus list",
        "file:line of cpus, or its --set"),
    ROW(LIMIT_TOPICS, "topics of one publisher (topics)",
        "file:line of topics, or its --set"),
    ROW(LIMIT_TOPIC_SIZE, "bytes of a topic (topic_size)",
        "file:line of topic_size, or its --set"),
    ROW(LIMIT_SUBSCRIPTIONS,
        "extra subscriptions of one subscriber "
        "(subscriptions)",
        "file:line of subscriptions, or its --set"),
    ROW(LIMIT_SETS, "--set options, shorthands (--sizes, ...) included",
        "command line"),
    ROW(LIMIT_SET_TEXT, "characters of one --set KEY=VALUE", "command line"),
    ROW(LIMIT_SWEEP_KEYS, "--sweep options (one key each)", "command line"),
    ROW(LIMIT_SWEEP_VALUES,
        "values of one --sweep key; assignments of placement = all",
        "command line; max_placements"),
    ROW(LIMIT_SWEEP_COMBOS, "combinations of all --sweep keys", "command line"),
    ROW(LIMIT_SWEEP_KEY, "characters of a swept key", "command line"),
    ROW(LIMIT_SWEEP_VALUE, "characters of one swept value", "command line"),
    ROW(LIMIT_SIZE_CANDIDATES,
        "candidates of one size run: files x --try combinations x sizes, "
        "each a row of sizing.csv",
        "command line: FILE: N --try combinations x M sizes make ..."),
    ROW(LIMIT_COMPARE_RUNS, "results directories of one compare (A B C...)",
        "command line"),
    ROW(LIMIT_KEYGEN_NAME, "characters of keygen --name",
        "command line: keygen: name '...': N characters, more than 64"),
    ROW(LIMIT_CPUS, "CPUs of a machine (numbers 0..1023)",
        "machine file:line, or the live machine"),
    ROW(LIMIT_NODES, "NUMA nodes with CPUs of a machine",
        "machine file:line, or the live machine"),
    ROW(LIMIT_NODE_ID, "largest NUMA node number",
        "machine file:line; node = N in a topology"),
    {NULL, 0, NULL, NULL},
};

void limits_print(FILE *out)
{
    for (const limit_t *limit = limits_table; limit->name; limit++)
        fprintf(out, "%-20s %8ld  %s (%s)\n", limit->name, limit->value,
                limit->what, limit->where);
}

//  docs/LIMITS.md's table has a row "| LIMIT_NAME | value | ..." for each
static bool s_documented(const char *doc, const limit_t *limit)
{
    char row[128];
    snprintf(row, sizeof row, "| `%s` | %ld |", limit->name, limit->value);
    return strstr(doc, row) != NULL;
}

int limits_test(bool verbose)
{
    FILE *file = fopen("docs/LIMITS.md", "r");
    CHECK(file);
    char *doc = calloc(1, 1 << 16);
    size_t len = fread(doc, 1, (1 << 16) - 1, file);
    fclose(file);
    int missing = 0;
    for (const limit_t *limit = limits_table; limit->name; limit++) {
        CHECK(limit->value > 0 && *limit->what && *limit->where);
        if (!s_documented(doc, limit)) {
            fprintf(stderr,
                    "limits: docs/LIMITS.md has no row '| `%s` | %ld |'\n",
                    limit->name, limit->value);
            missing++;
        }
    }
    free(doc);
    if (verbose)
        limits_print(stdout);
    CHECK(len > 0 && missing == 0);
    return 0;
}
