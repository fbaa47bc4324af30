/*  stage_thread: a stage on a thread of this process (stage_thread.h).

    The thread makes its shared counters itself, after pinning itself
    (stage_actor): the controller never touches them first.
*/
#include "crew/stage_thread.h"

#include "base/actor.h"
#include "base/mono.h"
#include "stages/roles.h"

#include <stdlib.h>
#include <string.h>
#include <zmq.h>

typedef struct {
    stage_t stage;  //  the thread's own: only it touches the sockets
    zsock_t *actor; //  this side of its pipe
    void *control;  //  the role's control channel, while a trial is set up
    bool owns_shared;
    char last[16]; //  the last command sent
} thread_t;

void *stage_thread_new(const pipeline_t *pl, int id, void *ctx_owner,
                       stage_shared_t *shared, errbuf_t *err)
{
    thread_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "out of memory");
        return NULL;
    }
    self->stage.pl = pl;
    self->stage.inst = &pl->inst[id];
    self->stage.ops = roles_ops(self->stage.inst);
    self->stage.ctx_owner = ctx_owner ? &((thread_t *)ctx_owner)->stage : NULL;
    //  the thread makes its counters (or first touches the ones it was
    //  given), once it has pinned itself: their pages are its node's
    self->owns_shared = !shared;
    self->stage.shared = shared;
    if (!(self->actor = actor_new(stage_actor, &self->stage, err))) {
        free(self);
        return NULL;
    }
    if (!self->stage.shared) {
        err_set(err, "no memory for its counters");
        if (actor_destroy(&self->actor, 1000) == 0)
            free(self);
        return NULL;
    }
    return self;
}

stage_shared_t *stage_thread_shared(void *state)
{
    return ((thread_t *)state)->stage.shared;
}

zsock_t *stage_thread_pipe(void *state)
{
    return ((thread_t *)state)->actor;
}

static void s_close_control(thread_t *self)
{
    if (self->control) {
        zmq_close(self->control);
        self->control = NULL;
    }
}

static int s_send(void *state, const char *command, int timeout_ms,
                  errbuf_t *err)
{
    thread_t *self = state;
    if (strcmp(command, "TEARDOWN") == 0)
        s_close_control(self); //  it lives in the stage's context
    snprintf(self->last, sizeof self->last, "%s", command);
    return actor_send(self->actor, command, timeout_ms, err);
}

static bool s_ready(void *state, int wait_ms)
{
    thread_t *self = state;
    zmq_pollitem_t item = {zsock_resolve(self->actor), 0, ZMQ_POLLIN, 0};
    return zmq_poll(&item, 1, wait_ms) > 0;
}

char *stage_thread_answer(void *state, int timeout_ms, errbuf_t *err)
{
    thread_t *self = state;
    zsock_set_rcvtimeo(self->actor, timeout_ms);
    char *reply = zstr_recv(self->actor);
    if (!reply) {
        err_set(err, "no answer within %.1f s", timeout_ms / 1000.0);
        return NULL;
    }
    bool setup = strcmp(self->last, "SETUP") == 0 && streq(reply, "OK");
    self->last[0] = 0;
    if (setup && self->stage.ops->control_open) {
        errbuf_t why;
        s_close_control(self);
        int timeout = (int)(self->stage.pl->params.timeout * 1000);
        self->control = stage_control_open(&self->stage, timeout, &why);
        if (!self->control) {
            zstr_free(&reply);
            return zsys_sprintf("ERR %s", why.msg);
        }
    }
    return reply;
}

static int s_wait(void *state, int timeout_ms, errbuf_t *err)
{
    char *reply = stage_thread_answer(state, timeout_ms, err);
    int rc = reply ? 0 : -1;
    if (reply && strncmp(reply, "ERR ", 4) == 0)
        rc = err_set(err, "%s", reply + 4);
    zstr_free(&reply);
    return rc;
}

//  The time of a proxy's counters is the middle of the question and its
//  answer: the engine read them somewhere in between
static int s_counts(void *state, stage_counts_t *out, errbuf_t *err)
{
    thread_t *self = state;
    double before = mono_seconds();
    int rc = stage_counts(&self->stage, self->control, &out->received,
                          &out->sent, err);
    out->t = (before + mono_seconds()) / 2;
    return rc;
}

static int s_stop(void *state, errbuf_t *err)
{
    thread_t *self = state;
    return stage_stop(&self->stage, self->control, err);
}

static void s_abort(void *state)
{
    thread_t *self = state;
    const pipeline_t *pl = self->stage.pl;
    if (pl->ctx[self->stage.inst->ctx].owner == self->stage.inst->id &&
        self->stage.ctx)
        zmq_ctx_shutdown(self->stage.ctx);
}

static pid_t s_pid(void *state)
{
    (void)state;
    return 0;
}

static int s_destroy(void *state, int timeout_ms)
{
    thread_t *self = state;
    s_close_control(self);
    //  The thread signals only after it has stopped using the stage; if it
    //  does not within the timeout, the stage is left to it, not freed
    if (actor_destroy(&self->actor, timeout_ms))
        return -1;
    if (self->owns_shared)
        stage_shared_free(self->stage.shared);
    free(self);
    return 0;
}

const stage_kind_t stage_thread_kind = {STAGE_KIND("thread", s_send)};
