/*  assemble: what a request's files, --set, --sweep and hosts make (see
    assemble.h).  Every function prints its error once, where it happens,
    and returns the status (or NULL): the commands only pass it on.
*/
#include "run/assemble.h"

#include "base/interrupt.h"
#include "run/inputs.h"
#include "run/study.h"

#include <czmq.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  A topology-level --set or --sweep that some stage or hop overrides in
//  the file would silently not reach it: say so
static void s_warn_shadowed(const topology_t *topo, const char *assignment,
                            const char *option)
{
    char names[512];
    errbuf_t line;
    topology_shadowed(topo, assignment, names, sizeof names);
    if (names[0]) {
        err_set(&line,
                "warning: %s %s does not reach %s, which set their own (use "
                "NAME.KEY=VALUE)",
                option, assignment, names);
        fprintf(stderr, "hopbench: %s\n", line.msg);
    }
}

//  The name of the topology in messages: "-" is stdin
static const char *s_topology_name(const run_request_t *req)
{
    return streq(req->target, "-") ? "stdin" : req->target;
}

//  Load from the file's text, apply --set in order, validate: NULL after
//  printing why
topology_t *assemble_topology(const run_request_t *req, const char *text,
                              bool warn)
{
    errbuf_t err;
    topology_t *topo = topology_load_text(s_topology_name(req), text, &err);
    for (int i = 0; topo && i < req->nsets; i++) {
        if (topology_set(topo, req->sets[i], &err))
            topology_destroy(&topo);
        else if (warn && !req->quiet)
            s_warn_shadowed(topo, req->sets[i], "--set");
    }
    if (topo && topology_validate(topo, &err))
        topology_destroy(&topo);
    if (!topo)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return topo;
}

machine_t *assemble_machine(const run_request_t *req)
{
    errbuf_t err;
    machine_t *machine = req->machine ? inputs_machine(req, req->machine, &err)
                                      : machine_new_live(&err);
    if (!machine)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    return machine;
}

//  One topology per combination of the sweep, every one valid, or none
int assemble_combinations(const run_request_t *req, const char *text,
                          const sweep_t *sweep, topology_t **topos)
{
    int n = sweep_count(sweep);
    for (int c = 0; c < n; c++) {
        errbuf_t err;
        if (!(topos[c] = assemble_topology(req, text, c == 0)))
            return -1;
        for (int k = 0; k < sweep->nkeys; k++) {
            char assignment[256];
            sweep_assignment(sweep, c, k, assignment, sizeof assignment);
            if (c == 0 && !req->quiet)
                s_warn_shadowed(topos[c], assignment, "--sweep");
            if (topology_set_as(topos[c], assignment, "--sweep", &err) ||
                topology_validate(topos[c], &err)) {
                fprintf(stderr, "hopbench: %s\n", err.msg);
                return -1;
            }
        }
    }
    return n;
}

//  The distinct hosts the topologies name, each once, as many as they are
typedef struct {
    const char **name; //  the hosts file's own strings
    int n, room;
} names_t;

static int s_name_add(names_t *self, const char *name, errbuf_t *err)
{
    for (int i = 0; i < self->n; i++)
        if (streq(self->name[i], name))
            return 0;
    if (self->n == self->room) {
        int room = self->room ? 2 * self->room : 16;
        const char **more = realloc(self->name, (size_t)room * sizeof *more);
        if (!more)
            return err_set(err, "out of memory");
        self->name = more;
        self->room = room;
    }
    self->name[self->n++] = name;
    return 0;
}

//  The hosts every topology's instances name, checked against the hosts
//  file (and their certificates, without --ssh), into names; the longest
//  timeout into *timeout.  The exit status (2, or 1 out of memory), or 0
static int s_host_names(const run_request_t *req, const hosts_t *hosts,
                        topology_t *const *topos, int n, names_t *names,
                        double *timeout, errbuf_t *unfit, errbuf_t *err)
{
    for (int c = 0; c < n; c++) {
        errbuf_t *why = unfit ? &unfit[c] : err;
        why->msg[0] = 0;
        if (!topos[c]) //  a candidate the checks refused: never planned
            continue;
        if (hosts_check_topology(hosts, topos[c], why) ||
            (!req->ssh && hosts_check_certs(hosts, topos[c], why))) {
            if (!unfit)
                return 2;
            continue; //  this one does not fit; the others may
        }
        for (int i = 0; i < topos[c]->nstages; i++) {
            params_t stage;
            topology_stage_params(topos[c], i, &stage);
            for (int k = 0; k < stage.count; k++) {
                char host[LIMIT_NAME + 1];
                topology_instance_host(&stage, k, host, sizeof host);
                if (host[0] &&
                    s_name_add(names, hosts_find(hosts, host)->name, err))
                    return 1;
            }
        }
        if (topos[c]->params.timeout > *timeout)
            *timeout = topos[c]->params.timeout;
    }
    return 0;
}

