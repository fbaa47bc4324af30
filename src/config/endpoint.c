/*  endpoint: check an endpoint a user names (see endpoint.h).  */
#include "config/endpoint.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

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

//  Expects endpoint_check to refuse with a message containing 'want'
static int s_refused(const char *endpoint, transport_t transport,
                     const char *want)
{
    errbuf_t err = {{0}};
    if (endpoint_check(endpoint, transport, &err) == 0 ||
        !strstr(err.msg, want)) {
        fprintf(stderr, "endpoint: %s: wanted '%s', got '%s'\n", endpoint, want,
                err.msg);
        return -1;
    }
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
    return 0;
}
