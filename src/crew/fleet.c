/*  fleet: the run's hosts, their links and machines (see fleet.h).

    Each host the run names is connected once, and claimed (HELLO), the
    first of their names first; what takes time is asked of every host
    before any answer is awaited (the links, HELLO, the clocks, SPEC), so
    hosts that fail a step are named together, within one timeout.
    The controller's own certificate comes from --cert (a zcert secret
    file, read by the caller), or is made for the run when --ssh starts
    the agents (which learn its public key over ssh).
*/
#define _GNU_SOURCE
#include "crew/fleet.h"

#include "base/check.h"
#include "base/mono.h"
#include "base/text.h"
#include "crew/agent_ssh.h"
#include "config/topology.h"
#include "crew/wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//  Seconds the blame waits for other hosts lost with the first (agents
//  killed together: their connections close within this of each other)
#define FLEET_LOST_SETTLE 0.25

typedef struct {
    host_t copy;        //  the hosts file's entry
    const host_t *host; //  = &copy
    agent_link_t *link; //  NULL: planned on a file
    agent_ssh_t *ssh;   //  --ssh: the agent it started
    machine_t *machine;
    bool spec_asked; //  SPEC posted, its answer not taken yet
} member_t;

struct fleet_s {
    fleet_options_t options;
    int n;
    member_t *member;       //  room for every name fleet_new was given
    pipeline_host_t *table; //  fleet_pipeline_hosts
    zcert_t *cert;
    char controller[128];
    char hosts_path[256];
    double spec_since; //  when SPEC was asked (fleet_spec_ask)
};

static member_t *s_member(const fleet_t *self, const char *name)
{
    for (int i = 0; i < self->n; i++)
        if (streq(self->member[i].host->name, name))
            return (member_t *)&self->member[i];
    return NULL;
}

static const machine_t *s_file_for(const fleet_options_t *options,
                                   const char *name)
{
    for (int i = 0; i < options->nfiles; i++)
        if (streq(options->files[i].host, name))
            return options->files[i].machine;
    return NULL;
}

//  The agent's machine as it described it
static int s_machine(member_t *member, errbuf_t *err)
{
    const agent_info_t *info = agent_link_info(member->link);
    char path[400];
    errbuf_t why;
    snprintf(path, sizeof path, "host %s's agent", member->host->name);
    member->machine = machine_new_text(path, info->machine, &why);
    if (!member->machine) {
        err_set(err, "its agent's NUMA machine: %s", why.msg);
        return err_host(err, member->host->name);
    }
    return 0;
}

//  Open the link to the agent of one host (starting it over ssh first,
//  when asked): nothing awaited but ssh
static int s_open(fleet_t *self, member_t *member, errbuf_t *err)
{
    const host_t *host = member->host;
    char server_key[41];
    snprintf(server_key, sizeof server_key, "%s", host->public_key);
    if (self->options.ssh &&
        !(member->ssh = agent_ssh_start(
              host, self->options.remote_hopbench, zcert_public_txt(self->cert),
              self->options.timeout, server_key, err)))
        return -1;
    if (!server_key[0])
        return err_set(err,
                       "%s:%d: host '%s' has no 'cert = FILE' (its agent's "
                       "public certificate; only --ssh does without)",
                       self->hosts_path, host->line, host->name);
    agent_link_options_t options = {host->name,
                                    host->agent,
                                    server_key,
                                    zcert_public_txt(self->cert),
                                    zcert_secret_txt(self->cert),
                                    self->controller,
                                    self->options.timeout};
    member->link = agent_link_open(&options, err);
    return member->link ? 0 : -1;
}

