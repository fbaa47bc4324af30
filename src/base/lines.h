/*  lines: a list of text lines in a fixed buffer (the warnings of a trial,
    and of a run's metadata), never cut in the middle of a line.

    A line goes in whole, with its '\n', or not at all: one that does not
    fit is counted instead, and lines_close ends the list with "... and N
    more warnings" (room for that last line is always kept).  No
    allocation; the buffer is the caller's.
*/
#ifndef HOPBENCH_LINES_H
#define HOPBENCH_LINES_H

#include <stdbool.h>
#include <stddef.h>

//  The room lines_close needs, kept free by lines_add
#define LINES_TRAILER 64

//  line (no '\n' of its own) added to buf (size len, a C string) if it
//  fits whole with LINES_TRAILER to spare: true; else *more counted
bool lines_add(char *buf, size_t len, const char *line, int *more);
//  When more > 0: "... and N more WHAT" as the last line ("... and 1 more
//  warning" for one)
void lines_close(char *buf, size_t len, int more, const char *what);
//  Is line (without its '\n') one of buf's lines?
bool lines_has(const char *buf, const char *line);

int lines_test(bool verbose);

#endif
