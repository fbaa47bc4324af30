/*  report_tree: a topology's graph drawn as text, sources first, each
    link with its number and transport (see report_tree.c).  */
#ifndef HOPBENCH_REPORT_TREE_H
#define HOPBENCH_REPORT_TREE_H

#include <stdio.h>

#include "config/topology.h"

void report_tree(FILE *out, const topology_t *topo);

#endif
