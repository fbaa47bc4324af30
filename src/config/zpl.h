/*  zpl: load a ZPL file (ZeroMQ RFC 4) with czmq's zconfig, and remember
    the line each node came from.

    zconfig parses, but it accepts some malformed input silently (unquoted
    values with spaces, 8-space indentation jumps, "name = # comment" as
    the value "# comment"), prints its own errors on stdout without the
    file name, and keeps no line numbers.  zpl checks the raw lines first,
    refusing all of that with "file:line: message", and maps every node to
    its line so later validation can say where.  A UTF-8 byte-order mark
    at the very start is skipped (zpl_bom says so); anywhere else it is
    refused by name.
*/
#ifndef HOPBENCH_ZPL_H
#define HOPBENCH_ZPL_H

#include <czmq.h>

#include "base/errbuf.h"

typedef struct zpl_s zpl_t;

//  Load and check a ZPL file; NULL with "path:line: message" on error
zpl_t *zpl_load(const char *path, errbuf_t *err);
//  Same, from text in memory (path is only used in messages)
zpl_t *zpl_load_text(const char *path, const char *text, errbuf_t *err);
void zpl_destroy(zpl_t **self_p);

//  The root node; its children are the file's top-level names
zconfig_t *zpl_root(zpl_t *self);
//  Line of a node (1-based), 0 when unknown (a node added after loading)
int zpl_line(zpl_t *self, zconfig_t *node);
const char *zpl_path(zpl_t *self);
//  "path:line: message" about a node into err; returns -1
int zpl_error(zpl_t *self, zconfig_t *node, errbuf_t *err, const char *fmt,
              ...) __attribute__((format(printf, 4, 5)));
//  Did the text start with a UTF-8 byte-order mark (skipped, not an error)?
bool zpl_bom(zpl_t *self);

int zpl_test(bool verbose);

#endif
