/*  nofile: room for the files a pipeline opens (RLIMIT_NOFILE).

        unsigned long long soft, hard;
        switch (nofile_raise(need, &soft, &hard, &err)) ...

    A stage's SUB sockets are one file each (sockets = N), so a run may
    need more than the soft limit a shell gives.  The soft limit is raised
    to what is needed, up to the hard one; above the hard one nothing is
    changed and the caller refuses the run, in its own words (the
    controller names the topology, an agent its host).  Stage processes
    inherit the limit.
*/
#ifndef HOPBENCH_NOFILE_H
#define HOPBENCH_NOFILE_H

#include "base/errbuf.h"

//  0: the soft limit holds need files (raised if it had to be); 1: need
//  is above the hard limit (*soft and *hard: the limits as they stay;
//  the caller says so in its words); -1: setrlimit failed (err)
int nofile_raise(long need, unsigned long long *soft, unsigned long long *hard,
                 errbuf_t *err);
//  The same question, nothing changed (check): 1 when need is above the
//  hard limit, else 0
int nofile_room(long need, unsigned long long *soft, unsigned long long *hard);

#endif
