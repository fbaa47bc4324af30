/*  outfile: a file a command writes into its results directory (a CSV,
    a chart's data, the gnuplot script, a page).

        FILE *file = outfile_create(dir, "sizing.csv", &err);
        if (!file)
            return -1;
        ...
        return outfile_close(file, dir, "sizing.csv", 0, &err);

    Created with an error that names it; closed with a check that every
    write reached it: a full disk shows at ferror or fclose, as an error
    naming the file, never as a short file and exit 0.
*/
#ifndef HOPBENCH_OUTFILE_H
#define HOPBENCH_OUTFILE_H

#include "base/errbuf.h"

#include <stdio.h>

//  DIR/NAME opened for writing (truncated); NULL and err naming it
FILE *outfile_create(const char *dir, const char *name, errbuf_t *err);
//  Close it; rc when rc is already an error, else -1 and err when a
//  write failed, else 0
int outfile_close(FILE *file, const char *dir, const char *name, int rc,
                  errbuf_t *err);

int outfile_test(bool verbose);

#endif
