/*  hosts: the --hosts file, loaded and checked (see hosts.h).

    Read with zpl, so ZPL mistakes come with file:line too; then every
    top-level name must be "host", every child one of agent, cert and
    address, each once.  The certificate is read here (certfile, once,
    waiting for a FIFO as long as the hosts file's reader says), so a wrong
    path or a file that is not a certificate is refused at its line before
    anything connects.
*/
#include "config/hosts.h"

#include "base/check.h"
#include "config/certfile.h"
#include "config/endpoint.h"
#include "config/zpl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    hosts_t *hosts;
    zpl_t *zpl;
    double wait; //  for a certificate that is a FIFO (readfile)
    errbuf_t *err;
} load_t;

//  Error at a node's line: "path:line: message"
#define s_at(self, node, ...)                                                  \
    zpl_error((self)->zpl, (node), (self)->err, __VA_ARGS__)

static bool s_valid_name(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len > LIMIT_NAME)
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return false;
    return true;
}

//  agent = tcp://ADDR:PORT, a number for PORT: the controller connects
static int s_agent(load_t *self, zconfig_t *node, host_t *host)
{
    const char *value = zconfig_value(node);
    errbuf_t why;
    if (strncmp(value, "tcp://", 6) != 0)
        return s_at(self, node, "agent '%s': a tcp://ADDR:PORT endpoint",
                    value);
    if (endpoint_check(value, TRANSPORT_TCP, &why))
        return s_at(self, node, "agent %s", why.msg);
    const char *colon = strrchr(value, ':');
    size_t len = (size_t)(colon - value - 6);
    if (len >= sizeof host->agent_address || value[6] == '[')
        return s_at(self, node,
                    "agent '%s': an IPv4 address or a name, at "
                    "most %zu characters",
                    value, sizeof host->agent_address - 1);
    snprintf(host->agent, sizeof host->agent, "%s", value);
    snprintf(host->agent_address, sizeof host->agent_address, "%.*s", (int)len,
             value + 6);
    host->agent_port = atoi(colon + 1);
    return 0;
}

//  cert = FILE: relative to the hosts file's folder
static int s_cert(load_t *self, zconfig_t *node, host_t *host)
{
    const char *value = zconfig_value(node), *path = zpl_path(self->zpl);
    const char *slash = strrchr(path, '/');
    char resolved[sizeof host->cert];
    if (value[0] == '/' || !slash)
        snprintf(resolved, sizeof resolved, "%s", value);
    else
        snprintf(resolved, sizeof resolved, "%.*s/%s", (int)(slash - path),
                 path, value);
    memcpy(host->cert, resolved, sizeof resolved);
    errbuf_t why;
    zcert_t *cert = certfile_load(host->cert, self->wait, &why);
    if (!cert)
        return s_at(self, node, "cert %s", why.msg);
    snprintf(host->public_key, sizeof host->public_key, "%s",
             zcert_public_txt(cert));
    zcert_destroy(&cert);
    return 0;
}

