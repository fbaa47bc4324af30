/*  shape: a topology's stages as a polytree (see shape.h).

    Loops are found with union-find as links are added: a link whose two
    stages are already joined closes one, and is then classified by
    walking the links there are.  Everything else is a walk over at most
    LIMIT_STAGES stages and links: no query is on a hot path.
*/
#include "config/shape.h"

#include "base/check.h"

#include <string.h>

void shape_init(shape_t *self, int nstages)
{
    memset(self, 0, sizeof *self);
    self->nstages = nstages < SHAPE_MAX_STAGES ? nstages : SHAPE_MAX_STAGES;
    for (int s = 0; s < SHAPE_MAX_STAGES; s++)
        self->parent[s] = s;
}

static int s_root(const shape_t *self, int s)
{
    while (self->parent[s] != s)
        s = self->parent[s];
    return s;
}

bool shape_reaches(const shape_t *self, int a, int b)
{
    if (a == b)
        return true;
    for (int l = 0; l < self->nlinks; l++)
        if (self->link[l].up == a && shape_reaches(self, self->link[l].down, b))
            return true;
    return false;
}

int shape_path(const shape_t *self, int a, int b, int *stages, int max)
{
    if (max < 1)
        return 0;
    stages[0] = a;
    if (a == b)
        return 1;
    for (int l = 0; l < self->nlinks; l++) {
        if (self->link[l].up != a)
            continue;
        int n = shape_path(self, self->link[l].down, b, stages + 1, max - 1);
        if (n > 0)
            return n + 1;
    }
    return 0;
}

//  A stage that reaches both up and down (down by a path of its own)
static int s_diamond_top(const shape_t *self, int up, int down)
{
    for (int x = 0; x < self->nstages; x++)
        if (shape_reaches(self, x, up) && shape_reaches(self, x, down))
            return x;
    return -1;
}

int shape_add(shape_t *self, int up, int down, shape_refusal_t *why)
{
    memset(why, 0, sizeof *why);
    if (up == down || shape_reaches(self, down, up)) {
        why->problem = SHAPE_CYCLE;
        why->npath = shape_path(self, down, up, why->path, SHAPE_MAX_STAGES);
        return -1;
    }
    if (s_root(self, up) == s_root(self, down)) {
        why->top = s_diamond_top(self, up, down);
        why->problem = why->top >= 0 ? SHAPE_DIAMOND : SHAPE_LOOP;
        return -1;
    }
    if (self->nlinks == SHAPE_MAX_LINKS) {
        why->problem = SHAPE_FULL;
        return -1;
    }
    self->link[self->nlinks++] = (shape_link_t){up, down};
    self->parent[s_root(self, up)] = s_root(self, down);
    return 0;
}

int shape_next_in(const shape_t *self, int s, int after)
{
    for (int l = after + 1; l < self->nlinks; l++)
        if (self->link[l].down == s)
            return l;
    return -1;
}

int shape_next_out(const shape_t *self, int s, int after)
{
    for (int l = after + 1; l < self->nlinks; l++)
        if (self->link[l].up == s)
            return l;
    return -1;
}

int shape_inputs(const shape_t *self, int s)
{
    int n = 0;
    for (int l = shape_next_in(self, s, -1); l >= 0;
         l = shape_next_in(self, s, l))
        n++;
    return n;
}

int shape_outputs(const shape_t *self, int s)
{
    int n = 0;
    for (int l = shape_next_out(self, s, -1); l >= 0;
         l = shape_next_out(self, s, l))
        n++;
    return n;
}

int shape_link_towards(const shape_t *self, int a, int b)
{
    for (int l = shape_next_in(self, b, -1); l >= 0;
         l = shape_next_in(self, b, l))
        if (shape_reaches(self, a, self->link[l].up))
            return l;
    return -1;
}

bool shape_is_chain(const shape_t *self)
{
    if (self->nlinks != self->nstages - 1)
        return false;
    for (int l = 0; l < self->nlinks; l++)
        if (self->link[l].up != l || self->link[l].down != l + 1)
            return false;
    return true;
}

//  Longest path from a source, in a polytree: a stage's tier is one more
//  than its deepest upstream's (repeated until nothing changes: at most
//  one pass per tier)
static void s_tiers(shape_t *self)
{
    memset(self->tier, 0, sizeof self->tier);
    for (bool changed = true; changed;) {
        changed = false;
        for (int l = 0; l < self->nlinks; l++) {
            const shape_link_t *link = &self->link[l];
            if (self->tier[link->down] < self->tier[link->up] + 1) {
                self->tier[link->down] = self->tier[link->up] + 1;
                changed = true;
            }
        }
    }
}

//  Distance from the first stage of each part, directions ignored: a
//  breadth-first walk over the links both ways
static void s_distances(shape_t *self)
{
    int queue[SHAPE_MAX_STAGES], head = 0, tail = 0;
    for (int s = 0; s < self->nstages; s++)
        self->distance[s] = -1;
    for (int first = 0; first < self->nstages; first++) {
        if (self->distance[first] >= 0)
            continue;
        self->distance[first] = 0;
        queue[tail++] = first;
        while (head < tail) {
            int s = queue[head++];
            for (int l = 0; l < self->nlinks; l++) {
                int up = self->link[l].up, down = self->link[l].down;
                int other = up == s ? down : down == s ? up : -1;
                if (other >= 0 && self->distance[other] < 0) {
                    self->distance[other] = self->distance[s] + 1;
                    queue[tail++] = other;
                }
            }
        }
    }
}

