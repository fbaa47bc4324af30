/*  hostlist: a stage's host list, names and ranges (see hostlist.h).

    Each entry is cut at its commas; an entry with ".." in it is a range,
    split into its two ends, each a prefix and a number.  Nothing is
    allocated: a range of a million names is counted, not listed.
*/
#include "config/hostlist.h"

#include "base/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHARS                                                             \
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

//  One entry of a list: a name, or a range prefix[first..last] whose
//  numbers are written width digits wide at least
typedef struct {
    const char *text;
    size_t len;
    bool range;
    size_t prefix; //  its length (a range's)
    long first, last;
    int width;
} entry_t;

//  The digits that end text[0..len): where they start (len: none)
static size_t s_digits_at(const char *text, size_t len)
{
    size_t at = len;
    while (at > 0 && text[at - 1] >= '0' && text[at - 1] <= '9')
        at--;
    return at;
}

static bool s_name_ok(const char *text, size_t len, int max)
{
    if (len == 0 || len > (size_t)max)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!strchr(NAME_CHARS, text[i]) || !text[i])
            return false;
    return true;
}

//  A range's two ends, of one prefix and numbers (at most 9 digits)
static bool s_range(entry_t *e, const char *dots, int max)
{
    const char *a = e->text, *b = dots + 2;
    size_t alen = (size_t)(dots - a), blen = e->len - alen - 2;
    size_t ad = s_digits_at(a, alen), bd = s_digits_at(b, blen);
    if (!s_name_ok(a, alen, max) || !s_name_ok(b, blen, max) || ad == alen ||
        bd == blen || ad != bd || strncmp(a, b, ad) != 0 || alen - ad > 9 ||
        blen - bd > 9)
        return false;
    e->range = true;
    e->prefix = ad;
    e->first = strtol(a + ad, NULL, 10);
    e->last = strtol(b + bd, NULL, 10);
    e->width = (int)(alen - ad);
    return e->first <= e->last;
}

//  The entry at *at, then *at past it and its comma (NULL after the
//  last); false at the end.  "h1," has an empty last entry
static bool s_next(const char **at, entry_t *e)
{
    if (!*at)
        return false;
    *e = (entry_t){.text = *at, .len = strcspn(*at, ",")};
    *at = e->text[e->len] == ',' ? e->text + e->len + 1 : NULL;
    const char *dots = strstr(e->text, "..");
    if (dots && dots < e->text + e->len)
        s_range(e, dots, 1 << 20);
    return true;
}

static long s_size(const entry_t *e)
{
    return e->range ? e->last - e->first + 1 : 1;
}

long hostlist_count(const char *list)
{
    entry_t e;
    long n = 0;
    for (const char *at = *list ? list : NULL; s_next(&at, &e);)
        n += s_size(&e);
    return n;
}

void hostlist_name(const char *list, long i, char *out, size_t len)
{
    long n = hostlist_count(list);
    entry_t e;
    out[0] = 0;
    if (n <= 0)
        return;
    i %= n;
    for (const char *at = list; s_next(&at, &e); i -= s_size(&e)) {
        if (i >= s_size(&e))
            continue;
        if (e.range)
            snprintf(out, len, "%.*s%0*ld", (int)e.prefix, e.text, e.width,
                     e.first + i);
        else
            snprintf(out, len, "%.*s", (int)e.len, e.text);
        return;
    }
}

bool hostlist_valid(const char *list, int max, char *why, size_t len)
{
    entry_t e;
    for (const char *at = list; s_next(&at, &e);) {
        const char *dots = strstr(e.text, "..");
        if (dots && dots < e.text + e.len ? !s_range(&e, dots, max)
                                          : !s_name_ok(e.text, e.len, max)) {
            snprintf(why, len, "'%.*s'", (int)e.len, e.text);
            return false;
        }
    }
    return true;
}

//  ------------------------------------------------------------------------
//  Selftest

static bool s_names(const char *list, const char *want)
{
    char got[512] = "", name[64];
    long n = hostlist_count(list);
    for (long i = 0; i < n; i++) {
        hostlist_name(list, i, name, sizeof name);
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s",
                 i ? "," : "", name);
    }
    if (strcmp(got, want))
        fprintf(stderr, "hostlist: '%s' named '%s'\n", list, got);
    return strcmp(got, want) == 0;
}

int hostlist_test(bool verbose)
{
    (void)verbose;
    char why[64];
    CHECK(s_names("h1", "h1") && s_names("h2,h3", "h2,h3"));
    CHECK(s_names("h3..h6,edge", "h3,h4,h5,h6,edge"));
    CHECK(s_names("r01..r03", "r01,r02,r03") &&
          s_names("h9..h11", "h9,h10,h11"));
    CHECK(s_names("a-1..a-2,b", "a-1,a-2,b"));
    CHECK(hostlist_count("") == 0 && hostlist_count("h1..h1000") == 1000);
    char name[32];
    hostlist_name("h3..h100", 97, name, sizeof name);
    CHECK(strcmp(name, "h100") == 0);
    hostlist_name("h3..h100", 98, name, sizeof name); //  in turn: h3 again
    CHECK(strcmp(name, "h3") == 0);
    CHECK(hostlist_valid("h1,h2..h9", 24, why, sizeof why));
    const char *bad[] = {"h1,,h2",
                         ",h1",
                         "h1,",
                         "h 1",
                         "h5..h3",
                         "h1..g2",
                         "h1..h",
                         "h..h3",
                         "..",
                         "h1...h3",
                         "",
                         "a..b..c",
                         "abcdefghijklmnopqrstuvwxy"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (hostlist_valid(bad[i], 24, why, sizeof why))
            fprintf(stderr, "hostlist: '%s' taken\n", bad[i]);
        CHECK(!hostlist_valid(bad[i], 24, why, sizeof why));
    }
    hostlist_valid("h1,h5..h3", 24, why, sizeof why);
    CHECK(strcmp(why, "'h5..h3'") == 0);
    return 0;
}
