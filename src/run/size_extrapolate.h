/*  size_extrapolate: `hopbench size --extrapolate`, the scalability law
    (run/usl.h) fitted to the capacities the sizing rows measured, over
    one --try key that is a resource of the deployment: io_threads (every
    stage's) or a broker's (PROXY.io_threads).  A count of publishers or
    subscribers is demand, not a resource, and is refused before anything
    runs, as is their io_threads (the load's), a key that is not a count
    (a proxy's count is not one: it runs once), or fewer than 3 values.

    One fit per message size, from that size's rows whose capacity was
    measured on trials that were not starved (a starved point, or one not
    measured, is left out and said); at least 3 points (USL_MIN_POINTS),
    or no fit and why.  Each fit has its residuals and the range of k it
    was fitted on; its answer for the target (rate x (1 + headroom)) is
    the smallest k the law carries it at, marked beyond the range when it
    is, never a k that was measured: when a measured row of that size
    carries the target, or the law names a k that was measured, that row
    answers and nothing is predicted.  Reads the rows (capacity, starved,
    size, tried, number, verdict, why); measures nothing.
*/
#ifndef HOPBENCH_SIZE_EXTRAPOLATE_H
#define HOPBENCH_SIZE_EXTRAPOLATE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/errbuf.h"
#include "config/sweep.h"
#include "config/topology.h"
#include "report/report_sizing.h"
#include "report/sizing_fit.h"

typedef struct {
    const sweep_t *tries;     //  --try
    int nfiles;               //  topology files sized
    const sizing_row_t *rows; //  the measured rows
    int n;
    const sizing_target_t *target; //  what they were judged by
} size_extrapolate_t;

//  Before anything runs: one file, one --try key of whole counts >= 1, at
//  least 3 of them, a resource of the candidates' topologies (topos[]:
//  n of them, NULL where the checks refused one).  -1 and why
int size_extrapolate_check(const sweep_t *tries, int nfiles,
                           topology_t *const *topos, int n, errbuf_t *err);
//  The fits, one per size in the rows' order, into *fits (free() it):
//  their count, or -1 (out of memory)
int size_extrapolate_fit(const size_extrapolate_t *in, sizing_fit_t **fits);
//  The fits as lines on out, and sizing_fit.csv in dir
int size_extrapolate_report(const sizing_fit_t *fits, int n, FILE *out,
                            const char *dir, errbuf_t *err);

int size_extrapolate_test(bool verbose);

#endif
