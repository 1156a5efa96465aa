/*
 * test_stats.c - the statistics' selection (et_percentiles) against a
 * plain sort, on the shapes samples take: random, few distinct values,
 * all equal, sorted either way, organ pipes, a median-of-three killer,
 * NaN (must end, whatever it returns), every size up to 300 and a few
 * large ones.  Results must be the same doubles, bit for bit.
 */
#include <math.h>
#include <string.h>

#include "base/stats.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { RANDOM, FEW, EQUAL, ASC, DESC, PIPES, KILLER, TICKS, N_SHAPES };
static const char *const shape_name[N_SHAPES] = {"random", "few values", "all equal", "ascending",
                                                 "descending", "organ pipes",
                                                 "median-of-3 killer", "ticks / 1e6"};

static void fill(double *x, size_t n, int shape)
{
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case RANDOM: x[i] = (double)(next() >> 11) / 9007199254740992.0; break;
        case FEW: x[i] = (double)(next() % 3); break;
        case EQUAL: x[i] = 4.25; break;
        case ASC: x[i] = (double)i; break;
        case DESC: x[i] = (double)(n - i); break;
        case PIPES: x[i] = (double)(i < n / 2 ? i : n - i); break;
        case KILLER: /* Musser's sequence against median of three */
            x[i] = (double)(i % 2 ? i + (n / 2) : i / 2 + 1);
            break;
        default: x[i] = (double)(440 + next() % 130) / 1e6; break;
        }
    }
}

/* et_percentiles(q) on a copy of x equals percentiles read from a sort. */
static int agrees(const double *x, size_t n, const double *q, size_t nq)
{
    double *a = malloc(n * sizeof *a), *s = malloc(n * sizeof *s), got[8], want[8];
    memcpy(a, x, n * sizeof *a);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp);
    et_percentiles(a, n, q, nq, got);
    for (size_t k = 0; k < nq; k++)
        want[k] = et_percentile_sorted(s, n, q[k]);
    /* the selection only moves values: the same multiset */
    qsort(a, n, sizeof *a, cmp);
    int same = memcmp(got, want, nq * sizeof *got) == 0 && memcmp(a, s, n * sizeof *a) == 0;
    free(a);
    free(s);
    return same;
}

int main(void)
{
    static const double q3[3] = {10, 50, 90}, q5[5] = {0, 25, 50, 75, 100}, q1[1] = {99};
    const double *qs[3] = {q3, q5, q1};
    const size_t nqs[3] = {3, 5, 1};
    for (int shape = 0; shape < N_SHAPES; shape++) {
        int bad = 0;
        size_t first_bad = 0;
        double *x = malloc(100000 * sizeof *x);
        for (size_t n = 1; n <= 300 && !bad; n++)
            for (int t = 0; t < 3 && !bad; t++) {
                fill(x, n, shape);
                if (!agrees(x, n, qs[t], nqs[t]))
                    bad = 1, first_bad = n;
            }
        static const size_t big[] = {1000, 4096, 65537, 100000};
        for (size_t b = 0; b < sizeof big / sizeof *big && !bad; b++) {
            fill(x, big[b], shape);
            if (!agrees(x, big[b], q3, 3))
                bad = 1, first_bad = big[b];
        }
        ok(!bad, "selection = sort for %s samples, n = 1..300 and up to 100,000", shape_name[shape]);
        if (bad)
            diag("first difference at n = %zu", first_bad);
        free(x);
    }

    /* NaN makes '<' partial: the selection must still end and keep the
     * values (which percentile comes out is unspecified) */
    double x[500];
    for (size_t i = 0; i < 500; i++)
        x[i] = i % 7 == 0 ? NAN : (double)(next() % 50);
    double out[3];
    et_percentiles(x, 500, q3, 3, out);
    size_t nans = 0;
    for (size_t i = 0; i < 500; i++)
        nans += isnan(x[i]);
    is_int((long long)nans, 72, "NaN samples: the selection ends, every value kept");

    /* the interpolation of NumPy's linear method, at a known place */
    double y[200];
    for (int i = 0; i < 200; i++)
        y[i] = (double)((i * 7919) % 200);
    et_percentiles(y, 200, q3, 3, out);
    ok(out[1] == 99.5 && out[0] == 19.900000000000002 && out[2] == 179.1,
       "p10/p50/p90 of 0..199 shuffled: 19.900000000000002, 99.5, 179.1");
    return done_testing();
}