//  A host the run names, once (in the order first named); one planned
//  on a description has its machine now, the others are claimed later
static int s_add(fleet_t *self, const hosts_t *hosts, const char *name,
                 errbuf_t *err)
{
    if (!name[0] || s_member(self, name))
        return 0;
    const host_t *host = hosts_find(hosts, name);
    if (!host)
        return err_set(err, "host '%s' is not in %s", name, self->hosts_path);
    member_t *member = &self->member[self->n++];
    member->copy = *host;
    member->host = &member->copy;
    const machine_t *file = s_file_for(&self->options, name);
    if (file) {
        member->machine = malloc(sizeof *member->machine);
        if (member->machine)
            *member->machine = *file;
        return member->machine ? 0 : err_set(err, "out of memory");
    }
    return 0;
}

static int s_by_name(const void *a, const void *b)
{
    const member_t *x = *(const member_t *const *)a;
    const member_t *y = *(const member_t *const *)b;
    return strcmp(x->host->name, y->host->name);
}

//  Every agent's CURVE handshake done (the agent is there), awaited for
//  all of them at once within one timeout: the hosts whose agents are
//  not there (not running, not at that address, refusing this
//  controller) are named together in one error
static int s_reach(fleet_t *self, member_t **order, int n, errbuf_t *err)
{
    double until = mono_seconds() + self->options.timeout;
    int waiting = n;
    while (waiting > 0 && mono_seconds() < until) {
        mono_sleep(0.002);
        waiting = 0;
        for (int i = 0; i < n; i++)
            waiting += !agent_link_reached(order[i]->link) &&
                       !agent_link_lost(order[i]->link, NULL, 0);
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        agent_link_t *link = order[i]->link;
        char why[300];
        errbuf_t one;
        if (agent_link_reached(link) && !agent_link_lost(link, NULL, 0))
            continue;
        if (!agent_link_lost(link, why, sizeof why))
            snprintf(why, sizeof why,
                     "no answer within %.1f s (is its agent running, and "
                     "at this address?)",
                     self->options.timeout);
        err_set(&one, "%s", why);
        err_prefix(&one, "host %s (agent %s): ", order[i]->host->name,
                   agent_link_endpoint(link));
        TEXT_SET(one.host, order[i]->host->name);
        err_gather(err, &failed, &one);
    }
    return failed ? -1 : 0;
}

//  HELLO to every host in order[from, to) at once, then every answer
//  taken: those that failed named together
static int s_hello(member_t **order, int from, int to, errbuf_t *err)
{
    int failed = 0;
    bool *asked = calloc((size_t)to + 1, sizeof *asked);
    if (!asked)
        return err_set(err, "out of memory");
    double since = mono_seconds();
    for (int i = from; i < to; i++) {
        errbuf_t one;
        if (agent_link_hello_ask(order[i]->link, &one))
            err_gather(err, &failed, &one);
        else
            asked[i] = true;
    }
    for (int i = from; i < to; i++) {
        errbuf_t one;
        if (asked[i] && agent_link_hello_take(order[i]->link, since, &one))
            err_gather(err, &failed, &one);
    }
    free(asked);
    return failed ? -1 : 0;
}

//  Every host's clock samples asked at once, then every estimate taken
//  within one wait, and every host's machine read from its WELCOME: the
//  hosts that failed named together
static int s_clocks(member_t **order, int n, errbuf_t *err)
{
    double since = mono_seconds();
    for (int i = 0; i < n; i++)
        agent_link_clock_ask(order[i]->link);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        errbuf_t one;
        if (agent_link_clock_take(order[i]->link, since, &one) ||
            s_machine(order[i], &one))
            err_gather(err, &failed, &one);
    }
    return failed ? -1 : 0;
}

