/*  sweep: --sweep KEY=V1,V2,... options, and their Cartesian product.

    Each combination is a list of --set assignments applied on top of the
    topology (after the plain --set ones).  KEY is anything --set takes:
    transport, hwm, engine, p1.engine, sub.node, hop2.transport, ...
    Values are split at commas, so a value that itself holds a comma (a
    cpus list, a size list) cannot be swept.
*/
#ifndef HOPBENCH_SWEEP_H
#define HOPBENCH_SWEEP_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "base/limits.h"

#define SWEEP_MAX_KEYS   LIMIT_SWEEP_KEYS
#define SWEEP_MAX_VALUES LIMIT_SWEEP_VALUES
#define SWEEP_MAX_COMBOS LIMIT_SWEEP_COMBOS

typedef struct {
    int nkeys;
    char key[SWEEP_MAX_KEYS][LIMIT_SWEEP_KEY + 1];
    char option[SWEEP_MAX_KEYS][24]; //  what gave it: "--sweep", ...
    int nvalues[SWEEP_MAX_KEYS];
    char value[SWEEP_MAX_KEYS][SWEEP_MAX_VALUES][LIMIT_SWEEP_VALUE + 1];
} sweep_t;

//  specs as 'option' gave them ("--sweep", "--try"): messages name it
int sweep_parse(sweep_t *self, const char *const *specs, int n,
                const char *option, errbuf_t *err);
//  One more key and its values, as 'option' gave them ("--placement
//  all"): messages about them name it
int sweep_add(sweep_t *self, const char *key, const char *const *values,
              int n, const char *option, errbuf_t *err);
//  Is 'key' swept?
bool sweep_has(const sweep_t *self, const char *key);
//  Combinations (1 when nothing is swept)
int sweep_count(const sweep_t *self);
//  The values of combination 'index' (the last key varies fastest)
void sweep_values(const sweep_t *self, int index, const char **values);
//  Combination 'index' as "KEY=VALUE KEY=VALUE" ("" when nothing is swept)
void sweep_describe(const sweep_t *self, int index, char *buf, size_t len);
//  "KEY=VALUE" for key k of combination 'index'
void sweep_assignment(const sweep_t *self, int index, int k, char *buf,
                      size_t len);

int sweep_test(bool verbose);

#endif
