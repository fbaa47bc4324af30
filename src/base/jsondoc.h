/*  jsondoc: every JSON document hopbench writes or reads, through
    jansson (Debian's libjansson): metadata.json, results.json and
    --format json, sizing.json, compare's JSON.

        json_t *doc = jsondoc_read("DIR/metadata.json", &err);
        if (!doc)
            return -1;        //  "DIR/metadata.json:3: '}' expected near ','"
        ...
        jsondoc_print(stdout, doc, &err);
        json_decref(doc);

    Reading is strict: jansson's parser takes nothing that is not JSON, a
    key twice in one object is refused, and an error names the file and
    the line (and column) where the text stops being JSON.  Writing has
    one look for every document (two-space indents, ": " between a key
    and its value) and keeps numbers as they were meant: a whole number
    is an integer (64, not 64.0), a CSV cell becomes the number it reads
    as, and a real prints with the 15 digits a double holds for sure, so
    a figure written as 1822722.2 reads back as 1822722.2.  Text that is
    not UTF-8 (a byte of a user's command line) goes out with '?' for
    each byte that is not, never as a document jansson would refuse.
*/
#ifndef HOPBENCH_JSONDOC_H
#define HOPBENCH_JSONDOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"

//  The document in path: an object or an array; NULL and err ("path:
//  why", "path:LINE: what is wrong (column C)")
json_t *jsondoc_read(const char *path, errbuf_t *err);
//  doc on out, and a newline: 0, or -1 and err when a write failed
int jsondoc_print(FILE *out, const json_t *doc, errbuf_t *err);

//  Values: a string (never NULL for text that is not UTF-8), a number
//  (an integer when whole), a CSV cell (null when empty, a number when it
//  reads as one, else a string).  NULL only when out of memory
json_t *jsondoc_text(const char *text);
json_t *jsondoc_number(double value);
json_t *jsondoc_cell(const char *cell);
//  obj[key] = value, value's reference taken: 0, or -1 when value is
//  NULL (out of memory) or the object cannot take it
int jsondoc_set(json_t *obj, const char *key, json_t *value);
//  value when rc is 0; else NULL, value let go (a builder's last line)
json_t *jsondoc_kept(json_t *value, int rc);
//  The string at obj[key], or "" when there is none or it is not one
const char *jsondoc_get_text(const json_t *obj, const char *key);

int jsondoc_test(bool verbose);

#endif
