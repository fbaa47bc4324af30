/*  zones: network namespaces and veth links for a run (see zones.h).

    Names are derived from the controller's pid, so a stage in its own
    process (whose parent is the controller) finds the same ones without
    being told: namespace "hb<pid>-<zone>", veth ends "hb<pid>h<hop>u" and
    "hb<pid>h<hop>d", link addresses 169.254.<100 + pid % 100>.<4 hop + 1 or
    2>/30.  The upstream end gets .1, the downstream end .2.
*/
#define _GNU_SOURCE
#include "pipeline/zones.h"

#include "base/check.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ZONES_MAX LIMIT_ZONES

struct zones_s {
    pid_t owner;
    int nzones;
    char zone[ZONES_MAX][32]; //  namespaces made ("hbPID-NAME")
    int nlinks;
    char link[TOPO_MAX_STAGES][16]; //  veth ends made in the default ns
};

extern char **environ;

//  Spawn ip with its output into a pipe; its first line goes into why
static int s_spawn_ip(char **argv, char *why, size_t len)
{
    int out[2], status = -1;
    posix_spawn_file_actions_t actions;
    pid_t pid;
    if (pipe(out))
        return -1;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, out[1], 2);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    int spawned = posix_spawnp(&pid, "ip", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    ssize_t got = 0, n;
    char buf[256];
    while ((n = read(out[0], buf, sizeof buf)) > 0)
        if (got == 0)
            got = n;
    close(out[0]);
    if (spawned == 0)
        waitpid(pid, &status, 0);
    snprintf(why, len, "%.*s", (int)(got > 0 ? strcspn(buf, "\n") : 0), buf);
    return spawned == 0 ? status : -1;
}

