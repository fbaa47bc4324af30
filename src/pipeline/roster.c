/*  roster: every thread of a run, as the plan puts it (see roster.h).

    Design: one walk over the pipeline (s_walk) both counts and lists, so
    the count that check prints and the thread limit use can never differ
    from the rows plan prints.  It only reads the pipeline: nothing here
    knows how threads are started.
*/
#include "pipeline/roster.h"

#include "base/check.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    roster_entry_t *out;
    int max, n;
} walk_t;

static void s_add(walk_t *walk, int owner, const char *thread, int node,
                  const cpuset_t *cpus, bool housekeeping)
{
    if (walk->out && walk->n < walk->max) {
        roster_entry_t *entry = &walk->out[walk->n];
        entry->owner = owner;
        snprintf(entry->thread, sizeof entry->thread, "%s", thread);
        entry->node = node;
        entry->cpus = *cpus;
        entry->housekeeping = housekeeping;
    }
    walk->n++;
}

//  "io0", "io1", ... then "reaper", each after 'prefix'
static void s_add_context(walk_t *walk, int owner, const char *prefix,
                          int io_threads, const place_t *place,
                          bool housekeeping)
{
    char name[24];
    for (int t = 0; t < io_threads; t++) {
        snprintf(name, sizeof name, "%sio%d", prefix, t);
        s_add(walk, owner, name, place->node, &place->io_cpus, housekeeping);
    }
    snprintf(name, sizeof name, "%sreaper", prefix);
    s_add(walk, owner, name, place->node, &place->io_cpus, housekeeping);
}

//  A process of its own: process = own, or on another host (an agent runs
//  each of its stages in one)
static bool s_own_process(const instance_t *inst)
{
    return inst->params.process == PROCESS_OWN || inst->host[0];
}

int roster_czmq_owner(const pipeline_t *pl)
{
    for (int i = 0; i < pl->n; i++)
        if (pipeline_czmq_actor(pl, i) && !s_own_process(&pl->inst[i]))
            return i;
    return -1;
}

//  A stage in its own process: the controller's relay to it (here; on
//  another host the agent relays), that process's main thread and its
//  czmq context (a zproxy's I/O), on its host's housekeeping CPU
static void s_walk_process(const pipeline_t *pl, int i, walk_t *walk)
{
    const instance_t *inst = &pl->inst[i];
    const place_t *home = &inst->home;
    if (!inst->host[0])
        s_add(walk, i, "relay", pl->controller.place.node,
              &pl->controller.place.cpus, true);
    s_add(walk, i, "process", home->node, &home->cpus, true);
    if (pipeline_czmq_actor(pl, i))
        s_add_context(walk, i, "", ROSTER_CZMQ_IO_THREADS, &inst->place,
                      false);
    else
        s_add_context(walk, i, "process/", ROSTER_CZMQ_IO_THREADS, home, true);
}

static void s_walk_instance(const pipeline_t *pl, int i, walk_t *walk)
{
    const instance_t *inst = &pl->inst[i];
    const place_t *place = &inst->place;
    s_add(walk, i, "main", place->node, &place->cpus, false);
    if (pipeline_czmq_actor(pl, i))
        s_add(walk, i, engine_name(inst->params.engine), place->node,
              &place->cpus, false);
    else if (pl->ctx[inst->ctx].owner == i)
        s_add_context(walk, i, "", pl->ctx[inst->ctx].io_threads, place,
                      false);
    if (s_own_process(inst))
        s_walk_process(pl, i, walk);
    else if (roster_czmq_owner(pl) == i)
        s_add_context(walk, i, "", ROSTER_CZMQ_IO_THREADS, place, false);
}

//  The controller's link to each host's agent ("link:HOST", its thread
//  named "hbl:HOST", the host cut to 11 characters as thread names are)
static void s_walk_links(const pipeline_t *pl, walk_t *walk)
{
    const place_t *home = &pl->controller.place;
    for (int i = 0; i < pl->n; i++) {
        int first = pipeline_host_first(pl, i);
        char name[24];
        snprintf(name, sizeof name, "link:%.11s", pl->inst[i].host);
        if (first == i && pl->inst[i].host[0])
            s_add(walk, -1, name, home->node, &home->cpus, true);
    }
}

static void s_walk_controller(const pipeline_t *pl, walk_t *walk)
{
    const place_t *home = &pl->controller.place;
    s_add(walk, -1, "main", home->node, &home->cpus, true);
    s_walk_links(pl, walk);
    if (roster_czmq_owner(pl) < 0)
        s_add_context(walk, -1, "", ROSTER_CZMQ_IO_THREADS, home, true);
}

int roster_count(const pipeline_t *pl, int id)
{
    walk_t walk = {NULL, 0, 0};
    if (id < 0)
        s_walk_controller(pl, &walk);
    else
        s_walk_instance(pl, id, &walk);
    return walk.n;
}

int roster_list(const pipeline_t *pl, roster_entry_t *out, int max)
{
    walk_t walk = {out, max, 0};
    for (int i = 0; i < pl->n; i++)
        s_walk_instance(pl, i, &walk);
    s_walk_controller(pl, &walk);
    return walk.n;
}

void roster_name(const char *readback, char *out, size_t len)
{
    const char *process = strncmp(readback, "process/", 8) == 0 ? "process/"
                                                                 : "";
    const char *rest = readback + strlen(process);
    int n;
    char tail;
    if (strncmp(readback, "hbl:", 4) == 0)
        snprintf(out, len, "link:%s", readback + 4);
    else if (sscanf(rest, "ZMQbg/IO/%d%c", &n, &tail) == 1)
        snprintf(out, len, "%sio%d", process, n);
    else if (strcmp(rest, "ZMQbg/Reaper") == 0)
        snprintf(out, len, "%sreaper", process);
    else
        snprintf(out, len, "%s", readback);
}

const roster_entry_t *roster_find(const roster_entry_t *list, int n, int owner,
                                  const char *readback)
{
    char name[64];
    roster_name(readback, name, sizeof name);
    for (int i = 0; i < n; i++)
        if (list[i].owner == owner && strcmp(list[i].thread, name) == 0)
            return &list[i];
    return NULL;
}

//  ---------------------------------------------------------------------
//  Selftest: names as read back (pipeline_test counts real pipelines'
//  threads, which needs pipeline_new: a call cycle from here)

int roster_test(bool verbose)
{
    (void)verbose;
    //  as the kernel shows a thread, and as the roster names it
    const char *names[][2] = {{"ZMQbg/IO/12", "io12"},
                              {"ZMQbg/Reaper", "reaper"},
                              {"process/ZMQbg/Reaper", "process/reaper"},
                              {"process/ZMQbg/IO/0", "process/io0"},
                              {"hbl:h2", "link:h2"},
                              {"zproxy", "zproxy"}};
    char name[32];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        roster_name(names[i][0], name, sizeof name);
        CHECK(strcmp(name, names[i][1]) == 0);
    }
    roster_entry_t list[2] = {{.owner = 3, .thread = "io0"},
                              {.owner = -1, .thread = "reaper"}};
    CHECK(roster_find(list, 2, 3, "ZMQbg/IO/0") == &list[0]);
    CHECK(roster_find(list, 2, -1, "ZMQbg/Reaper") == &list[1]);
    CHECK(roster_find(list, 2, 3, "ZMQbg/Reaper") == NULL);
    return 0;
}
