/*  errbuf: one error message, filled once where the error happens.

    Functions that can fail take an errbuf_t * and return -1 (or NULL);
    the caller prints err->msg once, at the top.  Messages name what failed
    and where: "topologies/x.cfg:7: unknown transport 'tpc' (inproc, ipc,
    tcp)", "stage p1: bind tcp://127.0.0.1:5555: Address already in use".

    Messages echo what the user gave, which may be long or hold control
    characters: err_set escapes every control character (a typed ESC is
    "\x1b", never a terminal's command) and, when a message is longer than
    ERRBUF_MAX, cuts its middle, where the echoed value is, keeping the
    start (where) and the end (why): "t.cfg:2: unknown key 'xxxx ...
    xxxx' (hopbench --help-keys lists them)".
*/
#ifndef HOPBENCH_ERRBUF_H
#define HOPBENCH_ERRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define ERRBUF_MAX 1023 //  bytes of a message

typedef struct {
    char msg[ERRBUF_MAX + 1];
} errbuf_t;

//  Fill err (unless NULL) as printf would, escaped and cut as above;
//  returns -1
int err_set(errbuf_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int err_vset(errbuf_t *err, const char *fmt, va_list ap);

int errbuf_test(bool verbose);

#endif
