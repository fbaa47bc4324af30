/*  crew: start and end a pipeline's stage threads (see crew.h).  */
#include "crew/crew.h"

#include "crew/stage_process.h"

#include <stdlib.h>

crew_t *crew_new(pipeline_t *pl, const char *config, const char *ipc_dir,
                 errbuf_t *err)
{
    crew_t *self = calloc(1, sizeof *self);
    self->pl = pl;
    for (int i = 0; i < pl->n; i++) {
        bool own = pl->inst[i].params.process == PROCESS_OWN;
        self->stage[i] = own ? remote_new(pl, i, config, ipc_dir, err)
                             : stage_new(pl, i, NULL, err);
        if (!self->stage[i]) {
            crew_destroy(&self, 1000);
            return NULL;
        }
    }
    return self;
}

//  Sharers of a context first, its owner (who terminates it) last
int crew_destroy(crew_t **self_p, int timeout_ms)
{
    crew_t *self = *self_p;
    int rc = 0;
    if (!self)
        return 0;
    for (int i = self->pl->n - 1; i >= 0; i--)
        if (self->stage[i] && stage_destroy(&self->stage[i], timeout_ms))
            rc = -1;
    if (rc == 0)
        free(self);
    *self_p = NULL;
    return rc;
}
