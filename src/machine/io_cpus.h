/*  io_cpus: where a stage's libzmq I/O threads run, the io_cpus key.

        node    every CPU of the stage's node this process may use (the
                default, and what the placement gives: a stage thread
                pinned, its I/O threads free on its node)
        stage   the stage thread's own CPUs, as a process pinned whole
                with taskset runs its I/O threads
        LIST    these CPUs, numactl syntax (0-3,8), any node

    Applied after placement_plan, to what it planned; the stage's context
    takes them as ZMQ_THREAD_AFFINITY_CPU_ADD before its first socket.
*/
#ifndef HOPBENCH_IO_CPUS_H
#define HOPBENCH_IO_CPUS_H

#include "base/errbuf.h"
#include "machine/machine.h"
#include "machine/placement.h"

//  out[i].io_cpus for each requests[i].io_cpus; 0, or -1 with a one-line
//  reason in err that starts with where the key was given
int io_cpus_place(const machine_t *machine, const place_request_t *requests,
                  int n, place_t *out, errbuf_t *err);

int io_cpus_test(bool verbose);

#endif
