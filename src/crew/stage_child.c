/*  stage_child: the process of a stage that runs in one of its own,
    "hopbench stage CONFIG ID ENDPOINT FD CPUS [MACHINE]" (stage_process.h
    has the picture; the controller's side is stage_process.c).

    It builds the same pipeline from the combination's effective topology,
    the controller's CPU set (CPUS: its own is the housekeeping CPU it
    inherited) and, on an agent's host, the machine description the agent
    reported (MACHINE), so it gets the same plan for its host; pins its
    main thread (and so its czmq context's threads) where the plan puts
    hopbench's own threads; maps the counters the controller made (FD),
    runs its stage as a thread kind (whose thread touches them first), and
    relays: commands from the controller's PAIR to the stage, answers
    back.  COUNTS and STOP it answers itself, through the thread
    kind (a steerable proxy's control channel lives here).  SETUP carries
    the trial's endpoints and CURVE keys: "SETUP" then, per hop of the
    instance, "h n ep1 .. epn server_public server_secret client_public
    client_secret".  It ends on $TERM, when the controller is gone, or
    when its parent (the agent, or the controller) has been stopped
    (SIGSTOP) for longer than the timeout: whoever drives the run has
    given it up by then, and a stage left sending would run on alone.
*/
#define _GNU_SOURCE
#include "crew/stage_process.h"
#include "crew/stage_thread.h"
#include "crew/wire.h"

#include "base/mono.h"
#include "config/topology.h"
#include "machine/machine.h"
#include "machine/pin.h"
#include "pipeline/zones.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef struct {
    pipeline_t *pl;
    void *stage; //  a thread kind's state
    zsock_t *control;
    double parent_checked; //  when its parent's state was last read
    double parent_stopped; //  since when it is stopped (SIGSTOP), or 0
} child_t;

//  COUNTS and STOP are the child's own to answer (STOP has no answer)
static bool s_own_command(child_t *self, const char *command)
{
    errbuf_t err;
    stage_counts_t counts;
    if (streq(command, "COUNTS")) {
        if (stage_thread_kind.counts(self->stage, &counts, &err))
            zstr_sendf(self->control, "ERR counters: %s", err.msg);
        else
            zstr_sendf(self->control, "COUNTS %llu %llu",
                       (unsigned long long)counts.received,
                       (unsigned long long)counts.sent);
        return true;
    }
    if (streq(command, "STOP")) {
        stage_thread_kind.stop(self->stage, &err);
        return true;
    }
    return false;
}

//  One message from the controller; false on $TERM
static bool s_from_controller(child_t *self)
{
    zmsg_t *msg = zmsg_recv(self->control);
    char *command = msg ? zmsg_popstr(msg) : NULL;
    bool go_on = command && !streq(command, "$TERM");
    errbuf_t err;
    if (go_on && streq(command, "SETUP"))
        wire_take_hops(msg, self->pl);
    if (go_on && !s_own_command(self, command) &&
        stage_thread_kind.send(self->stage, command,
                               (int)(self->pl->params.timeout * 1000), &err))
        zstr_sendf(self->control, "ERR %s", err.msg);
    zstr_free(&command);
    zmsg_destroy(&msg);
    return go_on;
}

//  The stage's answer, as the thread kind passes it on
static void s_from_stage(child_t *self)
{
    errbuf_t err;
    char *reply = stage_thread_answer(self->stage, 0, &err);
    if (reply)
        zstr_send(self->control, reply);
    zstr_free(&reply);
}

//  Is the parent stopped (state T or t in /proc/PPID/stat, after the
//  command's closing parenthesis)?
static bool s_parent_stopped(void)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)getppid());
    FILE *file = fopen(path, "r");
    bool got = file && fgets(line, sizeof line, file);
    if (file)
        fclose(file);
    const char *end = got ? strrchr(line, ')') : NULL;
    return end && (end[1] == ' ') && (end[2] == 'T' || end[2] == 't');
}

//  The parent gone, or stopped for longer than the timeout (looked at
//  once a second at most)
static bool s_orphaned(child_t *self)
{
    double now = mono_seconds();
    if (getppid() == 1)
        return true;
    if (now - self->parent_checked < 1)
        return false;
    self->parent_checked = now;
    if (!s_parent_stopped()) {
        self->parent_stopped = 0;
        return false;
    }
    if (self->parent_stopped == 0)
        self->parent_stopped = now;
    return now - self->parent_stopped > self->pl->params.timeout;
}