static int s_address(load_t *self, zconfig_t *node, host_t *host)
{
    const char *value = zconfig_value(node);
    size_t len = strlen(value);
    if (len == 0 || len >= sizeof host->address ||
        strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789.-_") != len)
        return s_at(self, node,
                    "address '%s': an IPv4 address or a name of this host's "
                    "(up to %zu characters)",
                    value, sizeof host->address - 1);
    snprintf(host->address, sizeof host->address, "%s", value);
    return 0;
}

static int s_cost(load_t *self, zconfig_t *node, host_t *host)
{
    const char *value = zconfig_value(node);
    char *end;
    double cost = strtod(value, &end);
    if (end == value || *end || !(cost > 0 && cost < 1e12))
        return s_at(self, node,
                    "cost '%s': a number above 0 (what the host costs, in "
                    "your unit, for hopbench size)",
                    value);
    host->cost = cost;
    return 0;
}

static int s_child(load_t *self, zconfig_t *child, host_t *host)
{
    const char *key = zconfig_name(child);
    if (zconfig_child(child))
        return s_at(self, child, "'%s' takes no indented lines below it", key);
    if (streq(key, "agent"))
        return s_agent(self, child, host);
    if (streq(key, "cert"))
        return s_cert(self, child, host);
    if (streq(key, "address"))
        return s_address(self, child, host);
    if (streq(key, "cost"))
        return s_cost(self, child, host);
    return s_at(self, child,
                "unknown key '%s' in host (agent, cert, address, cost)", key);
}

//  Room for twice as many hosts
static int s_grow(hosts_t *hosts)
{
    int room = hosts->room ? 2 * hosts->room : 16;
    host_t *more = realloc(hosts->host, (size_t)room * sizeof *more);
    if (!more)
        return -1;
    hosts->host = more;
    hosts->room = room;
    return 0;
}

static int s_host(load_t *self, zconfig_t *node)
{
    hosts_t *hosts = self->hosts;
    const char *name = zconfig_value(node);
    if (!s_valid_name(name))
        return s_at(self, node,
                    "host '%s': a name of 1 to %d letters, digits, _ and -",
                    name, LIMIT_NAME);
    const host_t *before = hosts_find(hosts, name);
    if (before)
        return s_at(self, node, "host '%s' again (first at line %d)", name,
                    before->line);
    if (hosts->n == hosts->room && s_grow(hosts))
        return s_at(self, node, "host '%s': out of memory", name);
    host_t *host = &hosts->host[hosts->n++];
    *host = (host_t){0};
    snprintf(host->name, sizeof host->name, "%s", name);
    host->line = zpl_line(self->zpl, node);
    for (zconfig_t *child = zconfig_child(node); child;
         child = zconfig_next(child)) {
        for (zconfig_t *prev = zconfig_child(node); prev != child;
             prev = zconfig_next(prev))
            if (streq(zconfig_name(prev), zconfig_name(child)))
                return s_at(self, child, "'%s' given twice (also at line %d)",
                            zconfig_name(child), zpl_line(self->zpl, prev));
        if (s_child(self, child, host))
            return -1;
    }
    if (!host->agent[0])
        return s_at(self, node, "host '%s' has no 'agent = tcp://ADDR:PORT'",
                    name);
    if (!host->address[0])
        memcpy(host->address, host->agent_address, sizeof host->address);
    return 0;
}

static int s_load(load_t *self)
{
    zconfig_t *first = zconfig_child(zpl_root(self->zpl));
    if (!first)
        return err_set(self->err,
                       "%s: no hosts (a hosts file has 'host = "
                       "NAME' lines)",
                       zpl_path(self->zpl));
    for (zconfig_t *item = first; item; item = zconfig_next(item)) {
        if (!streq(zconfig_name(item), "host"))
            return s_at(self, item, "unknown name '%s' (host = NAME)",
                        zconfig_name(item));
        if (s_host(self, item))
            return -1;
    }
    return 0;
}

hosts_t *hosts_load_text(const char *path, const char *text, double wait,
                         errbuf_t *err)
{
    zpl_t *zpl = zpl_load_text(path, text, err);
    hosts_t *self = zpl ? calloc(1, sizeof *self) : NULL;
    if (zpl && !self)
        err_set(err, "%s: out of memory", path);
    if (self) {
        snprintf(self->path, sizeof self->path, "%s", path);
        load_t load = {self, zpl, wait, err};
        if (s_load(&load))
            hosts_destroy(&self);
    }
    zpl_destroy(&zpl);
    return self;
}

void hosts_destroy(hosts_t **self_p)
{
    if (*self_p)
        free((*self_p)->host);
    free(*self_p);
    *self_p = NULL;
}

const host_t *hosts_find(const hosts_t *self, const char *name)
{
    for (int i = 0; self && i < self->n; i++)
        if (streq(self->host[i].name, name))
            return &self->host[i];
    return NULL;
}

bool hosts_wanted(const topology_t *topo)
{
    for (int i = 0; i < topo->nstages; i++) {
        params_t stage;
        topology_stage_params(topo, i, &stage);
        if (stage.host[0])
            return true;
    }
    return false;
}

//  "h1, h2, h3": the names of the file, for a message
static void s_names(const hosts_t *self, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < self->n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 self->host[i].name);
}

