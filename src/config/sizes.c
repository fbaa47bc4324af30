/*  sizes: message size lists.  See sizes.h for the syntax.  */
#include "config/sizes.h"

#include "base/check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

//  One size, tok[0..len): digits and an optional K or M (KiB, MiB).
//  Messages quote the list and the size as written.
static int s_size(const char *list, const char *tok, size_t len, uint64_t *out,
                  errbuf_t *err)
{
    size_t digits = 0;
    while (digits < len && isdigit((unsigned char)tok[digits]))
        digits++;
    uint64_t unit = 1;
    if (digits > 0 && digits + 1 == len && strchr("KkMm", tok[digits]))
        unit = tok[digits] == 'K' || tok[digits] == 'k' ? 1024 : 1024 * 1024;
    else if (digits == 0 || digits != len)
        return err_set(err,
                       "sizes '%s': '%.*s' is not a size (digits, then K or "
                       "M if you like: 64, 16K, 1M)",
                       list, (int)len, tok);
    uint64_t value = 0;
    for (size_t i = 0; i < digits && value <= SIZES_MAX_BYTES; i++)
        value = value * 10 + (uint64_t)(tok[i] - '0');
    value = value <= SIZES_MAX_BYTES ? value * unit : value;
    if (value < SIZES_MIN || value > SIZES_MAX_BYTES)
        return err_set(err,
                       "sizes '%s': %.*s is outside %d..%u bytes (8 carry "
                       "the sequence number)",
                       list, (int)len, tok, SIZES_MIN, SIZES_MAX_BYTES);
    *out = value;
    return 0;
}

static int s_add(sizes_t *out, uint64_t size, const char *text, errbuf_t *err)
{
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

//  One item, item[0..len): a size, or a doubling range FIRST..LAST
static int s_item(const char *item, size_t len, sizes_t *out, const char *text,
                  errbuf_t *err)
{
    size_t first_len = 0;
    while (first_len < len && strncmp(item + first_len, "..", 2))
        first_len++;
    const char *dots = first_len < len ? item + first_len : NULL;
    uint64_t first, last;
    if (s_size(text, item, first_len, &first, err))
        return -1;
    if (!dots)
        return s_add(out, first, text, err);
    const char *second = dots + 2;
    size_t second_len = len - first_len - 2;
    if (s_size(text, second, second_len, &last, err))
        return -1;
    if (last < first)
        return err_set(err, "sizes '%s': range %.*s must run upwards", text,
                       (int)len, item);
    for (uint64_t size = first; size <= last; size *= 2)
        if (s_add(out, size, text, err))
            return -1;
    return 0;
}

int sizes_parse(const char *text, sizes_t *out, errbuf_t *err)
{
    out->n = 0;
    if (!*text)
        return err_set(err, "sizes: empty list");
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return err_set(err, "sizes '%s': an empty item", text);
        if (s_item(p, len, out, text, err))
            return -1;
        p += len;
        if (!*p)
            return 0;
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
    CHECK(strstr(err.msg, "0 is outside 8.."));
    CHECK(sizes_parse("8..-5", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "'-5' is not a size"));
    CHECK(sizes_parse("64..8", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "range 64..8 must run upwards"));
    CHECK(sizes_parse("4", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "outside 8.."));
    //  Messages quote the size as written
    CHECK(sizes_parse("300000000", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "sizes '300000000': 300000000 is outside"));
    CHECK(sizes_parse("8,4294967360", &sizes, &err) == -1);
    CHECK(strstr(err.msg, ": 4294967360 is outside"));
    CHECK(sizes_parse("8..65M", &sizes, &err) == -1);
    CHECK(strstr(err.msg, ": 65M is outside"));
    CHECK(sizes_parse("1e9", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "sizes '1e9': '1e9' is not a size"));
    CHECK(sizes_parse("16e3", &sizes, &err) == -1);
    CHECK(strstr(err.msg, "sizes '16e3': '16e3' is not a size"));
    CHECK(sizes_parse("8...16", &sizes, &err) == -1);
    CHECK(sizes_parse("..16", &sizes, &err) == -1);
    CHECK(sizes_parse("1KK", &sizes, &err) == -1);
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