//  Every agent claimed (HELLO), the first by host name before any other:
//  two runs that want the same hosts meet first there, where one is
//  served and the other is refused (busy, naming it) holding no host the
//  winner still needs; the others are claimed all at once (a round trip
//  for all, not one each).  Before that, every link is opened (its CURVE
//  handshake goes on in its actor) and every agent awaited at once, so
//  agents that are not there are named together within one timeout; and
//  after it every clock's samples are taken together (s_clocks)
static int s_claim(fleet_t *self, errbuf_t *err)
{
    member_t **order = calloc((size_t)self->n + 1, sizeof *order);
    if (!order)
        return err_set(err, "out of memory");
    int n = 0, rc = 0;
    for (int i = 0; i < self->n; i++)
        if (!self->member[i].machine)
            order[n++] = &self->member[i];
    qsort(order, (size_t)n, sizeof *order, s_by_name);
    for (int i = 0; i < n && rc == 0; i++)
        rc = s_open(self, order[i], err);
    if (rc == 0)
        rc = s_reach(self, order, n, err);
    if (rc == 0 && n > 0)
        rc = s_hello(order, 0, 1, err) || s_hello(order, 1, n, err);
    if (rc == 0)
        rc = s_clocks(order, n, err);
    free(order);
    return rc;
}
//  The controller's certificate, or one for this run (told to the agents
//  over ssh)
static int s_cert(fleet_t *self, errbuf_t *err)
{
    self->cert =
        self->options.cert ? zcert_dup(self->options.cert) : zcert_new();
    self->options.cert = NULL; //  not kept: the copy is
    return self->cert ? 0 : err_set(err, "cannot make a certificate");
}

//  Free ports on a host, asked of its agent
static int s_ports(void *arg, const char *address, int n, int *ports,
                   errbuf_t *err)
{
    member_t *member = arg;
    zmsg_t *ask = zmsg_new(), *reply;
    zmsg_addstr(ask, "PORTS");
    zmsg_addstr(ask, "-1");
    zmsg_addstr(ask, address);
    zmsg_addstrf(ask, "%d", n);
    if (!(reply = agent_link_ask(member->link, &ask,
                                 agent_link_wait_ms(member->link), err)))
        return -1;
    wire_pop_ll(reply), wire_pop_ll(reply);
    int got = 0;
    while (got < n && zmsg_size(reply))
        ports[got++] = (int)wire_pop_ll(reply);
    zmsg_destroy(&reply);
    if (got == n)
        return 0;
    err_set(err, "its agent found %d free ports of %d", got, n);
    return err_host(err, member->host->name);
}

static void s_table(fleet_t *self)
{
    for (int i = 0; i < self->n; i++) {
        member_t *m = &self->member[i];
        const agent_info_t *info = m->link ? agent_link_info(m->link) : NULL;
        self->table[i] = (pipeline_host_t){m->host->name,
                                           m->host->address,
                                           info ? info->peer : "",
                                           info ? info->run_dir : "",
                                           s_ports,
                                           m};
    }
}

//  A fleet with room for n hosts
static fleet_t *s_new(int n)
{
    fleet_t *self = calloc(1, sizeof *self);
    if (self) {
        self->member = calloc((size_t)n + 1, sizeof *self->member);
        self->table = calloc((size_t)n + 1, sizeof *self->table);
    }
    if (self && (!self->member || !self->table)) {
        free(self->member);
        free(self->table);
        free(self);
        self = NULL;
    }
    return self;
}

fleet_t *fleet_new(const fleet_options_t *options, const char *const *names,
                   int n, errbuf_t *err)
{
    fleet_t *self = s_new(n);
    if (!self) {
        err_set(err, "out of memory");
        return NULL;
    }
    self->options = *options;
    snprintf(self->hosts_path, sizeof self->hosts_path, "%s",
             options->hosts ? options->hosts->path : "");
    self->options.hosts = NULL; //  not kept: only what s_add copies
    char hostname[64] = "?";
    gethostname(hostname, sizeof hostname - 1);
    snprintf(self->controller, sizeof self->controller, "%s (pid %d)", hostname,
             (int)getpid());
    int rc = s_cert(self, err);
    for (int i = 0; i < n && rc == 0; i++)
        rc = s_add(self, options->hosts, names[i], err);
    if (rc == 0)
        rc = s_claim(self, err);
    if (rc)
        fleet_destroy(&self);
    else
        s_table(self);
    return self;
}

int fleet_bye(fleet_t *self, errbuf_t *err)
{
    int rc = 0;
    for (int i = 0; self && i < self->n; i++) {
        errbuf_t why;
        if (self->member[i].link &&
            agent_link_bye(self->member[i].link, &why) && rc == 0) {
            rc = -1;
            if (err)
                *err = why;
        }
    }
    return rc;
}

