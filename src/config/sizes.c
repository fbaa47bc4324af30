/*  sizes: message size lists.  See sizes.h for the syntax.  */
#include "config/sizes.h"

#include "base/check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

//  One size with an optional K/M suffix; 0 when there is none at *p
static uint64_t s_size(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return 0;
    char *end;
    unsigned long long value = strtoull(*p, &end, 10);
    if (value > SIZES_MAX_BYTES)
        value = (uint64_t)SIZES_MAX_BYTES + 1;
    if (*end == 'K' || *end == 'k')
        value *= 1024, end++;
    else if (*end == 'M' || *end == 'm')
        value *= 1024 * 1024, end++;
    *p = end;
    return value;
}

static int s_add(sizes_t *out, uint64_t size, const char *text, errbuf_t *err)
{
    if (size < SIZES_MIN || size > SIZES_MAX_BYTES)
        return err_set(err,
                       "sizes '%s': %llu is outside %d..%u bytes (8 carry "
                       "the sequence number)",
                       text, (unsigned long long)size, SIZES_MIN,
                       SIZES_MAX_BYTES);
    for (int i = 0; i < out->n; i++)
        if (out->size[i] == size)
            return err_set(err, "sizes '%s': %llu is listed twice", text,
                           (unsigned long long)size);
    if (out->n == SIZES_MAX)
        return err_set(err, "sizes '%s': more than %d sizes (LIMIT_SIZES)",
                       text, SIZES_MAX);
    out->size[out->n++] = (uint32_t)size;
    return 0;
}

static int s_item(const char **p, sizes_t *out, const char *text, errbuf_t *err)
{
    const char *start = *p;
    uint64_t first = s_size(p);
    if (*p == start)
        return err_set(err, "sizes '%s': expected a size at '%s'", text, *p);
    if (strncmp(*p, "..", 2) != 0)
        return s_add(out, first, text, err);
    *p += 2;
    const char *second = *p;
    uint64_t last = s_size(p);
    if (*p == second)
        return err_set(err, "sizes '%s': expected a size after '..'", text);
    if (first < SIZES_MIN || last < first)
        return err_set(err,
                       "sizes '%s': range %llu..%llu must run upwards from "
                       "at least %d",
                       text, (unsigned long long)first,
                       (unsigned long long)last, SIZES_MIN);
    for (uint64_t size = first; size <= last; size *= 2)
        if (s_add(out, size, text, err))
            return -1;
    return 0;
}

int sizes_parse(const char *text, sizes_t *out, errbuf_t *err)
{
    out->n = 0;
    const char *p = text;
    if (!*p)
        return err_set(err, "sizes: empty list");
    while (true) {
        if (s_item(&p, out, text, err))
            return -1;
        if (!*p)
            return 0;
        if (*p++ != ',')
            return err_set(err, "sizes '%s': unexpected '%c'", text, p[-1]);
    }
}

int sizes_format(const sizes_t *sizes, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < sizes->n && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%u", i ? "," : "",
                         sizes->size[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return (int)used;
}

int sizes_test(bool verbose)
{
    (void)verbose;
    sizes_t sizes;
    errbuf_t err;
    char buf[512];

    CHECK(sizes_parse("8..131072", &sizes, &err) == 0);
    CHECK(sizes.n == 15 && sizes.size[0] == 8 && sizes.size[14] == 131072);
    CHECK(sizes_parse("64,1024,65536", &sizes, &err) == 0);
    CHECK(sizes.n == 3 && sizes.size[2] == 65536);
    CHECK(sizes_parse("1K..4K,100", &sizes, &err) == 0);
    sizes_format(&sizes, buf, sizeof buf);
    CHECK(strcmp(buf, "1024,2048,4096,100") == 0);
    CHECK(sizes_parse("8..100", &sizes, &err) == 0 && sizes.n == 4);
    CHECK(sizes_parse("64M", &sizes, &err) == 0);

    CHECK(sizes_parse("0..-5", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "expected a size after '..'"));
    CHECK(sizes_parse("64..8", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "must run upwards"));
    CHECK(sizes_parse("4", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "outside 8.."));
    CHECK(sizes_parse("0..64", &sizes, &err) == -1);
    CHECK(sizes_parse("8,8", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "listed twice"));
    CHECK(sizes_parse("", &sizes, &err) == -1);
    CHECK(sizes_parse("8,", &sizes, &err) == -1);
    CHECK(sizes_parse("abc", &sizes, &err) == -1);
    CHECK(sizes_parse("8;16", &sizes, &err) == -1);
    CHECK(sizes_parse("65M", &sizes, &err) == -1);
    CHECK(sizes_parse("99999999999999999999999", &sizes, &err) == -1);
    return 0;
}
