/*  readfile: a file the user named, read whole, once (see readfile.h).

    The file is opened with O_NONBLOCK, which a FIFO needs to open at all
    before its writer does; then every read waits in poll, in slices of
    READFILE_SLICE_MS so that a signal caught between two checks ends the
    wait soon.  Linux reports a FIFO that no writer has opened yet as
    neither readable nor hung up, so poll waits for the writer; a read of
    0 bytes after poll said readable is the end of the file.
*/
#include "base/readfile.h"

#include "base/check.h"
#include "base/interrupt.h"
#include "base/limits.h"
#include "base/mono.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READFILE_SLICE_MS 100

static int s_open(const char *path, errbuf_t *err)
{
    int fd = strcmp(path, "-") == 0
                 ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return err_set(err, "%s: %s", path, strerror(errno));
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return err_set(err, "%s: a directory, not a file", path);
    }
    return fd;
}

//  Until fd is readable: 0, or -1 after the deadline or a signal
static int s_ready(int fd, const char *path, double wait, double deadline,
                   errbuf_t *err)
{
    while (!interrupt_signal()) {
        double left = deadline - mono_seconds();
        int ms = left <= 0                         ? 0
                 : left * 1000 < READFILE_SLICE_MS ? (int)(left * 1000) + 1
                                                   : READFILE_SLICE_MS;
        struct pollfd item = {.fd = fd, .events = POLLIN};
        int rc = poll(&item, 1, ms);
        if (rc > 0)
            return 0;
        if (rc < 0 && errno != EINTR)
            return err_set(err, "%s: cannot wait for it: %s", path,
                           strerror(errno));
        if (rc == 0 && left <= 0)
            return err_set(err,
                           "%s: no end of file within %g s (a FIFO or pipe "
                           "that nobody writes and closes?)",
                           path, wait);
    }
    return err_set(err, "%s: interrupted by %s while reading it", path,
                   interrupt_signal() == SIGINT ? "SIGINT" : "SIGTERM");
}

//  Everything fd gives, up to LIMIT_FILE_BYTES: its length, or -1
static ssize_t s_read_all(int fd, const char *path, double wait, char *text,
                          errbuf_t *err)
{
    size_t len = 0, cap = (size_t)LIMIT_FILE_BYTES + 1;
    double deadline = mono_seconds() + wait;
    while (len < cap) {
        if (s_ready(fd, path, wait, deadline, err))
            return -1;
        ssize_t got = read(fd, text + len, cap - len);
        if (got == 0)
            return (ssize_t)len;
        if (got > 0)
            len += (size_t)got;
        else if (errno != EAGAIN && errno != EINTR)
            return err_set(err, "%s: cannot read it: %s", path,
                           strerror(errno));
    }
    return err_set(err,
                   "%s: larger than %d bytes (LIMIT_FILE_BYTES, "
                   "docs/LIMITS.md)",
                   path, LIMIT_FILE_BYTES);
}

//  The line (1-based) that at is on
static int s_line_of(const char *text, const char *at)
{
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

char *readfile(const char *path, double wait, size_t *len, errbuf_t *err)
{
    int fd = s_open(path, err);
    if (fd < 0)
        return NULL;
    char *text = malloc((size_t)LIMIT_FILE_BYTES + 2);
    ssize_t got = text ? s_read_all(fd, path, wait, text, err)
                       : err_set(err, "%s: out of memory", path);
    close(fd);
    if (got < 0) {
        free(text);
        return NULL;
    }
    text[got] = 0;
    const char *nul = memchr(text, 0, (size_t)got);
    if (nul) {
        err_set(err, "%s:%d: a NUL byte (not a text file)", path,
                s_line_of(text, nul));
        free(text);
        return NULL;
    }
    if (len)
        *len = (size_t)got;
    return text;
}

//  ---------------------------------------------------------------------
//  Selftest

int readfile_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    size_t len;
    char *text = readfile("docs/LIMITS.md", 1, &len, &err);
    CHECK(text && len > 0 && strlen(text) == len);
    free(text);
    CHECK(!readfile("/nonexistent/x.cfg", 1, &len, &err));
    CHECK(strstr(err.msg, "/nonexistent/x.cfg: No such file or directory"));
    CHECK(!readfile("docs", 1, &len, &err));
    CHECK(strstr(err.msg, "docs: a directory, not a file"));
    CHECK(!readfile("/dev/zero", 1, &len, &err));
    CHECK(strstr(err.msg, "/dev/zero: larger than 1048576 bytes"));
    //  A pipe whose writer has written and not closed: the wait ends
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], "a = 1\n", 6) == 6);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
    double start = mono_seconds();
    CHECK(!readfile(path, 0.2, &len, &err));
    CHECK(mono_seconds() - start < 2);
    CHECK(strstr(err.msg, "no end of file within 0.2 s"));
    //  ... and once closed, what it wrote is the file
    CHECK(write(fds[1], "b = 2\n", 6) == 6);
    close(fds[1]);
    text = readfile(path, 1, &len, &err);
    CHECK(text && strcmp(text, "b = 2\n") == 0);
    free(text);
    close(fds[0]);
    //  A NUL byte, at its line
    char tmp[] = "/tmp/hopbench-readfile.XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0 && write(fd, "a\nb\n\0c\n", 7) == 7);
    close(fd);
    CHECK(!readfile(tmp, 1, &len, &err));
    CHECK(strstr(err.msg, ":3: a NUL byte (not a text file)"));
    unlink(tmp);
    return 0;
}
