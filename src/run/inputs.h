/*  inputs: the files a command names, each read once.

    The topology, --machine FILE and HOST=FILE, --hosts and the
    certificates it names, and --cert are each read whole by readfile,
    once, so that a FIFO, a pipe, `-` (stdin), /dev/stdin or the shell's
    <(...) works as any of them, and none keeps hopbench waiting longer
    than inputs_wait.  What they hold is then parsed from memory as often
    as the command needs (each combination of a sweep parses the topology
    text again).  A file that cannot be read, or is not what it should
    be, is a mistake of the command line: the caller exits 2.
*/
#ifndef HOPBENCH_INPUTS_H
#define HOPBENCH_INPUTS_H

#include <czmq.h>

#include "base/errbuf.h"
#include "config/hosts.h"
#include "machine/machine.h"
#include "run/request.h"

//  How long a FIFO or pipe may take to end: the run's timeout as the
//  request's --set says (--set timeout=S), else LIMIT_FILE_WAIT
double inputs_wait(const run_request_t *req);
//  The text of the file at path ("-": stdin); NULL with "path: why"
char *inputs_read(const run_request_t *req, const char *path, errbuf_t *err);
//  Files a command takes several of (size's topologies): each given once.
//  -1 with "A and B are the same file" (by device and inode, "-" being
//  stdin), or the same path given twice
int inputs_distinct(const char *const *paths, int n, errbuf_t *err);
//  A machine description (--machine FILE, or the FILE of HOST=FILE)
machine_t *inputs_machine(const run_request_t *req, const char *path,
                          errbuf_t *err);
//  --hosts FILE, and the certificate each host names
hosts_t *inputs_hosts(const run_request_t *req, errbuf_t *err);
//  The controller's secret certificate into *cert: --cert FILE, else
//  ~/.curve/hopbench.cert_secret when it is there; with neither, *cert
//  stays NULL under --ssh (the fleet makes one) and is an error without
int inputs_cert(const run_request_t *req, zcert_t **cert, errbuf_t *err);

#endif
