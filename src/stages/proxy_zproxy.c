/*  proxy_zproxy: czmq's zproxy actor as a proxy engine (engine = zproxy).

        upstream --> [FRONTEND] --zproxy actor thread--> [BACKEND] --> downstream
                                          |
                                    CAPTURE (PUSH) --> this stage's thread counts

    zproxy has no counters, so hopbench counts what it forwards through its
    CAPTURE socket: a copy (a reference, for large messages) and one more
    send per message in the proxy's thread, which its figures include.  Its
    sockets live in czmq's own context, so its hops cannot be inproc, and
    it takes no HWM or NODROP settings (topology validation says so).  The
    actor's thread inherits this stage's placement, and is named
    "hbz:ID" so the read-back can charge its CPU to this stage.
*/
#include "base/actor.h"
#include "config/pattern.h"
#include "pipeline/traffic.h"
#include "stages/proxy.h"
#include "stages/roles.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <zmq.h>

//  zproxy asserts when a bind fails, so what a bind needs is tried here
//  first, to fail with a message instead.  tcp: a plain socket (closed at
//  once, unlike a libzmq one) bound to the address
static int s_try_tcp(const char *endpoint, int *error)
{
    char host[PIPELINE_ENDPOINT_MAX];
    int port;
    if (sscanf(endpoint, "tcp://%[^:]:%d", host, &port) != 2)
        return 0;
    struct sockaddr_in addr = {.sin_family = AF_INET,
                               .sin_port = htons((uint16_t)port)};
    if (strcmp(host, "*") && inet_pton(AF_INET, host, &addr.sin_addr) != 1)
        return 0; //  a name or IPv6: zproxy will have to try
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&addr, sizeof addr);
    *error = errno;
    if (fd >= 0)
        close(fd);
    return rc;
}

//  ipc: the path fits a unix socket address, and its directory lets this
//  process create it (libzmq first removes a file left at the path)
static int s_try_ipc(const char *endpoint, int *error)
{
    const char *path = endpoint + strlen("ipc://");
    char dir[PIPELINE_ENDPOINT_MAX];
    if (strncmp(endpoint, "ipc://", 6) || *path == '@')
        return 0; //  not ipc, or Linux's abstract namespace: no file
    *error = ENAMETOOLONG;
    if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return -1;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = 0;
    int rc = faccessat(AT_FDCWD, slash ? dir : ".", W_OK | X_OK, AT_EACCESS);
    *error = errno;
    return rc;
}

//  "@endpoint" when this proxy binds hop h (tried first), else
//  ">ep1,>ep2,...", after what buf holds already (a comma between:
//  czmq's zsock_attach list)
static int s_endpoints(stage_t *self, int h, char *buf, size_t len,
                       errbuf_t *err)
{
    const hop_plan_t *hop = &self->pl->hops[h];
    size_t used = strlen(buf);
    int e, error = 0;
    if (pipeline_binds(self->pl, h, self->inst->id, &e)) {
        if (s_try_tcp(hop->endpoint[e], &error) ||
            s_try_ipc(hop->endpoint[e], &error))
            return err_set(err, "bind %s (hop %d): %s", hop->endpoint[e],
                           h + 1, strerror(error));
        snprintf(buf + used, len - used, "%s@%s", used ? "," : "",
                 hop->endpoint[e]);
        return 0;
    }
    for (e = 0; e < hop->nendpoints && used < len; e++)
        used += (size_t)snprintf(buf + used, len - used, "%s>%s",
                                 used ? "," : "", hop->endpoint[e]);
    return 0;
}

//  After zproxy bound them: the ipc files of its "@endpoint"s
static void s_note_binds(stage_t *self, const char *endpoints)
{
    for (const char *p = endpoints; *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        char one[PIPELINE_ENDPOINT_MAX + 2];
        snprintf(one, sizeof one, "%.*s", (int)len, p);
        p += len;
        if (*one == '@')
            stage_note_bind(self, one + 1);
    }
}

