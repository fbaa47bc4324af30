/*  trial_giveup: has a search's trial already failed, so that its window
    may end now?  A function of the window so far (its opening, the
    latest counters, the sinks' gaps), the spec, and when the sources
    were told to run (how, in trial_giveup.c).
*/
#ifndef HOPBENCH_TRIAL_GIVEUP_H
#define HOPBENCH_TRIAL_GIVEUP_H

#include "trial/trial.h"
#include "trial/trial_window.h"

//  Has a subscriber proven more lost than spec->give_up allows of the
//  whole trial, by 'now' (w->last: the counters then)?
bool trial_give_up(const trial_window_t *w, const trial_spec_t *spec,
                   double go_t, double now);

#endif
