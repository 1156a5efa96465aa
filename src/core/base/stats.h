/*
 * stats.h - PerfData statistics exactly as NumPy computes them (spec §4).
 *
 * All functions take `n` float64 samples in target time units.
 */
#ifndef ET_STATS_H
#define ET_STATS_H

#include <stddef.h>

/* q-th percentile (0 <= q <= 100) of `sorted` (ascending, n >= 1) by
 * NumPy's default "linear" method, including its two-sided interpolation,
 * so results agree to the last bit with numpy.percentile. */
double et_percentile_sorted(const double *sorted, size_t n, double q);

/* Several percentiles at once: `q` holds `nq` values in ascending order
 * (0..100), `out` receives them (same method as et_percentile_sorted).
 * `x` (n >= 1 NaN-free samples) is reordered in place: one selection pass
 * places the two ranks around each percentile's virtual index (for up to 8
 * percentiles; more are read from a full sort).  O(n log n) at worst
 * (heapsort fallback), about 3n comparisons for p10/p50/p90. */
void et_percentiles(double *x, size_t n, const double *q, size_t nq, double *out);

/* Place the values of ranks[0..nr) (ascending, distinct, each < n) of the
 * NaN-free x[0..n) at their sorted positions (x reordered in place; the
 * selection of et_percentiles, O(n log n) at worst).  For medians and
 * quantiles that must equal a full sort's to the bit. */
void et_select_ranks(double *x, size_t n, const size_t *ranks, size_t nr);

/* Sum as numpy.add.reduce does for a contiguous float64 array (pairwise
 * summation with 8 accumulators and blocks of 128). */
double et_numpy_sum(const double *x, size_t n);

/* Arithmetic mean as numpy.mean: et_numpy_sum(x, n) / n.  n >= 1. */
double et_numpy_mean(const double *x, size_t n);

/* Population standard deviation (numpy.std with ddof=0): square root of
 * the mean of squared deviations from the mean.  n >= 1. */
double et_numpy_std(const double *x, size_t n);

#endif
