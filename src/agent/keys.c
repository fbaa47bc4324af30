/*  keys: keygen, a secret certificate, and the --allow directory (see
    keys.h).  Certificates are czmq's; this module only decides where
    they go and refuses what is not one.
*/
#include "agent/keys.h"

#include "base/check.h"
#include "base/limits.h"
#include "config/certfile.h"
#include "report/resultsdir.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

int keys_generate(const char *dir, const char *name, char *out, size_t len,
                  errbuf_t *err)
{
    size_t nlen = strlen(name);
    if (nlen > KEYS_NAME_MAX)
        return err_set(err,
                       "keygen: name '%.40s...': %zu characters, more than "
                       "%d (LIMIT_KEYGEN_NAME, docs/LIMITS.md)",
                       name, nlen, KEYS_NAME_MAX);
    if (nlen == 0 ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_-.") != nlen ||
        name[0] == '.')
        return err_set(err, "keygen: name '%s': letters, digits, _ - and .",
                       name);
    if (mkdir(dir, 0700) && errno != EEXIST)
        return err_set(err, "keygen: cannot create %s: %s", dir,
                       strerror(errno));
    char secret[600];
    snprintf(out, len, "%s/%s.cert", dir, name);
    snprintf(secret, sizeof secret, "%s_secret", out);
    if (access(out, F_OK) == 0 || access(secret, F_OK) == 0)
        return err_set(err,
                       "keygen: %s or its _secret twin exists already "
                       "(remove them, or give another --name)",
                       out);
    zcert_t *cert = zcert_new();
    int rc = cert ? zcert_save(cert, out) : -1;
    zcert_destroy(&cert);
    if (rc)
        return err_set(err, "keygen: cannot write %s: %s", out,
                       strerror(errno));
    chmod(secret, 0600);
    return 0;
}

zcert_t *keys_load_secret(const char *path, const char *option, errbuf_t *err)
{
    errbuf_t why;
    zcert_t *cert = certfile_load(path, LIMIT_FILE_WAIT, &why);
    if (!cert)
        err_set(err, "%s %s", option, why.msg);
    else if (!certfile_secret(cert)) {
        err_set(err, "%s %s: a public certificate; give its _secret twin",
                option, path);
        zcert_destroy(&cert);
    }
    return cert;
}

//  One allowed public key into the directory, as cert N
static int s_add(const char *dir, zcert_t *cert, int *count, errbuf_t *err)
{
    zcert_t *public_only =
        zcert_new_from(zcert_public_key(cert), (const byte[32]){0});
    char path[700];
    snprintf(path, sizeof path, "%s/allowed%d.cert", dir, *count);
    int rc = public_only ? zcert_save_public(public_only, path) : -1;
    zcert_destroy(&public_only);
    if (rc)
        return err_set(err, "--allow: cannot write %s: %s", path,
                       strerror(errno));
    (*count)++;
    return 0;
}

//  Z85 public keys from 'in', a line each, up to an empty line or EOF
static int s_from_stream(const char *dir, FILE *in, int *count, errbuf_t *err)
{
    char line[256];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0])
            break;
        byte key[32];
        if (strlen(line) != 40 || !zmq_z85_decode(key, line))
            return err_set(err,
                           "--allow -: '%.60s' is not a Z85 public key "
                           "(40 characters)",
                           line);
        zcert_t *cert = zcert_new_from(key, (const byte[32]){0});
        int rc = cert ? s_add(dir, cert, count, err) : -1;
        zcert_destroy(&cert);
        if (rc)
            return -1;
    }
    return 0;
}

//  Every certificate of a directory (names ending in _secret are their
//  public twins' business); a file that is not one is named on 'notes'
static int s_from_dir(const char *dir, const char *allow, FILE *notes,
                      int *count, errbuf_t *err)
{
    DIR *d = opendir(allow);
    struct dirent *entry;
    int rc = d ? 0 : err_set(err, "--allow %s: %s", allow, strerror(errno));
    while (d && rc == 0 && (entry = readdir(d))) {
        size_t n = strlen(entry->d_name);
        char path[700];
        errbuf_t why;
        if (entry->d_name[0] == '.' ||
            (n > 7 && strcmp(entry->d_name + n - 7, "_secret") == 0))
            continue;
        snprintf(path, sizeof path, "%s/%s", allow, entry->d_name);
        zcert_t *cert = certfile_load(path, LIMIT_FILE_WAIT, &why);
        if (cert)
            rc = s_add(dir, cert, count, err);
        else if (notes)
            fprintf(notes, "hopbench agent: --allow: skipped %s\n", why.msg);
        zcert_destroy(&cert);
    }
    if (d)
        closedir(d);
    return rc;
}

