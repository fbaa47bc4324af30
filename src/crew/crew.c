/*  crew: start and end a pipeline's stages (see crew.h).  */
#include "crew/crew.h"

#include "base/mono.h"
#include "machine/pin.h"
#include "pipeline/roster.h"

#include <stdlib.h>

//  An answer read later than this after it was looked for came while it
//  was awaited (not one that was there already)
#define CREW_AWAITED 0.002

//  Where instance i runs, as the fleet knows it: its agent, its host's
//  machine, and its clock against the publishers' (sequence.h)
static void s_host(const fleet_t *fleet, const pipeline_t *pl, int i,
                   stage_where_t *where)
{
    const char *host = pipeline_host(pl, i);
    where->link = fleet_link(fleet, host);
    where->machine = fleet_machine(fleet, host);
    where->clock_ns = (int64_t)(fleet_offset_ns(fleet, host) -
                                fleet_offset_ns(fleet, pipeline_host(pl, 0)));
}

//  The controller (the calling thread) where the plan puts it, before it
//  starts any thread: the stage threads leave it at once, its relays
//  stay, and a stage's own process is born on it
static int s_place_controller(const pipeline_t *pl, errbuf_t *err)
{
    const place_t *home = &pl->controller.place;
    if (home->node < 0 && cpuset_empty(&home->cpus))
        return pin_release(&pl->allowed, err);
    return pin_thread(home, err);
}

//  czmq's context threads, started with this process's first socket:
//  the controller's, or a zproxy stage's I/O (roster.h)
static int s_place_czmq(const pipeline_t *pl, errbuf_t *err)
{
    int owner = roster_czmq_owner(pl);
    const cpuset_t *cpus = owner >= 0 ? &pl->inst[owner].place.io_cpus
                                      : &pl->controller.place.cpus;
    const cpuset_t *home = &pl->controller.place.cpus;
    if (pin_czmq_threads(cpuset_empty(cpus) ? &pl->allowed : cpus, err))
        return -1;
    //  the links to agents (started with the fleet) are hopbench's own too
    return pin_threads_named("hbl:", cpuset_empty(home) ? &pl->allowed : home,
                             err);
}

//  Remote stages were asked to start as they were made, all at once:
//  every one's answer awaited, and those that failed named together.  The
//  wait (the timeout and 5 s) is one for all, from the last answer that
//  came while one was awaited: stages that do not start fail together,
//  and hosts that start theirs slowly (a busy machine, many stages) are
//  waited for as long as they go on.  Of the hosts lost meanwhile only
//  the first is said here, and only when nothing else failed: the
//  fleet's blame names every lost host after (fleet_blame)
static int s_started(crew_t *self, errbuf_t *err)
{
    int failed = 0, lost = 0;
    errbuf_t all, first_lost;
    double wait = self->pl->params.timeout + 5, last = mono_seconds();
    for (int i = 0; i < self->pl->n; i++) {
        errbuf_t one;
        double asked = mono_seconds();
        if (stage_handle_started(self->stage[i], last + wait, &one) == 0) {
            if (mono_seconds() - asked > CREW_AWAITED)
                last = mono_seconds();
            continue;
        }
        if (!one.lost)
            err_gather(&all, &failed, &one);
        else if (lost++ == 0)
            first_lost = one;
    }
    if ((failed || lost) && err)
        *err = failed ? all : first_lost;
    return failed || lost ? -1 : 0;
}

//  Every stage made, in the pipeline's order: a remote one is asked to
//  start as it is made (stage_remote_new), so the hosts start theirs all
//  at once
static int s_make(crew_t *self, const fleet_t *fleet, const char *config,
                  const char *ipc_dir, errbuf_t *err)
{
    const pipeline_t *pl = self->pl;
    for (int i = 0; i < pl->n; i++) {
        //  a context's owner comes before the instances that join it
        int owner = pl->ctx[pl->inst[i].ctx].owner;
        stage_where_t where = {
            config, ipc_dir, owner != i ? self->stage[owner] : NULL,
            NULL,   NULL,    0};
        s_host(fleet, pl, i, &where);
        if (!(self->stage[i] = stage_handle_new(pl, i, &where, err)))
            return -1;
    }
    return 0;
}

crew_t *crew_new(pipeline_t *pl, const char *config, const char *ipc_dir,
                 fleet_t *fleet, errbuf_t *err)
{
    errbuf_t why;
    if (s_place_controller(pl, &why)) {
        err_set(err, "controller: %s", why.msg);
        return NULL;
    }
    crew_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "out of memory");
        return NULL;
    }
    self->pl = pl;
    if (fleet && fleet_spec_ask(fleet, pl, config, err)) {
        free(self);
        return NULL;
    }
    int rc = s_make(self, fleet, config, ipc_dir, err);
    //  SPEC's answers before anything else of the links (a stage's
    //  DETACH): a host that failed SPEC is why its stage does not start
    if (fleet && fleet_spec_take(fleet, &why)) {
        if (err)
            *err = why;
        rc = -1;
    }
    if (rc == 0)
        rc = s_started(self, err);
    if (rc) {
        crew_destroy(&self, 1000);
        return NULL;
    }
    if (s_place_czmq(pl, &why)) {
        err_set(err, "controller: %s", why.msg);
        crew_destroy(&self, 1000);
    }
    return self;
}

int crew_end(crew_t *self, int timeout_ms, errbuf_t *err)
{
    int rc = 0;
    for (int i = self->pl->n - 1; i >= 0; i--)
        if (self->stage[i])
            stage_handle_end(self->stage[i]);
    for (int i = self->pl->n - 1; i >= 0; i--) {
        errbuf_t why;
        if (self->stage[i] &&
            stage_handle_ended(self->stage[i], timeout_ms, &why) && rc == 0) {
            rc = -1;
            if (err)
                *err = why;
        }
    }
    return rc;
}

//  Sharers of a context first, its owner (who terminates it) last
int crew_destroy(crew_t **self_p, int timeout_ms)
{
    crew_t *self = *self_p;
    int rc = 0;
    if (!self)
        return 0;
    crew_end(self, timeout_ms, NULL); //  all at once, where that is a question
    for (int i = self->pl->n - 1; i >= 0; i--)
        if (self->stage[i] && stage_handle_destroy(&self->stage[i], timeout_ms))
            rc = -1;
    if (rc == 0)
        free(self);
    *self_p = NULL;
    return rc;
}
