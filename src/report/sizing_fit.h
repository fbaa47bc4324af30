/*  sizing_fit: what `hopbench size --extrapolate` fitted, shown.  A fit
    per message size of the scalability law (run/usl.h) over one --try
    key that is a resource (io_threads, a broker's), made from the
    candidates whose capacity was measured on trials that were not
    starved; its residuals, the range of k it was fitted on (where it is
    valid), and what it says of the target: the k it predicts, marked
    beyond the range when it is, or the measured row that answers
    instead.  Fitting is run/size_extrapolate.c's; these functions only
    print: the lines after the sizing table, sizing_fit.csv (its columns
    are the table columns_sizing_fit, report/columns_fit.c) and the
    "fits" of sizing.json.

        sizing_fit_t            one size
          point[]               a row per candidate of that size: fitted,
                                or left out (starved, not measured)
          answer                one row: predicted, answered by a
                                measured row, the law's peak below the
                                target, or no fit
*/
#ifndef HOPBENCH_SIZING_FIT_H
#define HOPBENCH_SIZING_FIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/jsondoc.h"
#include "base/limits.h"

#define SIZING_FIT_POINTS LIMIT_SWEEP_VALUES

typedef enum {
    FIT_FITTED,      //  measured, not starved: a point of the fit
    FIT_STARVED,     //  measured on a starved trial: left out
    FIT_UNMEASURED,  //  no capacity measured (not tried, does not fit)
    FIT_PREDICTED,   //  the k the law gives the target: not measured
    FIT_ANSWERED,    //  a measured row carries the target: it answers
    FIT_BEYOND_PEAK, //  the law peaks below the target
    FIT_NONE         //  no fit (too few points)
} sizing_fit_kind_t;

extern const char *const sizing_fit_kinds[];

typedef struct {
    sizing_fit_kind_t kind;
    double k;        //  the key's value, -1: none
    int candidate;   //  its sizing.csv number, -1: none
    double capacity; //  msgs/s: measured (a point), the law's (an
                     //  answer), -1: none
    double fitted;   //  the law at k, -1: no fit
    double residual; //  capacity - fitted (FIT_FITTED only)
    bool beyond;     //  FIT_PREDICTED: k outside kmin..kmax
    char why[200];   //  the reason, in words ("" for a fitted point)
} sizing_fit_point_t;

typedef struct sizing_fit {
    uint32_t size;
    char key[64]; //  the --try key, "broker.io_threads"
    int npoints;
    sizing_fit_point_t point[SIZING_FIT_POINTS];
    sizing_fit_point_t answer;
    //  the fit: law "" when there is none
    char law[8]; //  "USL", or "Amdahl" (kappa held at 0: 3 points)
    int nfitted; //  its points
    int params;  //  lambda, sigma (and kappa)
    double lambda, sigma, kappa; //  -1: no fit
    double se;                   //  the residuals' standard error, msgs/s, -1
    double kmin, kmax;           //  the k it was fitted on, -1
    double need; //  what the target needs: rate x (1 + headroom)
} sizing_fit_t;

//  The lines after the sizing table: per size, the fit and its
//  residuals, what it left out, its answer
void report_fit_lines(FILE *out, const sizing_fit_t *fits, int n);
//  sizing_fit.csv: a row per point and an answer row per size
void report_fit_csv(FILE *out, const sizing_fit_t *fits, int n);
//  The fits as a JSON array (sizing.json's "fits"): an object per size
//  with the fit's columns of sizing_fit.csv and its "rows" (the rows'
//  columns); NULL when out of memory
json_t *report_fit_json(const sizing_fit_t *fits, int n);

int sizing_fit_test(bool verbose);

#endif