void fleet_destroy(fleet_t **self_p)
{
    fleet_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < self->n; i++) {
        member_t *m = &self->member[i];
        agent_link_destroy(&m->link);
        if (m->ssh)
            agent_ssh_stop(&m->ssh, 5000);
        machine_destroy(&m->machine);
    }
    zcert_destroy(&self->cert);
    free(self->member);
    free(self->table);
    free(self);
    *self_p = NULL;
}

int fleet_size(const fleet_t *self)
{
    return self ? self->n : 0;
}

const char *fleet_name(const fleet_t *self, int i)
{
    return self->member[i].host->name;
}

const host_t *fleet_host(const fleet_t *self, int i)
{
    return self->member[i].host;
}

agent_link_t *fleet_link(const fleet_t *self, const char *name)
{
    member_t *m = self ? s_member(self, name) : NULL;
    return m ? m->link : NULL;
}

const machine_t *fleet_machine(const fleet_t *self, const char *name)
{
    member_t *m = self ? s_member(self, name) : NULL;
    return m ? m->machine : NULL;
}

double fleet_offset_ns(const fleet_t *self, const char *name)
{
    agent_link_t *link = fleet_link(self, name);
    return link ? agent_link_info(link)->offset_ns : 0;
}

int fleet_machines(const fleet_t *self, const machine_t *local,
                   pipeline_machine_t *out, int max)
{
    int n = 0;
    out[n++] = (pipeline_machine_t){"", local};
    for (int i = 0; self && i < self->n && n < max; i++)
        out[n++] = (pipeline_machine_t){self->member[i].host->name,
                                        self->member[i].machine};
    return n;
}

const pipeline_host_t *fleet_pipeline_hosts(const fleet_t *self, int *n)
{
    *n = self ? self->n : 0;
    return self ? self->table : NULL;
}

//  "proxy", or "p1, p2": the instances of pl on host name
static void s_stages_on(const pipeline_t *pl, const char *name, char *buf,
                        size_t len, int *n)
{
    size_t used = 0;
    buf[0] = 0;
    *n = 0;
    for (int id = 0; id < pl->n && used < len; id++)
        if (streq(pipeline_host(pl, id), name)) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     (*n)++ ? ", " : "", pl->inst[id].name);
        }
}

//  Lost, or about to be found lost (silent for half its timeout)?
static bool s_lost(agent_link_t *link, char *why, size_t len)
{
    double until = mono_seconds() + agent_link_timeout(link);
    while (!agent_link_lost(link, why, len) &&
           agent_link_silence(link) > agent_link_timeout(link) / 2 &&
           mono_seconds() < until)
        mono_sleep(0.02);
    return agent_link_lost(link, why, len);
}

//  The instance an error is about (its stage), or -1
static int s_error_stage(const pipeline_t *pl, const errbuf_t *err)
{
    for (int id = 0; err->stage[0] && id < pl->n; id++)
        if (streq(pl->inst[id].name, err->stage))
            return id;
    return -1;
}

//  What the failing stage id had to do with the lost host: "is blocked on
//  it (hop 2)" when it sends there, "waits on it" when it takes from there
static void s_relation(const pipeline_t *pl, int id, const char *name,
                       char *buf, size_t len)
{
    int out = pipeline_hop_out(pl, id), in = pipeline_hop_in(pl, id);
    buf[0] = 0;
    for (int to = 0; to < pl->n && !buf[0]; to++) {
        if (!streq(pipeline_host(pl, to), name))
            continue;
        if (out >= 0 && pipeline_hop_in(pl, to) == out)
            snprintf(buf, len, " is blocked on it (hop %d)", out + 1);
        else if (in >= 0 && pipeline_hop_out(pl, to) == in)
            snprintf(buf, len, " waits on it (hop %d)", in + 1);
    }
}