//  --machine HOST=FILE: each file read, as the fleet takes them; the exit
//  status (2), or 0 (machines[] destroyed by the caller either way)
static int s_machine_files(const run_request_t *req, machine_t **machines,
                           fleet_machine_file_t *files, errbuf_t *err)
{
    for (int i = 0; i < req->nmachine_files; i++) {
        errbuf_t why;
        machines[i] = inputs_machine(req, req->machine_files[i].path, &why);
        files[i] =
            (fleet_machine_file_t){req->machine_files[i].host, machines[i]};
        if (!machines[i]) {
            err_set(err, "--machine %s=%s", req->machine_files[i].host,
                    why.msg);
            return 2;
        }
    }
    return 0;
}

//  The hosts the topologies' stages name (host = NAME), each through its
//  agent; *fleet stays NULL when none is named.  The exit status of a
//  failure (printed), or 0
int assemble_fleet(const run_request_t *req, topology_t *const *topos, int n,
                   fleet_t **fleet)
{
    return assemble_fleet_fitting(req, topos, n, NULL, fleet);
}

int assemble_fleet_fitting(const run_request_t *req, topology_t *const *topos,
                           int n, errbuf_t *unfit, fleet_t **fleet)
{
    errbuf_t err;
    hosts_t *hosts = req->hosts ? inputs_hosts(req, &err) : NULL;
    names_t names = {NULL, 0, 0};
    int rc = req->hosts && !hosts ? 2 : 0;
    double timeout = 0;
    if (rc == 0)
        rc = s_host_names(req, hosts, topos, n, &names, &timeout, unfit, &err);
    machine_t *machines[LIMIT_MACHINE_FILES] = {NULL};
    fleet_machine_file_t files[LIMIT_MACHINE_FILES];
    zcert_t *cert = NULL;
    if (rc == 0)
        rc = s_machine_files(req, machines, files, &err);
    if (rc == 0 && names.n && inputs_cert(req, &cert, &err))
        rc = 2;
    fleet_options_t options = {
        hosts,   cert,  req->ssh,           req->remote_hopbench,
        timeout, files, req->nmachine_files};
    if (rc == 0 && names.n &&
        !(*fleet = fleet_new(&options, names.name, names.n, &err)))
        rc = 1;
    if (rc)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    for (int i = 0; i < req->nmachine_files; i++)
        machine_destroy(&machines[i]);
    zcert_destroy(&cert);
    free(names.name);
    hosts_destroy(&hosts); //  the fleet keeps what it needs
    return rc;
}

//  placement = all: the study, made a sweep of nodes; 1 when there is
//  none (another placement), 0 when there is, -1 after saying why not
int assemble_study(const run_request_t *req, const char *text,
                   const machine_t *machine, placements_t *study,
                   sweep_t *sweep)
{
    errbuf_t err;
    topology_t *topo = assemble_topology(req, text, false);
    int rc = topo ? 1 : -1;
    if (topo && topo->params.placement == PLACEMENT_ALL)
        rc = study_plan(topo, machine, study, &err) ||
                     (sweep && study_sweep(study, sweep, &err))
                 ? -1
                 : 0;
    if (rc < 0 && topo)
        fprintf(stderr, "hopbench: %s\n", err.msg);
    if (rc == 0 && study->note[0] && !req->quiet && sweep)
        fprintf(stderr, "hopbench: placement all: %s\n", study->note);
    //  the summary names the study's topology: keep it until the end
    if (rc != 0)
        topology_destroy(&topo);
    return rc;
}

//  placement = all plans on this machine's nodes: not with stages on
//  other hosts.  The exit status (printed), or 0
int assemble_study_here(int studied, const fleet_t *fleet)
{
    if (studied != 0 || !fleet)
        return 0;
    fprintf(stderr, "hopbench: placement all studies this machine's nodes; "
                    "it does not take stages on other hosts (host = ...)\n");
    return 2;
}
