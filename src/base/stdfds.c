/*  stdfds: closed standard fds reopened on /dev/null (see stdfds.h).

    fcntl(F_GETFD) tells a closed fd (EBADF) from an open one without
    touching it.  Opening /dev/null returns the lowest free number, which
    is the closed one when 0, 1 and 2 are checked in order; if it is not
    (the open failed, or returned another number), the fd stays as it was.
*/
#include "base/stdfds.h"

#include "base/check.h"

#include <fcntl.h>
#include <unistd.h>

unsigned stdfds_reopen(void)
{
    unsigned closed = 0;
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            continue;
        closed |= 1u << fd;
        int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got >= 0 && got != fd)
            close(got);
    }
    return closed;
}

int stdfds_test(bool verbose)
{
    (void)verbose;
    CHECK(stdfds_reopen() == 0); //  the test runs with all three open
    int saved = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    CHECK(saved >= 0);
    close(STDIN_FILENO);
    CHECK(stdfds_reopen() == STDFDS_IN);
    CHECK(fcntl(STDIN_FILENO, F_GETFD) >= 0);
    char byte;
    CHECK(read(STDIN_FILENO, &byte, 1) == 0); //  /dev/null: at its end
    CHECK(dup2(saved, STDIN_FILENO) == STDIN_FILENO);
    close(saved);
    return 0;
}
