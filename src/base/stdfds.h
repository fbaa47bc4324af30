/*  stdfds: stdin, stdout and stderr made to exist before anything opens a
    file.

        unsigned closed = stdfds_reopen ();   //  first thing in main
        if (closed & STDFDS_IN) ...           //  '-' cannot be read

    A program started with fd 0, 1 or 2 closed (`hopbench check - <&-`)
    gives the next file it opens that number: libzmq's first eventfd
    became fd 0, and '-' then read the eventfd as the topology.  Each
    closed one is opened on /dev/null at once, so that no later file takes
    its number, and the caller learns which were closed.
*/
#ifndef HOPBENCH_STDFDS_H
#define HOPBENCH_STDFDS_H

#include <stdbool.h>

#define STDFDS_IN  1u
#define STDFDS_OUT 2u
#define STDFDS_ERR 4u

//  Which of fds 0, 1, 2 were closed (bits 1 << fd), each now /dev/null
unsigned stdfds_reopen(void);

int stdfds_test(bool verbose);

#endif
