/*  histogram: a fixed-size log-linear latency histogram (like HdrHistogram).

    Bucket i covers the integers [s_lower(i), s_upper(i)]; histogram.h
    explains the layout.  Recording is inline in the header; this file has
    the cold side: reset, merge, the exact statistics and percentiles.

    Representative value: a percentile reports the UPPER edge of the bucket
    holding the rank-th smallest sample v, clamped to [min, max].  In range
    e (v >= 2^e, e >= 8) a bucket is 2^(e-7) wide, so the upper edge is at
    most v + 2^(e-7) - 1 < v (1 + 2^-7): relative error < 0.78125%, always
    on the high side (at least p% of samples really are at or below the
    reported value).  Clamping only moves it closer: min <= v <= max.  A
    midpoint would halve the error but could report below the true value.
    The top bucket also holds the clamped values (>= 2^40 ns), so its upper
    edge is taken as UINT64_MAX, i.e. it reports max.
*/
#include "base/histogram.h"

#include "base/check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//  Lowest value in bucket 'index': exact buckets below 2^(K+1) hold their
//  own index; above, range r = index >> K (r >= 2) has shift r - 1 and
//  sub-bucket (index & (2^K - 1)) + 2^K.
static uint64_t s_lower(size_t index)
{
    size_t range = index >> HISTOGRAM_SUB_BITS;
    unsigned shift = range > 1 ? (unsigned)range - 1 : 0;
    return (uint64_t)(index - ((size_t)shift << HISTOGRAM_SUB_BITS)) << shift;
}

//  Highest value in bucket 'index' (the top bucket holds clamped values)
static uint64_t s_upper(size_t index)
{
    if (index + 1 >= HISTOGRAM_BUCKETS)
        return UINT64_MAX;
    return s_lower(index + 1) - 1;
}

//  Bucket of any value, clamped ones included
static size_t s_index(uint64_t v)
{
    if (v >= HISTOGRAM_LIMIT)
        return HISTOGRAM_BUCKETS - 1;
    return histogram_bucket_index(v);
}

void histogram_reset(histogram_t *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

void histogram_merge(histogram_t *into, const histogram_t *from)
{
    for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++)
        into->counts[i] += from->counts[i];
    into->count += from->count;
    into->sum += from->sum;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
}

uint64_t histogram_count(const histogram_t *h)
{
    return h->count;
}

double histogram_mean(const histogram_t *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0;
}

uint64_t histogram_max(const histogram_t *h)
{
    return h->max;
}

//  Rank (1-based) of the sample at percentile p, for 0 < p < 100: the
//  smallest r with r >= p% of count.  p * count is exact for the usual
//  round p, so p = 99 of 100000 samples gives exactly rank 99000; every
//  step is monotone in p, hence so are the percentiles.
static uint64_t s_rank(uint64_t count, double p)
{
    double want = p * (double)count / 100.0;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++;
    return rank < 1 ? 1 : rank > count ? count : rank;
}

uint64_t histogram_percentile(const histogram_t *h, double p)
{
    if (h->count == 0)
        return 0;
    if (!(p > 0)) //  also NaN
        return h->min;
    if (p >= 100)
        return h->max;
    uint64_t rank = s_rank(h->count, p), seen = 0;
    size_t i = s_index(h->min), last = s_index(h->max);
    for (; i < last; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            break;
    }
    uint64_t value = s_upper(i);
    return value < h->min ? h->min : value > h->max ? h->max : value;
}

//  --------------------------------------------------------------------------
//  Selftest

//  splitmix64: a deterministic stream for the tests
static uint64_t s_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

//  Log-uniform in [1, 2^bits): every range equally likely
static uint64_t s_random_value(uint64_t *state, unsigned bits)
{
    unsigned e = (unsigned)(s_random(state) % bits);
    uint64_t low = s_random(state) & ((1ULL << e) - 1);
    return (1ULL << e) | low;
}

//  got is within the documented bound of want: want <= got < want (1+2^-7)
static bool s_close(uint64_t got, uint64_t want)
{
    return got >= want && got - want <= want >> HISTOGRAM_SUB_BITS;
}

//  Within 1% either way, the brief's criterion
static bool s_within_1pct(uint64_t got, double want)
{
    double diff = (double)got - want;
    return diff <= want / 100 && -diff <= want / 100;
}

//  Same samples, as far as the histogram can tell
static bool s_same(const histogram_t *a, const histogram_t *b)
{
    return memcmp(a->counts, b->counts, sizeof a->counts) == 0 &&
           a->count == b->count && a->sum == b->sum && a->min == b->min &&
           a->max == b->max;
}

static int s_compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

