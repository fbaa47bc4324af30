/*  agent_run: what an agent holds for the run it serves.

        SPEC h2 TEXT  ->  topology (in the run's private directory) and
                          the pipeline, h2's stages planned on this
                          machine's description
        START id      ->  the stage as process = own runs it: crew's
                          process kind, "hopbench stage ..." re-exec'd
        CMD id SETUP  ->  the trial's endpoints and keys into the pipeline,
                          then on to the stage; its answers come back as
                          [ANSWER][id][rc][text]

    Every other request about a stage is answered from its shared block
    (COUNTS, SHARED, RESET, RECORD), its process (THREADS, CPU) or
    its kind (STOP, ABORT, END).  Nothing in a spec reaches a shell: the
    only program it starts is this one (/proc/self/exe), with the file
    it wrote as its argument.
*/
#ifndef HOPBENCH_AGENT_RUN_H
#define HOPBENCH_AGENT_RUN_H

#include <czmq.h>

#include "base/errbuf.h"

typedef struct agent_run_s agent_run_t;

//  A run: its private directory, with the machine description its
//  stages are planned on
agent_run_t *agent_run_new(const char *machine_text, errbuf_t *err);
//  End every stage (bounded), remove the directory
void agent_run_destroy(agent_run_t **self_p);
const char *agent_run_dir(const agent_run_t *self);

//  A request [COMMAND][ID][args] (the first two popped already); *reply
//  the answer to send, or NULL for none
void agent_run_handle(agent_run_t *self, const char *command, int id,
                      zmsg_t *msg, zmsg_t **reply);
//  The next answer a stage gave, [ANSWER][ID][rc][text], or NULL
zmsg_t *agent_run_answer(agent_run_t *self);
//  The stages' pipes, to poll (at most max)
int agent_run_poll_items(agent_run_t *self, zmq_pollitem_t *items, int max);
//  How many stages run now
int agent_run_stages(const agent_run_t *self);

#endif
