/*  inputs: the files a command names, each read once (see inputs.h).  */
#include "run/inputs.h"

#include "base/readfile.h"
#include "config/certfile.h"
#include "config/params.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

double inputs_wait(const run_request_t *req)
{
    params_t params;
    errbuf_t err;
    params_defaults(&params);
    params.timeout = LIMIT_FILE_WAIT;
    //  an invalid value is refused later, with the topology's other --set
    for (int i = 0; i < req->nsets; i++)
        if (strncmp(req->sets[i], "timeout=", 8) == 0)
            params_set(&params, params_option("timeout"), req->sets[i] + 8,
                       &err);
    return params.timeout;
}

char *inputs_read(const run_request_t *req, const char *path, errbuf_t *err)
{
    return readfile(path, inputs_wait(req), NULL, err);
}

//  The file path names, "-" being stdin; false when it cannot be told
static bool s_identity(const char *path, struct stat *st)
{
    return (strcmp(path, "-") == 0 ? fstat(0, st) : stat(path, st)) == 0;
}

int inputs_distinct(const char *const *paths, int n, errbuf_t *err)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            struct stat a, b;
            if (strcmp(paths[i], paths[j]) == 0)
                return err_set(err,
                               "%s is given twice: its candidates "
                               "would be the same (name each file once)",
                               paths[i]);
            if (s_identity(paths[j], &a) && s_identity(paths[i], &b) &&
                a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                return err_set(err,
                               "%s and %s are the same file: its "
                               "candidates would be the same (name each "
                               "file once)",
                               paths[j], paths[i]);
        }
    return 0;
}

machine_t *inputs_machine(const run_request_t *req, const char *path,
                          errbuf_t *err)
{
    char *text = inputs_read(req, path, err);
    machine_t *machine = text ? machine_new_text(path, text, err) : NULL;
    free(text);
    return machine;
}

hosts_t *inputs_hosts(const run_request_t *req, errbuf_t *err)
{
    char *text = inputs_read(req, req->hosts, err);
    hosts_t *hosts =
        text ? hosts_load_text(req->hosts, text, inputs_wait(req), err) : NULL;
    free(text);
    return hosts;
}

//  czmq's place for one's own certificate, when it is there
static const char *s_default_cert(char *buf, size_t len)
{
    const char *home = getenv("HOME");
    snprintf(buf, len, "%s/.curve/hopbench.cert_secret", home ? home : "");
    return home && *home && access(buf, F_OK) == 0 ? buf : NULL;
}

int inputs_cert(const run_request_t *req, zcert_t **cert, errbuf_t *err)
{
    char fallback[512];
    errbuf_t why;
    const char *path =
        req->cert ? req->cert : s_default_cert(fallback, sizeof fallback);
    *cert = NULL;
    if (!path && req->ssh)
        return 0;
    if (!path)
        return err_set(err, "--hosts needs the controller's certificate, "
                            "which each agent's --allow names: --cert "
                            "SECRET_FILE, or ~/.curve/hopbench.cert_secret "
                            "(hopbench keygen ~/.curve --name hopbench)");
    if (!(*cert = certfile_load(path, inputs_wait(req), &why)))
        return err_set(err, "--cert %s", why.msg);
    if (!certfile_secret(*cert)) {
        zcert_destroy(cert);
        return err_set(err,
                       "--cert %s: a public certificate; give its _secret "
                       "twin",
                       path);
    }
    return 0;
}