//  The bucket layout tiles 0 .. 2^40-1 with no gap or overlap, and every
//  bucket is narrow enough for the error bound
static int s_test_layout(bool verbose)
{
    CHECK(s_lower(0) == 0);
    for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++) {
        uint64_t lo = s_lower(i);
        uint64_t hi =
            i + 1 < HISTOGRAM_BUCKETS ? s_upper(i) : HISTOGRAM_LIMIT - 1;
        CHECK(lo <= hi);
        CHECK(histogram_bucket_index(lo) == i);
        CHECK(histogram_bucket_index(hi) == i);
        CHECK(i + 1 == HISTOGRAM_BUCKETS || s_lower(i + 1) == hi + 1);
        CHECK(s_close(hi, lo));
        CHECK(lo >= 256 || lo == hi);
    }
    CHECK(s_upper(HISTOGRAM_BUCKETS - 1) == UINT64_MAX);
    if (verbose)
        printf(" * histogram: %d buckets, %zu bytes\n", HISTOGRAM_BUCKETS,
               sizeof(histogram_t));
    return 0;
}

static int s_test_empty(histogram_t *h)
{
    histogram_reset(h);
    CHECK(histogram_count(h) == 0);
    CHECK(histogram_mean(h) == 0);
    CHECK(histogram_percentile(h, 0) == 0 && histogram_max(h) == 0);
    CHECK(histogram_percentile(h, 50) == 0);
    CHECK(histogram_percentile(h, 100) == 0);
    return 0;
}

//  1..100000 once each: the p-th percentile is p% of 100000
static int s_test_sequence(histogram_t *h)
{
    histogram_reset(h);
    for (uint64_t v = 1; v <= 100000; v++)
        histogram_record(h, v);
    CHECK(histogram_count(h) == 100000);
    CHECK(histogram_percentile(h, 0) == 1);
    CHECK(histogram_max(h) == 100000);
    CHECK(histogram_mean(h) == 50000.5);
    CHECK(s_within_1pct(histogram_percentile(h, 50), 50000));
    CHECK(s_within_1pct(histogram_percentile(h, 99), 99000));
    CHECK(s_within_1pct(histogram_percentile(h, 99.9), 99900));
    CHECK(histogram_percentile(h, 100) == 100000);
    CHECK(histogram_percentile(h, 0) == 1);
    for (int tenth = 1; tenth < 1000; tenth++) {
        uint64_t want = (uint64_t)tenth * 100; //  rank of p = tenth / 10
        CHECK(s_close(histogram_percentile(h, tenth / 10.0), want));
    }
    //  Below 256 every value has its own bucket: ranks are exact
    histogram_reset(h);
    for (uint64_t v = 1; v <= 200; v++)
        histogram_record(h, v);
    CHECK(histogram_percentile(h, 0.5) == 1);
    CHECK(histogram_percentile(h, 0.6) == 2);
    CHECK(histogram_percentile(h, 50) == 100);
    CHECK(histogram_percentile(h, 50.1) == 101);
    CHECK(histogram_percentile(h, 99.5) == 199);
    CHECK(histogram_percentile(h, 99.6) == 200);
    return 0;
}

//  A constant stream reports the constant everywhere, at any magnitude
static int s_test_constant(histogram_t *h)
{
    static const uint64_t values[] = {
        0, 1, 255, 256, 12345, 999999, HISTOGRAM_LIMIT - 1};
    static const double ps[] = {0, 1, 50, 90, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        histogram_reset(h);
        for (int n = 0; n < 100000; n++)
            histogram_record(h, values[i]);
        CHECK(histogram_mean(h) == (double)values[i]);
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
            CHECK(histogram_percentile(h, ps[j]) == values[i]);
            CHECK(s_within_1pct(histogram_percentile(h, ps[j]),
                                (double)values[i]));
        }
    }
    return 0;
}

//  99% at 1 us and 1% at 1 ms: the tail shows only above p99
static int s_test_two_values(histogram_t *h)
{
    histogram_reset(h);
    for (int n = 0; n < 100000; n++)
        histogram_record(h, n % 100 == 0 ? 1000000 : 1000);
    CHECK(histogram_count(h) == 100000);
    CHECK(histogram_mean(h) == 10990);
    CHECK(histogram_percentile(h, 0) == 1000 && histogram_max(h) == 1000000);
    CHECK(s_within_1pct(histogram_percentile(h, 50), 1000));
    CHECK(s_within_1pct(histogram_percentile(h, 90), 1000));
    CHECK(s_within_1pct(histogram_percentile(h, 99), 1000));
    CHECK(s_within_1pct(histogram_percentile(h, 99.01), 1000000));
    CHECK(s_within_1pct(histogram_percentile(h, 99.9), 1000000));
    CHECK(histogram_percentile(h, 99.9) == 1000000);
    CHECK(histogram_percentile(h, 100) == 1000000);
    return 0;
}

//  Merging two halves gives the whole, bucket for bucket
static int s_test_merge(histogram_t *whole, histogram_t *a, histogram_t *b)
{
    histogram_reset(whole);
    histogram_reset(a);
    histogram_reset(b);
    uint64_t state = 42;
    for (int n = 0; n < 200000; n++) {
        uint64_t v = s_random_value(&state, 36);
        histogram_record(whole, v);
        histogram_record(n % 3 ? a : b, v);
    }
    histogram_merge(a, b);
    CHECK(s_same(a, whole));
    CHECK(histogram_mean(a) == histogram_mean(whole));
    for (int tenth = 0; tenth <= 1000; tenth++)
        CHECK(histogram_percentile(a, tenth / 10.0) ==
              histogram_percentile(whole, tenth / 10.0));
    CHECK(histogram_percentile(a, 99.99) == histogram_percentile(whole, 99.99));
    //  Merging an empty histogram changes nothing, into one copies
    histogram_reset(b);
    histogram_merge(a, b);
    CHECK(s_same(a, whole));
    histogram_merge(b, whole);
    CHECK(s_same(b, whole));
    return 0;
}

