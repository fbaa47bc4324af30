/*  cpuset: a fixed-size set of CPU numbers, and its numactl list syntax.

    The parser accepts what numactl accepts for absolute CPU lists: "N",
    "A-B", comma lists of those, "all", and a leading "!" for the
    complement (within the universe).  Every CPU named must be in the
    universe: that is how a described machine says which CPUs exist.
*/
#include "machine/cpuset.h"

#include "base/check.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void cpuset_clear(cpuset_t *set)
{
    memset(set, 0, sizeof *set);
}

void cpuset_add(cpuset_t *set, int cpu)
{
    if (cpu >= 0 && cpu < CPUSET_MAX)
        set->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static void s_remove(cpuset_t *set, int cpu)
{
    if (cpu >= 0 && cpu < CPUSET_MAX)
        set->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

bool cpuset_has(const cpuset_t *set, int cpu)
{
    return cpu >= 0 && cpu < CPUSET_MAX &&
           (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int cpuset_count(const cpuset_t *set)
{
    int n = 0;
    for (size_t i = 0; i < CPUSET_MAX / 64; i++)
        n += __builtin_popcountll(set->bits[i]);
    return n;
}

bool cpuset_empty(const cpuset_t *set)
{
    return cpuset_count(set) == 0;
}

bool cpuset_subset(const cpuset_t *inner, const cpuset_t *outer)
{
    for (size_t i = 0; i < CPUSET_MAX / 64; i++)
        if (inner->bits[i] & ~outer->bits[i])
            return false;
    return true;
}

void cpuset_union(cpuset_t *into, const cpuset_t *other)
{
    for (size_t i = 0; i < CPUSET_MAX / 64; i++)
        into->bits[i] |= other->bits[i];
}

//  A word at a time: placement walks sets of 1024 CPUs for every instance
int cpuset_next(const cpuset_t *set, int after)
{
    int cpu = after < 0 ? 0 : after + 1;
    for (size_t i = (size_t)cpu / 64; cpu < CPUSET_MAX;
         i++, cpu = (int)i * 64) {
        uint64_t word = set->bits[i] >> (cpu % 64);
        if (word)
            return cpu + __builtin_ctzll(word);
    }
    return -1;
}

int cpuset_format(const cpuset_t *set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int cpu = cpuset_next(set, -1); cpu >= 0;) {
        int last = cpu;
        while (cpuset_has(set, last + 1))
            last++;
        int n = last > cpu ? snprintf(buf + used, len - used, "%s%d-%d",
                                      used ? "," : "", cpu, last)
                           : snprintf(buf + used, len - used, "%s%d",
                                      used ? "," : "", cpu);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
        cpu = cpuset_next(set, last);
    }
    return (int)used;
}

//  One number; -1 if the text does not start with a digit
static long s_number(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    long value = strtol(*p, &end, 10);
    *p = end;
    return value > CPUSET_MAX ? CPUSET_MAX : value;
}

static int s_parse_item(const char **p, const cpuset_t *universe, cpuset_t *out,
                        const char *text, errbuf_t *err)
{
    long first = s_number(p), last = first;
    if (first < 0)
        return err_set(err, "cpu list '%s': expected a CPU number at '%s'",
                       text, *p);
    if (**p == '-') {
        (*p)++;
        last = s_number(p);
        if (last < 0)
            return err_set(err, "cpu list '%s': expected a CPU number at '%s'",
                           text, *p);
        if (last < first)
            return err_set(err, "cpu list '%s': range %ld-%ld runs backwards",
                           text, first, last);
    }
    for (long cpu = first; cpu <= last; cpu++) {
        if (!cpuset_has(universe, (int)cpu))
            return err_set(err, "cpu list '%s': CPU %ld does not exist", text,
                           cpu);
        cpuset_add(out, (int)cpu);
    }
    return 0;
}

int cpuset_parse(const char *text, const cpuset_t *universe, cpuset_t *out,
                 errbuf_t *err)
{
    cpuset_clear(out);
    const char *p = text;
    bool invert = *p == '!';
    if (invert)
        p++;
    if (strcmp(p, "all") == 0)
        *out = *universe;
    else {
        if (*p == 0)
            return err_set(err, "cpu list '%s' is empty", text);
        while (true) {
            if (s_parse_item(&p, universe, out, text, err))
                return -1;
            if (*p == 0)
                break;
            if (*p++ != ',')
                return err_set(err, "cpu list '%s': unexpected '%c'", text,
                               p[-1]);
        }
    }
    if (invert) {
        for (int cpu = 0; cpu < CPUSET_MAX; cpu++) {
            if (cpuset_has(universe, cpu) && !cpuset_has(out, cpu))
                cpuset_add(out, cpu);
            else
                s_remove(out, cpu);
        }
    }
    return 0;
}

int cpuset_test(bool verbose)
{
    (void)verbose;
    cpuset_t universe, set;
    errbuf_t err;
    char buf[256];
    cpuset_clear(&universe);
    for (int cpu = 0; cpu < 56; cpu++)
        cpuset_add(&universe, cpu);

    CHECK(cpuset_parse("0-13,28-41", &universe, &set, &err) == 0);
    CHECK(cpuset_count(&set) == 28);
    CHECK(cpuset_has(&set, 41) && !cpuset_has(&set, 14));
    cpuset_format(&set, buf, sizeof buf);
    CHECK(strcmp(buf, "0-13,28-41") == 0);

    CHECK(cpuset_parse("3", &universe, &set, &err) == 0);
    cpuset_format(&set, buf, sizeof buf);
    CHECK(strcmp(buf, "3") == 0);
    CHECK(cpuset_next(&set, -1) == 3 && cpuset_next(&set, 3) == -1);

    CHECK(cpuset_parse("!0-53", &universe, &set, &err) == 0);
    cpuset_format(&set, buf, sizeof buf);
    CHECK(strcmp(buf, "54-55") == 0);

    CHECK(cpuset_parse("all", &universe, &set, &err) == 0);
    CHECK(cpuset_count(&set) == 56);

    //  Bad lists say what is wrong
    CHECK(cpuset_parse("56", &universe, &set, &err) == -1);
    CHECK(strstr(err.msg, "CPU 56 does not exist"));
    CHECK(cpuset_parse("5-2", &universe, &set, &err) == -1);
    CHECK(strstr(err.msg, "backwards"));
    CHECK(cpuset_parse("1,,2", &universe, &set, &err) == -1);
    CHECK(cpuset_parse("", &universe, &set, &err) == -1);
    CHECK(cpuset_parse("x", &universe, &set, &err) == -1);
    CHECK(cpuset_parse("1;2", &universe, &set, &err) == -1);
    CHECK(cpuset_parse("99999999999999999999", &universe, &set, &err) == -1);

    cpuset_clear(&set);
    cpuset_format(&set, buf, sizeof buf);
    CHECK(buf[0] == 0 && cpuset_empty(&set));
    return 0;
}
