/*  plot_reader: one results file read by column name; see plot_reader.h.
*/
#include "report/plot_reader.h"
#include "report/columns.h"

#include "base/check.h"
#include "base/number.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int plot_reader_open(plot_reader_t *self, const char *dir, const char *name,
                     const char *const *wanted, int nwanted, errbuf_t *err)
{
    memset(self, 0, sizeof *self);
    self->wanted = wanted;
    self->nwanted =
        nwanted < PLOT_READER_COLUMNS ? nwanted : PLOT_READER_COLUMNS;
    snprintf(self->path, sizeof self->path, "%s/%s", dir, name);
    if (!(self->file = fopen(self->path, "r")))
        return errno == ENOENT ? 0
                               : err_set(err, "cannot read %s: %s", self->path,
                                         strerror(errno));
    if (!(self->csv = csv_new(self->file, self->path))) {
        plot_reader_close(self);
        return err_set(err, "out of memory");
    }
    return 1;
}

void plot_reader_close(plot_reader_t *self)
{
    csv_destroy(&self->csv);
    if (self->file)
        fclose(self->file);
    self->file = NULL;
}

int plot_reader_next(plot_reader_t *self, errbuf_t *err)
{
    return csv_next(self->csv, err);
}

const char *plot_reader_header(plot_reader_t *self)
{
    for (int c = 0; c < self->nwanted; c++)
        self->col[c] = -1;
    self->nsweep = 0;
    for (int i = 0; i < csv_count(self->csv); i++) {
        const char *name = csv_field(self->csv, i);
        for (int c = 0; c < self->nwanted; c++)
            if (strcmp(name, self->wanted[c]) == 0)
                self->col[c] = i;
        if (strncmp(name, COLUMN_SWEEP_PREFIX, strlen(COLUMN_SWEEP_PREFIX)) ==
                0 &&
            self->nsweep < PLOT_READER_SWEEP)
            self->sweep[self->nsweep++] = i;
    }
    for (int c = 0; c < self->nwanted; c++)
        if (self->col[c] < 0)
            return self->wanted[c];
    return NULL;
}

int plot_reader_rows(plot_reader_t *self, bool optional,
                     int (*row)(void *ctx, errbuf_t *err), void *ctx,
                     errbuf_t *err)
{
    int rc = plot_reader_next(self, err);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return optional ? 0 : err_set(err, "%s: empty", self->path);
    const char *missing = plot_reader_header(self);
    if (missing)
        return optional
                   ? 0
                   : err_set(err, "%s:1: no column %s", self->path, missing);
    while ((rc = plot_reader_next(self, err)) > 0)
        if (row(ctx, err))
            return -1;
    return rc;
}

const char *plot_reader_field(const plot_reader_t *self, int c)
{
    int i = self->col[c];
    return i < csv_count(self->csv) ? csv_field(self->csv, i) : "";
}

int plot_reader_number(const plot_reader_t *self, int c, double *out,
                       errbuf_t *err)
{
    const char *text = plot_reader_field(self, c);
    if (number_parse(text, out))
        return err_set(err, "%s:%d: %s '%.40s' is not a number", self->path,
                       csv_line(self->csv), self->wanted[c], text);
    return 0;
}

void plot_reader_combo(const plot_reader_t *self, char *out, size_t len)
{
    out[0] = 0;
    for (int s = 0; s < self->nsweep; s++) {
        size_t end = strlen(out);
        snprintf(out + end, len - end, "%s%.60s", s ? " " : "",
                 csv_field(self->csv, self->sweep[s]));
    }
}

static int s_chart_at(const void *points, size_t size, int i)
{
    int chart;
    memcpy(&chart, (const char *)points + (size_t)i * size, sizeof chart);
    return chart;
}

int plot_reader_charts(void *points, int n, size_t size,
                       int (*cmp)(const void *, const void *),
                       int (*chart)(void *ctx, int a, int b, errbuf_t *err),
                       void *ctx, errbuf_t *err)
{
    if (n > 0) //  no rows: no array (qsort wants one)
        qsort(points, (size_t)n, size, cmp);
    for (int a = 0, b; a < n; a = b) {
        int index = s_chart_at(points, size, a);
        for (b = a + 1; b < n && s_chart_at(points, size, b) == index;)
            b++;
        if (chart(ctx, a, b, err))
            return -1;
    }
    return 0;
}

int plot_reader_test(bool verbose)
{
    (void)verbose;
    char dir[] = "/tmp/hopbench-plot-reader-XXXXXX", path[64];
    CHECK(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/x.csv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs("size,sweep_engine,hop,sweep_hwm\n64,steerable,1,10\n128,x\n", f);
    fclose(f);
    static const char *const wanted[] = {"hop", "size", "pass"};
    plot_reader_t r;
    errbuf_t err;
    char combo[64];
    double n;
    CHECK(plot_reader_open(&r, dir, "none.csv", wanted, 2, &err) == 0);
    CHECK(plot_reader_open(&r, dir, "x.csv", wanted, 3, &err) == 1);
    CHECK(plot_reader_next(&r, &err) == 1);
    CHECK(strcmp(plot_reader_header(&r), "pass") == 0);
    r.nwanted = 2;
    CHECK(plot_reader_header(&r) == NULL && r.nsweep == 2);
    CHECK(plot_reader_next(&r, &err) == 1);
    plot_reader_combo(&r, combo, sizeof combo);
    CHECK(strcmp(combo, "steerable 10") == 0);
    CHECK(plot_reader_number(&r, 1, &n, &err) == 0 && n == 64);
    CHECK(plot_reader_next(&r, &err) == 1);
    CHECK(strcmp(plot_reader_field(&r, 0), "") == 0);
    CHECK(plot_reader_number(&r, 0, &n, &err) == -1 &&
          strstr(err.msg, "x.csv:3: hop '' is not a number"));
    CHECK(plot_reader_next(&r, &err) == 0);
    plot_reader_close(&r);
    unlink(path);
    rmdir(dir);
    return 0;
}
