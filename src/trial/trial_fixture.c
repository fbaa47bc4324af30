/*  trial_fixture: a pipeline and a hand-made window for the trial
    selftests; see trial_fixture.h.
*/
#include "trial/trial_fixture.h"

#include <stdlib.h>
#include <string.h>

int trial_fixture_new(trial_fixture_t *self, const char *text)
{
    errbuf_t err;
    memset(self, 0, sizeof *self);
    self->topo = topology_load_text("t.cfg", text, &err);
    self->machine = machine_new_file("numa/vm-2x2.cfg", &err);
    if (!self->topo || !self->machine || topology_validate(self->topo, &err) ||
        !(self->pl = pipeline_new(self->topo, self->machine, &err)) ||
        !(self->w = calloc(1, sizeof *self->w)))
        return -1;
    trial_window_t *w = self->w;
    w->pl = self->pl;
    w->nlinks = trial_links_of(self->pl, w->links);
    if (!(self->rows = calloc((size_t)w->nlinks + 1, sizeof *self->rows)))
        return -1;
    for (int i = 0; i < self->pl->n; i++) {
        self->shared[i] =
            calloc(1, stage_shared_bytes(pipeline_sockets(self->pl, i)));
        if (!self->shared[i])
            return -1;
        int n = pipeline_sockets(self->pl, i);
        self->shared[i]->nsockets = n > 1 ? n : 0;
        w->shared[i] = self->shared[i];
    }
    return 0;
}

void trial_fixture_destroy(trial_fixture_t *self)
{
    for (int i = 0; i < PIPELINE_MAX_INSTANCES; i++)
        free(self->shared[i]);
    free(self->rows);
    free(self->w);
    pipeline_destroy(&self->pl);
    machine_destroy(&self->machine);
    topology_destroy(&self->topo);
}

int trial_fixture_link(const trial_fixture_t *self, int from, int to)
{
    for (int l = 0; l < self->w->nlinks; l++)
        if (self->w->links[l].from == from && self->w->links[l].to == to)
            return l;
    return -1;
}
