/*  topics: the traffic model of topics (see topics.h).

    Randomness is splitmix64 of the seed and an index, so every stage and
    the controller get the same tables without sharing anything but the
    keys.  Tables are built once per combination, outside any timed loop:
    sorting is fine here.
*/
#include "config/topics.h"

#include "base/check.h"
#include "base/number.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  ------------------------------------------------------------------------
//  topic_order

int topics_order_parse(const char *text, topics_order_t *order,
                       double *exponent, errbuf_t *err)
{
    *exponent = 0;
    if (strcmp(text, "roundrobin") == 0 || strcmp(text, "uniform") == 0) {
        *order = text[0] == 'r' ? TOPICS_ROUNDROBIN : TOPICS_UNIFORM;
        return 0;
    }
    double s;
    if (strncmp(text, "zipf:", 5) == 0 && isdigit((unsigned char)text[5]) &&
        number_parse(text + 5, &s) == 0) {
        if (s > 0 && s <= 10) {
            *order = TOPICS_ZIPF;
            *exponent = s;
            return 0;
        }
    }
    return err_set(err,
                   "topic_order must be roundrobin, uniform or zipf:S with "
                   "0 < S <= 10 (zipf:1.1), not '%s'",
                   text);
}

//  ------------------------------------------------------------------------
//  subscribe

bool topics_subscribe_all(const char *text)
{
    return strcmp(text, "all") == 0;
}

//  A whole number at *p, advancing it; -1 when there is none (or too big)
static long s_whole(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    long n = 0;
    while (isdigit((unsigned char)**p) && n <= 100000000)
        n = n * 10 + (*(*p)++ - '0');
    return isdigit((unsigned char)**p) ? -1 : n;
}

static bool s_is_list(const char *text)
{
    return strpbrk(text, ",-") != NULL;
}

//  "12%", "12.5%": the number before the '%', or -1
static double s_share(const char *text)
{
    char number[64];
    size_t len = strlen(text);
    double share;
    if (len < 2 || len > sizeof number || text[len - 1] != '%' ||
        !isdigit((unsigned char)*text))
        return -1;
    snprintf(number, sizeof number, "%.*s", (int)(len - 1), text);
    return number_parse(number, &share) == 0 ? share : -1;
}

//  A list's items, each checked and, when bits is not NULL, marked; how
//  many topics it names, or -1
static int s_list(const char *text, int ntopics, uint64_t *bits, errbuf_t *err)
{
    const char *p = text;
    int n = 0;
    while (true) {
        long a = s_whole(&p), b = a;
        if (a >= 0 && *p == '-') {
            p++;
            b = s_whole(&p);
            b = b < a ? -1 : b;
        }
        if (a < 0 || b < 0 || (*p && *p != ','))
            return err_set(err,
                           "subscribe: '%s' is not a list of topic numbers "
                           "and ranges (0-9,40)",
                           text);
        if (b >= ntopics)
            return err_set(err,
                           "subscribe: topic %ld is beyond the %d topics "
                           "(0 to %d)",
                           b, ntopics, ntopics - 1);
        for (long t = a; t <= b && bits; t++)
            if (!(bits[t / 64] >> (t % 64) & 1)) {
                bits[t / 64] |= 1ULL << (t % 64);
                n++;
            }
        if (!*p)
            return n;
        p++;
    }
}

//  K for a count or a share of n topics; -1 (and err) when it is neither
static long s_count(const char *text, int ntopics, errbuf_t *err)
{
    double share = s_share(text);
    const char *p = text;
    long k =
        share >= 0 ? (long)floor(ntopics * share / 100 + 0.5) : s_whole(&p);
    if (share >= 0 && (share <= 0 || share > 100))
        return err_set(err,
                       "subscribe: a share is more than 0%% and at most "
                       "100%%, not '%s'",
                       text);
    if (share >= 0)
        return k < 1 ? 1 : k;
    if (k < 0 || *p)
        return err_set(err,
                       "subscribe must be all, a count (10), a share (25%%) or "
                       "a list of topics (0-9,40), not '%s'",
                       text);
    if (k < 1 || k > ntopics)
        return err_set(err,
                       "subscribe: %ld topics of %d; a count is from 1 to "
                       "the topics",
                       k, ntopics);
    return k;
}

int topics_subscribe_check(const char *text, int ntopics, errbuf_t *err)
{
    if (topics_subscribe_all(text))
        return 0;
    if (s_is_list(text))
        return s_list(text, ntopics, NULL, err) < 0 ? -1 : 0;
    return s_count(text, ntopics, err) < 0 ? -1 : 0;
}

