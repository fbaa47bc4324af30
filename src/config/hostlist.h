/*  hostlist: a stage's host list, `host = h1,h2` or a range `h3..h98`.

        host = broker-1                 one host
        host = h3,h4,h5                 instances on them in turn
        host = h3..h98,edge             h3, h4, ... h98, then edge
        host = r01..r12                 r01, r02, ... r12 (zero-padded)

    A range is two names of one prefix, each ending in a number, the
    first not above the last; it names every number between them, each
    as wide as the first end's digits (r01..r12: two).  The list is read
    where it is used, never copied out: its i-th name, its count, and
    what is wrong with it.  Pure functions of the text.
*/
#ifndef HOPBENCH_HOSTLIST_H
#define HOPBENCH_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

//  How many names the list names (ranges expanded); 0 for ""
long hostlist_count(const char *list);
//  Its i-th name (i modulo the count) into out; "" for ""
void hostlist_name(const char *list, long i, char *out, size_t len);
//  Is it well formed: every entry a name of 1 to max letters, digits, _
//  and -, or a range of two such?  why (len bytes): the entry that is not
bool hostlist_valid(const char *list, int max, char *why, size_t len);

int hostlist_test(bool verbose);

#endif
