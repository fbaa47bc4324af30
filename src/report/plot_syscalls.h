/*  plot_syscalls: where each stage's time in system calls goes, from
    syscalls.csv (--profile syscalls).

        STEM-syscalls-STAGE.png   top: stacked bars of ns per message by
                                  system call, one bar per size; bottom:
                                  the same as shares of the bar (100 %)

    One chart per topology, sweep combination and stage.  A syscall's
    value is summed over the stage's threads (each thread's ns_per_msg),
    then the median over the repeats; the stage's seven busiest syscalls
    (by their largest value at any size) get a colour each, the rest are
    "other".  The shares make the small sizes readable, whose bars are
    flat beside the large ones'.
*/
#ifndef HOPBENCH_PLOT_SYSCALLS_H
#define HOPBENCH_PLOT_SYSCALLS_H

#include "report/plot_read.h"

//  syscalls.csv's reader (plot_read_charts); none without syscalls.csv
extern const plot_reader_t plot_syscalls_reader;

#endif