int topics_subscribe_set(const char *text, int ntopics, int q, uint64_t *bits)
{
    memset(bits, 0, ((size_t)ntopics + 63) / 64 * sizeof *bits);
    if (topics_subscribe_all(text)) {
        for (int t = 0; t < ntopics; t++)
            bits[t / 64] |= 1ULL << (t % 64);
        return ntopics;
    }
    errbuf_t ignored;
    if (s_is_list(text))
        return s_list(text, ntopics, bits, &ignored);
    long k = s_count(text, ntopics, &ignored), step = ntopics / k;
    for (long j = 0; j < k; j++) {
        long t = (q + j * step) % ntopics;
        bits[t / 64] |= 1ULL << (t % 64);
    }
    return (int)k;
}

//  ------------------------------------------------------------------------
//  Tables

static uint64_t s_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL; //  splitmix64
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

//  [0, 1) from the seed and an index
static double s_unit(uint64_t seed, uint64_t i)
{
    return (double)(s_mix(seed ^ s_mix(i)) >> 11) * 0x1p-53;
}

uint32_t topics_period(int ntopics)
{
    uint32_t n = ntopics > 0 ? (uint32_t)ntopics : 1;
    return n * ((TOPICS_ROUND + n - 1) / n);
}

uint32_t topics_phase(uint64_t seed, int origin, uint32_t len)
{
    return (
        uint32_t)(s_mix(seed + 0x5851F42D4C957F2DULL * (uint64_t)(origin + 1)) %
                  len);
}

typedef struct {
    double key;
    uint32_t topic;
} entry_t;

static int s_by_key(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->topic < y->topic ? -1 : x->topic > y->topic;
}

typedef struct {
    double part;
    uint32_t topic;
} rest_t;

static int s_by_rest(const void *a, const void *b)
{
    const rest_t *x = a, *y = b;
    if (x->part != y->part)
        return x->part > y->part ? -1 : 1;
    return x->topic < y->topic ? -1 : x->topic > y->topic;
}

//  Each topic's count in a table of len: L / n each, or zipf's by largest
//  remainder; -1 when out of memory
static int s_counts(int n, topics_order_t order, double s, uint32_t len,
                    uint32_t *count)
{
    if (order != TOPICS_ZIPF) {
        for (int t = 0; t < n; t++)
            count[t] = len / (uint32_t)n;
        return 0;
    }
    rest_t *rest = malloc((size_t)n * sizeof *rest);
    if (!rest)
        return -1;
    double total = 0;
    for (int t = 0; t < n; t++)
        total += pow(t + 1, -s);
    uint32_t given = 0;
    for (int t = 0; t < n; t++) {
        double exact = len * pow(t + 1, -s) / total;
        count[t] = (uint32_t)floor(exact);
        given += count[t];
        rest[t] = (rest_t){exact - count[t], (uint32_t)t};
    }
    qsort(rest, (size_t)n, sizeof *rest, s_by_rest);
    for (uint32_t i = 0; given < len; i++, given++)
        count[rest[i % (uint32_t)n].topic]++;
    free(rest);
    return 0;
}

int topics_table(int ntopics, topics_order_t order, double exponent,
                 uint64_t seed, uint32_t *table, uint32_t len)
{
    if (order == TOPICS_ROUNDROBIN) {
        for (uint32_t i = 0; i < len; i++)
            table[i] = i % (uint32_t)ntopics;
        return 0;
    }
    uint32_t *count = malloc((size_t)ntopics * sizeof *count);
    entry_t *entry = malloc((size_t)len * sizeof *entry);
    int rc =
        count && entry ? s_counts(ntopics, order, exponent, len, count) : -1;
    uint32_t i = 0;
    for (int t = 0; t < ntopics && rc == 0; t++) {
        double u = s_unit(seed, (uint64_t)t);
        for (uint32_t k = 0; k < count[t] && i < len; k++)
            entry[i++] = (entry_t){(k + u) / count[t], (uint32_t)t};
    }
    if (rc == 0) {
        qsort(entry, len, sizeof *entry, s_by_key);
        for (i = 0; i < len; i++)
            table[i] = entry[i].topic;
    }
    free(count);
    free(entry);
    return rc;
}

void topics_text(uint64_t number, int size, char *out)
{
    for (int i = size - 1; i >= 0; i--) {
        out[i] = (char)('0' + number % 10);
        number /= 10;
    }
}

int topics_digits(uint64_t count)
{
    int digits = 1;
    for (uint64_t room = 10; room < count && digits < 19; room *= 10)
        digits++;
    return digits;
}

//  ------------------------------------------------------------------------
//  Selftest

