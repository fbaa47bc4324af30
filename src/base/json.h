/*  json: the helpers the JSON writers share (metadata, --format json).  */
#ifndef HOPBENCH_JSON_H
#define HOPBENCH_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

//  A JSON string literal, quoted and escaped
static inline void json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

//  Is text a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?
//  ([eE][+-]?[0-9]+)?, so that it can go out as it is
static inline bool json_number_text(const char *text)
{
    const char *p = text + (*text == '-');
    size_t n = strspn(p, "0123456789");
    if (n == 0 || (n > 1 && *p == '0'))
        return false;
    p += n;
    if (*p == '.' && (n = strspn(p + 1, "0123456789")) > 0)
        p += 1 + n;
    else if (*p == '.')
        return false;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        n = strspn(p, "0123456789");
        if (n == 0)
            return false;
        p += n;
    }
    return *p == 0;
}

//  "key": "value" with a leading comma unless first
static inline void json_field(FILE *out, const char *key, const char *value,
                              int first)
{
    fputs(first ? "\n  " : ",\n  ", out);
    json_string(out, key);
    fputs(": ", out);
    json_string(out, value);
}

#endif
