/*  compare: the command; see compare.h.

    Reads the sides, pairs every side after the first with the first,
    prints in the format asked, and with --plot writes compare.csv and
    the delta charts into the output directory.  A pair without one
    matched row is printed, and then exit status 1: nothing to compare.
*/
#include "report/compare_internal.h"

#include "report/resultsdir.h"

#include "base/limits.h"
#include "base/outfile.h"

#include <stdlib.h>
#include <string.h>

static int s_check(const compare_options_t *o, errbuf_t *err)
{
    if (o->by && o->ndirs != 1)
        return err_set(err,
                       "compare --by %s takes one results directory "
                       "(with a sweep of %s), not %d",
                       o->by, o->by, o->ndirs);
    if (!o->by && o->ndirs < 2)
        return err_set(err, "compare needs two results directories or more "
                            "(A B [C...]), or one and --by KEY");
    return 0;
}

//  --plot: compare.csv and the charts in the output directory
static int s_plot(const compare_options_t *o, const comparison_t *cmps, int n,
                  FILE *listing, errbuf_t *err)
{
    char dir[COMPARE_LONG];
    if (resultsdir_create(o->output, "compare", dir, sizeof dir, err))
        return 2;
    FILE *csv = outfile_create(dir, "compare.csv", err);
    if (!csv)
        return 2;
    compare_print_csv(csv, cmps, n, true);
    if (outfile_close(csv, dir, "compare.csv", 0, err))
        return 2;
    return compare_plot(cmps, n, dir, listing, err);
}

//  A comparison without one matched row says nothing: exit 1, naming it
static int s_matched(const comparison_t *cmp, errbuf_t *err)
{
    for (int r = 0; r < cmp->nrows; r++)
        if (cmp->rows[r].a && cmp->rows[r].b)
            return 0;
    err_set(err,
            "nothing to compare: no row of %.200s matches one of %.200s "
            "(by topology, pattern, mode, size, hop, from, to and sweep)",
            cmp->other->label, cmp->base->label);
    return 1;
}

static int s_compare(const compare_options_t *o, side_t *sides, int nsides,
                     FILE *out, errbuf_t *err)
{
    comparison_t *cmps = calloc((size_t)nsides, sizeof *cmps);
    double alpha = o->alpha > 0 ? o->alpha : 0.05;
    bool by_mode = o->by && strcmp(o->by, "mode") == 0;
    int n = 0, rc = cmps ? 0 : err_set(err, "out of memory");
    for (int i = 1; rc == 0 && i < nsides; i++, n++)
        rc = compare_match(&cmps[n], &sides[0], &sides[i], alpha, by_mode, err);
    if (rc == 0 && o->format == COMPARE_CSV)
        compare_print_csv(out, cmps, n, true);
    else if (rc == 0 && o->format == COMPARE_JSON)
        rc = compare_print_json(out, cmps, n, err);
    else if (rc == 0)
        compare_print_table(out, cmps, n);
    int status = rc ? 2 : 0;
    for (int i = 0; i < n && status == 0; i++)
        status = s_matched(&cmps[i], err);
    if (status == 0 && o->plot)
        status =
            s_plot(o, cmps, n, o->format == COMPARE_TABLE ? out : stderr, err);
    for (int i = 0; i < n; i++)
        compare_free(&cmps[i]);
    free(cmps);
    return status;
}

//  The sides read and compared: the exit status
static int s_results(const compare_options_t *options, rundir_t *const *runs,
                     FILE *out, errbuf_t *err)
{
    for (int i = 1; i < options->ndirs; i++)
        if (compare_is_sizing(runs[i]) != compare_is_sizing(runs[0])) {
            bool sizing = compare_is_sizing(runs[i]);
            err_set(err,
                    "%s is a sizing run and %s is not: compare sizing "
                    "runs with sizing runs",
                    options->dirs[sizing ? i : 0],
                    options->dirs[sizing ? 0 : i]);
            return 2;
        }
    if (compare_is_sizing(runs[0]))
        return compare_sizing(options, runs, out, err);
    side_t *sides = NULL;
    int nsides = 0, status = 2;
    if (compare_read(options, runs, &sides, &nsides, err) == 0) {
        if (nsides < 2)
            err_set(err, "%s: --by %s has %d value%s: nothing to compare",
                    options->dirs[0], options->by, nsides,
                    nsides == 1 ? "" : "s");
        else
            status = s_compare(options, sides, nsides, out, err);
    }
    compare_sides_free(sides, nsides);
    return status;
}

int compare_results(const compare_options_t *options, FILE *out, errbuf_t *err)
{
    if (s_check(options, err))
        return 2;
    rundir_t *runs[LIMIT_COMPARE_RUNS] = {NULL};
    int status = options->ndirs > LIMIT_COMPARE_RUNS ? 2 : 0;
    if (status)
        err_set(err, "compare takes at most %d results directories, not %d",
                LIMIT_COMPARE_RUNS, options->ndirs);
    for (int i = 0; status == 0 && i < options->ndirs; i++)
        if (!(runs[i] = rundir_open(options->dirs[i], err)))
            status = 2;
    if (status == 0)
        status = s_results(options, runs, out, err);
    for (int i = 0; i < options->ndirs && i < LIMIT_COMPARE_RUNS; i++)
        rundir_destroy(&runs[i]);
    return status;
}
