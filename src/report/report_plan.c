/*  report_plan: `hopbench plan`, one row per thread a run would start:
    the roster (pipeline/roster.h), nothing more and nothing less.

        stage       role        thread  node  cpus        engine     runs_in
        pub         publisher   main       0  0           -          thread
        pub         publisher   io0        0  0-13,28-41  -          thread
        broker      proxy       main       1  14          steerable  process
        ...
        controller  controller  main       0  3           -          -

    A stage's libzmq threads (io0, io1, ..., reaper) appear under the stage
    that owns the context; stages that share it (inproc) have none of
    their own.  engine is a proxy's; runs_in says where the stage lives
    (thread: in hopbench's process, process: one of its own).  An
    unpinned thread shows node -1 and every CPU it may use.  With stages
    on other hosts (host = NAME), a host column follows (empty for the
    controller's), and each host's CPUs are its own machine's.  The table
    adds notes the CSV has no column for: threads that share a core, and
    a controller that found no CPU of its own; and, on stderr, a
    warning where the busy threads (stage threads, libzmq I/O threads,
    the controller's main) outnumber the CPUs they may use: they will
    wait for CPUs in turn (results.csv's starved).  Hosts crowded
    alike (as many busy threads on the same CPUs) share one warning.
*/
#include "report/report_plan.h"

#include "config/params.h"
#include "pipeline/roster.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    FILE *out;
    bool csv;
    const pipeline_t *pl;
    const pipeline_machine_t *machines; //  [0]: the controller's
    int nmachines;
    bool hosts; //  a host column
} plan_out_t;

//  The host of a roster entry ("" for the controller's), and its machine
static const char *s_host(const plan_out_t *self, int owner)
{
    return owner >= 0 ? self->pl->inst[owner].host : "";
}

static const machine_t *s_machine(const plan_out_t *self, const char *host)
{
    for (int m = 0; m < self->nmachines; m++)
        if (!self->machines[m].host ||
            strcmp(self->machines[m].host, host) == 0)
            return self->machines[m].machine;
    return self->machines[0].machine;
}

static const char *s_engine(const pipeline_t *pl, int owner)
{
    if (owner < 0 || pl->inst[owner].role != ROLE_PROXY)
        return "";
    return engine_name(pl->inst[owner].params.engine);
}

//  A table line without the padding its last column leaves
static void s_put_line(FILE *out, char *line)
{
    size_t n = strlen(line);
    while (n > 0 && line[n - 1] == ' ')
        line[--n] = 0;
    fprintf(out, "%s\n", line);
}

static const char *s_runs_in(const pipeline_t *pl, int owner)
{
    if (owner < 0)
        return "";
    return pl->inst[owner].params.process == PROCESS_OWN ||
                   pl->inst[owner].host[0]
               ? "process"
               : "thread";
}

//  A table note for one row: shared cores, a controller without a CPU
static void s_note(const plan_out_t *self, const roster_entry_t *entry,
                   char *buf, size_t len)
{
    const pipeline_t *pl = self->pl;
    const housekeeping_t *home = &pl->controller;
    buf[0] = 0;
    bool main = strcmp(entry->thread, "main") == 0;
    if (entry->owner >= 0 && main && pl->inst[entry->owner].place.crowded)
        snprintf(buf, len,
                 "  (its node has fewer CPUs than stage threads: "
                 "they share them)");
    else if (entry->owner >= 0 && main &&
             pl->inst[entry->owner].place.smt_shared)
        snprintf(buf, len, "  (shares a core: SMT sibling)");
    else if (entry->owner < 0 && main && home->shares >= 0)
        snprintf(buf, len, "  (no CPU is free: shares %s's)",
                 pl->inst[home->shares].name);
    else if (entry->owner < 0 && main && home->sibling)
        snprintf(buf, len, "  (no core is free: shares one with a stage)");
}

static void s_row(const plan_out_t *self, const roster_entry_t *entry)
{
    const pipeline_t *pl = self->pl;
    const char *stage =
        entry->owner >= 0 ? pl->inst[entry->owner].name : "controller";
    const char *role = entry->owner >= 0
                           ? pattern_role_names[pl->inst[entry->owner].role]
                           : "controller";
    const char *engine = s_engine(pl, entry->owner);
    const char *runs_in = s_runs_in(pl, entry->owner);
    const char *host = s_host(self, entry->owner);
    char cpus[1024], note[128];
    cpuset_format(cpuset_empty(&entry->cpus) ? &s_machine(self, host)->allowed
                                             : &entry->cpus,
                  cpus, sizeof cpus);
    if (self->csv) {
        fprintf(self->out, "%s,%s,%s,%d,\"%s\",%s,%s%s%s\n", stage, role,
                entry->thread, entry->node, cpus, engine, runs_in,
                self->hosts ? "," : "", self->hosts ? host : "");
        return;
    }
    s_note(self, entry, note, sizeof note);
    char line[1400];
    snprintf(line, sizeof line, "%-16s %-11s %-14s %4d  %-16s %-10s %-7s%s%s%s",
             stage, role, entry->thread, entry->node, cpus,
             *engine ? engine : "-", *runs_in ? runs_in : "-",
             self->hosts ? " " : "", self->hosts ? (*host ? host : "-") : "",
             note);
    s_put_line(self->out, line);
}