//  "stage sub.1: host h3: WHY", then what the trial said (its reason), as
//  the stage it was about saw it: "; stage broker is blocked on it (hop
//  2): no COUNTS ..."
static void s_blame(const pipeline_t *pl, const char *name, const char *stages,
                    int n, const char *why, errbuf_t *err)
{
    errbuf_t then = *err;
    const char *rest = err_reason(&then);
    int id = s_error_stage(pl, &then);
    char relation[64] = "";
    //  a stage of the lost host's, or the link's own loss (no stage): the
    //  host's silence says it all
    bool there = id >= 0 ? streq(pipeline_host(pl, id), name)
                         : then.lost && streq(then.host, name);
    if (id >= 0 && !there)
        s_relation(pl, id, name, relation, sizeof relation);
    if (there)
        err_set(err, "%s", why);
    else if (relation[0])
        err_set(err, "%s; stage %s%s: %s", why, pl->inst[id].name, relation,
                rest);
    else if (id >= 0)
        err_set(err, "%s (then: stage %s: %s)", why, pl->inst[id].name, rest);
    else
        err_set(err, "%s (then: %s)", why, then.msg);
    err_prefix(err, "stage%s %s: host %s: ", n > 1 ? "s" : "", stages, name);
    TEXT_SET(err->host, name);
    err->lost = true;
    if (n == 1)
        TEXT_SET(err->stage, stages);
}

//  Every host's agent lost for its silence (s_lost waits for one about
//  to be), two hosts at least: "h1, h2, h3" into names.  Then no one host
//  failed, as far as this controller can tell: its own network did, or
//  the way to all of them.  A host lost another way (its connection
//  closed), or one still heard, makes it false
static bool s_all_silent(fleet_t *self, char *names, size_t len)
{
    size_t used = 0;
    int n = 0;
    names[0] = 0;
    for (int i = 0; i < self->n; i++) {
        agent_link_t *link = self->member[i].link;
        if (!link)
            continue;
        if (!s_lost(link, NULL, 0) || !agent_link_silent(link))
            return false;
        if (used < len)
            used += (size_t)snprintf(names + used, len - used, "%s%s",
                                     n ? ", " : "", self->member[i].host->name);
        n++;
    }
    return n >= 2;
}

//  The hosts with stages of pl whose agents are lost (s_lost waits for
//  one about to be), into lost[]: the one the trial's error is about
//  first, if it is among them.  Agents killed together are lost together
//  (their connections close at once), so the hosts are looked at again
//  after a moment when one is: all of them are named, not the first
static int s_lost_hosts(fleet_t *self, const pipeline_t *pl,
                        const errbuf_t *err, int *lost)
{
    int n = 0, stages;
    char names[64];
    for (int pass = 0; pass < 2 && (pass == 0 || n > 0); pass++) {
        if (pass == 1)
            mono_sleep(FLEET_LOST_SETTLE);
        n = 0;
        for (int i = 0; i < self->n; i++) {
            member_t *m = &self->member[i];
            s_stages_on(pl, m->host->name, names, sizeof names, &stages);
            if (stages && m->link && s_lost(m->link, NULL, 0))
                lost[n++] = i;
        }
    }
    int id = s_error_stage(pl, err);
    const char *about = id >= 0 ? pipeline_host(pl, id) : err->host;
    for (int k = 1; k < n; k++)
        if (streq(self->member[lost[k]].host->name, about)) {
            int first = lost[k];
            memmove(lost + 1, lost, (size_t)k * sizeof *lost);
            lost[0] = first;
        }
    return n;
}

