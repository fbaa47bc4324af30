/*  sizes: message size lists, "8..131072" (doubling) or "64,1024,65536".

    Items are separated by commas; an item is a size or a doubling range
    FIRST..LAST (FIRST, 2*FIRST, ... up to LAST).  A size may end in K or M
    (KiB, MiB).  Sizes run from SIZES_MIN (the 8 bytes that carry a
    message's sequence number) to SIZES_MAX_BYTES; a size listed twice is
    an error.
*/
#ifndef HOPBENCH_SIZES_H
#define HOPBENCH_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "base/limits.h"

#define SIZES_MAX       LIMIT_SIZES
#define SIZES_MIN       LIMIT_SIZE_MIN
#define SIZES_MAX_BYTES LIMIT_SIZE_MAX

typedef struct {
    int n;
    uint32_t size[SIZES_MAX];
} sizes_t;

int sizes_parse(const char *text, sizes_t *out, errbuf_t *err);
//  Back to text, ranges written out ("8,16,32")
int sizes_format(const sizes_t *sizes, char *buf, size_t len);

int sizes_test(bool verbose);

#endif
