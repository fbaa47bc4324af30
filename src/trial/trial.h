/*  trial: one measurement, one size and repetition, with the stages of
    the combination's crew (threads and contexts kept; sockets and
    endpoints new for each trial).

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

//  What one trial measures (run.c makes it from the topology's keys; a
//  search makes one per offered rate)
typedef struct {
    uint32_t size;
    int repeat;        //  1-based (a search: the trial's number)
    double rate;       //  messages per second per publisher, 0: flat out
    bool timed;        //  messages carry send times; latency is recorded
    uint64_t messages; //  the window closes when every sink took this many
    double duration;   //  ...or after this many seconds (messages = 0)
    double tsc_hz;     //  the TSC's rate, for hwm_bound (0: unknown)
    bool profile;      //  trace the stages' system calls in the window
    //  The pipeline stays up after this trial: its sockets, connections
    //  and subscriptions kept for the next trial of the same size (the
    //  session), which runs on them (no SETUP, no HANDSHAKE, a short
    //  warm-up; its rate and send times its own); trial_kept_close
    //  closes it
    bool keep_up;
    //  A search's trial: the window ends early (trial_result_t's
    //  cut_short) once a subscriber's sequence numbers prove it lost more
    //  than 'ratio' of what the whole trial would bring it (the verdict
    //  is then known), but not before 'after' seconds of window
    struct {
        bool on;
        double ratio, after;
    } give_up;
} trial_spec_t;

//  The pipeline a trial left up (trial_spec_t's keep_up) for the next
//  trials of its size: the caller's (a session's), handed to each trial
//  of the crew.  Zero: none is up
typedef struct {
    bool up;
    uint32_t size;     //  the size its trials measure
    char fallback[16]; //  why the last one could not stay up, "": it could
} trial_kept_t;

//  Run one trial with the crew's stages, on the pipeline 'kept' says is
//  up (or on a fresh one); the pipeline's endpoints must be resolved.  Fills result (free with trial_result_free); warnings
//  (placement read-back) go to 'warnings', whole lines, the last "... and
//  N more warnings" when they do not all fit.  After a failure
//  the crew is broken: no more trials, only crew_destroy
int trial_run(crew_t *crew, trial_kept_t *kept, const machine_t *machine,
              const trial_spec_t *spec, trial_result_t *result, char *warnings,
              size_t warnings_len, errbuf_t *err);
//  ...and 1 when the trial ran on a pipeline an earlier one left up and
//  its figures cannot be trusted (another trial's messages arrived, or
//  its counts do not add up): void, the pipeline closed; run it again
//  (on a fresh pipeline; its result's pipeline says fallback:WHY)

//  May pl's trials run on a pipeline that stays up (keep_up)?  Its key
//  search_reuse, streams only (a requester's round trips end its trial;
//  a client of pattern = connect times out), and no czmq actor (zproxy's
//  counting thread would see between trials what nobody counts)
bool trial_may_keep_up(const pipeline_t *pl);

//  Close the pipeline the last trial left up (nothing to do when none
//  is up); -1 if a stage did not answer
int trial_kept_close(crew_t *crew, trial_kept_t *kept, errbuf_t *err);

#endif
