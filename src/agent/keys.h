/*  keys: CURVE certificates on disk, in czmq's zcert format.

        hopbench keygen keys --name h1   ->  keys/h1.cert         (public)
                                             keys/h1.cert_secret  (0600)

    keygen writes a pair with zcert_save; an agent runs with the _secret
    twin (--cert) and the hosts file names the public one (cert =); a
    controller runs with its own _secret twin (run --cert) and each
    agent's --allow names the public one.  The --allow list (a
    certificate, a directory of them, or "-": Z85 public keys read from
    stdin, one a line, up to an empty line) becomes a private directory of
    public certificates, which is what zauth reads: so a single file works,
    every certificate is checked once at start, and nothing the user
    changes later alters who is allowed.
*/
#ifndef HOPBENCH_KEYS_H
#define HOPBENCH_KEYS_H

#include <czmq.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "base/limits.h"

#define KEYS_NAME_MAX LIMIT_KEYGEN_NAME

//  DIR/NAME.cert and DIR/NAME.cert_secret (DIR made 0700 if missing;
//  existing files are not overwritten); the public file's path into out
int keys_generate(const char *dir, const char *name, char *out, size_t len,
                  errbuf_t *err);
//  A certificate with its secret key (a _secret file)
zcert_t *keys_load_secret(const char *path, const char *option, errbuf_t *err);
//  The allowed controllers into a new private directory (dir, len): from
//  'allow' (a file, a directory, or "-" for 'in'); how many in *count.  A
//  file of a directory that is not a certificate is skipped, with a line
//  naming it and why on 'notes' (unless NULL)
int keys_allow_dir(const char *allow, FILE *in, FILE *notes, char *dir,
                   size_t len, int *count, errbuf_t *err);
//  Remove that directory and what is in it
void keys_allow_dir_remove(const char *dir);

int keys_test(bool verbose);

#endif
