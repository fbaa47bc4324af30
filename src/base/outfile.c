/*  outfile: a file written into a results directory; see outfile.h.
*/
#include "base/outfile.h"

#include "base/check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

FILE *outfile_create(const char *dir, const char *name, errbuf_t *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "w");
    if (!file)
        err_set(err, "cannot write %s: %s", path, strerror(errno));
    return file;
}

int outfile_close(FILE *file, const char *dir, const char *name, int rc,
                  errbuf_t *err)
{
    errno = 0;
    bool failed = ferror(file) != 0;
    failed |= fclose(file) != 0;
    if (failed && rc == 0)
        rc = err_set(err, "cannot write %s/%s: %s", dir, name,
                     errno ? strerror(errno) : "a write failed");
    return rc;
}

int outfile_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    char dir[] = "/tmp/hopbench-outfile-XXXXXX";
    CHECK(mkdtemp(dir));
    FILE *file = outfile_create(dir, "a.csv", &err);
    CHECK(file && fputs("x\n", file) >= 0);
    CHECK(outfile_close(file, dir, "a.csv", 0, &err) == 0);
    CHECK(outfile_create(dir, "no/such/b.csv", &err) == NULL &&
          strstr(err.msg, "cannot write ") && strstr(err.msg, "b.csv"));
    if (access("/dev/full", W_OK) == 0) { //  every write fails there
        file = outfile_create("/dev", "full", &err);
        CHECK(file && fputs("x\n", file) >= 0);
        CHECK(outfile_close(file, "/dev", "full", 0, &err) == -1 &&
              strstr(err.msg, "cannot write /dev/full"));
    }
    char path[64];
    snprintf(path, sizeof path, "%s/a.csv", dir);
    unlink(path);
    rmdir(dir);
    return 0;
}
