/*  endpoint: check an endpoint a user names (see endpoint.h).  */
#include "config/endpoint.h"

#include "base/check.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

//  A host name or IPv4 address: letters, digits, '.', '-', '_'
static bool s_name(const char *host, size_t len)
{
    return len > 0 && strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
                                   "NOPQRSTUVWXYZ0123456789.-_") >= len;
}

//  [IPv6], with an optional %zone
static bool s_ipv6(const char *host, size_t len)
{
    return len > 2 && host[0] == '[' && host[len - 1] == ']' &&
           strspn(host + 1, "0123456789abcdefABCDEF:.%") >= len - 2 &&
           strspn(host + 1, "0123456789abcdefABCDEF:.") >= 2;
}

static int s_tcp(const char *endpoint, const char *address, errbuf_t *err)
{
    const char *colon = strrchr(address, ':');
    if (!colon || colon == address || strchr(address, ']') > colon)
        return err_set(err,
                       "endpoint '%s': no port (tcp://HOST:PORT, e.g. "
                       "tcp://127.0.0.1:5555)",
                       endpoint);
    const char *port = colon + 1;
    size_t len = (size_t)(colon - address), digits = strspn(port, "0123456789");
    if (strchr(address, ';'))
        return err_set(err,
                       "endpoint '%s': a source address (SOURCE;HOST) "
                       "cannot be bound",
                       endpoint);
    if (len == 1 && address[0] == '*')
        return err_set(err,
                       "endpoint '%s': host * binds every interface, but "
                       "the other end must connect to one: name it",
                       endpoint);
    if (!s_name(address, len) && !s_ipv6(address, len))
        return err_set(err,
                       "endpoint '%s': '%.*s' is not a host name or address",
                       endpoint, (int)len, address);
    if (*port == 0 || digits != strlen(port) || digits > 5 ||
        strtol(port, NULL, 10) < 1 || strtol(port, NULL, 10) > 65535)
        return err_set(err, "endpoint '%s': port '%s' is not 1..65535",
                       endpoint, port);
    return 0;
}

static int s_ipc(const char *endpoint, const char *path, errbuf_t *err)
{
    if (strcmp(path, "*") == 0)
        return err_set(err,
                       "endpoint '%s': * makes a path up when binding, "
                       "which the other end cannot know: name one",
                       endpoint);
    if (strlen(path) > LIMIT_IPC_PATH)
        return err_set(err,
                       "endpoint '%s': the path has %zu bytes; a unix "
                       "socket's has at most %d (LIMIT_IPC_PATH, sun_path)",
                       endpoint, strlen(path), LIMIT_IPC_PATH);
    return 0;
}

int endpoint_check(const char *endpoint, transport_t transport, errbuf_t *err)
{
    const char *scheme = params_transport_names[transport];
    size_t len = strlen(scheme);
    if (strncmp(endpoint, scheme, len) || strncmp(endpoint + len, "://", 3))
        return err_set(err,
                       "endpoint '%s' does not fit the hop's transport "
                       "(%s://...)",
                       endpoint, scheme);
    const char *address = endpoint + len + 3;
    if (*address == 0)
        return err_set(err, "endpoint '%s': nothing after %s://", endpoint,
                       scheme);
    if (transport == TRANSPORT_TCP)
        return s_tcp(endpoint, address, err);
    if (transport == TRANSPORT_IPC)
        return s_ipc(endpoint, address, err);
    return 0;
}

//  ------------------------------------------------------------------------
//  Canonical forms

//  path with //, /./ and .. taken out as text, into out; absolute in,
//  absolute out ("/" at least)
static void s_lexical(const char *path, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (const char *p = path; *p;) {
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.')) {
            p += n;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            char *slash = strrchr(out, '/');
            used = slash ? (size_t)(slash - out) : 0;
            out[used] = 0;
        } else if (used + n + 2 < len) {
            used +=
                (size_t)snprintf(out + used, len - used, "/%.*s", (int)n, p);
        }
        p += n;
    }
    if (used == 0)
        snprintf(out, len, "/");
}