//  "; also lost: h6 (sub.4), h10 (sub.8): WHY": the other hosts lost,
//  those lost alike in one list, appended to err (its fields kept)
static void s_also_lost(fleet_t *self, const pipeline_t *pl, const int *lost,
                        int n, errbuf_t *err)
{
    char more[ERRBUF_MAX + 1] = "", why[300], other[300], stages[200];
    size_t used = 0;
    bool *said = calloc((size_t)n + 1, sizeof *said);
    for (int k = 1; said && k < n && used < sizeof more; k++) {
        if (said[k])
            continue;
        agent_link_lost(self->member[lost[k]].link, why, sizeof why);
        used += (size_t)snprintf(more + used, sizeof more - used, "%s",
                                 k == 1 ? "; also lost: " : "; ");
        for (int j = k, listed = 0; j < n && used < sizeof more; j++) {
            agent_link_lost(self->member[lost[j]].link, other, sizeof other);
            if (said[j] || strcmp(why, other) != 0)
                continue;
            said[j] = true;
            int count;
            const char *name = self->member[lost[j]].host->name;
            s_stages_on(pl, name, stages, sizeof stages, &count);
            used += (size_t)snprintf(more + used, sizeof more - used,
                                     "%shost %s (%s)", listed++ ? ", " : "",
                                     name, stages);
        }
        if (used < sizeof more)
            used +=
                (size_t)snprintf(more + used, sizeof more - used, ": %s", why);
    }
    free(said);
    errbuf_t then = *err;
    err_set(err, "%s%s", then.msg, more);
    TEXT_SET(err->host, then.host);
    TEXT_SET(err->stage, then.stage);
    err->lost = then.lost;
    err->reason = then.reason;
}

void fleet_blame(fleet_t *self, const pipeline_t *pl, errbuf_t *err)
{
    char names[ERRBUF_MAX + 1];
    if (self && s_all_silent(self, names, sizeof names)) {
        err_set(err,
                "no agent answered for %g s (%s): the controller has lost "
                "its network, or cannot reach any host",
                self->options.timeout, names);
        return;
    }
    int *lost = self ? calloc((size_t)self->n + 1, sizeof *lost) : NULL;
    int n = lost ? s_lost_hosts(self, pl, err, lost) : 0;
    if (n > 0) {
        member_t *m = &self->member[lost[0]];
        char why[300], stages[200];
        int count;
        s_stages_on(pl, m->host->name, stages, sizeof stages, &count);
        agent_link_lost(m->link, why, sizeof why);
        //  unless it says so already, of a stage
        if (!(err->lost && streq(err->host, m->host->name) &&
              s_error_stage(pl, err) >= 0))
            s_blame(pl, m->host->name, stages, count, why, err);
        if (n > 1)
            s_also_lost(self, pl, lost, n, err);
    }
    free(lost);
}
static char *s_read_file(const char *path, errbuf_t *err)
{
    FILE *file = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    if (file) {
        FILE *out = open_memstream(&text, &len);
        int c;
        while (out && (c = getc(file)) != EOF)
            fputc(c, out);
        if (out)
            fclose(out);
        fclose(file);
    }
    if (!text)
        err_set(err, "cannot read %s: %s", path, strerror(errno));
    return text;
}

//  Whether host m has a stage of pl
static bool s_serves(const member_t *m, const pipeline_t *pl)
{
    for (int id = 0; id < pl->n; id++)
        if (streq(pipeline_host(pl, id), m->host->name))
            return true;
    return false;
}

int fleet_spec_ask(fleet_t *self, const pipeline_t *pl, const char *config,
                   errbuf_t *err)
{
    char *text = s_read_file(config, err);
    if (!text)
        return -1;
    int failed = 0;
    self->spec_since = mono_seconds();
    for (int i = 0; i < self->n; i++) {
        member_t *m = &self->member[i];
        m->spec_asked = false;
        if (!m->link || !s_serves(m, pl))
            continue;
        zmsg_t *spec = zmsg_new();
        zmsg_addstr(spec, "SPEC");
        zmsg_addstr(spec, "-1");
        zmsg_addstr(spec, m->host->name);
        zmsg_addstr(spec, text);
        errbuf_t one;
        if (agent_link_post(m->link, &spec, &one))
            err_gather(err, &failed, &one);
        else
            m->spec_asked = true;
    }
    free(text);
    if (failed) { //  the others' answers taken all the same
        errbuf_t more;
        if (fleet_spec_take(self, &more))
            err_gather(err, &failed, &more);
    }
    return failed ? -1 : 0;
}