int hosts_check_topology(const hosts_t *self, const topology_t *topo,
                         errbuf_t *err)
{
    for (int i = 0; i < topo->nstages; i++) {
        params_t stage;
        char where[300], names[300], host[LIMIT_NAME + 1];
        topology_stage_params(topo, i, &stage);
        for (int k = 0; k < stage.count; k++) {
            topology_instance_host(&stage, k, host, sizeof host);
            if (!host[0] || hosts_find(self, host))
                continue;
            topology_where(topo, LEVEL_STAGE, i, KEY_HOST, where, sizeof where);
            if (!self)
                return err_set(err,
                               "%sstage '%s' runs on host '%s': give --hosts "
                               "FILE, which says where its agent is",
                               where, topo->stages[i].name, host);
            s_names(self, names, sizeof names);
            return err_set(err, "%shost '%s' is not in %s (%s)", where, host,
                           self->path, names);
        }
    }
    return 0;
}

int hosts_check_certs(const hosts_t *self, const topology_t *topo,
                      errbuf_t *err)
{
    for (int s = 0; s < topo->nstages; s++) {
        params_t stage;
        topology_stage_params(topo, s, &stage);
        for (int i = 0; i < stage.count; i++) {
            char name[LIMIT_NAME + 1];
            topology_instance_host(&stage, i, name, sizeof name);
            const host_t *host = hosts_find(self, name);
            if (host && !host->public_key[0])
                return err_set(err,
                               "%s:%d: host '%s' has no 'cert = FILE' (its "
                               "agent's public certificate; only --ssh does "
                               "without)",
                               self->path, host->line, host->name);
        }
    }
    return 0;
}

//  ---------------------------------------------------------------------
//  Selftest

static int s_expect(const char *text, const char *want)
{
    errbuf_t err = {0};
    hosts_t *hosts = hosts_load_text("h.cfg", text, 1, &err);
    hosts_destroy(&hosts);
    if (!strstr(err.msg, want)) {
        fprintf(stderr, "hosts: wanted '%s', got '%s'\n", want, err.msg);
        return -1;
    }
    return 0;
}

//  Every mistake, at its line
static int s_test_errors(void)
{
    CHECK(s_expect("", "h.cfg: no hosts") == 0);
    CHECK(s_expect("hosts = h1\n", "h.cfg:1: unknown name 'hosts'") == 0);
    CHECK(s_expect("host = h1\n", "h.cfg:1: host 'h1' has no 'agent") == 0);
    CHECK(s_expect("host = h 1\n", "h.cfg:1:") == 0);
    CHECK(s_expect("host = h1\n    agent = ipc://x\n",
                   "h.cfg:2: agent 'ipc://x': a tcp://ADDR:PORT") == 0);
    CHECK(s_expect("host = h1\n    agent = tcp://a:*\n", "h.cfg:2: agent") ==
          0);
    CHECK(s_expect("host = h1\n    agent = tcp://a:1\n    colour = red\n",
                   "h.cfg:3: unknown key 'colour' in host") == 0);
    CHECK(s_expect("host = h1\n    agent = tcp://a:1\n    agent = tcp://b:1\n",
                   "h.cfg:3: 'agent' given twice (also at line 2)") == 0);
    CHECK(s_expect("host = h1\n    agent = tcp://a:1\nhost = h1\n",
                   "h.cfg:3: host 'h1' again (first at line 1)") == 0);
    CHECK(s_expect("host = h1\n    cert = /nonexistent.cert\n",
                   "h.cfg:2: cert /nonexistent.cert: No such file") == 0);
    CHECK(s_expect("host = h1\n    agent = tcp://a:1\n    address = \"a b\"\n",
                   "h.cfg:3: address") == 0);
    CHECK(s_expect("host = h1\n    agent = tcp://a:1\n    cost = 0\n",
                   "h.cfg:3: cost '0': a number above 0") == 0);
    CHECK(s_expect("host = h1\n    agent = tcp://a:1\n    cost = 2x\n",
                   "h.cfg:3: cost '2x'") == 0);
    return 0;
}

