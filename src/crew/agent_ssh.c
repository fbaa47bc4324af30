/*  agent_ssh: an agent started over ssh, and stopped (see agent_ssh.h).

    ssh's stdin, stdout and stderr are pipes of ours.  We write the
    controller's public key and an empty line, then wait (bounded) for
    the agent's first line, "hopbench agent: serving ... public key KEY".
    If it does not come, ssh's stderr says why.
*/
#define _GNU_SOURCE
#include "crew/agent_ssh.h"

#include "base/mono.h"

#include <czmq.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct agent_ssh_s {
    pid_t pid;
    int in, out, err; //  ssh's stdin, stdout, stderr (our ends)
};

//  A word that reaches the remote shell: no metacharacter in it
static bool s_plain(const char *word)
{
    size_t len = strlen(word);
    return len > 0 &&
           strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789/._-+:@,=") == len;
}

static int s_spawn(agent_ssh_t *self, char **argv, errbuf_t *err)
{
    int in[2], out[2], errs[2];
    if (pipe2(in, O_CLOEXEC))
        return err_set(err, "pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC)) {
        close(in[0]), close(in[1]);
        return err_set(err, "pipe: %s", strerror(errno));
    }
    if (pipe2(errs, O_CLOEXEC)) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return err_set(err, "pipe: %s", strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errs[1], 2);
    int rc = posix_spawnp(&self->pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]), close(out[1]), close(errs[1]);
    self->in = in[1], self->out = out[0], self->err = errs[0];
    if (rc)
        return err_set(err, "cannot start %s: %s", argv[0], strerror(rc));
    return 0;
}

//  ssh's last line on stderr, for a message
static void s_last_words(agent_ssh_t *self, char *buf, size_t len)
{
    char text[4096];
    size_t used = 0;
    struct pollfd item = {self->err, POLLIN, 0};
    while (used < sizeof text - 1 && poll(&item, 1, 200) > 0) {
        ssize_t n = read(self->err, text + used, sizeof text - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    text[used] = 0;
    while (used && text[used - 1] == '\n')
        text[--used] = 0;
    const char *last = strrchr(text, '\n');
    last = last ? last + 1 : text;
    size_t n = strlen(last) < len ? strlen(last) : len - 1;
    memcpy(buf, last, n);
    buf[n] = 0;
}

//  The agent's first line: its public key
static int s_key(agent_ssh_t *self, double timeout, char *key)
{
    char line[512];
    size_t used = 0;
    double until = mono_seconds() + timeout;
    while (mono_seconds() < until && used < sizeof line - 1) {
        struct pollfd item = {self->out, POLLIN, 0};
        if (poll(&item, 1, 100) <= 0)
            continue;
        ssize_t n = read(self->out, line + used, 1);
        if (n <= 0)
            return -1;
        if (line[used] == '\n')
            break;
        used++;
    }
    line[used] = 0;
    const char *at = strstr(line, "public key ");
    if (!at || strlen(at + 11) < 40)
        return -1;
    snprintf(key, 41, "%.40s", at + 11);
    return 0;
}

//  Our key to the agent's stdin, its key from its first line
static int s_exchange(agent_ssh_t *self, const char *controller_key,
                      double timeout, char *server_key)
{
    char keys[64];
    int n = snprintf(keys, sizeof keys, "%s\n\n", controller_key);
    signal(SIGPIPE, SIG_IGN); //  an ssh that died: write fails, said below
    if (write(self->in, keys, (size_t)n) != n)
        return -1;
    return s_key(self, timeout + 5, server_key);
}

static void s_end(agent_ssh_t *self, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 20) {
        if (waitpid(self->pid, NULL, WNOHANG) == self->pid)
            return;
        usleep(20000);
    }
    kill(self->pid, SIGKILL);
    waitpid(self->pid, NULL, 0);
}

static void s_close(agent_ssh_t *self)
{
    int fds[] = {self->in, self->out, self->err};
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(self);
}

agent_ssh_t *agent_ssh_start(const host_t *host, const char *remote_hopbench,
                             const char *controller_key, double timeout,
                             char *server_key, errbuf_t *err)
{
    const char *remote = remote_hopbench ? remote_hopbench : "hopbench";
    if (!s_plain(host->name) || !s_plain(remote) || !s_plain(host->agent)) {
        err_set(err,
                "host %s: --ssh: '%s', '%s' and '%s' go to the remote "
                "shell: letters, digits and /._-+:@,= only",
                host->name, host->name, remote, host->agent);
        return NULL;
    }
    agent_ssh_t *self = calloc(1, sizeof *self);
    const char *ssh = getenv("HOPBENCH_SSH");
    char connect[64];
    snprintf(connect, sizeof connect, "ConnectTimeout=%d",
             timeout < 1 ? 1 : (int)timeout);
    char *argv[] = {(char *)(ssh && *ssh ? ssh : "ssh"),
                    "-o",
                    "BatchMode=yes",
                    "-o",
                    connect,
                    (char *)host->name,
                    (char *)remote,
                    "agent",
                    "--bind",
                    (char *)host->agent,
                    "--allow",
                    "-",
                    "--once",
                    NULL};
    errbuf_t why;
    if (self)
        self->in = self->out = self->err = -1;
    if (!self || s_spawn(self, argv, &why)) {
        err_set(err, "host %s: --ssh: %s", host->name,
                self ? why.msg : "out of memory");
        if (self)
            s_close(self);
        return NULL;
    }
    if (s_exchange(self, controller_key, timeout, server_key)) {
        char words[300];
        s_last_words(self, words, sizeof words);
        err_set(err, "host %s: ssh %s %s agent ... did not start the agent%s%s",
                host->name, host->name, remote, words[0] ? ": " : "", words);
        kill(self->pid, SIGTERM);
        s_end(self, 2000);
        s_close(self);
        return NULL;
    }
    return self;
}

void agent_ssh_stop(agent_ssh_t **self_p, int timeout_ms)
{
    agent_ssh_t *self = *self_p;
    if (!self)
        return;
    close(self->in); //  the agent ends when its stdin does
    self->in = -1;
    s_end(self, timeout_ms);
    s_close(self);
    *self_p = NULL;
}
