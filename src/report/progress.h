/*  progress: what a run tells stderr while it works.

    On a terminal: one line, rewritten in place, with the combination,
    size, repetition, elapsed time and an estimate of what is left.  On a
    pipe: one plain line per finished size, "(5/12 trials)".  With
    --quiet: nothing.

    The total is the plan's: every repeat (and its traced twin), every
    trial a search may take (search_most_trials, its twin, latency_at's).
    Where the plan is a bound (a search, --precision), a size that ends
    short of it gives the rest back, and until the run's last size the
    line says "of at most": the count never passes its total, and the
    last line's total is what ran.  A trial is counted once, with the
    run of it again that a stalled or void window takes.
*/
#ifndef HOPBENCH_PROGRESS_H
#define HOPBENCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    bool tty, quiet;
    bool bound; //  the total is a bound (a search, --precision)
    double start;
    int trials, done;   //  planned and finished trials of the whole run
    int combo, ncombos; //  1-based
    char combo_text[256];
} progress_t;

//  trials: the plan's total; bound: true when it is the most it may take
void progress_init(progress_t *self, bool quiet, int trials, bool bound,
                   int ncombos);
void progress_combination(progress_t *self, int combo, const char *text);
//  A trial starts
void progress_trial(progress_t *self, uint32_t size, int size_index, int nsizes,
                    int repeat, int nrepeat);
//  A trial ended (ok or not); a size ended
void progress_trial_done(progress_t *self);
void progress_size_done(progress_t *self, uint32_t size);
//  A size took n trials fewer than the plan gave it (--precision was
//  met, a search settled early)
void progress_fewer(progress_t *self, int n);
//  "(5/12 trials)" or "(5 of at most 12 trials)"
void progress_count(const progress_t *self, char *buf, size_t len);
//  Clear the terminal line before other output
void progress_end(progress_t *self);

int progress_test(bool verbose);

#endif
