/*  nofile: the soft RLIMIT_NOFILE raised to what a run needs (nofile.h) */
#include "base/nofile.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

int nofile_room(long need, unsigned long long *soft, unsigned long long *hard)
{
    struct rlimit limit;
    *soft = *hard = 0;
    if (getrlimit(RLIMIT_NOFILE, &limit) || limit.rlim_max == RLIM_INFINITY ||
        (rlim_t)need <= limit.rlim_max)
        return 0;
    *soft = (unsigned long long)limit.rlim_cur;
    *hard = (unsigned long long)limit.rlim_max;
    return 1;
}

int nofile_raise(long need, unsigned long long *soft, unsigned long long *hard,
                 errbuf_t *err)
{
    struct rlimit limit;
    *soft = *hard = 0;
    if (getrlimit(RLIMIT_NOFILE, &limit) || (rlim_t)need <= limit.rlim_cur)
        return 0;
    if (limit.rlim_max != RLIM_INFINITY && (rlim_t)need > limit.rlim_max) {
        *soft = (unsigned long long)limit.rlim_cur;
        *hard = (unsigned long long)limit.rlim_max;
        return 1;
    }
    limit.rlim_cur = (rlim_t)need;
    return setrlimit(RLIMIT_NOFILE, &limit)
               ? err_set(err, "setrlimit (RLIMIT_NOFILE, %ld): %s", need,
                         strerror(errno))
               : 0;
}
