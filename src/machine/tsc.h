/*  tsc: the rate of this machine's time-stamp counter.

    libzmq 4.3.4 paces a socket's command processing in TSC ticks
    (max_command_delay = 3,000,000), so the rate a flooding publisher can
    deliver is a number of messages per 3,000,000 ticks (trial/results.h,
    results_hwm_bound).  The kernel knows the TSC's rate: sysfs's
    tsc_freq_khz where the kernel exports it, else the "tsc:" line it
    logged at boot (the refined calibration when there is one), else the
    CPU's nominal MHz from /proc/cpuinfo.
*/
#ifndef HOPBENCH_TSC_H
#define HOPBENCH_TSC_H

#include <stdbool.h>
#include <stddef.h>

//  Hz, and where it came from ("sysfs", "kernel log", "cpuinfo"); 0 when
//  none of them says
double tsc_hz(char *source, size_t len);

//  The number in a kernel log line about the TSC, in Hz, or 0
//  ("tsc: Detected 2100.000 MHz processor",
//   "tsc: Refined TSC clocksource calibration: 2099.998 MHz")
double tsc_parse_log(const char *line);

int tsc_test(bool verbose);

#endif
