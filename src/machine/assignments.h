/*  assignments: every distinct way to put a pipeline's stages on a
    machine's nodes (placement = all).

    Two assignments are the same when one becomes the other by renaming
    nodes in a way the machine cannot tell apart: a permutation of its
    nodes that keeps every distance, each node's CPUs and cores (as far
    as this process may use them), and the node of every fixed stage (a
    stage with its own node or cpus).  On a two-socket box with no stage
    fixed, "pub on 0, sub on 1" and "pub on 1, sub on 0" are one study
    point, measured once.

    Of each class the lexicographically smallest (by node, in pipeline
    order) stands for it, and the list is in that order: so the first
    stage is on the first node whenever it can be.  Counting uses
    Burnside's lemma (the mean, over the renamings, of the assignments
    each leaves alone), so a study too large to run is refused without
    being listed.  Pure: no libnuma, no I/O.
*/
#ifndef HOPBENCH_ASSIGNMENTS_H
#define HOPBENCH_ASSIGNMENTS_H

#include <stdbool.h>

#include "base/errbuf.h"
#include "machine/machine.h"

#define ASSIGNMENTS_MAX_RENAMINGS 40320 //  8!: eight nodes all alike

typedef struct {
    int nstages;
    const int *fixed; //  each stage's node id, -1: free to go anywhere
} assign_request_t;

typedef struct {
    double count;  //  distinct assignments
    double total;  //  assignments before renaming (nodes ^ free stages)
    int renamings; //  node permutations that change nothing
    int free;      //  stages that move
} assign_count_t;

//  How many there are; -1 with err when the machine has more renamings
//  than ASSIGNMENTS_MAX_RENAMINGS, or a fixed node it does not have
int assignments_count(const machine_t *machine, const assign_request_t *request,
                      assign_count_t *out, errbuf_t *err);
//  The first 'max' of them: nodes[a * nstages + s] is stage s's node id
//  in assignment a; returns how many were written, -1 with err
int assignments_list(const machine_t *machine, const assign_request_t *request,
                     int max, int *nodes, errbuf_t *err);
//  Which nodes are alike, for people: "nodes 0 and 1 are alike", "nodes
//  0-3 are alike", "no two nodes are alike"
void assignments_alike(const machine_t *machine,
                       const assign_request_t *request, char *buf, size_t len);

int assignments_test(bool verbose);

#endif