//  A certificate file, or every one in a directory
static int s_from_path(const char *dir, const char *allow, FILE *notes,
                       int *count, errbuf_t *err)
{
    struct stat st;
    errbuf_t why;
    if (stat(allow, &st))
        return err_set(err, "--allow %s: %s", allow, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return s_from_dir(dir, allow, notes, count, err);
    zcert_t *cert = certfile_load(allow, LIMIT_FILE_WAIT, &why);
    if (!cert)
        return err_set(err, "--allow %s", why.msg);
    int rc = s_add(dir, cert, count, err);
    zcert_destroy(&cert);
    return rc;
}

int keys_allow_dir(const char *allow, FILE *in, FILE *notes, char *dir,
                   size_t len, int *count, errbuf_t *err)
{
    *count = 0;
    if (resultsdir_ipc_create(dir, len, err))
        return -1;
    int rc = streq(allow, "-") ? s_from_stream(dir, in, count, err)
                               : s_from_path(dir, allow, notes, count, err);
    if (rc == 0 && *count == 0)
        rc = err_set(err, "--allow %s: no certificate in it", allow);
    if (rc)
        keys_allow_dir_remove(dir);
    return rc;
}

void keys_allow_dir_remove(const char *dir)
{
    resultsdir_ipc_remove(dir);
}

int keys_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    char tmp[256], pub[700], dir[256], secret[800];
    CHECK(resultsdir_ipc_create(tmp, sizeof tmp, &err) == 0);
    CHECK(keys_generate(tmp, "h1", pub, sizeof pub, &err) == 0);
    CHECK(keys_generate(tmp, "h1", pub, sizeof pub, &err) == -1);
    CHECK(strstr(err.msg, "exists already"));
    CHECK(keys_generate(tmp, "../x", pub, sizeof pub, &err) == -1);
    char long_name[KEYS_NAME_MAX + 2];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    CHECK(keys_generate(tmp, long_name, pub, sizeof pub, &err) == -1);
    CHECK(strstr(err.msg, "65 characters, more than 64"));
    snprintf(secret, sizeof secret, "%s/h1.cert_secret", tmp);
    zcert_t *cert = keys_load_secret(secret, "--cert", &err);
    CHECK(cert);
    //  only the file named is read, never its _secret twin
    CHECK(!keys_load_secret(pub, "--cert", &err));
    CHECK(strstr(err.msg, "a public certificate; give its _secret twin"));
    char alone[800];
    snprintf(alone, sizeof alone, "%s/alone.cert", tmp);
    CHECK(zcert_save_public(cert, alone) == 0);
    CHECK(!keys_load_secret(alone, "--cert", &err));
    CHECK(strstr(err.msg, "a public certificate; give its _secret twin"));
    unlink(alone);
    int count;
    CHECK(keys_allow_dir(pub, NULL, NULL, dir, sizeof dir, &count, &err) == 0);
    CHECK(count == 1);
    keys_allow_dir_remove(dir);
    CHECK(keys_allow_dir(tmp, NULL, NULL, dir, sizeof dir, &count, &err) == 0);
    CHECK(count == 1); //  h1.cert, not its twin
    keys_allow_dir_remove(dir);
    char *text = NULL;
    size_t len = 0;
    FILE *in = open_memstream(&text, &len);
    fprintf(in, "%s\n\nnot read\n", zcert_public_txt(cert));
    fclose(in);
    in = fmemopen(text, len, "r");
    CHECK(keys_allow_dir("-", in, NULL, dir, sizeof dir, &count, &err) == 0);
    CHECK(count == 1);
    fclose(in);
    keys_allow_dir_remove(dir);
    in = fmemopen("short\n", 6, "r");
    CHECK(keys_allow_dir("-", in, NULL, dir, sizeof dir, &count, &err) == -1);
    CHECK(strstr(err.msg, "not a Z85 public key"));
    fclose(in);
    free(text);
    zcert_destroy(&cert);
    resultsdir_ipc_remove(tmp);
    return 0;
}
