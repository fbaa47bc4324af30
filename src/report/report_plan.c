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

static void s_row(FILE *out, bool csv, const instance_t *inst,
                  const char *thread, int node, const cpuset_t *cpus,
                  const machine_t *machine, bool shared)
{
    char text[1024];
    cpuset_format(cpuset_empty(cpus) ? &machine->cpus : cpus, text,
                  sizeof text);
    if (csv)
        fprintf(out, "%s,%s,%s,%d,\"%s\"\n", inst->name,
                pattern_role_names[inst->role], thread, node, text);
    else
        fprintf(out, "%-16s %-11s %-7s %4d  %s%s\n", inst->name,
                pattern_role_names[inst->role], thread, node, text,
                shared ? "  (shares a core: SMT sibling)" : "");
}

void report_plan(FILE *out, const pipeline_t *pl, const machine_t *machine,
                 bool csv)
{
    if (csv)
        fputs("stage,role,thread,node,cpus\n", out);
    else
        fprintf(out,
                "# %s on %s (%s), placement %s\n%-16s %-11s %-7s %4s  %s\n",
                pl->topo->name, machine->name, machine->source,
                params_placement_names[pl->params.placement], "stage", "role",
                "thread", "node", "cpus");
    for (int i = 0; i < pl->n; i++) {
        const instance_t *inst = &pl->inst[i];
        s_row(out, csv, inst, "main", inst->place.node, &inst->place.cpus,
              machine, inst->place.smt_shared);
        const context_plan_t *ctx = &pl->ctx[inst->ctx];
        if (ctx->owner != i)
            continue;
        for (int t = 0; t < ctx->io_threads; t++) {
            char name[16];
            snprintf(name, sizeof name, "io%d", t);
            s_row(out, csv, inst, name, inst->place.node, &inst->place.io_cpus,
                  machine, false);
        }
    }
}
