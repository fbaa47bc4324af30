/*  progress: a status line on a terminal, plain lines elsewhere.  */
#include "report/progress.h"

#include "base/check.h"
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

void progress_init(progress_t *self, bool quiet, int trials, bool bound,
                   int ncombos)
{
    memset(self, 0, sizeof *self);
    self->quiet = quiet;
    self->bound = bound;
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

void progress_fewer(progress_t *self, int n)
{
    self->trials -= n > 0 ? n : 0;
}

void progress_count(const progress_t *self, char *buf, size_t len)
{
    if (self->bound && self->done < self->trials)
        snprintf(buf, len, "(%d of at most %d trials)", self->done,
                 self->trials);
    else
        snprintf(buf, len, "(%d/%d trials)", self->done, self->trials);
}

void progress_size_done(progress_t *self, uint32_t size)
{
    if (self->quiet || self->tty)
        return;
    char count[64];
    progress_count(self, count, sizeof count);
    fprintf(stderr, "hopbench: %s%ssize %u done %s\n", self->combo_text,
            *self->combo_text ? " " : "", size, count);
}

void progress_end(progress_t *self)
{
    if (self->tty)
        fputs("\r\033[K", stderr);
}

//  ------------------------------------------------------------------------
//  Selftest: a plan of two searched sizes of at most 26 trials each

int progress_test(bool verbose)
{
    (void)verbose;
    progress_t p;
    char count[64];
    progress_init(&p, true, 52, true, 1);
    for (int t = 0; t < 17; t++)
        progress_trial_done(&p);
    progress_fewer(&p, 26 - 17);
    progress_count(&p, count, sizeof count);
    CHECK(strcmp(count, "(17 of at most 43 trials)") == 0);
    for (int t = 0; t < 8; t++)
        progress_trial_done(&p);
    progress_fewer(&p, 26 - 8);
    progress_count(&p, count, sizeof count);
    CHECK(strcmp(count, "(25/25 trials)") == 0);
    //  a plan that is exact says so all along
    progress_init(&p, true, 4, false, 1);
    progress_trial_done(&p);
    progress_count(&p, count, sizeof count);
    CHECK(strcmp(count, "(1/4 trials)") == 0);
    progress_fewer(&p, -3); //  never more than planned
    CHECK(p.trials == 4);
    return 0;
}
