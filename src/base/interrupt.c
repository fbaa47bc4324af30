/*  interrupt: record SIGINT/SIGTERM for the controller (see interrupt.h).  */
#include "base/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t s_signal;

static void s_handler(int sig)
{
    s_signal = sig;
}

void interrupt_install(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = s_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL); //  no SA_RESTART: waits end early
    sigaction(SIGTERM, &action, NULL);
}

int interrupt_signal(void)
{
    return s_signal;
}

void interrupt_block_here(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}
