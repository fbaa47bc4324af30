/*  report_plan: `hopbench plan`, one row per thread a run would start.

        stage   role        thread  node  cpus
        pub     publisher   main    0     0
        pub     publisher   io0     0     0-13,28-41

    A stage's libzmq I/O threads (io0, io1, ...) appear under the stage
    that owns the context; stages that share it (inproc) have none of
    their own.  An unpinned thread shows node -1 and every CPU.
*/
#include "report/report_plan.h"

#include "config/params.h"

#include <string.h>

static void s_row(FILE *out, bool csv, const instance_t *inst,
                  const char *thread, int node, const cpuset_t *cpus,
                  const machine_t *machine, bool shared, bool hosts)
{
    char text[1024];
    cpuset_format(cpuset_empty(cpus) ? &machine->cpus : cpus, text,
                  sizeof text);
    const char *host = inst->host;
    if (csv)
        fprintf(out, "%s,%s,%s,%d,\"%s\"%s%s\n", inst->name,
                pattern_role_names[inst->role], thread, node, text,
                hosts ? "," : "", hosts ? host : "");
    else
        fprintf(out, "%-16s %-11s %-7s %4d  %s%s%s%s\n", inst->name,
                pattern_role_names[inst->role], thread, node, text,
                hosts && host[0] ? "  on " : "", hosts ? host : "",
                shared ? "  (shares a core: SMT sibling)" : "");
}

//  The machine a host's stages were planned on
static const machine_t *s_machine(const pipeline_machine_t *machines, int n,
                                  const char *host)
{
    for (int m = 0; m < n; m++)
        if (strcmp(machines[m].host, host) == 0)
            return machines[m].machine;
    return machines[0].machine;
}

static void s_header(FILE *out, const pipeline_t *pl,
                     const pipeline_machine_t *machines, int n, bool csv,
                     bool hosts)
{
    const machine_t *machine = machines[0].machine;
    if (csv) {
        fputs(hosts ? "stage,role,thread,node,cpus,host\n"
                    : "stage,role,thread,node,cpus\n",
              out);
        return;
    }
    fprintf(out, "# %s on %s (%s), placement %s\n", pl->topo->name,
            machine->name, machine->source,
            params_placement_names[pl->params.placement]);
    for (int m = 1; m < n && hosts; m++)
        fprintf(out, "# host %s: %s (%s)\n", machines[m].host,
                machines[m].machine->name, machines[m].machine->source);
    fprintf(out, "%-16s %-11s %-7s %4s  %s\n", "stage", "role", "thread",
            "node", "cpus");
}

void report_plan(FILE *out, const pipeline_t *pl, const machine_t *machine,
                 bool csv)
{
    pipeline_machine_t only = {"", machine};
    report_plan_on(out, pl, &only, 1, csv);
}

void report_plan_on(FILE *out, const pipeline_t *pl,
                    const pipeline_machine_t *machines, int n, bool csv)
{
    bool hosts = n > 1;
    s_header(out, pl, machines, n, csv, hosts);
    for (int i = 0; i < pl->n; i++) {
        const instance_t *inst = &pl->inst[i];
        const machine_t *machine = s_machine(machines, n, inst->host);
        s_row(out, csv, inst, "main", inst->place.node, &inst->place.cpus,
              machine, inst->place.smt_shared, hosts);
        const context_plan_t *ctx = &pl->ctx[inst->ctx];
        if (ctx->owner != i)
            continue;
        for (int t = 0; t < ctx->io_threads; t++) {
            char name[16];
            snprintf(name, sizeof name, "io%d", t);
            s_row(out, csv, inst, name, inst->place.node, &inst->place.io_cpus,
                  machine, false, hosts);
        }
    }
}
