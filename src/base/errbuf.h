/*  errbuf: one error message, filled once where the error happens.

    Functions that can fail take an errbuf_t * and return -1 (or NULL);
    the caller prints err->msg once, at the top.  Messages name what failed
    and where: "topologies/x.cfg:7: unknown transport 'tpc' (inproc, ipc,
    tcp)", "stage p1: bind tcp://127.0.0.1:5555: Address already in use".
*/
#ifndef HOPBENCH_ERRBUF_H
#define HOPBENCH_ERRBUF_H

#include <stdarg.h>
#include <stdio.h>

typedef struct {
    char msg[512];
} errbuf_t;

static inline int __attribute__((format(printf, 2, 3)))
err_set(errbuf_t *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#endif
