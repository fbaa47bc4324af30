/*  actor: czmq's zactor, started and ended within bounds (see actor.h).  */
#include "base/actor.h"

#include "base/check.h"
#include "base/mono.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    zactor_fn *fn;
    void *args;
    zsock_t *pipe; //  the thread's end
} shim_t;

static void *s_shim(void *args)
{
    shim_t *shim = args;
    shim->fn(shim->pipe, shim->args);
    zsock_set_sndtimeo(shim->pipe, 0); //  the other end may be gone
    zsock_signal(shim->pipe, 0);
    zsock_destroy(&shim->pipe);
    free(shim);
    return NULL;
}

//  A PAIR pipe over a unique inproc name; NULL and err when out of sockets
static zsock_t *s_pipe(zsock_t **theirs, errbuf_t *err)
{
    static atomic_int serial;
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "inproc://hopbench-actor-%d-%d",
             getpid(), atomic_fetch_add(&serial, 1));
    zsock_t *ours = zsock_new(ZMQ_PAIR);
    *theirs = zsock_new(ZMQ_PAIR);
    if (!ours || !*theirs || zsock_bind(ours, "%s", endpoint) ||
        zsock_connect(*theirs, "%s", endpoint)) {
        err_set(err, "actor pipe %s: %s", endpoint, zmq_strerror(errno));
        zsock_destroy(&ours);
        zsock_destroy(theirs);
        return NULL;
    }
    return ours;
}

zsock_t *actor_new(zactor_fn fn, void *args, errbuf_t *err)
{
    shim_t *shim = calloc(1, sizeof *shim);
    if (!shim) {
        err_set(err, "cannot start a thread: out of memory");
        return NULL;
    }
    *shim = (shim_t){fn, args, NULL};
    zsock_t *pipe = s_pipe(&shim->pipe, err);
    pthread_t thread;
    pthread_attr_t attr;
    int rc = pipe ? pthread_attr_init(&attr) : -1;
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&thread, &attr, s_shim, shim);
        pthread_attr_destroy(&attr);
        if (rc)
            err_set(err, "cannot start a thread: %s", strerror(rc));
    }
    if (rc) {
        zsock_destroy(&pipe);
        zsock_destroy(&shim->pipe);
        free(shim);
        return NULL;
    }
    zsock_wait(pipe); //  running: its first act is to signal
    return pipe;
}

int actor_send(zsock_t *pipe, const char *command, int timeout_ms,
               errbuf_t *err)
{
    zsock_set_sndtimeo(pipe, timeout_ms);
    if (zstr_send(pipe, command))
        return err_set(err, "cannot send %s within %.1f s", command,
                       timeout_ms / 1000.0);
    return 0;
}

static atomic_int s_left_behind;

int actor_left_behind(void)
{
    return atomic_load(&s_left_behind);
}

int actor_destroy(zsock_t **pipe_p, int timeout_ms)
{
    zsock_t *pipe = *pipe_p;
    if (!pipe)
        return 0;
    zsock_set_sndtimeo(pipe, timeout_ms);
    zsock_set_rcvtimeo(pipe, timeout_ms);
    if (zstr_send(pipe, "$TERM") || zsock_wait(pipe) < 0) {
        atomic_fetch_add(&s_left_behind, 1);
        return -1;
    }
    zsock_destroy(pipe_p);
    return 0;
}

//  ------------------------------------------------------------------------
//  Selftest: an echo actor, and one that ends only when let go

static void s_echo(zsock_t *pipe, void *args)
{
    (void)args;
    zsock_signal(pipe, 0);
    char *text;
    while ((text = zstr_recv(pipe)) && strcmp(text, "$TERM")) {
        zstr_send(pipe, text);
        zstr_free(&text);
    }
    zstr_free(&text);
}

static void s_stubborn(zsock_t *pipe, void *args)
{
    atomic_int *let_go = args;
    zsock_signal(pipe, 0);
    while (!atomic_load(let_go))
        usleep(1000);
    char *term = zstr_recv(pipe);
    zstr_free(&term);
}

int actor_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    zsock_t *pipe = actor_new(s_echo, NULL, &err);
    CHECK(pipe);
    CHECK(actor_send(pipe, "hello", 1000, &err) == 0);
    char *echo = zstr_recv(pipe);
    CHECK(echo && strcmp(echo, "hello") == 0);
    zstr_free(&echo);
    CHECK(actor_destroy(&pipe, 10000) == 0 && pipe == NULL);

    //  An actor that does not end in time keeps its pipe
    atomic_int let_go = 0;
    pipe = actor_new(s_stubborn, &let_go, &err);
    CHECK(pipe);
    double start = mono_seconds();
    int left = actor_left_behind();
    CHECK(actor_destroy(&pipe, 100) == -1 && pipe != NULL);
    CHECK(actor_left_behind() == left + 1); //  main ends without shutdown
    CHECK(mono_seconds() - start < 5.0); //  0.1 s, on a busy machine more
    atomic_store(&let_go, 1);
    CHECK(actor_destroy(&pipe, 10000) == 0 && pipe == NULL);
    return 0;
}
