/*  check: the one assertion macro of the selftests.

    Unlike assert() it survives -DNDEBUG and does not abort: a failed CHECK
    prints file:line and the condition, and makes the selftest return -1,
    so the TAP runner reports "not ok" and carries on with the next module.
*/
#ifndef HOPBENCH_CHECK_H
#define HOPBENCH_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            return -1;                                                         \
        }                                                                      \
    } while (0)

#endif
