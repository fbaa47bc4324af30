/*  certfile: a CURVE certificate file, read once (see certfile.h).

    zcert_new_from builds the certificate from the two decoded keys; a
    secret key that is given must be the public key's (zmq_curve_public),
    so a file edited by hand cannot pair one host's public key with
    another's secret.
*/
#include "config/certfile.h"

#include "base/check.h"
#include "base/readfile.h"
#include "config/zpl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define CERTFILE_FORMAT "czmq zcert format, as hopbench keygen writes it"

//  A key of the curve section into key (32 bytes): 1, 0 absent, -1 bad
static int s_key(zpl_t *zpl, const char *name, byte *key, errbuf_t *err)
{
    char path[32];
    snprintf(path, sizeof path, "curve/%s", name);
    zconfig_t *node = zconfig_locate(zpl_root(zpl), path);
    const char *z85 = node ? zconfig_value(node) : NULL;
    if (!z85 || !*z85)
        return 0;
    if (strlen(z85) != 40 || !zmq_z85_decode(key, z85))
        return zpl_error(
            zpl, node, err,
            "%s: not a key (40 characters of Z85; " CERTFILE_FORMAT ")", name);
    return 1;
}

//  A secret key given is the public key's
static int s_pair(zpl_t *zpl, const byte *secret_key, errbuf_t *err)
{
    char given[41], derived[41];
    zmq_z85_encode(given, secret_key, 32);
    if (zmq_curve_public(derived, given) == 0 &&
        streq(derived, zconfig_get(zpl_root(zpl), "curve/public-key", "")))
        return 0;
    return err_set(err, "%s: its secret-key is not its public-key's",
                   zpl_path(zpl));
}

static zcert_t *s_cert(zpl_t *zpl, errbuf_t *err)
{
    byte public_key[32], secret_key[32] = {0};
    int has_public = s_key(zpl, "public-key", public_key, err);
    int has_secret =
        has_public > 0 ? s_key(zpl, "secret-key", secret_key, err) : 0;
    if (has_public == 0)
        err_set(err, "%s: not a certificate: no curve/public-key (%s)",
                zpl_path(zpl), CERTFILE_FORMAT);
    if (has_public <= 0 || has_secret < 0 ||
        (has_secret && s_pair(zpl, secret_key, err)))
        return NULL;
    zcert_t *cert = zcert_new_from(public_key, secret_key);
    zconfig_t *meta = zconfig_locate(zpl_root(zpl), "metadata");
    for (zconfig_t *item = meta ? zconfig_child(meta) : NULL; cert && item;
         item = zconfig_next(item))
        zcert_set_meta(cert, zconfig_name(item), "%s", zconfig_value(item));
    if (!cert)
        err_set(err, "%s: out of memory", zpl_path(zpl));
    return cert;
}

zcert_t *certfile_load(const char *path, double wait, errbuf_t *err)
{
    char *text = readfile(path, wait, NULL, err);
    errbuf_t why;
    zpl_t *zpl = text ? zpl_load_text(path, text, &why) : NULL;
    if (text && !zpl)
        err_set(err, "%s: not a certificate (%.400s)", path, why.msg);
    zcert_t *cert = zpl ? s_cert(zpl, err) : NULL;
    zpl_destroy(&zpl);
    free(text);
    return cert;
}

bool certfile_secret(zcert_t *cert)
{
    const char *z85 = zcert_secret_txt(cert);
    return strspn(z85, "0") != strlen(z85);
}

//  ---------------------------------------------------------------------
//  Selftest

static int s_write(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (!file)
        return -1;
    fputs(text, file);
    return fclose(file);
}

int certfile_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    char dir[] = "/tmp/hopbench-certfile.XXXXXX", path[128], twin[140];
    CHECK(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/c.cert", dir);
    snprintf(twin, sizeof twin, "%s_secret", path);
    zcert_t *made = zcert_new();
    zcert_set_meta(made, "name", "c");
    CHECK(zcert_save(made, path) == 0);
    zcert_t *secret = certfile_load(twin, 1, &err);
    zcert_t *public = certfile_load(path, 1, &err);
    CHECK(secret && public && certfile_secret(secret));
    CHECK(!certfile_secret(public));
    CHECK(streq(zcert_public_txt(secret), zcert_public_txt(made)));
    CHECK(streq(zcert_secret_txt(secret), zcert_secret_txt(made)));
    CHECK(streq(zcert_public_txt(public), zcert_public_txt(made)));
    CHECK(streq(zcert_meta(secret, "name"), "c"));
    zcert_destroy(&secret);
    zcert_destroy(&public);
    CHECK(s_write(path, "hello world\n") == 0);
    CHECK(!certfile_load(path, 1, &err));
    CHECK(strstr(err.msg, "c.cert: not a certificate (/tmp/"));
    CHECK(s_write(path, "hello = world\n") == 0);
    CHECK(!certfile_load(path, 1, &err));
    CHECK(strstr(err.msg, "c.cert: not a certificate: no curve/public-key"));
    CHECK(s_write(path, "curve\n    public-key = \"short\"\n") == 0);
    CHECK(!certfile_load(path, 1, &err));
    CHECK(strstr(err.msg, "c.cert:2: public-key: not a key"));
    //  another certificate's secret key under this one's public key
    zcert_t *other = zcert_new();
    char text[200];
    snprintf(text, sizeof text,
             "curve\n    public-key = \"%s\"\n    secret-key = \"%s\"\n",
             zcert_public_txt(made), zcert_secret_txt(other));
    CHECK(s_write(path, text) == 0);
    CHECK(!certfile_load(path, 1, &err));
    CHECK(strstr(err.msg, "is not its public-key's"));
    zcert_destroy(&other);
    zcert_destroy(&made);
    unlink(path);
    unlink(twin);
    rmdir(dir);
    return 0;
}
