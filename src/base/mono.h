/*  mono: the one clock of hopbench, CLOCK_MONOTONIC.

    Every stage stamps with it (intended send times, receive times), the
    controller times windows with it, and every stage on a host shares
    it, so a latency is a difference of two readings of the same clock.
    Inline, because the paced and latency loops read it per message.
*/
#ifndef HOPBENCH_MONO_H
#define HOPBENCH_MONO_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <time.h>

//  Now, in nanoseconds
static inline uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

//  Now, in seconds
static inline double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

//  Sleep until the clock reads ns (a signal does not cut it short)
static inline void mono_sleep_until_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ULL),
                          (long)(ns % 1000000000ULL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

//  Sleep for this many seconds (a signal may cut it short: callers loop)
static inline void mono_sleep(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec ts = {(time_t)seconds,
                          (long)((seconds - floor(seconds)) * 1e9)};
    nanosleep(&ts, NULL);
}

#endif