//  Run "ip ARGS..." (args split at spaces); 0 when it exits 0
static int s_ip(errbuf_t *err, const char *fmt, ...)
{
    char text[512], line[512], why[256], *argv[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s", text);
    int argc = 0;
    argv[argc++] = "ip";
    for (char *save, *word = strtok_r(line, " ", &save); word && argc < 31;
         word = strtok_r(NULL, " ", &save))
        argv[argc++] = word;
    argv[argc] = NULL;
    int status = s_spawn_ip(argv, why, sizeof why);
    if (status == 0)
        return 0;
    return err_set(err, "zones: 'ip %s' failed: %s", text,
                   status < 0 ? "cannot run ip (Debian: iproute2)" : why);
}

static void s_ns_name(pid_t owner, const char *zone, char *buf, size_t len)
{
    snprintf(buf, len, "hb%d-%s", (int)owner, zone);
}

//  Address of one end of hop h's link: the upstream end .1, downstream .2
//  (only hops 1..LIMIT_ZONE_HOPS cross zones: validate_stages.c)
static void s_address(pid_t owner, int h, bool upstream, char *buf, size_t len)
{
    snprintf(buf, len, "169.254.%d.%d", 100 + (int)(owner % 100),
             4 * (h % LIMIT_ZONE_HOPS) + (upstream ? 1 : 2));
}

//  Zone of the stage at either end of hop h ("" for the default namespace)
static const char *s_zone(const pipeline_t *pl, int stage)
{
    return pl->inst[pl->first[stage]].params.netns;
}

bool zones_wanted(const pipeline_t *pl)
{
    for (int i = 0; i < pl->n; i++)
        if (pl->inst[i].params.netns[0])
            return true;
    return false;
}

void zones_describe(pipeline_t *pl, pid_t owner)
{
    for (int i = 0; i < pl->n; i++) {
        char name[32];
        instance_t *inst = &pl->inst[i];
        inst->netns_path[0] = 0;
        if (!inst->params.netns[0])
            continue;
        s_ns_name(owner, inst->params.netns, name, sizeof name);
        snprintf(inst->netns_path, sizeof inst->netns_path, "/run/netns/%s",
                 name);
    }
    for (int h = 0; h < pl->nhops; h++) {
        hop_plan_t *hop = &pl->hops[h];
        hop->crosses = strcmp(s_zone(pl, hop->up), s_zone(pl, hop->down)) != 0;
        s_address(owner, h, true, hop->address[0], sizeof hop->address[0]);
        s_address(owner, h, false, hop->address[1], sizeof hop->address[1]);
    }
}

//  "ip" or "ip -n NAMESPACE" for commands in a zone
static void s_in(pid_t owner, const char *zone, char *buf, size_t len)
{
    char name[32];
    s_ns_name(owner, zone, name, sizeof name);
    if (zone[0])
        snprintf(buf, len, "-n %s ", name);
    else
        buf[0] = 0;
}

static int s_make_zone(zones_t *self, const char *zone, errbuf_t *err)
{
    char name[32];
    for (int z = 0; z < self->nzones; z++) {
        s_ns_name(self->owner, zone, name, sizeof name);
        if (strcmp(self->zone[z], name) == 0)
            return 0; //  already made
    }
    if (self->nzones == ZONES_MAX)
        return err_set(err, "zones: more than %d", ZONES_MAX);
    s_ns_name(self->owner, zone, name, sizeof name);
    if (s_ip(err, "netns add %s", name))
        return -1;
    snprintf(self->zone[self->nzones++], sizeof self->zone[0], "%s", name);
    return s_ip(err, "-n %s link set lo up", name);
}

//  One end of hop h's veth pair: into its namespace, addressed, up
static int s_link_end(zones_t *self, const char *end, const char *zone,
                      const char *address, errbuf_t *err)
{
    char in[48], name[32];
    s_ns_name(self->owner, zone, name, sizeof name);
    s_in(self->owner, zone, in, sizeof in);
    if (zone[0] && s_ip(err, "link set %s netns %s", end, name))
        return -1;
    return s_ip(err, "%saddr add %s/30 dev %s", in, address, end) ||
           s_ip(err, "%slink set %s up", in, end);
}

static int s_make_link(zones_t *self, const pipeline_t *pl, int h,
                       errbuf_t *err)
{
    char up[16], down[16];
    snprintf(up, sizeof up, "hb%dh%du", (int)self->owner, h + 1);
    snprintf(down, sizeof down, "hb%dh%dd", (int)self->owner, h + 1);
    if (s_ip(err, "link add %s type veth peer name %s", up, down))
        return -1;
    snprintf(self->link[self->nlinks++], sizeof self->link[0], "%s", up);
    const hop_plan_t *hop = &pl->hops[h];
    return s_link_end(self, up, s_zone(pl, hop->up), hop->address[0], err) ||
           s_link_end(self, down, s_zone(pl, hop->down), hop->address[1],
                      err);
}

zones_t *zones_create(pipeline_t *pl, errbuf_t *err)
{
    zones_t *self = calloc(1, sizeof *self);
    if (!self) {
        err_set(err, "zones: out of memory");
        return NULL;
    }
    self->owner = getpid();
    zones_describe(pl, self->owner);
    int rc = 0;
    for (int s = 0; s < pl->nstages && rc == 0; s++)
        if (s_zone(pl, s)[0])
            rc = s_make_zone(self, s_zone(pl, s), err);
    for (int h = 0; h < pl->nhops && rc == 0; h++)
        if (pl->hops[h].crosses)
            rc = s_make_link(self, pl, h, err);
    if (rc)
        zones_destroy(&self);
    return self;
}

void zones_destroy(zones_t **self_p)
{
    zones_t *self = *self_p;
    errbuf_t ignored;
    if (!self)
        return;
    //  a namespace takes its veth ends along, and their peers with them
    for (int z = 0; z < self->nzones; z++)
        s_ip(&ignored, "netns del %s", self->zone[z]);
    for (int l = 0; l < self->nlinks; l++)
        if (s_ip(&ignored, "link show %s", self->link[l]) == 0)
            s_ip(&ignored, "link del %s", self->link[l]);
    free(self);
    *self_p = NULL;
}

int zones_enter(const char *path, errbuf_t *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET)) {
        err_set(err, "entering zone %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

int zones_test(bool verbose)
{
    (void)verbose;
    char buf[64];
    s_ns_name(4242, "edge", buf, sizeof buf);
    CHECK(strcmp(buf, "hb4242-edge") == 0);
    s_address(4242, 1, true, buf, sizeof buf);
    CHECK(strcmp(buf, "169.254.142.5") == 0);
    s_address(4242, 1, false, buf, sizeof buf);
    CHECK(strcmp(buf, "169.254.142.6") == 0);
    s_in(4242, "", buf, sizeof buf);
    CHECK(buf[0] == 0);
    s_in(4242, "far", buf, sizeof buf);
    CHECK(strcmp(buf, "-n hb4242-far ") == 0);
    return 0;
}
