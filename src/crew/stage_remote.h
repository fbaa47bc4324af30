/*  stage_remote: a stage on another host (host = NAME), one kind of
    stage_handle.

      controller                               host h2 (hopbench agent)

      trial --mailbox--> link actor ==tcp==> agent --process kind--> stage
        |                                      |       (hopbench stage ...)
        +-- mirror of stage_shared_t           +-- stage_shared_t (memfd)

    The agent runs the stage exactly as process = own runs it here, and
    relays: every command and its answers, COUNTS (a proxy's own counters
    too), the flags the trial sets (RESET, RECORD, STOP), and on
    request the shared block (SHARED), the process's threads (THREADS) and
    their CPU time (CPU).  This side keeps a mirror of the shared block
    for the trial to read: origins' counts with every COUNTS, the rest
    with stage_handle_sync.  Times the stage took on its host's clock (a
    requester's window) are turned into this host's with the link's
    clock offset.  When the link is lost every call fails at once, naming
    the host.
*/
#ifndef HOPBENCH_STAGE_REMOTE_H
#define HOPBENCH_STAGE_REMOTE_H

#include "base/errbuf.h"
#include "crew/agent_link.h"
#include "crew/stage_handle.h"

extern const stage_kind_t stage_remote_kind;

//  Start instance id on link's host (the agent was asked for the
//  combination's topology before: fleet_spec_ask; it reads START after
//  it): START is sent, its STARTED awaited by stage_handle_started;
//  *shared: the mirror
void *stage_remote_new(const pipeline_t *pl, int id, agent_link_t *link,
                       stage_shared_t **shared, errbuf_t *err);

#endif
