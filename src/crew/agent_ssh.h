/*  agent_ssh: start `hopbench agent --once` on a host over OpenSSH, and
    stop it.

        ssh -o BatchMode=yes [-p PORT] DEST REMOTE agent --bind EP --allow - --once

    ssh runs with the user's own keys and ~/.ssh/config (BatchMode: it
    never asks for a password); DEST is the host's name, which
    ~/.ssh/config may map.  The agent reads the controller's public key
    from its stdin (--allow -), makes a certificate for this run and says
    its public key on stdout, which is how the controller learns it: ssh
    has authenticated the host, so the key is the agent's.  The agent's
    stdin stays open for the run; when it closes (the run ended, or the
    controller died) the agent ends.  Nothing of the run's spec goes on
    the command line; the words are the hosts file's and --remote-hopbench,
    checked to hold no shell metacharacters, since sshd hands the command
    to the remote user's shell.  HOPBENCH_SSH names another ssh program
    (tests wrap ssh to add -F).
*/
#ifndef HOPBENCH_AGENT_SSH_H
#define HOPBENCH_AGENT_SSH_H

#include "base/errbuf.h"
#include "config/hosts.h"

typedef struct agent_ssh_s agent_ssh_t;

//  Start the agent of host (its agent endpoint is where it binds); its
//  public key into server_key (41 bytes).  NULL with err ("host h1: ssh:
//  ...", and ssh's last words)
agent_ssh_t *agent_ssh_start(const host_t *host, const char *remote_hopbench,
                             const char *controller_key, double timeout,
                             char *server_key, errbuf_t *err);
//  Close its stdin, wait up to timeout_ms for ssh to end, then kill it
void agent_ssh_stop(agent_ssh_t **self_p, int timeout_ms);

#endif
