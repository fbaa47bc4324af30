/*  csv: the one reader of the CSV files hopbench writes and reads back
    (results.csv, latency.csv), as RFC 4180 has them.

        csv_t *csv = csv_new(file, "results.csv");
        while ((rc = csv_next(csv, &err)) > 0)
            for (int i = 0; i < csv_count(csv); i++)
                use(csv_field(csv, i));
        csv_destroy(&csv);

    A record's fields are split in place and stay valid until the next
    csv_next.  A quoted field may hold commas, doubled quotes and line
    breaks; a quote inside an unquoted field is an ordinary character.  LF
    and CRLF both end a record; blank lines are skipped; a UTF-8 byte
    order mark before the first record is dropped.  No limit on a record's
    length or its number of fields: memory that cannot be had is an error,
    like a read error or a quote never closed, never a crash.  The reader
    does not own the stream.
*/
#ifndef HOPBENCH_CSV_H
#define HOPBENCH_CSV_H

#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"

typedef struct csv_s csv_t;

//  A reader of 'file'; 'name' starts its error messages ("dir/x.csv:7:
//  ...").  NULL when out of memory
csv_t *csv_new(FILE *file, const char *name);
void csv_destroy(csv_t **self_p);
//  The next record: 1, 0 at the end of the file, or -1 and err
int csv_next(csv_t *self, errbuf_t *err);
//  The current record's fields
int csv_count(const csv_t *self);
const char *csv_field(const csv_t *self, int index);
//  The line the current record starts on, 1 for the first
int csv_line(const csv_t *self);
//  Did the current record end with a line break?  The last one of a file
//  cut short does not
bool csv_ended(const csv_t *self);

int csv_test(bool verbose);

#endif