//  Every host asked is answered meanwhile, and a silent one is lost
//  within the timeout (its link says so at once then), so all of them
//  take one wait at most, and the hosts that failed are named together
int fleet_spec_take(fleet_t *self, errbuf_t *err)
{
    int failed = 0;
    for (int i = 0; self && i < self->n; i++) {
        member_t *m = &self->member[i];
        errbuf_t one;
        if (!m->spec_asked)
            continue;
        m->spec_asked = false;
        zmsg_t *reply = agent_link_answer(m->link, self->spec_since, &one);
        if (!reply)
            err_gather(err, &failed, &one);
        zmsg_destroy(&reply);
    }
    return failed ? -1 : 0;
}

//  ------------------------------------------------------------------------
//  Selftest: what blame says of a lost host h2 (the broker's), for each
//  shape of the error the trial ended with

static int s_blamed(const pipeline_t *pl, const errbuf_t *then,
                    const char *want)
{
    errbuf_t err = *then;
    s_blame(pl, "h2", "broker", 1, "its agent closed the connection", &err);
    if (strcmp(err.msg, want))
        fprintf(stderr, "fleet: blame said '%s'\n", err.msg);
    return strcmp(err.msg, want) || strcmp(err.host, "h2") ||
                   strcmp(err.stage, "broker") || !err.lost
               ? -1
               : 0;
}

//  An error as its maker sets it: why, at host and stage ("" none)
static errbuf_t s_error(const char *why, const char *host, const char *stage,
                        bool lost)
{
    errbuf_t err;
    err_set(&err, "%s", why);
    if (host[0])
        err_host(&err, host);
    if (stage[0])
        err_stage(&err, stage);
    err.lost = lost;
    return err;
}

int fleet_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    topology_t *topo = topology_load_text(
        "t.cfg",
        "topology = t\npublisher = pub\nhop = tcp\nproxy = broker\n"
        "    host = h2\nhop = tcp\nsubscriber = sub\n",
        &err);
    machine_t *machine = machine_new_live(&err);
    CHECK(topo && machine);
    pipeline_machine_t on_h2 = {"h2", machine};
    pipeline_t *pl = pipeline_new_on(topo, &on_h2, 1, &err);
    CHECK(pl);
    const char *said = "stage broker: host h2: its agent closed the connection";
    errbuf_t then;
    //  a stage of h2's, or the link's own loss: the host's silence
    then = s_error("no COUNTS within 2.0 s", "h2", "broker", false);
    CHECK(s_blamed(pl, &then, said) == 0);
    then = s_error("its agent closed the connection (it ended, or was "
                   "killed)",
                   "", "", true);
    err_prefix(&then, "host h2 (agent tcp://169.254.78.2:7800): ");
    TEXT_SET(then.host, "h2");
    CHECK(s_blamed(pl, &then, said) == 0);
    //  a stage here that sends there, and something else entirely
    then = s_error("no answer to STOP within 2 s", "", "pub", false);
    CHECK(s_blamed(pl, &then,
                   "stage broker: host h2: its agent closed the connection; "
                   "stage pub is blocked on it (hop 1): no answer to STOP "
                   "within 2 s") == 0);
    then = s_error("interrupted", "", "", false);
    CHECK(s_blamed(pl, &then,
                   "stage broker: host h2: its agent closed the connection "
                   "(then: interrupted)") == 0);
    //  words alike are not a place: a stage named in the words only,
    //  or another host's loss in the same words, blames as any error
    then = s_error("stage pub: host h2: its agent closed the connection", "",
                   "", false);
    CHECK(s_blamed(pl, &then,
                   "stage broker: host h2: its agent closed the connection "
                   "(then: stage pub: host h2: its agent closed the "
                   "connection)") == 0);
    pipeline_destroy(&pl);
    machine_destroy(&machine);
    topology_destroy(&topo);
    return 0;
}
