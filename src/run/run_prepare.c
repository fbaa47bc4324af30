/*  run_prepare: every combination's pipeline placed and checked before
    anything runs, so a run that cannot be honoured ends at once (exit
    2): a plan the machine (or a host's) cannot honour, zones without
    root, --profile syscalls on a host that cannot trace (this one: the
    probe; another: its agent's WELCOME), and more files than the
    process may open (RLIMIT_NOFILE: the soft limit raised to the hard
    one first, since libzmq and czmq abort when a socket cannot be made).
*/
#include "run/run_internal.h"

#include "pipeline/traffic.h"
#include "pipeline/slow_warn.h"
#include "pipeline/traffic_warn.h"

#include "base/nofile.h"
#include "machine/syscalls.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

//  Room for the files the largest pipeline opens: libzmq and czmq abort
//  when they cannot make a socket, so the soft limit is raised up to the
//  hard one first, and a run that would not fit even then is refused
static int s_files(run_t *self, errbuf_t *err)
{
    long need = 0;
    int which = 0;
    for (int c = 0; c < self->ntopos; c++)
        if (pipeline_files(self->pl[c]) > need)
            need = pipeline_files(self->pl[c]), which = c;
    unsigned long long soft, hard;
    int rc = nofile_raise(need, &soft, &hard);
    if (rc > 0) {
        char text[256];
        sweep_describe(self->options->sweep, which, text, sizeof text);
        return err_set(err,
                       "%s%s%s: the pipeline would open about %ld files, "
                       "more than this process may (ulimit -Hn: %llu): "
                       "RLIMIT_NOFILE (ulimit -n %llu) is too low for "
                       "%ld SUB sockets and their stages; raise it (as "
                       "root: ulimit -n %ld), or use fewer instances or "
                       "sockets",
                       self->topos[which]->path, text[0] ? " " : "", text, need,
                       hard, soft, pipeline_total_sockets(self->pl[which]),
                       need);
    }
    return rc ? err_set(err, "setrlimit (RLIMIT_NOFILE, %ld): %s", need,
                        strerror(errno))
              : 0;
}

//  --profile syscalls: every host with a stage of a combination that
//  traces must be able to (here: the probe; a host: its agent's WELCOME)
static int s_can_trace(run_t *self, const pipeline_t *pl, errbuf_t *err)
{
    errbuf_t why;
    int probed = 0; //  this host, once
    if (pl->params.profile == PROFILE_NONE)
        return 0;
    for (int i = 0; i < pl->n; i++) {
        const char *host = pipeline_host(pl, i);
        agent_link_t *link =
            host[0] ? fleet_link(self->options->fleet, host) : NULL;
        if (!host[0] && !probed++ && syscalls_probe(&why))
            return err_set(err,
                           "profile = syscalls: this host cannot trace "
                           "system calls: %s",
                           why.msg);
        if (link && agent_link_info(link)->syscalls[0])
            return err_set(err,
                           "profile = syscalls: host %s cannot trace system "
                           "calls: %s",
                           host, agent_link_info(link)->syscalls);
    }
    return 0;
}

//  Every combination's pipeline, placed, before anything runs
int run_prepare(run_t *self, errbuf_t *err)
{
    pipeline_machine_t machines[LIMIT_HOSTS + 1];
    int nmachines = fleet_machines(self->options->fleet, self->machine,
                                   machines, LIMIT_HOSTS + 1),
        nhosts;
    const pipeline_host_t *hosts =
        fleet_pipeline_hosts(self->options->fleet, &nhosts);
    for (int c = 0; c < self->ntopos; c++) {
        errbuf_t why;
        if (!(self->pl[c] =
                  pipeline_new_on(self->topos[c], machines, nmachines, &why))) {
            char text[256];
            sweep_describe(self->options->sweep, c, text, sizeof text);
            return err_set(err, "%s%s%s", text, text[0] ? ": " : "", why.msg);
        }
        pipeline_set_hosts(self->pl[c], hosts, nhosts);
        run_meta_curve(self, self->pl[c]);
        if (zones_wanted(self->pl[c]) && geteuid() != 0)
            return err_set(err, "zones (netns = ...) need root: hopbench "
                                "makes network namespaces and veth links");
        if (s_can_trace(self, self->pl[c], err) ||
            traffic_check_reached(self->pl[c], err))
            return -1;
        char warnings[4096];
        if (traffic_warnings(self->pl[c], warnings, sizeof warnings) == 0)
            run_meta_warn(self, warnings);
        slow_warnings(self->pl[c], warnings, sizeof warnings);
        run_meta_warn(self, warnings);
    }
    return s_files(self, err);
}
