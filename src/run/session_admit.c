/*  session_admit: the checks a pipeline passes before a session runs it,
    so that what cannot be honoured is said before any trial: zones
    without root, --profile syscalls on a host that cannot trace (this
    one: the probe; another: its agent's WELCOME), a subscription no
    publisher reaches, and more files than the process may open
    (RLIMIT_NOFILE: the soft limit raised to what is needed, up to the
    hard one, since libzmq and czmq abort when a socket cannot be made).
    What the topics and a slow subscriber do that the file does not show
    is said as warnings.  run refuses a combination that fails (exit 2);
    size calls such a candidate "does not fit".
*/
#include "run/session_internal.h"

#include "base/nofile.h"
#include "machine/syscalls.h"
#include "pipeline/slow_warn.h"
#include "pipeline/traffic.h"
#include "pipeline/traffic_warn.h"

#include <unistd.h>

//  Room for the files the pipeline opens
static int s_files(const pipeline_t *pl, const char *what, errbuf_t *err)
{
    long need = pipeline_files(pl);
    unsigned long long soft, hard;
    int rc = nofile_raise(need, &soft, &hard, err);
    if (rc > 0)
        return err_set(err,
                       "%s%s%s: the pipeline would open about %ld files, "
                       "more than this process may (ulimit -Hn: %llu): "
                       "RLIMIT_NOFILE (ulimit -n %llu) is too low for "
                       "%ld SUB sockets and their stages; raise it (as "
                       "root: ulimit -n %ld), or use fewer instances or "
                       "sockets",
                       pl->topo->path, what[0] ? " " : "", what, need, hard,
                       soft, pipeline_total_sockets(pl), need);
    return rc;
}

//  --profile syscalls: every host with a stage of the pipeline must be
//  able to trace (here: the probe; a host: its agent's WELCOME)
static int s_can_trace(const session_t *self, const pipeline_t *pl,
                       errbuf_t *err)
{
    errbuf_t why;
    int probed = 0; //  this host, once
    if (pl->params.profile == PROFILE_NONE)
        return 0;
    for (int i = 0; i < pl->n; i++) {
        const char *host = pipeline_host(pl, i);
        agent_link_t *link = host[0] ? fleet_link(self->o.fleet, host) : NULL;
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

int session_admit(session_t *self, const pipeline_t *pl, const char *what,
                  errbuf_t *err)
{
    if (zones_wanted(pl) && geteuid() != 0)
        return err_set(err, "zones (netns = ...) need root: hopbench "
                            "makes network namespaces and veth links");
    if (s_can_trace(self, pl, err) || traffic_check_reached(pl, err) ||
        s_files(pl, what, err))
        return -1;
    session_note_curve(self, pl);
    char warnings[4096];
    if (traffic_warnings(pl, warnings, sizeof warnings) == 0)
        session_warn(self, warnings);
    slow_warnings(pl, warnings, sizeof warnings);
    session_warn(self, warnings);
    return 0;
}
