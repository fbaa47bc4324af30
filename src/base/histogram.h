/*  histogram: a fixed-size log-linear latency histogram (like HdrHistogram).

    Values are nanoseconds (uint64_t).  Plain value type: no allocation, no
    globals, so a subscriber thread can embed one and record into it on the
    hot path, and repetitions can be merged exactly afterwards.

    Buckets: with K = HISTOGRAM_SUB_BITS = 7, values below 2^(K+1) = 256 have
    a bucket each (exact).  Each power-of-two range [2^e, 2^(e+1)) with
    e >= 8 is split into 2^K = 128 linear sub-buckets of width 2^(e-7).
    The range is 0 .. 2^40-1 ns (about 18 minutes): larger values clamp into
    the top bucket, while count, sum, min and max stay exact.  That is
    34 ranges x 128 = 4352 buckets, 34 KB of counts.

    Error bound: a percentile is reported as the upper edge of its bucket,
    clamped to [min, max] (see histogram.c), so it is never below the true
    sample value v, and it exceeds v by less than v / 128: relative error
    < 2^-7 = 0.78125% (zero below 256 ns).  Values at or above 2^40 ns are
    reported as max.

    Not thread-safe: one writer per histogram; merge after the writers stop.
*/
#ifndef HOPBENCH_HISTOGRAM_H
#define HOPBENCH_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef __SIZEOF_INT128__
#error "histogram needs unsigned __int128 for its exact sum"
#endif

#define HISTOGRAM_SUB_BITS   7
#define HISTOGRAM_LIMIT_BITS 40
#define HISTOGRAM_LIMIT      (1ULL << HISTOGRAM_LIMIT_BITS)
#define HISTOGRAM_BUCKETS                                                      \
    ((HISTOGRAM_LIMIT_BITS - HISTOGRAM_SUB_BITS + 1) << HISTOGRAM_SUB_BITS)

typedef struct {
    unsigned __int128 sum; //  exact sum of all values, for the mean
    uint64_t count;        //  number of values recorded
    uint64_t min;          //  exact; UINT64_MAX while empty
    uint64_t max;          //  exact; 0 while empty
    uint64_t counts[HISTOGRAM_BUCKETS];
} histogram_t;

//  Bucket of a value below HISTOGRAM_LIMIT.  Branch-free: the OR makes
//  values below 2^K behave like the first exact range (shift 0), and keeps
//  clz away from 0.  Range e >= K starts at index (e - K + 1) << K.
static inline size_t histogram_bucket_index(uint64_t v)
{
    unsigned msb =
        63u - (unsigned)__builtin_clzll(v | (1ULL << HISTOGRAM_SUB_BITS));
    unsigned shift = msb - HISTOGRAM_SUB_BITS;
    return ((size_t)shift << HISTOGRAM_SUB_BITS) + (size_t)(v >> shift);
}

void histogram_reset(histogram_t *h);

//  Hot path: a few instructions, no calls, no branches the compiler cannot
//  turn into conditional moves.
static inline void histogram_record(histogram_t *h, uint64_t ns)
{
    uint64_t v = ns < HISTOGRAM_LIMIT ? ns : HISTOGRAM_LIMIT - 1;
    h->counts[histogram_bucket_index(v)]++;
    h->count++;
    h->sum += ns;
    h->min = ns < h->min ? ns : h->min;
    h->max = ns > h->max ? ns : h->max;
}

//  Adds 'from' into 'into', exactly (same result as recording both streams)
void histogram_merge(histogram_t *into, const histogram_t *from);
uint64_t histogram_count(const histogram_t *h);
//  Exact mean (sum / count), 0 when empty
double histogram_mean(const histogram_t *h);
//  Exact max, 0 when empty (the exact min is histogram_percentile (h, 0))
uint64_t histogram_max(const histogram_t *h);
//  Value at or below which p% of samples fall, p in [0,100]: p <= 0 gives
//  min, p >= 100 gives max, an empty histogram gives 0.  Monotone in p, and
//  never below the true sample value nor more than 0.78% above it.
uint64_t histogram_percentile(const histogram_t *h, double p);

int histogram_test(bool verbose);

#endif
