/*  trial: one measurement, one size and repetition, on a fresh pipeline.

        start stages -> SETUP (bind, connect) -> RUN receivers and proxies
        -> HANDSHAKE publishers (every subscription arrived) -> RUN publishers
        -> warm-up (until warmup has passed and every link delivered)
        -> window opens: snapshot T0, threads read back from /proc
        -> messages: publishers stop at T0 count + messages;
           duration: the window is that long
        -> window closes: snapshot T1; publishers stop
        -> drain until every link is quiet, final snapshot
        -> stop receivers and proxies, TEARDOWN

    No in-band end marker: the end is decided from counters, so a lossy
    transport cannot lose it.  Every wait has the topology's timeout; a
    stage that fails or a hop that delivers nothing ends the trial with an
    error naming them.
*/
#ifndef HOPBENCH_TRIAL_H
#define HOPBENCH_TRIAL_H

#include "crew/crew.h"
#include "base/errbuf.h"
#include "machine/machine.h"
#include "pipeline/pipeline.h"
#include "trial/results.h"

//  Run one trial with the crew's stages; the pipeline's endpoints must be
//  resolved.  Fills result (free with trial_result_free); warnings
//  (placement read-back) go to 'warnings', one per line.  After a failure
//  the crew is broken: no more trials, only crew_destroy
int trial_run(crew_t *crew, const machine_t *machine, uint32_t size, int repeat,
              trial_result_t *result, char *warnings, size_t warnings_len,
              errbuf_t *err);

#endif
