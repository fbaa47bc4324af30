/*  hopbench: measure ZeroMQ messages per second per hop through
    publish/subscribe pipelines.  main only dispatches: the command line
    is parsed into cli_t (app/cli.c), whose handler comes from the
    commands' table (app/commands.c); the work is in run (what a topology
    makes, the sweep), trial (one measurement), stage and its roles
    (publisher, proxy, subscriber), placement and report_*.
*/
#include "app/cli.h"
#include "base/actor.h"
#include "base/interrupt.h"
#include "base/stdfds.h"
#include "crew/stage_process.h"

#include <czmq.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

//  Sockets of czmq's context: a link (and its actor's pipe) per host, a
//  mailbox pipe per stage, with room to spare
#define MAIN_MAX_SOCKETS (8 * LIMIT_INSTANCES)

//  Does the command line name stdin ("-") as an input?
static bool s_names_stdin(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (streq(argv[i], "-"))
            return true;
    return false;
}

//  The process's end.  czmq's shutdown closes every socket and context;
//  where a thread was left behind (it did not end within its bound, and
//  that was said where it happened) its sockets are still in use, and
//  closing them under it can abort the process in libzmq: then the
//  process ends without it (_exit: nothing buffered is lost, stdio is
//  flushed first)
static int s_end(int rc)
{
    if (actor_left_behind()) {
        fflush(NULL);
        _exit(rc);
    }
    zsys_shutdown();
    return rc;
}

int main(int argc, char **argv)
{
    //  before libzmq's eventfds can take a closed fd 0, 1 or 2
    if ((stdfds_reopen() & STDFDS_IN) && s_names_stdin(argc, argv)) {
        fprintf(stderr, "hopbench: stdin is closed, and '-' reads it (give "
                        "a file, or redirect: < FILE)\n");
        return 2;
    }
    //  czmq: logs to stderr, and no signal handler of its own
    zsys_handler_set(NULL);
    zsys_init();
    interrupt_install();
    zsys_set_logstream(stderr);
    zsys_set_linger(0);
    //  czmq's context holds a controller's links and mailboxes: a few
    //  sockets per host and per stage on it, past libzmq's default of
    //  1,023 at a few hundred hosts (their files are counted against
    //  RLIMIT_NOFILE before a run starts)
    zsys_set_max_sockets(MAIN_MAX_SOCKETS);
    //  a stage in its own process (crew/stage_child.c), started by a run
    if (argc > 1 && strcmp(argv[1], "stage") == 0)
        return s_end(stage_process_main(argc, argv));
    static cli_t cli;
    errbuf_t err;
    if (cli_parse(argc, argv, &cli, &err)) {
        fprintf(stderr, "hopbench: %s\n", err.msg);
        return 2;
    }
    int rc = cli.handler(&cli);
    //  a signal that ended a wait (reading a FIFO, say) is the status
    if (rc && interrupt_signal())
        rc = 128 + interrupt_signal();
    return s_end(rc);
}
