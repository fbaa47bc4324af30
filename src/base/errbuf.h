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

    Where an error happened is data too, for code that acts on it (a run
    across hosts blames the host it lost, fleet.h): err_host and
    err_stage say "host H: " and "stage S: " before the message and keep
    H and S as fields, with what happened (the reason) after them.  Code
    reads the fields, never the words: msg is for people.
*/
#ifndef HOPBENCH_ERRBUF_H
#define HOPBENCH_ERRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define ERRBUF_MAX  1023 //  bytes of a message
#define ERRBUF_NAME 64   //  bytes of a host's or a stage's name

typedef struct {
    char msg[ERRBUF_MAX + 1]; //  the whole sentence, said once
    char host[ERRBUF_NAME];   //  the host it happened on, "": none said
    char stage[ERRBUF_NAME];  //  the stage instance it is about, "": none
    bool lost;  //  the host's agent was lost (silent, or its link closed)
    int reason; //  msg + reason: what happened, after where (err_reason)
} errbuf_t;

//  Fill err (unless NULL) as printf would, escaped and cut as above, a
//  new error of no host or stage; returns -1
int err_set(errbuf_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int err_vset(errbuf_t *err, const char *fmt, va_list ap);
//  Words before err's message (where it happened), its fields and its
//  reason kept; returns -1
int err_prefix(errbuf_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
//  "host H: " before it, and H its host; "stage S: " and S its stage
int err_host(errbuf_t *err, const char *host);
int err_stage(errbuf_t *err, const char *stage);
//  A step asked of many (hosts, stages) and failed by several, in one
//  error: the first failure (*failed 0) is copied into all, each later
//  one's words follow "; ", all's fields staying the first's; *failed
//  counts them
void err_gather(errbuf_t *all, int *failed, const errbuf_t *one);
//  What happened, without the words err_prefix put before it
const char *err_reason(const errbuf_t *err);

int errbuf_test(bool verbose);

#endif
