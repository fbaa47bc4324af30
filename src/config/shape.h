/*  shape: which stage feeds which, as a graph.

        west x3 --1--> edge-west --3--+
                                      +--> core --5--> sub
        east x3 --2--> edge-east --4--+

    A topology's stages are the nodes and its links (hops) the edges, each
    from an upstream stage to a downstream one.  A shape is a polytree: its
    links, taken without their direction, make no loop, so between any two
    stages there is at most one path, a publisher's messages reach each
    subscriber once, and every stage can be told which link brings it a
    given publisher's messages.  Links are added in the order the file
    writes them; the one that would close a loop is refused and said to be
    a cycle (a path back to itself), a diamond (two paths from one stage
    to another: duplicates) or some other loop.

    Once complete, shape_finish numbers the links sources first: by the
    tier of their downstream stage (the longest path to it from a stage
    with no upstream), then in file order of that stage, then in the order
    its links were written.  A chain keeps its file order: hop 1 starts at
    the publisher.  Pure: stage and link indices in, answers out.
*/
#ifndef HOPBENCH_SHAPE_H
#define HOPBENCH_SHAPE_H

#include <stdbool.h>

#include "base/limits.h"

#define SHAPE_MAX_STAGES LIMIT_STAGES
#define SHAPE_MAX_LINKS  (LIMIT_STAGES - 1) //  a polytree: stages - 1 at most

typedef struct {
    int up, down; //  stage indices
} shape_link_t;

typedef struct {
    int nstages, nlinks;
    shape_link_t link[SHAPE_MAX_LINKS];
    //  shape_finish: longest path from a source (stages with no upstream
    //  are tier 0), and the distance from the first stage of its part of
    //  the graph, directions ignored (adjacent stages differ by one)
    int tier[SHAPE_MAX_STAGES];
    int distance[SHAPE_MAX_STAGES];
    int parent[SHAPE_MAX_STAGES]; //  union-find: which part of the graph
} shape_t;

//  Why a link was refused
typedef enum {
    SHAPE_CYCLE,   //  down already reaches up: path[] runs down ... up
    SHAPE_DIAMOND, //  stage 'top' reaches down already, and up too
    SHAPE_LOOP,    //  up and down are joined already, some other way
    SHAPE_FULL     //  more links than a polytree of the stages can have
} shape_problem_t;

typedef struct {
    shape_problem_t problem;
    int top; //  SHAPE_DIAMOND
    int npath;
    int path[SHAPE_MAX_STAGES]; //  SHAPE_CYCLE
} shape_refusal_t;

void shape_init(shape_t *self, int nstages);
//  0, or -1 with why filled and nothing added
int shape_add(shape_t *self, int up, int down, shape_refusal_t *why);
//  Tiers and distances, and the links in number order: perm[k] is the
//  index link k had before (perm may be NULL)
void shape_finish(shape_t *self, int *perm);

//  Does a reach b along links (a == b counts)?
bool shape_reaches(const shape_t *self, int a, int b);
//  The next link into / out of stage s after link 'after' (-1 to start),
//  -1 when there is none
int shape_next_in(const shape_t *self, int s, int after);
int shape_next_out(const shape_t *self, int s, int after);
int shape_inputs(const shape_t *self, int s);
int shape_outputs(const shape_t *self, int s);
//  The stages on the one path from a to b, a first; how many (0: none)
int shape_path(const shape_t *self, int a, int b, int *stages, int max);
//  The link on that path that enters b, -1 when a does not reach b (or
//  a == b)
int shape_link_towards(const shape_t *self, int a, int b);
//  Is it a chain: every stage but the first fed by the one before it?
bool shape_is_chain(const shape_t *self);

int shape_test(bool verbose);

#endif
