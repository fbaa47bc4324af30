/*  json: the two helpers the JSON writers share (metadata, --format json).  */
#ifndef HOPBENCH_JSON_H
#define HOPBENCH_JSON_H

#include <stdio.h>

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
