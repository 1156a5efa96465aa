/* stats.c - see stats.h. */
#include "base/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

double et_percentile_sorted(const double *x, size_t n, double q)
{
    if (n == 1)
        return x[0];
    /* numpy: quantile = q / 100; virtual index = (n - 1) * quantile */
    double h = (double)(n - 1) * (q / 100.0);
    if (h >= (double)(n - 1))
        return x[n - 1];
    if (h <= 0)
        return x[0];
    double fl = floor(h);
    size_t i = (size_t)fl;
    double g = h - fl;
    double a = x[i], b = x[i + 1];
    double diff = b - a;
    /* numpy's _lerp: a + diff*g, replaced by b - diff*(1-g) where g >= 0.5 */
    if (g >= 0.5)
        return b - diff * (1.0 - g);
    return a + diff * g;
}

/* numpy's pairwise summation (umath loops, PW_BLOCKSIZE 128). */
static double pairwise(const double *a, size_t n)
{
    if (n < 8) {
        double res = 0.0;
        for (size_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        size_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

double et_numpy_sum(const double *x, size_t n)
{
    /* the reduction starts from the identity 0.0 and adds the pairwise sum */
    return 0.0 + pairwise(x, n);
}

double et_numpy_mean(const double *x, size_t n)
{
    return et_numpy_sum(x, n) / (double)n;
}

double et_numpy_std(const double *x, size_t n)
{
    double m = et_numpy_mean(x, n);
    double acc = 0.0;
    for (size_t i = 0; i < n; i++)
        acc += (x[i] - m) * (x[i] - m);
    return sqrt(acc / (double)n);
}

/* Sorting and selection: quicksort / quickselect with median-of-three
 * Hoare partitions and an insertion-sort cutoff; the sort recurses only
 * into the smaller part, so its depth is O(log n).  Input is NaN-free, so
 * '<' is a total order. */
static void insertion_sort(double *x, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        while (j > 0 && x[j - 1] > v) {
            x[j] = x[j - 1];
            j--;
        }
        x[j] = v;
    }
}

static void swap_d(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Hoare partition of x[0, n) (n > 2) around the median of three; returns
 * j such that x[0, j] <= pivot <= x[j+1, n). */
static size_t partition(double *x, size_t n)
{
    size_t m = n / 2;
    if (x[m] < x[0])
        swap_d(&x[m], &x[0]);
    if (x[n - 1] < x[0])
        swap_d(&x[n - 1], &x[0]);
    if (x[n - 1] < x[m])
        swap_d(&x[n - 1], &x[m]);
    double pivot = x[m];
    size_t i = 0, j = n - 1;
    for (;;) {
        while (x[i] < pivot)
            i++;
        while (pivot < x[j])
            j--;
        if (i >= j)
            return j;
        swap_d(&x[i], &x[j]);
        i++;
        j--;
    }
}

/* Heapsort of x[0, n): the O(n log n) fallback that keeps a hostile input
 * (a median-of-three killer sequence) from making sorting or selection
 * quadratic. */
static void sift_down(double *x, size_t i, size_t n)
{
    double v = x[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && x[c] < x[c + 1])
            c++;
        if (!(v < x[c]))
            break;
        x[i] = x[c];
        i = c;
    }
    x[i] = v;
}

static void heap_sort(double *x, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(x, i, n);
    for (size_t k = n; k-- > 1;) {
        swap_d(&x[0], &x[k]);
        sift_down(x, 0, k);
    }
}

/* Introsort: quicksort while the depth budget lasts, heapsort beyond. */
static void sort_depth(double *x, size_t n, unsigned budget)
{
    while (n > 24) {
        if (budget-- == 0) {
            heap_sort(x, n);
            return;
        }
        size_t left = partition(x, n) + 1, right = n - left;
        /* recurse into the smaller part, loop on the larger */
        if (left < right) {
            sort_depth(x, left, budget);
            x += left;
            n = right;
        } else {
            sort_depth(x + left, right, budget);
            n = left;
        }
    }
    insertion_sort(x, n);
}

static unsigned depth_budget(size_t n)
{
    unsigned d = 0;
    while (n >>= 1)
        d++;
    return 2 * d + 8;
}

/* Sort ascending in place (NaN-free input); introsort, O(n log n). */
static void sort_doubles(double *x, size_t n)
{
    sort_depth(x, n, depth_budget(n));
}

/* Selection (et_percentiles): quickselect with branch-free partitions.
 * Durations are noise around a few values, so each comparison of a
 * branching partition is a coin toss for the branch predictor (that was a
 * fifth of building large.etdp's model); here a comparison only adds 0 or
 * 1 to an index.
 *
 * part() moves the values of x[0, n) that are < p (le: <= p) to the front
 * and returns their count; the others (and anything unordered, NaN) stay
 * behind them.  x[0] is lifted out and the gap it leaves travels forward:
 * every value read is written into the gap, and when it belongs to the
 * front the gap moves one place on, the value found there taking the
 * place just read. */
static inline size_t part(double *x, size_t n, double p, int le)
{
    double first = x[0];
    size_t i = 0; /* x[0, i) in front, x[i] the gap, x(i, j) behind */
    for (size_t j = 1; j < n; j++) {
        double v = x[j];
        size_t front = le ? !(p < v) : v < p;
        x[i] = v;
        double w = x[i + 1]; /* i < j: inside; v itself when i + 1 == j */
        x[j] = front ? w : v;
        i += front;
    }
    x[i] = first;
    return i + (le ? !(p < first) : first < p);
}

static size_t part_lt(double *x, size_t n, double p)
{
    return part(x, n, p, 0);
}

static size_t part_le(double *x, size_t n, double p)
{
    return part(x, n, p, 1);
}

static inline double med3(double a, double b, double c)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    hi = c < hi ? c : hi;
    return lo < hi ? hi : lo;
}

/* The pivot of x[0, n) (n > 16): median of three, of nine from 128 on. */
static double pivot_of(const double *x, size_t n)
{
    if (n < 128)
        return med3(x[0], x[n / 2], x[n - 1]);
    size_t s = n / 8;
    return med3(med3(x[0], x[s], x[2 * s]), med3(x[3 * s], x[4 * s], x[5 * s]),
                med3(x[6 * s], x[7 * s], x[n - 1]));
}

/* Place the values of every rank in ranks[0, nr) (ascending, all within
 * [lo, hi)) at their sorted positions of x[lo, hi).  One quickselect pass
 * that follows only the parts holding a wanted rank.  `has_lb`: every
 * value of x[lo, hi) is >= lb (the pivot that split it off); a pivot
 * equal to lb then splits off all its copies at once (a partition by <=),
 * so many equal samples cost one pass.  A part that
 * has been partitioned too often is sorted instead (heapsort): O(n log n)
 * whatever the input. */
static void multi_select(double *x, size_t lo, size_t hi, const size_t *ranks, size_t nr,
                         unsigned budget, bool has_lb, double lb)
{
    while (nr > 0) {
        size_t n = hi - lo;
        if (n <= 16) {
            insertion_sort(x + lo, n);
            return;
        }
        if (budget-- == 0) {
            heap_sort(x + lo, n);
            return;
        }
        double p = pivot_of(x + lo, n);
        if (has_lb && !(lb < p)) {
            /* p == lb: x[lo, m) are its copies, every rank there is done */
            size_t m = lo + part_le(x + lo, n, p);
            while (nr > 0 && ranks[0] < m)
                ranks++, nr--;
            lo = m;
            continue;
        }
        size_t m = lo + part_lt(x + lo, n, p); /* x[lo, m) < p <= x[m, hi) */
        size_t k = 0;
        while (k < nr && ranks[k] < m)
            k++;
        if (k > 0 && k < nr)
            multi_select(x, lo, m, ranks, k, budget, has_lb, lb);
        if (k == nr) {
            hi = m;
        } else {
            ranks += k;
            nr -= k;
            lo = m;
            has_lb = true;
            lb = p;
        }
    }
}

void et_select_ranks(double *x, size_t n, const size_t *ranks, size_t nr)
{
    if (n <= 32) {
        sort_doubles(x, n);
        return;
    }
    multi_select(x, 0, n, ranks, nr, depth_budget(n), false, 0.0);
}

void et_percentiles(double *x, size_t n, const double *q, size_t nq, double *out)
{
    if (n <= 32 || nq > 8) {
        sort_doubles(x, n);
        for (size_t k = 0; k < nq; k++)
            out[k] = et_percentile_sorted(x, n, q[k]);
        return;
    }
    /* the ranks each percentile reads: i and i + 1 around its virtual
     * index (NumPy's linear method), selected together in one pass */
    size_t ranks[16] = {0}, nr = 0;
    for (size_t k = 0; k < nq; k++) {
        double h = (double)(n - 1) * (q[k] / 100.0);
        size_t i = h >= (double)(n - 1) ? n - 1 : h <= 0 ? 0 : (size_t)floor(h);
        if (!nr || ranks[nr - 1] < i)
            ranks[nr++] = i;
        if (i + 1 < n && ranks[nr - 1] < i + 1)
            ranks[nr++] = i + 1;
    }
    multi_select(x, 0, n, ranks, nr, depth_budget(n), false, 0.0);
    for (size_t k = 0; k < nq; k++) {
        double h = (double)(n - 1) * (q[k] / 100.0);
        if (h >= (double)(n - 1)) {
            out[k] = x[n - 1];
            continue;
        }
        if (h <= 0) {
            out[k] = x[0];
            continue;
        }
        double fl = floor(h);
        size_t i = (size_t)fl;
        double g = h - fl;
        double a = x[i], b = x[i + 1];
        double diff = b - a;
        out[k] = g >= 0.5 ? b - diff * (1.0 - g) : a + diff * g;
    }
}