static void s_header(const plan_out_t *self)
{
    const machine_t *machine = self->machines[0].machine;
    if (self->csv) {
        fputs(self->hosts ? "stage,role,thread,node,cpus,engine,runs_in,host\n"
                          : "stage,role,thread,node,cpus,engine,runs_in\n",
              self->out);
        return;
    }
    fprintf(self->out, "# %s on %s (%s), placement %s\n", self->pl->topo->name,
            machine->name, machine->source,
            params_placement_names[self->pl->params.placement]);
    for (int m = 1; m < self->nmachines && self->hosts; m++)
        fprintf(self->out, "# host %s: %s (%s)\n", self->machines[m].host,
                self->machines[m].machine->name,
                self->machines[m].machine->source);
    long sockets = pipeline_total_sockets(self->pl);
    bool several = false; //  a subscriber of several sockets
    for (int i = 0; i < self->pl->n; i++)
        several |= pipeline_sockets(self->pl, i) > 1;
    if (several)
        fprintf(self->out,
                "# %ld SUB sockets; about %ld files in the process that "
                "opens the most (docs/LIMITS.md)\n",
                sockets, pipeline_files(self->pl));
    char line[256];
    snprintf(line, sizeof line, "%-16s %-11s %-14s %4s  %-16s %-10s %-7s%s",
             "stage", "role", "thread", "node", "cpus", "engine", "runs_in",
             self->hosts ? " host" : "");
    s_put_line(self->out, line);
}

//  A thread that works for every message: a stage's, its libzmq I/O
//  threads, zproxy's actor, the controller's main (a reaper, relay or
//  process main thread sleeps)
static bool s_busy(const roster_entry_t *entry)
{
    const char *t = entry->thread;
    if (entry->owner < 0)
        return strcmp(t, "main") == 0; //  its czmq context barely works
    if (strncmp(t, "process/", 8) == 0)
        t += 8;
    return strcmp(t, "main") == 0 || strcmp(t, "zproxy") == 0 ||
           (t[0] == 'i' && t[1] == 'o');
}

//  The busy threads of one machine and the CPUs they may use: crowded
//  when they outnumber them
typedef struct {
    int busy, cpus;
    char text[1024]; //  the CPUs, numactl list syntax
} crowd_t;

static void s_crowd(const plan_out_t *self, const roster_entry_t *list,
                    int count, const char *host, crowd_t *out)
{
    cpuset_t cpus;
    cpuset_clear(&cpus);
    out->busy = 0;
    for (int i = 0; i < count; i++) {
        if (strcmp(s_host(self, list[i].owner), host) != 0 || !s_busy(&list[i]))
            continue;
        out->busy++;
        cpuset_union(&cpus, cpuset_empty(&list[i].cpus)
                                ? &s_machine(self, host)->allowed
                                : &list[i].cpus);
    }
    cpuset_format(&cpus, out->text, sizeof out->text);
    out->cpus = cpuset_count(&cpus);
}

//  One warning per crowded CPU set: the hosts crowded alike (as many
//  busy threads on the same CPUs) share it, named once ("on 98 hosts
//  (h3, h4, ...)"); the controller's machine is its own
static void s_warn_crowded(const plan_out_t *self, const roster_entry_t *list,
                           int count)
{
    int n = self->nmachines;
    crowd_t *crowd = calloc((size_t)n, sizeof *crowd);
    bool *told = calloc((size_t)n, sizeof *told);
    for (int m = 0; crowd && told && m < n; m++)
        s_crowd(self, list, count, m == 0 ? "" : self->machines[m].host,
                &crowd[m]);
    for (int m = 0; crowd && told && m < n; m++) {
        if (told[m] || crowd[m].busy <= crowd[m].cpus)
            continue;
        char hosts[160] = "";
        size_t used = 0;
        int alike = 0;
        for (int k = m; k < n && m > 0; k++) {
            if (told[k] || crowd[k].busy != crowd[m].busy ||
                strcmp(crowd[k].text, crowd[m].text) != 0)
                continue;
            told[k] = true;
            if (alike++ < 8 && used < sizeof hosts)
                used += (size_t)snprintf(hosts + used, sizeof hosts - used,
                                         "%s%s", alike > 1 ? ", " : "",
                                         self->machines[k].host);
        }
        if (alike > 8 && used < sizeof hosts)
            snprintf(hosts + used, sizeof hosts - used, ", ...");
        if (m == 0)
            fprintf(stderr,
                    "hopbench: warning: %d busy threads (stage threads, "
                    "libzmq I/O threads, the controller) may run on %d CPUs "
                    "(%s): they will wait for CPUs in turn, and the figures "
                    "may be the scheduler's (results.csv: starved)\n",
                    crowd[m].busy, crowd[m].cpus, crowd[m].text);
        else if (alike == 1)
            fprintf(stderr,
                    "hopbench: warning on host %s: %d busy threads (stage "
                    "threads, libzmq I/O threads) may run on %d CPUs (%s): "
                    "they will wait for CPUs in turn, and the figures may be "
                    "the scheduler's (results.csv: starved)\n",
                    hosts, crowd[m].busy, crowd[m].cpus, crowd[m].text);
        else
            fprintf(stderr,
                    "hopbench: warning on %d hosts (%s): on each, %d busy "
                    "threads (stage threads, libzmq I/O threads) may run on "
                    "%d CPUs (%s): they will wait for CPUs in turn, and the "
                    "figures may be the scheduler's (results.csv: starved)\n",
                    alike, hosts, crowd[m].busy, crowd[m].cpus, crowd[m].text);
    }
    free(crowd);
    free(told);
}

void report_plan_on(FILE *out, const pipeline_t *pl,
                    const pipeline_machine_t *machines, int n, bool csv)
{
    plan_out_t self = {out, csv, pl, machines, n, n > 1};
    s_header(&self);
    int count = roster_list(pl, NULL, 0);
    roster_entry_t *list = calloc((size_t)count, sizeof *list);
    if (!list) {
        fprintf(out, "# out of memory\n");
        return;
    }
    roster_list(pl, list, count);
    for (int i = 0; i < count; i++)
        s_row(&self, &list[i]);
    if (!csv)
        s_warn_crowded(&self, list, count);
    free(list);
}
