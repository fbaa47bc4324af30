/*  certfile: a CURVE certificate file, read once.

        zcert_t *cert = certfile_load("keys/h1.cert_secret", 10, &err);

    The file is czmq's zcert format (ZPL; what zcert_save and hopbench
    keygen write): curve/public-key, and in a _secret file also
    curve/secret-key, each 40 characters of Z85, and metadata.  czmq's
    zcert_load would open the file itself, twice when there is no _secret
    twin, and print what it cannot parse; here the bytes come from
    readfile (so a FIFO works and nothing waits forever) and are parsed
    with zpl, so a file that is not a certificate is refused with
    "path:line: why" or "path: why", and nothing is printed.  Only the
    named file is read: a public file's _secret twin is not looked for.
*/
#ifndef HOPBENCH_CERTFILE_H
#define HOPBENCH_CERTFILE_H

#include <czmq.h>
#include <stdbool.h>

#include "base/errbuf.h"

//  The certificate in path (a secret key of zeros when it has none);
//  NULL with "path...: why".  'wait' as readfile's
zcert_t *certfile_load(const char *path, double wait, errbuf_t *err);
//  Does it hold a secret key?
bool certfile_secret(zcert_t *cert);

int certfile_test(bool verbose);

#endif
