/*  session_meta: what metadata.json says of a session, filled as it
    goes: the command line, the TSC's rate, each host's agent, the
    encrypted hops, what each publisher instance sent in each trial
    ("published"), and the warnings: each printed on stderr once and
    kept whole while metadata has room (base/lines.h); the rest counted
    once each, and said at the end as "... and N more warnings" in both
    places.  What a plan knows (the sweep, the modes) it adds through
    session_meta and session_note_mode; the status and the error are set by session.c at the
    end; session_files.c writes the file.  The text helpers are pure, and
    tested here.
*/
#include "run/session_internal.h"

#include "base/check.h"
#include "base/lines.h"
#include "base/text.h"
#include "machine/tsc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  FNV-1a: a dropped warning's hash, to count it once
static uint64_t s_hash(const char *text)
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

//  Is h in the set?  If not, added (while there is room): false
static bool s_seen(uint64_t *set, int *n, int most, uint64_t h)
{
    for (int i = 0; i < *n; i++)
        if (set[i] == h)
            return true;
    if (*n < most)
        set[(*n)++] = h;
    return false;
}

//  Each warning once: on stderr and in the metadata while it has room,
//  else counted (session_meta_end says how many more)
void session_warn(session_t *self, const char *warnings)
{
    int most = (int)(sizeof self->dropped / sizeof self->dropped[0]);
    for (const char *p = warnings; *p;) {
        size_t len = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p += len + (p[len] == '\n');
        if (lines_has(self->meta.warnings, line))
            continue;
        int more = 0;
        if (lines_add(self->meta.warnings, sizeof self->meta.warnings, line,
                      &more)) {
            progress_end(&self->progress);
            fprintf(stderr, "hopbench: warning: %s\n", line);
        } else if (!s_seen(self->dropped, &self->ndropped, most, s_hash(line)))
            self->warnings_more++;
    }
}

void session_meta_end(session_t *self)
{
    char last[LINES_TRAILER] = "";
    if (self->warnings_more == 0)
        return;
    lines_close(last, sizeof last, self->warnings_more, "warnings");
    fprintf(stderr, "hopbench: warning: %s", last);
    lines_close(self->meta.warnings, sizeof self->meta.warnings,
                self->warnings_more, "warnings");
}

//  name added to a comma-separated list, unless it is there
static void s_add_name(char *list, size_t size, const char *name)
{
    size_t used = strlen(list);
    char padded[80];
    snprintf(padded, sizeof padded, ",%s,", list);
    char want[24];
    snprintf(want, sizeof want, ",%s,", name);
    if (!strstr(padded, want))
        snprintf(list + used, size - used, "%s%s", used ? "," : "", name);
}

void session_note_mode(session_t *self, const char *mode)
{
    s_add_name(self->meta.mode, sizeof self->meta.mode, mode);
}

//  metadata's "hosts": each host's agent as it described itself
static void s_note_hosts(session_t *self, const fleet_t *fleet)
{
    if (fleet_size(fleet) &&
        !(self->meta.hosts =
              calloc((size_t)fleet_size(fleet), sizeof *self->meta.hosts)))
        return; //  metadata without its hosts, rather than no run
    for (int i = 0; i < fleet_size(fleet); i++) {
        agent_link_t *link = fleet_link(fleet, fleet_name(fleet, i));
        if (!link)
            continue;
        run_host_t *h = &self->meta.hosts[self->meta.nhosts++];
        const agent_info_t *info = agent_link_info(link);
        TEXT_SET(h->name, fleet_name(fleet, i));
        TEXT_SET(h->agent, fleet_host(fleet, i)->agent);
        TEXT_SET(h->hopbench, info->hopbench);
        TEXT_SET(h->libzmq, info->libzmq);
        TEXT_SET(h->czmq, info->czmq);
        TEXT_SET(h->hostname, info->hostname);
        TEXT_SET(h->kernel, info->kernel);
        TEXT_SET(h->cpu_model, info->cpu_model);
        h->protocol = info->protocol;
        h->numa_nodes = info->numa_nodes;
        h->clock_offset_ns = info->offset_ns;
        h->clock_uncertainty_ns = info->uncertainty_ns;
    }
}

void session_meta_init(session_t *self)
{
    self->meta.tsc_hz =
        tsc_hz(self->meta.tsc_source, sizeof self->meta.tsc_source);
    s_note_hosts(self, self->o.fleet);
    snprintf(self->meta.command_line, sizeof self->meta.command_line, "%s",
             self->o.command_line ? self->o.command_line : "");
    snprintf(self->meta.status, sizeof self->meta.status, "running");
    resultsdir_utc(self->meta.started, sizeof self->meta.started, false);
}

//  Is 'word' one of the space-separated words of 'text'?
static bool s_has_word(const char *text, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
            return true;
    return false;
}

//  metadata's "curve": the hops that are encrypted ("hop2 hop3")
void session_note_curve(session_t *self, const pipeline_t *pl)
{
    for (int h = 0; h < pl->nhops; h++) {
        char hop[16];
        snprintf(hop, sizeof hop, "hop%d", h + 1);
        if (pl->hops[h].server_public[0] && !s_has_word(self->meta.curve, hop))
            snprintf(self->meta.curve + strlen(self->meta.curve),
                     sizeof self->meta.curve - strlen(self->meta.curve), "%s%s",
                     self->meta.curve[0] ? " " : "", hop);
    }
}

//  metadata's "published": a trial's entry, what each publisher instance
//  sent (the counts expected is computed from: docs/TOPICS.md), appended
//  (left out when out of memory)
void session_meta_published(session_t *self, const trial_result_t *trial)
{
    const char *names[LIMIT_ORIGINS];
    for (int o = 0; o < trial->norigins; o++) {
        int id = pipeline_origin_instance(self->current, o);
        names[o] = id >= 0 ? self->current->inst[id].name : "?";
    }
    resultsdir_published(&self->meta, trial->size, trial->repeat,
                         self->info.nsweep, self->info.sweep_key,
                         self->info.sweep_value, trial->norigins, names,
                         trial->published);
}

//  ---------------------------------------------------------------------
//  Selftest: the text helpers

int session_meta_test(bool verbose)
{
    (void)verbose;
    CHECK(s_has_word("hop1 hop2 hop12", "hop2"));
    CHECK(s_has_word("hop1 hop2 hop12", "hop12"));
    CHECK(!s_has_word("hop1 hop12", "hop2"));
    CHECK(!s_has_word("hop12", "hop1"));
    CHECK(!s_has_word("", "hop1"));
    char list[64] = "";
    s_add_name(list, sizeof list, "flood");
    s_add_name(list, sizeof list, "capacity");
    s_add_name(list, sizeof list, "flood");
    CHECK(strcmp(list, "flood,capacity") == 0);
    s_add_name(list, sizeof list, "cap");
    CHECK(strcmp(list, "flood,capacity,cap") == 0);
    //  a dropped warning counts once, however often it comes back
    uint64_t set[2];
    int n = 0;
    CHECK(!s_seen(set, &n, 2, s_hash("stage a: one")));
    CHECK(!s_seen(set, &n, 2, s_hash("stage a: two")));
    CHECK(s_seen(set, &n, 2, s_hash("stage a: one")));
    CHECK(n == 2 && s_hash("a") != s_hash("b"));
    CHECK(!s_seen(set, &n, 2, s_hash("stage a: three")) && n == 2);
    return 0;
}
