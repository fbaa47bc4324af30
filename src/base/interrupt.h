/*  interrupt: SIGINT and SIGTERM end a run cleanly.

    The handler only records which signal came (a signal handler can do
    nothing else safely, so this is the one piece of global state in
    hopbench).  The controller checks it wherever it waits, which is at
    least every 50 ms; stage threads block both signals so that blocking
    calls in the message path are not interrupted.
*/
#ifndef HOPBENCH_INTERRUPT_H
#define HOPBENCH_INTERRUPT_H

void interrupt_install(void);
//  0, or the signal that asked the run to end
int interrupt_signal(void);
//  For stage threads: leave both signals to the controller
void interrupt_block_here(void);

#endif