int hosts_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    hosts_t *hosts = hosts_load_text("dir/h.cfg",
                                     "host = h1\n"
                                     "    agent = tcp://169.254.7.1:7800\n"
                                     "host = h2\n"
                                     "    agent = tcp://169.254.7.2:7801\n"
                                     "    address = 169.254.8.2\n"
                                     "    cost = 2.5\n",
                                     1, &err);
    CHECK(hosts && hosts->n == 2);
    const host_t *h1 = hosts_find(hosts, "h1"), *h2 = hosts_find(hosts, "h2");
    CHECK(h1 && streq(h1->address, "169.254.7.1") && h1->agent_port == 7800);
    CHECK(h2 && streq(h2->address, "169.254.8.2") && h2->line == 3);
    CHECK(h1->cost == 0 && h2->cost == 2.5);
    CHECK(!hosts_find(hosts, "h3"));

    topology_t *topo = topology_load_text(
        "t.cfg",
        "topology = t\npublisher = pub\n    host = h1\nhop = tcp\n"
        "subscriber = sub\n    host = h3\n",
        &err);
    CHECK(topo && hosts_wanted(topo));
    CHECK(hosts_check_topology(hosts, topo, &err) == -1);
    CHECK(streq(err.msg, "t.cfg:6: host 'h3' is not in dir/h.cfg (h1, h2)"));
    CHECK(hosts_check_topology(NULL, topo, &err) == -1);
    CHECK(strstr(err.msg, "t.cfg:3: stage 'pub' runs on host 'h1': give "));
    CHECK(topology_set(topo, "sub.host=h2", &err) == 0);
    CHECK(hosts_check_topology(hosts, topo, &err) == 0);
    CHECK(hosts_check_certs(hosts, topo, &err) == -1);
    CHECK(strstr(err.msg, "dir/h.cfg:1: host 'h1' has no 'cert = FILE'"));
    //  a list spreads a stage's instances; each hop between hosts is tcp
    CHECK(topology_set(topo, "sub.host=h2,h1", &err) == 0);
    CHECK(topology_validate(topo, &err) == -1);
    CHECK(strstr(err.msg, "names 2 hosts for 1 instance of 'sub'"));
    CHECK(topology_set(topo, "sub.count=3", &err) == 0);
    CHECK(topology_validate(topo, &err) == 0);
    params_t sub;
    char name[LIMIT_NAME + 1];
    topology_stage_params(topo, 1, &sub);
    topology_instance_host(&sub, 2, name, sizeof name);
    CHECK(streq(name, "h2"));
    topology_instance_host(&sub, 1, name, sizeof name);
    CHECK(streq(name, "h1") && hosts_check_topology(hosts, topo, &err) == 0);
    CHECK(topology_set(topo, "pub.host=h1", &err) == 0);
    CHECK(topology_set(topo, "hop1.transport=ipc", &err) == 0);
    CHECK(topology_validate(topo, &err) == -1);
    CHECK(strstr(err.msg, "hop 1 is ipc, which cannot cross from host 'h1' "
                          "to host 'h2' (use tcp)"));
    CHECK(topology_set(topo, "hop1.transport=tcp", &err) == 0);
    CHECK(topology_set(topo, "sub.host=h1,,h2", &err) == 0);
    CHECK(topology_validate(topo, &err) == -1);
    CHECK(strstr(err.msg, "host 'h1,,h2': names of 1 to 24"));
    topology_destroy(&topo);
    hosts_destroy(&hosts);

    return s_test_errors();
}
