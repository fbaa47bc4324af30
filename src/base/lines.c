/*  lines: whole lines in a fixed buffer, a count for the rest (see
    lines.h).  */
#include "base/lines.h"

#include "base/check.h"

#include <stdio.h>
#include <string.h>

bool lines_add(char *buf, size_t len, const char *line, int *more)
{
    size_t used = strlen(buf), need = strlen(line) + 1;
    if (len < LINES_TRAILER || used + need + 1 > len - LINES_TRAILER) {
        (*more)++;
        return false;
    }
    memcpy(buf + used, line, need - 1);
    buf[used + need - 1] = '\n';
    buf[used + need] = 0;
    return true;
}

void lines_close(char *buf, size_t len, int more, const char *what)
{
    size_t used = strlen(buf), n = strlen(what);
    if (more == 1 && n > 1 && what[n - 1] == 's')
        n--; //  "1 more warning"
    if (more > 0 && used < len)
        snprintf(buf + used, len - used, "... and %d more %.*s\n", more, (int)n,
                 what);
}

bool lines_has(const char *buf, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = buf; *p;) {
        size_t len = strcspn(p, "\n");
        if (len == n && strncmp(p, line, n) == 0)
            return true;
        p += len + (p[len] == '\n');
    }
    return false;
}

//  ---------------------------------------------------------------------
//  Selftest: 200 lines into a buffer that holds some, none cut

int lines_test(bool verbose)
{
    (void)verbose;
    char buf[1024] = "";
    int more = 0, kept = 0;
    for (int i = 0; i < 200; i++) {
        char line[64];
        snprintf(line, sizeof line, "stage s%d thread ZMQbg/Reaper: warned", i);
        kept += lines_add(buf, sizeof buf, line, &more);
    }
    CHECK(kept > 10 && kept + more == 200);
    CHECK(strlen(buf) <= sizeof buf - LINES_TRAILER);
    lines_close(buf, sizeof buf, more, "warnings");
    CHECK(strlen(buf) < sizeof buf);
    //  every line whole: each ends with "warned", the last is the count
    int lines = 0;
    for (const char *p = buf; *p; p = strchr(p, '\n') + 1, lines++) {
        size_t len = strcspn(p, "\n");
        CHECK(p[len] == '\n');
        if (lines < kept)
            CHECK(len > 6 && strncmp(p + len - 6, "warned", 6) == 0);
    }
    CHECK(lines == kept + 1);
    char last[64];
    snprintf(last, sizeof last, "... and %d more warnings\n", more);
    CHECK(strcmp(buf + strlen(buf) - strlen(last), last) == 0);
    CHECK(lines_has(buf, "stage s0 thread ZMQbg/Reaper: warned"));
    CHECK(!lines_has(buf, "stage s0 thread ZMQbg/Reaper: warne"));
    CHECK(!lines_has(buf, "stage s199 thread ZMQbg/Reaper: warned"));
    //  one more: singular; none: nothing added
    char one[256] = "a\n";
    lines_close(one, sizeof one, 1, "warnings");
    CHECK(strcmp(one, "a\n... and 1 more warning\n") == 0);
    lines_close(one, sizeof one, 0, "warnings");
    CHECK(strcmp(one, "a\n... and 1 more warning\n") == 0);
    //  a line longer than the room: counted, the buffer unchanged
    char small[80] = "";
    int over = 0;
    CHECK(!lines_add(small, sizeof small, "0123456789012345678901234567890",
                     &over));
    CHECK(over == 1 && small[0] == 0);
    return 0;
}