//  Against the sorted samples: every percentile is the rank-th sample
//  within the bound, and percentiles rise with p
static int s_test_random(histogram_t *h, uint64_t *sorted, size_t n)
{
    uint64_t state = 7;
    histogram_reset(h);
    for (size_t i = 0; i < n; i++) {
        sorted[i] = s_random_value(&state, 40);
        histogram_record(h, sorted[i]);
    }
    qsort(sorted, n, sizeof sorted[0], s_compare_u64);
    uint64_t previous = 0;
    for (int i = 0; i <= 100000; i++) {
        double p = i / 1000.0;
        uint64_t got = histogram_percentile(h, p);
        uint64_t want = sorted[p > 0 ? s_rank(n, p) - 1 : 0];
        CHECK(s_close(got, want));
        CHECK(got >= previous);
        previous = got;
    }
    CHECK(previous == sorted[n - 1]);
    //  Random p in random order: monotone and inside [min, max]
    for (int i = 0; i < 10000; i++) {
        double p = (double)(s_random(&state) % 1000001) / 10000.0;
        double q = (double)(s_random(&state) % 1000001) / 10000.0;
        uint64_t vp = histogram_percentile(h, p);
        uint64_t vq = histogram_percentile(h, q);
        CHECK(p > q ? vp >= vq : vp <= vq);
        CHECK(vp >= histogram_percentile(h, 0) && vp <= histogram_max(h));
    }
    return 0;
}

//  One value v among a larger one: p50 reports v's bucket, not clamped to v
static int s_test_error_bound(histogram_t *h)
{
    uint64_t state = 99;
    double worst = 0;
    for (int n = 0; n < 2000; n++) {
        uint64_t v = s_random_value(&state, 40);
        histogram_reset(h);
        histogram_record(h, v);
        histogram_record(h, v);
        histogram_record(h, HISTOGRAM_LIMIT - 1);
        uint64_t got = histogram_percentile(h, 50);
        CHECK(s_close(got, v));
        CHECK(s_within_1pct(got, (double)v));
        double error = (double)(got - v) / (double)v;
        worst = error > worst ? error : worst;
    }
    CHECK(worst < 1.0 / 128);
    for (uint64_t v = 0; v < 256; v++) {
        histogram_reset(h);
        histogram_record(h, v);
        histogram_record(h, 1000);
        CHECK(histogram_percentile(h, 50) == v);
    }
    return 0;
}

//  Values at and beyond 2^40 ns clamp into the top bucket; max stays exact
static int s_test_clamp(histogram_t *h)
{
    histogram_reset(h);
    histogram_record(h, 1000);
    histogram_record(h, HISTOGRAM_LIMIT);
    histogram_record(h, 1ULL << 50);
    histogram_record(h, (1ULL << 50) + 2);
    CHECK(h->counts[HISTOGRAM_BUCKETS - 1] == 3);
    CHECK(histogram_max(h) == (1ULL << 50) + 2);
    CHECK(histogram_percentile(h, 100) == (1ULL << 50) + 2);
    CHECK(histogram_percentile(h, 99) == (1ULL << 50) + 2);
    CHECK(s_close(histogram_percentile(h, 25), 1000));
    CHECK(histogram_mean(h) ==
          ((double)HISTOGRAM_LIMIT + 1000 + (double)(1ULL << 51) + 2) / 4);
    //  The sum does not overflow even at the very top
    histogram_reset(h);
    histogram_record(h, UINT64_MAX);
    histogram_record(h, UINT64_MAX);
    CHECK(histogram_mean(h) == (double)UINT64_MAX);
    CHECK(histogram_max(h) == UINT64_MAX &&
          histogram_percentile(h, 0) == UINT64_MAX);
    CHECK(histogram_percentile(h, 50) == UINT64_MAX);
    return 0;
}

int histogram_test(bool verbose)
{
    //  Each histogram_t is 34 KB: four of them and the samples fit the
    //  main thread's stack comfortably
    histogram_t h, a, b, whole;
    uint64_t sorted[20000];
    CHECK(s_test_layout(verbose) == 0);
    CHECK(s_test_empty(&h) == 0);
    CHECK(s_test_sequence(&h) == 0);
    CHECK(s_test_constant(&h) == 0);
    CHECK(s_test_two_values(&h) == 0);
    CHECK(s_test_merge(&whole, &a, &b) == 0);
    CHECK(s_test_random(&h, sorted, sizeof sorted / sizeof sorted[0]) == 0);
    CHECK(s_test_error_bound(&h) == 0);
    CHECK(s_test_clamp(&h) == 0);
    return 0;
}
