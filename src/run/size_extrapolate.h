/*  size_extrapolate: `hopbench size --extrapolate`, the Universal
    Scalability Law (run/usl.h) fitted to the capacities of the sizing
    rows, over one numeric --try key, and what it predicts of the rate
    the target needs.  Reads the rows; measures nothing.  Its predictions
    are never measurements: they are printed as predicted.
*/
#ifndef HOPBENCH_SIZE_EXTRAPOLATE_H
#define HOPBENCH_SIZE_EXTRAPOLATE_H

#include <stdio.h>

#include "config/sweep.h"
#include "report/report_sizing.h"

typedef struct {
    const sweep_t *tries;     //  --try
    int nfiles;               //  topology files sized
    const sizing_row_t *rows; //  the measured rows
    int n;
    const sizing_target_t *target; //  what they were judged by
} size_extrapolate_t;

//  The fit and its prediction, as lines on out
void size_extrapolate(const size_extrapolate_t *in, FILE *out);

#endif
