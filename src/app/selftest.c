/*  selftest: runs the modules' selftests and prints TAP.

    A module with a selftest ends with NAME_test (bool verbose), which
    returns 0 when all its CHECKs hold; app/selftests.h is the one list of
    them (docs/ARCHITECTURE.md names the modules).  Usage:
    tests/selftest [-v] [MODULE...]
*/
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app/selftests.h"

int main(int argc, char **argv)
{
    bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    int first = verbose ? 2 : 1, failed = 0, n = 0;
    size_t count = sizeof selftests / sizeof selftests[0];
    printf("1..%zu\n", argc > first ? (size_t)(argc - first) : count);
    for (size_t i = 0; i < count; i++) {
        bool wanted = argc <= first;
        for (int a = first; a < argc; a++)
            wanted |= strcmp(argv[a], selftests[i].name) == 0;
        if (!wanted)
            continue;
        int rc = selftests[i].test(verbose);
        printf("%s %d - %s\n", rc == 0 ? "ok" : "not ok", ++n,
               selftests[i].name);
        fflush(stdout);
        failed += rc != 0;
    }
    return failed ? 1 : 0;
}
