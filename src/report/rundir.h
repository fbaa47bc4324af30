/*  rundir: a results directory read back, the one reader of what run,
    search and size wrote there, for report, compare and plot.  The
    writers are elsewhere (resultsdir.c, report_csv.c, columns.c); this
    module only reads, and refuses what is not as they write it.

        DIR/metadata.json   jansson, strict: every field the writer puts
                            there, each of its type
        DIR/NAME.csv        (to come) by column name

    A file that is not what it should be is an error naming the file and
    what is wrong ("DIR/metadata.json:3: '}' expected near ','",
    "DIR/metadata.json: no field \"status\"", "DIR/metadata.json:
    \"tsc_hz\" is a string, not a number"): the commands exit 2 on it.
*/
#ifndef HOPBENCH_RUNDIR_H
#define HOPBENCH_RUNDIR_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "base/jsondoc.h"

//  DIR/metadata.json, read and checked; NULL and err
json_t *rundir_metadata(const char *dir, errbuf_t *err);

int rundir_test(bool verbose);

#endif
