/*  readfile: a file the user named, read whole, once.

        size_t len;
        char *text = readfile("topo.cfg", LIMIT_FILE_WAIT, &len, &err);
        ...
        free(text);

    Every input file goes through here (topologies, --hosts, --machine,
    certificates, --allow), so that each is opened once: a FIFO or a pipe
    (`-` is stdin, `/dev/stdin`, the shell's `<(...)`) can be read only
    once.  LIMIT_FILE_BYTES is applied while reading, so /dev/zero or a
    huge file ends there, never at the end of memory.  A FIFO is opened
    without waiting for its writer and then polled, so one that nobody
    writes ends after 'wait' seconds with a message, not a hang; SIGINT
    and SIGTERM end the wait too (interrupt_signal then says which).
    Input files are text: a NUL byte is refused at its line.  Directories
    are refused by name, and no message carries an errno left over from
    an earlier call.
*/
#ifndef HOPBENCH_READFILE_H
#define HOPBENCH_READFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/errbuf.h"

//  The file's bytes and a NUL after them (its length in *len, may be
//  NULL); NULL with "path: why" in err.  The caller frees
char *readfile(const char *path, double wait, size_t *len, errbuf_t *err);

int readfile_test(bool verbose);

#endif