//  Does link a come before link b in number order?
static bool s_before(const shape_t *self, int a, int b)
{
    int da = self->link[a].down, db = self->link[b].down;
    if (self->tier[da] != self->tier[db])
        return self->tier[da] < self->tier[db];
    if (da != db)
        return da < db;
    return a < b;
}

void shape_finish(shape_t *self, int *perm)
{
    int order[SHAPE_MAX_LINKS];
    shape_link_t sorted[SHAPE_MAX_LINKS];
    s_tiers(self);
    s_distances(self);
    for (int l = 0; l < self->nlinks; l++) { //  insertion sort: stable
        int k = l;
        while (k > 0 && s_before(self, l, order[k - 1])) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = l;
    }
    for (int k = 0; k < self->nlinks; k++) {
        sorted[k] = self->link[order[k]];
        if (perm)
            perm[k] = order[k];
    }
    memcpy(self->link, sorted, (size_t)self->nlinks * sizeof *sorted);
}

//  ------------------------------------------------------------------------

//  A fan-in of two edges into a core, written west, edge-west, east,
//  edge-east, core, sub (stages 0..5)
static int s_test_fanin(void)
{
    shape_t shape;
    shape_refusal_t why;
    int perm[SHAPE_MAX_LINKS];
    shape_init(&shape, 6);
    CHECK(shape_add(&shape, 0, 1, &why) == 0);
    CHECK(shape_add(&shape, 2, 3, &why) == 0);
    CHECK(shape_add(&shape, 4, 5, &why) == 0); //  core -> sub, written first
    CHECK(shape_add(&shape, 1, 4, &why) == 0);
    CHECK(shape_add(&shape, 3, 4, &why) == 0);
    shape_finish(&shape, perm);
    CHECK(shape.tier[0] == 0 && shape.tier[1] == 1 && shape.tier[4] == 2);
    CHECK(shape.tier[5] == 3 && shape.tier[2] == 0);
    //  sources first: west -> edge-west, east -> edge-east, the edges into
    //  the core, the core into sub
    CHECK(shape.link[0].up == 0 && shape.link[1].up == 2);
    CHECK(shape.link[2].up == 1 && shape.link[3].up == 3);
    CHECK(shape.link[4].up == 4 && perm[4] == 2);
    CHECK(shape_inputs(&shape, 4) == 2 && shape_outputs(&shape, 4) == 1);
    CHECK(shape_reaches(&shape, 2, 5) && !shape_reaches(&shape, 2, 1));
    CHECK(shape_link_towards(&shape, 2, 4) == 3);
    CHECK(shape_link_towards(&shape, 0, 4) == 2);
    int path[8];
    CHECK(shape_path(&shape, 2, 5, path, 8) == 4 && path[2] == 4);
    CHECK(!shape_is_chain(&shape));
    //  adjacent stages are one apart, directions ignored
    for (int l = 0; l < shape.nlinks; l++) {
        int d = shape.distance[shape.link[l].up] -
                shape.distance[shape.link[l].down];
        CHECK(d == 1 || d == -1);
    }
    return 0;
}

int shape_test(bool verbose)
{
    (void)verbose;
    CHECK(s_test_fanin() == 0);
    shape_t shape;
    shape_refusal_t why;
    //  a chain keeps its order
    shape_init(&shape, 4);
    for (int s = 0; s < 3; s++)
        CHECK(shape_add(&shape, s, s + 1, &why) == 0);
    shape_finish(&shape, NULL);
    CHECK(shape_is_chain(&shape) && shape.tier[3] == 3);
    //  a cycle: 3 -> 1 closes 1 -> 2 -> 3
    CHECK(shape_add(&shape, 3, 1, &why) == -1 && why.problem == SHAPE_CYCLE);
    CHECK(why.npath == 3 && why.path[0] == 1 && why.path[2] == 3);
    CHECK(shape_add(&shape, 2, 2, &why) == -1 && why.problem == SHAPE_CYCLE);
    //  a diamond: 0 -> 1 -> 3 and 0 -> 2 -> 3
    shape_init(&shape, 4);
    CHECK(shape_add(&shape, 0, 1, &why) == 0);
    CHECK(shape_add(&shape, 0, 2, &why) == 0);
    CHECK(shape_add(&shape, 1, 3, &why) == 0);
    CHECK(shape_add(&shape, 2, 3, &why) == -1);
    CHECK(why.problem == SHAPE_DIAMOND && why.top == 0);
    //  a loop that is neither: 0 -> 2, 1 -> 2, 1 -> 3, then 0 -> 3
    shape_init(&shape, 4);
    CHECK(shape_add(&shape, 0, 2, &why) == 0);
    CHECK(shape_add(&shape, 1, 2, &why) == 0);
    CHECK(shape_add(&shape, 1, 3, &why) == 0);
    CHECK(shape_add(&shape, 0, 3, &why) == -1 && why.problem == SHAPE_LOOP);
    return 0;
}