static int s_configure(stage_t *self, const char *which, bool back,
                       errbuf_t *err)
{
    //  a proxy has one endpoint per hop: it binds it, or connects to the
    //  one proxy or publisher instance that does
    size_t len = (size_t)LIMIT_STAGES * (PIPELINE_ENDPOINT_MAX + 2);
    char *endpoints = calloc(1, len);
    int id = self->inst->id, rc = 0;
    if (!endpoints)
        return err_set(err, "zproxy %s: out of memory", which);
    for (int h = back ? pipeline_hop_out(self->pl, id)
                      : pipeline_hop_in(self->pl, id);
         h >= 0 && rc == 0; h = back ? pipeline_next_hop_out(self->pl, id, h)
                                     : pipeline_next_hop_in(self->pl, id, h))
        rc = s_endpoints(self, h, endpoints, len, err);
    if (rc == 0 && (zstr_sendx(self->engine, which,
                               pattern_socket_name(stage_socket_type(self, back)),
                               endpoints, NULL) ||
                    zsock_wait(self->engine) < 0))
        rc = err_set(err, "zproxy %s %.200s: no answer", which, endpoints);
    if (rc == 0)
        s_note_binds(self, endpoints);
    free(endpoints);
    return rc;
}

static int s_setup(stage_t *self, errbuf_t *err)
{
    char capture[64], name[16];
    snprintf(capture, sizeof capture, "inproc://hopbench-capture-%d-%u",
             self->inst->id, self->setups);
    self->in = zsock_new_pull(capture); //  czmq's context, as zproxy's
    if (!self->in)
        return err_set(err, "bind %s", capture);
    zsock_set_rcvtimeo(self->in, STAGE_IDLE_MS);
    //  The actor thread inherits the name (and the placement) of this one
    snprintf(name, sizeof name, "hbz:%d", self->inst->id);
    prctl(PR_SET_NAME, name);
    errbuf_t why;
    self->engine = actor_new(zproxy, NULL, &why);
    snprintf(name, sizeof name, "hb:%.12s", self->inst->name);
    prctl(PR_SET_NAME, name);
    if (!self->engine)
        return err_set(err, "czmq's zproxy actor: %s", why.msg);
    zsock_set_rcvtimeo(self->engine, (int)(self->pl->params.timeout * 1000));
    if (zstr_sendx(self->engine, "CAPTURE", capture, NULL) ||
        zsock_wait(self->engine) < 0)
        return err_set(err, "zproxy CAPTURE: no answer");
    return s_configure(self, "FRONTEND", false, err) ||
           s_configure(self, "BACKEND", true, err);
}

//  Is a captured frame the end of a data message?  Subscriptions (both
//  ways go to CAPTURE) are one frame: shorter than a header, or, with
//  topics on the wire (pipeline/traffic.h), starting with 0 or 1 where a
//  data message starts with a topic's digit.  With frames = 2 a data
//  message ends with the frame after a topic frame
static bool s_data_end(const zmq_msg_t *msg, bool topics, int frames,
                       bool *in_message)
{
    bool more = zmq_msg_more(msg), after = *in_message;
    *in_message = more;
    if (more)
        return false;
    if (frames == 2)
        return after;
    const uint8_t *data = zmq_msg_data((zmq_msg_t *)msg);
    return zmq_msg_size(msg) >= 8 && (!topics || data[0] >= '0');
}

//  Count the captured data messages; stop when told to and idle
static int s_run(stage_t *self, errbuf_t *err)
{
    void *capture = zsock_resolve(self->in);
    const bool topics = traffic_on(self->pl);
    bool in_message = false;
    uint64_t total = 0;
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    while (true) {
        if (zmq_msg_recv(&msg, capture, 0) < 0) {
            if (errno == EINTR ||
                (errno == EAGAIN && !atomic_load(&self->shared->stop)))
                continue;
            zmq_msg_close(&msg);
            return errno == EAGAIN || errno == ETERM
                       ? 0
                       : err_set(err, "zmq_msg_recv: %s", zmq_strerror(errno));
        }
        if (s_data_end(&msg, topics, self->pl->params.frames, &in_message)) {
            atomic_store_explicit(&self->shared->received, ++total,
                                  memory_order_relaxed);
            atomic_store_explicit(&self->shared->sent, total,
                                  memory_order_relaxed);
        }
    }
}

//  End czmq's zproxy actor within the timeout.  If it does not end (one
//  blocked on a full PUSH backend or CAPTURE), the teardown fails, so the
//  stage is left behind and the process exits at once, rather than have
//  zsys_shutdown close sockets under a running zproxy
static int s_teardown(stage_t *self, errbuf_t *err)
{
    zsock_t *pipe = self->engine;
    if (pipe && actor_destroy(&pipe, (int)(self->pl->params.timeout * 1000)))
        return err_set(err, "czmq's zproxy actor did not end within %g s",
                       self->pl->params.timeout);
    self->engine = NULL;
    zsock_t *capture = self->in;
    zsock_destroy(&capture);
    self->in = NULL;
    return 0;
}

const stage_ops_t proxy_zproxy_ops = {
    .setup = s_setup, .run = s_run, .teardown = s_teardown};