static int s_test_subscribe(void)
{
    errbuf_t err;
    uint64_t bits[2];
    CHECK(topics_subscribe_check("all", 100, &err) == 0);
    CHECK(topics_subscribe_check("25%", 100, &err) == 0);
    CHECK(topics_subscribe_check("0-9,40", 100, &err) == 0);
    CHECK(topics_subscribe_check("0-9,100", 100, &err) == -1);
    CHECK(strstr(err.msg, "topic 100 is beyond the 100 topics"));
    CHECK(topics_subscribe_check("101", 100, &err) == -1);
    CHECK(topics_subscribe_check("0", 100, &err) == -1);
    CHECK(topics_subscribe_check("9-3", 100, &err) == -1);
    CHECK(topics_subscribe_check("1,,2", 100, &err) == -1);
    CHECK(topics_subscribe_check("some", 100, &err) == -1);
    CHECK(topics_subscribe_check("0%", 100, &err) == -1);
    CHECK(topics_subscribe_check("101%", 100, &err) == -1);
    CHECK(topics_subscribe_check("12.5.3%", 100, &err) == -1);
    CHECK(topics_subscribe_check("12.5%", 100, &err) == 0);
    CHECK(topics_subscribe_check("1e1%", 100, &err) == 0); //  a number
    CHECK(topics_subscribe_check("0x10%", 100, &err) == -1);
    //  Four subscribers of 25 %: disjoint, every topic taken once
    uint64_t seen[2] = {0, 0};
    for (int q = 0; q < 4; q++) {
        CHECK(topics_subscribe_set("25%", 100, q, bits) == 25);
        CHECK(!(seen[0] & bits[0]) && !(seen[1] & bits[1]));
        seen[0] |= bits[0], seen[1] |= bits[1];
        CHECK(bits[0] >> q & 1); //  q, q + 4, q + 8, ...
    }
    CHECK(seen[0] == ~0ULL && seen[1] == (1ULL << 36) - 1);
    CHECK(topics_subscribe_set("0-2,70", 100, 5, bits) == 4);
    CHECK(bits[0] == 7 && bits[1] == 1ULL << 6);
    CHECK(topics_subscribe_set("all", 100, 0, bits) == 100);
    CHECK(topics_subscribe_set("30", 100, 7, bits) == 30); //  7, 10, ..
    CHECK((bits[0] >> 7 & 1) && (bits[0] >> 10 & 1) && !(bits[0] >> 8 & 1));
    return 0;
}

//  A table has its counts, and every stretch of it nearly its shares
static int s_test_table(topics_order_t order, double s, int n)
{
    uint32_t len = topics_period(n);
    uint32_t *table = malloc(len * sizeof *table);
    uint32_t *count = calloc((size_t)n, sizeof *count);
    CHECK(table && count && len % (uint32_t)n == 0 && len >= TOPICS_ROUND);
    CHECK(topics_table(n, order, s, 7, table, len) == 0);
    for (uint32_t i = 0; i < len; i++)
        count[table[i]]++;
    double total = 0;
    for (int t = 0; t < n; t++)
        total += order == TOPICS_ZIPF ? pow(t + 1, -s) : 1;
    for (int t = 0; t < n; t++) {
        double want = len * (order == TOPICS_ZIPF ? pow(t + 1, -s) : 1) / total;
        CHECK(fabs(count[t] - want) < 1.0);
    }
    //  topic 0's count in the first 10000 entries: its share, nearly
    uint32_t first = 0;
    for (uint32_t i = 0; i < 10000; i++)
        first += table[i] == 0;
    double share = 10000.0 * count[0] / len;
    CHECK(fabs(first - share) <= 0.01 * share + 2);
    free(table);
    free(count);
    return 0;
}

int topics_test(bool verbose)
{
    (void)verbose;
    errbuf_t err;
    topics_order_t order;
    double s;
    CHECK(topics_order_parse("zipf:1.1", &order, &s, &err) == 0);
    CHECK(order == TOPICS_ZIPF && s == 1.1);
    CHECK(topics_order_parse("uniform", &order, &s, &err) == 0 &&
          order == TOPICS_UNIFORM);
    CHECK(topics_order_parse("zipf:0", &order, &s, &err) == -1);
    CHECK(topics_order_parse("zipf:x", &order, &s, &err) == -1);
    CHECK(topics_order_parse("zipf:11", &order, &s, &err) == -1);
    CHECK(topics_order_parse("random", &order, &s, &err) == -1);
    CHECK(strstr(err.msg, "not 'random'"));
    if (s_test_subscribe() || s_test_table(TOPICS_ZIPF, 1.1, 1000) ||
        s_test_table(TOPICS_UNIFORM, 0, 1000) ||
        s_test_table(TOPICS_ROUNDROBIN, 0, 7))
        return -1;
    char text[8];
    topics_text(42, 8, text);
    CHECK(memcmp(text, "00000042", 8) == 0);
    CHECK(topics_digits(1) == 1 && topics_digits(10) == 1);
    CHECK(topics_digits(11) == 2 && topics_digits(1000) == 3);
    CHECK(topics_phase(1, 0, 1000) == topics_phase(1, 0, 1000));
    CHECK(topics_phase(1, 0, 1000) < 1000);
    return 0;
}
