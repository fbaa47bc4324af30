/*  progress: what a run tells stderr while it works.

    On a terminal: one line, rewritten in place, with the combination,
    size, repetition, elapsed time and an estimate of what is left.  On a
    pipe: one plain line per finished size.  With --quiet: nothing.
*/
#ifndef HOPBENCH_PROGRESS_H
#define HOPBENCH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    bool tty, quiet;
    double start;
    int trials, done;   //  planned and finished trials of the whole run
    int combo, ncombos; //  1-based
    char combo_text[256];
} progress_t;

void progress_init(progress_t *self, bool quiet, int trials, int ncombos);
void progress_combination(progress_t *self, int combo, const char *text);
//  A trial starts
void progress_trial(progress_t *self, uint32_t size, int size_index, int nsizes,
                    int repeat, int nrepeat);
//  A trial ended (ok or not); a size ended
void progress_trial_done(progress_t *self);
void progress_size_done(progress_t *self, uint32_t size);
//  A size stopped n trials short of those planned (--precision was met)
void progress_repeats_saved(progress_t *self, int n);
//  Clear the terminal line before other output
void progress_end(progress_t *self);

#endif
