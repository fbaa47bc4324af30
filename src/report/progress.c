/*  progress: a status line on a terminal, plain lines elsewhere.  */
#include "report/progress.h"

#include "base/mono.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void s_duration(double seconds, char *buf, size_t len)
{
    int s = (int)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, len, "%dh%02dm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(buf, len, "%dm%02ds", s / 60, s % 60);
    else
        snprintf(buf, len, "%ds", s);
}

void progress_init(progress_t *self, bool quiet, int trials, int ncombos)
{
    memset(self, 0, sizeof *self);
    self->quiet = quiet;
    self->tty = !quiet && isatty(STDERR_FILENO);
    self->start = mono_seconds();
    self->trials = trials;
    self->ncombos = ncombos;
}

void progress_combination(progress_t *self, int combo, const char *text)
{
    self->combo = combo;
    snprintf(self->combo_text, sizeof self->combo_text, "%s", text);
}

void progress_trial(progress_t *self, uint32_t size, int size_index, int nsizes,
                    int repeat, int nrepeat)
{
    if (!self->tty)
        return;
    double elapsed = mono_seconds() - self->start;
    char took[32], left[32] = "?";
    s_duration(elapsed, took, sizeof took);
    if (self->done > 0)
        s_duration(elapsed / self->done * (self->trials - self->done), left,
                   sizeof left);
    fprintf(stderr,
            "\r\033[K[%d/%d%s%s] size %u B (%d/%d) repeat %d/%d  elapsed %s"
            "  ETA %s",
            self->combo, self->ncombos, *self->combo_text ? " " : "",
            self->combo_text, size, size_index, nsizes, repeat, nrepeat, took,
            left);
    fflush(stderr);
}

void progress_trial_done(progress_t *self)
{
    self->done++;
}

void progress_repeats_saved(progress_t *self, int n)
{
    self->trials -= n;
}

void progress_size_done(progress_t *self, uint32_t size)
{
    if (self->quiet || self->tty)
        return;
    fprintf(stderr, "hopbench: %s%ssize %u done (%d/%d trials)\n",
            self->combo_text, *self->combo_text ? " " : "", size, self->done,
            self->trials);
}

void progress_end(progress_t *self)
{
    if (self->tty)
        fputs("\r\033[K", stderr);
}
