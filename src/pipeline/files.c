/*  files: what a run of a pipeline takes from the system in files, to
    compare with RLIMIT_NOFILE before it starts (pipeline.h declares the
    questions).  Measured with libzmq 4.3.4 and czmq 4.2.1: hopbench's
    own (the controller, czmq's context), and per instance its sockets;
    per context its reaper and I/O threads' mailbox and poller; per tcp
    or ipc endpoint a listener, per connection a file at each end; a
    stage in its own process adds that process's czmq context.  The
    controller holds for each stage on another host a mailbox (a pipe of
    two sockets), and for each such host its link (a socket and its
    connection, the link's actor pipe and its monitor): 816 files at 100
    hosts of a stage each.
*/
#include "pipeline/pipeline.h"

#include <string.h>

#define BASE_FILES         32
#define REMOTE_STAGE_FILES 2 //  the controller's, per stage on a host
#define REMOTE_HOST_FILES  6 //  the controller's, per host

//  Files instance i adds (with the context it owns, if any)
static int s_instance_files(const pipeline_t *self, int i)
{
    const instance_t *inst = &self->inst[i];
    int files = 6 + (inst->params.process == PROCESS_OWN ? 20 : 0);
    if (self->ctx[inst->ctx].owner == i)
        files += 3 + 2 * inst->params.io_threads;
    int n = pipeline_sockets(self, i);
    return files + (n > 1 ? n + 1 : 0); //  a mailbox each, and an epoll
}

//  Connection files at instance i's end of its tcp and ipc hops: where it
//  binds, a listener and one per socket connected to it; where it
//  connects, one per socket and endpoint
static long s_instance_ends(const pipeline_t *self, int i)
{
    long ends = 0;
    int stage = self->inst[i].stage;
    for (int h = 0; h < self->nhops; h++) {
        const hop_plan_t *hop = &self->hops[h];
        if (hop->params.transport == TRANSPORT_INPROC ||
            (hop->up != stage && hop->down != stage))
            continue;
        int binder = hop->upstream_binds ? hop->up : hop->down;
        int other = hop->upstream_binds ? hop->down : hop->up;
        if (binder != stage) {
            ends += (long)pipeline_sockets(self, i) * hop->nendpoints;
            continue;
        }
        ends += 1;
        for (int j = 0; j < self->count[other]; j++)
            ends += pipeline_sockets(self, self->first[other] + j);
    }
    return ends;
}

long pipeline_files(const pipeline_t *self)
{
    long here = BASE_FILES, most = 0;
    for (int i = 0; i < self->n; i++) {
        long files = s_instance_files(self, i) + s_instance_ends(self, i);
        if (self->inst[i].host[0]) { //  its files are its agent's
            here += REMOTE_STAGE_FILES +
                    (pipeline_host_first(self, i) == i ? REMOTE_HOST_FILES : 0);
            continue;
        }
        if (self->inst[i].params.process != PROCESS_OWN)
            here += files;
        else if (BASE_FILES + files > most)
            most = BASE_FILES + files; //  its own process's
    }
    return here > most ? here : most;
}

long pipeline_host_files(const pipeline_t *self, const char *host)
{
    long most = 0;
    for (int i = 0; i < self->n; i++) {
        if (strcmp(self->inst[i].host, host) != 0)
            continue;
        long files = BASE_FILES + s_instance_files(self, i) +
                     s_instance_ends(self, i) +
                     (self->inst[i].params.process == PROCESS_OWN ? 0 : 20);
        if (files > most)
            most = files;
    }
    return most;
}