//  An ipc path as the file it will be: its directory resolved where it
//  exists, else the whole path normalised as text
static void s_ipc_file(const char *path, char *out, size_t len)
{
    char absolute[PATH_MAX + LIMIT_IPC_PATH + 2], cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(absolute, sizeof absolute, "%s", path);
    else
        snprintf(absolute, sizeof absolute, "%s/%s", cwd, path);
    char *slash = strrchr(absolute, '/');
    char dir[PATH_MAX];
    *slash = 0;
    const char *base = slash + 1;
    if (*base && strcmp(base, ".") && strcmp(base, "..") &&
        realpath(absolute[0] ? absolute : "/", dir)) {
        snprintf(out, len, "ipc://%s%s%s", dir, strcmp(dir, "/") ? "/" : "",
                 base);
        return;
    }
    *slash = '/';
    char normal[sizeof absolute];
    s_lexical(absolute, normal, sizeof normal);
    snprintf(out, len, "ipc://%s", normal);
}

//  A tcp host as numbers where it is one (or localhost), else in lower case
static void s_tcp_host(const char *host, size_t n, char *out, size_t len)
{
    char name[256], text[INET6_ADDRSTRLEN];
    struct in_addr v4;
    struct in6_addr v6;
    snprintf(name, sizeof name, "%.*s", (int)n, host);
    bool bracketed = n > 2 && name[0] == '[';
    if (bracketed)
        name[n - 1] = 0; //  the IPv6 address is name + 1
    if (strcasecmp(name, "localhost") == 0)
        snprintf(out, len, "127.0.0.1");
    else if (!bracketed && inet_aton(name, &v4))
        inet_ntop(AF_INET, &v4, out, (socklen_t)len);
    else if (bracketed && inet_pton(AF_INET6, name + 1, &v6) == 1)
        snprintf(out, len, "[%s]", inet_ntop(AF_INET6, &v6, text, sizeof text));
    else {
        for (char *c = name; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        snprintf(out, len, "%s%s", name, bracketed ? "]" : "");
    }
}

void endpoint_canonical(const char *endpoint, char *out, size_t len)
{
    if (strncmp(endpoint, "ipc://", 6) == 0 && endpoint[6] != '@') {
        s_ipc_file(endpoint + 6, out, len);
        return;
    }
    if (strncmp(endpoint, "tcp://", 6)) {
        snprintf(out, len, "%s", endpoint);
        return;
    }
    const char *address = endpoint + 6;
    const char *colon = strrchr(address, ':');
    char host[300];
    s_tcp_host(address, (size_t)(colon - address), host, sizeof host);
    snprintf(out, len, "tcp://%s:%ld", host, strtol(colon + 1, NULL, 10));
}

//  A canonical tcp endpoint's port, and whether its address is a wildcard
static long s_port(const char *canonical, bool *wildcard)
{
    const char *colon = strrchr(canonical, ':');
    size_t n = (size_t)(colon - canonical);
    *wildcard = (n == 13 && strncmp(canonical, "tcp://0.0.0.0", n) == 0) ||
                (n == 10 && strncmp(canonical, "tcp://[::]", n) == 0);
    return strtol(colon + 1, NULL, 10);
}

bool endpoint_overlap(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    if (strncmp(a, "tcp://", 6) || strncmp(b, "tcp://", 6))
        return false;
    bool any_a, any_b;
    return s_port(a, &any_a) == s_port(b, &any_b) && (any_a || any_b);
}

//  Expects endpoint_check to refuse with a message containing 'want'
static int s_refused(const char *endpoint, transport_t transport,
                     const char *want)
{
    errbuf_t err = {0};
    if (endpoint_check(endpoint, transport, &err) == 0 ||
        !strstr(err.msg, want)) {
        fprintf(stderr, "endpoint: %s: wanted '%s', got '%s'\n", endpoint, want,
                err.msg);
        return -1;
    }
    return 0;
}

//  Do a and b name one socket (after endpoint_canonical)?
static bool s_same(const char *a, const char *b)
{
    char ca[PATH_MAX + 16], cb[PATH_MAX + 16];
    endpoint_canonical(a, ca, sizeof ca);
    endpoint_canonical(b, cb, sizeof cb);
    return endpoint_overlap(ca, cb);
}

static int s_test_canonical(void)
{
    CHECK(s_same("ipc:///tmp/same.ipc", "ipc:///tmp//same.ipc"));
    CHECK(s_same("ipc:///tmp/same.ipc", "ipc:///tmp/./same.ipc"));
    CHECK(s_same("ipc:///no/such/d/x.ipc", "ipc:///no/such//d/../d/./x.ipc"));
    CHECK(!s_same("ipc:///tmp/a.ipc", "ipc:///tmp/b.ipc"));
    CHECK(!s_same("ipc://@a", "ipc:///a"));
    char cwd[PATH_MAX], abs[PATH_MAX + 16];
    CHECK(getcwd(cwd, sizeof cwd));
    snprintf(abs, sizeof abs, "ipc://%s/rel.ipc", cwd);
    CHECK(s_same("ipc://rel.ipc", abs));
    CHECK(s_same("tcp://localhost:5555", "tcp://127.0.0.1:5555"));
    CHECK(s_same("tcp://127.1:5555", "tcp://127.0.0.1:05555"));
    CHECK(s_same("tcp://0.0.0.0:5555", "tcp://192.0.2.7:5555"));
    CHECK(s_same("tcp://[::1]:1", "tcp://[0:0::1]:1"));
    CHECK(s_same("tcp://Host-1:80", "tcp://host-1:80"));
    CHECK(!s_same("tcp://0.0.0.0:5555", "tcp://127.0.0.1:5556"));
    CHECK(!s_same("tcp://127.0.0.2:5555", "tcp://127.0.0.1:5555"));
    return 0;
}

int endpoint_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    const char *good[] = {"tcp://127.0.0.1:5555", "tcp://localhost:1",
                          "tcp://[::1]:65535", "tcp://host-1.example:80", NULL};
    for (int i = 0; good[i]; i++)
        CHECK(endpoint_check(good[i], TRANSPORT_TCP, &err) == 0);
    CHECK(endpoint_check("ipc:///tmp/x.ipc", TRANSPORT_IPC, &err) == 0);
    CHECK(endpoint_check("ipc://@abstract", TRANSPORT_IPC, &err) == 0);
    CHECK(endpoint_check("inproc://a", TRANSPORT_INPROC, &err) == 0);

    CHECK(s_refused("tcp://127.0.0.1:99999", TRANSPORT_TCP,
                    "port '99999' is not 1..65535") == 0);
    CHECK(s_refused("tcp://127.0.0.1:0", TRANSPORT_TCP, "port '0'") == 0);
    CHECK(s_refused("tcp://127.0.0.1:*", TRANSPORT_TCP, "port '*'") == 0);
    CHECK(s_refused("tcp://127.0.0.1:", TRANSPORT_TCP, "port ''") == 0);
    CHECK(s_refused("tcp://192.0.2.1", TRANSPORT_TCP, "no port") == 0);
    CHECK(s_refused("tcp://[::1]", TRANSPORT_TCP, "no port") == 0);
    CHECK(s_refused("tcp://:5555", TRANSPORT_TCP, "no port") == 0);
    CHECK(s_refused("tcp://*:5555", TRANSPORT_TCP, "host * binds") == 0);
    CHECK(s_refused("tcp://a;b:5555", TRANSPORT_TCP, "source address") == 0);
    CHECK(s_refused("tcp://a/b:5555", TRANSPORT_TCP, "'a/b' is not a host") ==
          0);
    CHECK(s_refused("ipc://x", TRANSPORT_TCP, "does not fit") == 0);
    CHECK(s_refused("tcp://", TRANSPORT_TCP, "nothing after tcp://") == 0);
    CHECK(s_refused("ipc://*", TRANSPORT_IPC, "makes a path up") == 0);
    char path[200] = "ipc:///";
    memset(path + 7, 'p', 120);
    CHECK(s_refused(path, TRANSPORT_IPC, "the path has 121 bytes") == 0);
    CHECK(s_test_canonical() == 0);
    return 0;
}
