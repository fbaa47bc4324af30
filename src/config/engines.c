/*  engines: the engine table's names, meanings and traits (engines.h).  */
#include "config/engines.h"

#include "base/check.h"

#include <stdio.h>
#include <string.h>

#define NAME(id, name, traits, help)   #name,
#define HELP(id, name, traits, help)   help,
#define TRAITS(id, name, traits, help) (traits),

const char *const engines_names[] = {ENGINES(NAME) NULL};
const char *const engines_help[] = {ENGINES(HELP) NULL};
static const unsigned s_traits[] = {ENGINES(TRAITS)};

#undef NAME
#undef HELP
#undef TRAITS

const char *engine_name(int engine)
{
    return engine >= 0 && engine < ENGINE_COUNT ? engines_names[engine] : "?";
}

bool engine_can(int engine, engine_trait_t trait)
{
    return engine >= 0 && engine < ENGINE_COUNT &&
           (s_traits[engine] & trait) == (unsigned)trait;
}

void engines_with(engine_trait_t trait, bool has, char *buf, size_t len)
{
    int n = 0, total = 0;
    for (int e = 0; e < ENGINE_COUNT; e++)
        total += engine_can(e, trait) == has;
    size_t used = 0;
    buf[0] = '\0';
    for (int e = 0; e < ENGINE_COUNT && used < len; e++) {
        if (engine_can(e, trait) != has)
            continue;
        const char *sep = n == 0 ? "" : n == total - 1 ? " or " : ", ";
        used += (size_t)snprintf(buf + used, len - used, "%s%s", sep,
                                 engines_names[e]);
        n++;
    }
}

//  Is name a whole word of list ("a, b or c")?
static bool s_listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *at = strstr(list, name); at; at = strstr(at + 1, name))
        if ((at == list || at[-1] == ' ') &&
            (at[len] == ',' || !at[len] || at[len] == ' '))
            return true;
    return false;
}

int engines_test(bool verbose)
{
    (void)verbose;
    char buf[256];
    //  every row has a name and a meaning, and the lists end
    CHECK(engines_names[ENGINE_COUNT] == NULL &&
          engines_help[ENGINE_COUNT] == NULL);
    for (int e = 0; e < ENGINE_COUNT; e++)
        CHECK(engines_names[e] && *engines_names[e] && engines_help[e] &&
              *engines_help[e]);
    CHECK(strcmp(engine_name(ENGINE_ZPROXY), "zproxy") == 0);
    CHECK(strcmp(engine_name(ENGINE_COUNT), "?") == 0);
    CHECK(!engine_can(-1, TRAIT_SETS_HWM));
    //  what the engines users know can do (docs/GUIDE.md, the man page)
    CHECK(engine_can(ENGINE_FORWARDER, TRAIT_TELLS_SENDERS_APART));
    CHECK(!engine_can(ENGINE_STEERABLE, TRAIT_TELLS_SENDERS_APART));
    CHECK(engine_can(ENGINE_STEERABLE, TRAIT_COUNTS_REQREP));
    CHECK(engine_can(ENGINE_STEERABLE, TRAIT_ANSWERS_BETWEEN_MESSAGES) &&
          !engine_can(ENGINE_FORWARDER, TRAIT_ANSWERS_BETWEEN_MESSAGES));
    CHECK(engine_can(ENGINE_ZPROXY, TRAIT_CZMQ_ACTOR));
    CHECK(!engine_can(ENGINE_ZPROXY, TRAIT_HOLDS_BACKPRESSURE));
    CHECK(!engine_can(ENGINE_ZPROXY, TRAIT_SETS_HWM | TRAIT_CZMQ_ACTOR));
    //  a trait's list names each engine that has it, and only those
    for (int has = 0; has < 2; has++) {
        engines_with(TRAIT_COUNTS_REQREP, has, buf, sizeof buf);
        for (int e = 0; e < ENGINE_COUNT; e++)
            CHECK(s_listed(buf, engine_name(e)) ==
                  (engine_can(e, TRAIT_COUNTS_REQREP) == has));
    }
    //  ...in the words of a sentence
    engines_with(TRAIT_CZMQ_ACTOR | TRAIT_SETS_HWM, true, buf, sizeof buf);
    CHECK(strcmp(buf, "") == 0);
    if (ENGINE_COUNT == 3) {
        engines_with(TRAIT_TELLS_SENDERS_APART, false, buf, sizeof buf);
        CHECK(strcmp(buf, "steerable or zproxy") == 0);
    }
    CHECK(s_listed("a, bc or d", "bc") && !s_listed("a, bc or d", "b"));
    return 0;
}