static int s_loop(child_t *self)
{
    zsock_t *pipe = stage_thread_pipe(self->stage);
    zstr_send(self->control, "READY");
    zpoller_t *poller = zpoller_new(self->control, pipe, NULL);
    while (true) {
        void *which = zpoller_wait(poller, 1000);
        if (which == self->control && !s_from_controller(self))
            break;
        if (which == pipe)
            s_from_stage(self);
        if (s_orphaned(self))
            break; //  the controller is gone, or has given it up
    }
    zpoller_destroy(&poller);
    //  whatever the stage waits for ends now (ETERM), so it can end
    stage_thread_kind.abort(self->stage);
    return 0;
}

//  The controller's CPU set, as it planned with it ("-": none)
static int s_allowed(machine_t *machine, const char *text, errbuf_t *err)
{
    cpuset_t cpus;
    if (!text || strcmp(text, "-") == 0)
        return 0;
    if (cpuset_parse(text, &machine->cpus, &cpus, err))
        return -1;
    machine_restrict(machine, &cpus);
    return 0;
}

//  The pipeline the controller built, its stages of this one's host
//  planned as the controller planned them: on the same machine (this one,
//  or the description its agent gave) with the same CPU set, the other
//  hosts' not at all
static pipeline_t *s_pipeline(const char *config, int id, const char *allowed,
                              const char *machine_file, topology_t **topo,
                              machine_t **machine, errbuf_t *err)
{
    if (!(*topo = topology_load(config, err)) || topology_validate(*topo, err))
        return NULL;
    *machine = machine_file ? machine_new_file(machine_file, err)
                            : machine_new_live(err);
    if (*machine && s_allowed(*machine, allowed, err))
        return NULL;
    int stage = 0, first = 0;
    params_t own;
    for (; stage < (*topo)->nstages; stage++) {
        topology_stage_params(*topo, stage, &own);
        if (id < first + own.count)
            break;
        first += own.count;
    }
    char host[LIMIT_NAME + 1];
    topology_instance_host(&own, id - first, host, sizeof host);
    pipeline_machine_t here = {host, *machine};
    pipeline_t *pl = *machine ? pipeline_new_on(*topo, &here, 1, err) : NULL;
    if (pl)
        zones_describe(pl, getppid()); //  the controller made them
    return pl;
}

//  The controller sized it for the stage (stage_shared_size)
static stage_shared_t *s_map(int fd)
{
    struct stat st;
    if (fstat(fd, &st) || (size_t)st.st_size < sizeof(stage_shared_t))
        return NULL;
    void *memory = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
                        MAP_SHARED, fd, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

static int s_serve(child_t *self, int id, const char *endpoint,
                   stage_shared_t *shared, errbuf_t *err)
{
    char name[16], connect[330];
    const instance_t *inst = &self->pl->inst[id];
    snprintf(name, sizeof name, "hopbench:%s", inst->name);
    prctl(PR_SET_NAME, name);
    //  before the first socket: czmq's context threads follow this one
    if (pin_thread(&self->pl->controller.place, err))
        return 1;
    snprintf(connect, sizeof connect, ">%s", endpoint);
    self->control = zsock_new_pair(connect);
    self->stage = stage_thread_new(self->pl, id, NULL, shared, err);
    //  a czmq actor's sockets are czmq's: its context's threads are its I/O
    bool czmq = pipeline_czmq_actor(self->pl, id);
    bool placed = !czmq || cpuset_empty(&inst->place.io_cpus) ||
                  pin_czmq_threads(&inst->place.io_cpus, err) == 0;
    int rc = 1;
    if (self->control && self->stage && placed)
        rc = s_loop(self);
    if (self->stage)
        stage_thread_kind.destroy(self->stage,
                                  (int)(self->pl->params.timeout * 1000));
    zsock_destroy(&self->control);
    return rc;
}

int stage_process_main(int argc, char **argv)
{
    if (argc != 7 && argc != 8)
        return 2;
    signal(SIGINT, SIG_IGN); //  the controller handles ^C for everyone
    errbuf_t err = {0};
    topology_t *topo = NULL;
    machine_t *machine = NULL;
    int id = atoi(argv[3]), rc = 1;
    child_t child = {.pl = s_pipeline(argv[2], id, argv[6],
                                      argc == 8 ? argv[7] : NULL,
                                      &topo, &machine, &err)};
    stage_shared_t *shared = s_map(atoi(argv[5]));
    if (child.pl && shared && id >= 0 && id < child.pl->n)
        rc = s_serve(&child, id, argv[4], shared, &err);
    if (rc)
        fprintf(stderr, "hopbench stage: %s\n",
                err.msg[0] ? err.msg : "bad arguments");
    pipeline_destroy(&child.pl);
    machine_destroy(&machine);
    topology_destroy(&topo);
    return rc;
}
