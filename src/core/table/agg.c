/* agg.c - the aggregators over groups, and describe's statistics
 * (table.h).  The kernels are _core.agg's (src/lua/l_frame.c): a GroupBy
 * uses pandas' group kernels (Kahan sums, Welford variances), describe the
 * Series ones (NumPy's pairwise sums, numpy.percentile). */
#include "table/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"

/* The kernels' NaN is C's NAN, as _core.agg returns it; a missing cell
 * Lua code made is 0/0: */
/* A NaN as Lua's 0/0 makes it (computed at run time: the sign bit set on
 * x86-64), so cells read back as the Lua implementation's did. */
static double lua_nan(void)
{
    volatile double z = 0.0;
    return z / z;
}

static bool numeric_agg(et_agg w)
{
    return w == ET_AGG_SUM || w == ET_AGG_MEAN || w == ET_AGG_MEDIAN || w == ET_AGG_STD ||
           w == ET_AGG_VAR || w == ET_AGG_QUANTILE;
}

/* The numbers of rows[0..k) of c (missing skipped, booleans 0/1) as
 * doubles into x; their count. */
static size_t numbers_of(const et_column *c, const size_t *rows, size_t k, double *x)
{
    size_t m = 0;
    switch (c->kind) {
    case ET_COL_F64:
        for (size_t i = 0; i < k; i++) {
            size_t r = rows[i];
            double d = et_col_f64(c, r);
            if (et_col_present(c, r) && d == d)
                x[m++] = d;
        }
        break;
    case ET_COL_I64:
        for (size_t i = 0; i < k; i++)
            if (et_col_present(c, rows[i]))
                x[m++] = (double)et_col_i64(c, rows[i]);
        break;
    case ET_COL_BOOL:
        for (size_t i = 0; i < k; i++)
            if (et_col_present(c, rows[i]))
                x[m++] = et_col_bool(c, rows[i]) ? 1.0 : 0.0;
        break;
    default: break;
    }
    return m;
}

static double kahan(const double *x, size_t n)
{
    double sum = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double y = x[i] - comp, t = sum + y;
        comp = t - sum - y;
        sum = t;
    }
    return sum;
}

static double welford_var(const double *x, size_t n)
{
    double mean = 0, ssqdm = 0;
    for (size_t i = 0; i < n; i++) {
        double old = mean;
        mean += (x[i] - old) / (double)(i + 1);
        ssqdm += (x[i] - mean) * (x[i] - old);
    }
    return ssqdm / (double)(n - 1);
}

/* The group kernel `what` of x[0..n) (reordered by median and quantile). */
static double kernel(et_agg what, double *x, size_t n, double q)
{
    switch (what) {
    case ET_AGG_SUM: return kahan(x, n);
    case ET_AGG_MEAN: return n ? kahan(x, n) / (double)n : NAN;
    case ET_AGG_VAR: return n >= 2 ? welford_var(x, n) : NAN;
    case ET_AGG_STD: return n >= 2 ? sqrt(welford_var(x, n)) : NAN;
    case ET_AGG_MEDIAN: {
        if (!n)
            return NAN;
        if (n % 2) {
            size_t r = n / 2;
            et_select_ranks(x, n, &r, 1);
            return x[n / 2];
        }
        size_t r[2] = {n / 2 - 1, n / 2};
        et_select_ranks(x, n, r, 2);
        return (x[n / 2 - 1] + x[n / 2]) / 2.0;
    }
    case ET_AGG_QUANTILE: {
        if (!n)
            return NAN;
        double qi = q * (double)(n - 1);
        size_t i = (size_t)qi;
        double frac = fmod(qi, 1.0);
        size_t r[2] = {i, i + 1};
        et_select_ranks(x, n, r, i + 1 < n ? 2 : 1);
        return (frac == 0.0 || i + 1 >= n) ? x[i] : x[i] + (x[i + 1] - x[i]) * frac;
    }
    default: return NAN;
    }
}

/* first/last/min/max: a row per group (ET_NO_ROW: none), then a take.
 * `none` is the validity of a group without a row. */
static int pick_rows(const et_column *c, const et_groups *g, et_agg what, et_column **out)
{
    size_t *pick = malloc((g->n ? g->n : 1) * sizeof *pick);
    if (!pick)
        return ET_TAB_NOMEM;
    const uint32_t *ranks = NULL;
    if (c->kind == ET_COL_STR && (what == ET_AGG_MIN || what == ET_AGG_MAX) &&
        !(ranks = et_strpool_ranks(c->pool))) {
        free(pick);
        return ET_TAB_NOMEM;
    }
    for (size_t gi = 0; gi < g->n; gi++) {
        const size_t *rows = g->rows + g->offsets[gi];
        size_t k = g->offsets[gi + 1] - g->offsets[gi], best = ET_NO_ROW;
        if (what == ET_AGG_FIRST) {
            for (size_t i = 0; i < k && best == ET_NO_ROW; i++)
                if (!et_col_missing(c, rows[i]))
                    best = rows[i];
        } else if (what == ET_AGG_LAST) {
            for (size_t i = k; i-- > 0 && best == ET_NO_ROW;)
                if (!et_col_missing(c, rows[i]))
                    best = rows[i];
        } else {
            int sign = what == ET_AGG_MAX ? 1 : -1;
            for (size_t i = 0; i < k; i++) {
                size_t r = rows[i];
                if (et_col_missing(c, r))
                    continue;
                if (best == ET_NO_ROW) {
                    best = r;
                    continue;
                }
                int cmp;
                switch (c->kind) {
                case ET_COL_F64: {
                    double a = et_col_f64(c, r), b = et_col_f64(c, best);
                    cmp = (a > b) - (a < b);
                    break;
                }
                case ET_COL_I64: {
                    int64_t a = et_col_i64(c, r), b = et_col_i64(c, best);
                    cmp = (a > b) - (a < b);
                    break;
                }
                case ET_COL_BOOL: cmp = (int)et_col_bool(c, r) - (int)et_col_bool(c, best); break;
                default: {
                    uint32_t a = ranks[et_col_str(c, r)], b = ranks[et_col_str(c, best)];
                    cmp = (a > b) - (a < b);
                }
                }
                if (cmp * sign > 0)
                    best = r;
            }
        }
        pick[gi] = best;
    }
    /* a group without a value: the gather's missing cell (ET_NAN), pandas'
     * NaN, for min/max and for first/last of numbers; first/last of text or
     * booleans (pandas' object columns) give None: nil */
    et_column *o = et_col_gather(c, pick, g->n);
    if (o && (what == ET_AGG_FIRST || what == ET_AGG_LAST) && c->kind != ET_COL_F64 &&
        c->kind != ET_COL_I64) {
        uint8_t *v = et_col_mut_valid(o);
        for (size_t gi = 0; v && gi < g->n; gi++)
            if (pick[gi] == ET_NO_ROW)
                v[gi] = ET_ABSENT;
    }
    free(pick);
    if (!o)
        return ET_TAB_NOMEM;
    *out = o;
    return ET_TAB_OK;
}

int et_tab_agg(const et_column *c, const et_groups *g, et_agg what, double q, et_column **out,
               size_t *bad)
{
    if (what == ET_AGG_COUNT) {
        et_column *o = et_col_new(ET_COL_I64, g->n, false, NULL);
        if (!o)
            return ET_TAB_NOMEM;
        int64_t *d = et_col_mut_data(o);
        for (size_t gi = 0; gi < g->n; gi++) {
            int64_t m = 0;
            for (size_t i = g->offsets[gi]; i < g->offsets[gi + 1]; i++)
                m += !et_col_missing(c, g->rows[i]);
            d[gi] = m;
        }
        *out = o;
        return ET_TAB_OK;
    }
    if (c->kind == ET_COL_LIST || c->kind == ET_COL_OBJ)
        return ET_TAB_UNSUPPORTED;
    if (!numeric_agg(what)) {
        if (c->kind == ET_COL_STR || what == ET_AGG_FIRST || what == ET_AGG_LAST ||
            what == ET_AGG_MIN || what == ET_AGG_MAX)
            return pick_rows(c, g, what, out);
        return ET_TAB_UNSUPPORTED;
    }
    if (c->kind == ET_COL_STR) {
        for (size_t i = 0; i < g->offsets[g->n]; i++)
            if (!et_col_missing(c, g->rows[i])) {
                /* the first text cell the Lua path would meet: group order */
                *bad = g->rows[i];
                return ET_TAB_NOT_NUMBERS;
            }
    }
    bool ints = what == ET_AGG_SUM && (c->kind == ET_COL_I64 || c->kind == ET_COL_BOOL);
    et_column *o = et_col_new(ints ? ET_COL_I64 : ET_COL_F64, g->n, false, NULL);
    if (!o)
        return ET_TAB_NOMEM;
    if (ints) {
        int64_t *d = et_col_mut_data(o);
        for (size_t gi = 0; gi < g->n; gi++) {
            uint64_t s = 0; /* wraps, as Lua's integer + */
            for (size_t i = g->offsets[gi]; i < g->offsets[gi + 1]; i++) {
                size_t r = g->rows[i];
                if (!et_col_present(c, r))
                    continue;
                s += c->kind == ET_COL_I64 ? (uint64_t)et_col_i64(c, r) : (uint64_t)et_col_bool(c, r);
            }
            memcpy(&d[gi], &s, 8);
        }
        *out = o;
        return ET_TAB_OK;
    }
    if (what == ET_AGG_SUM) {
        /* frame.lua's sum of no number is the integer 0: a column of both
         * kinds, which the Lua path makes */
        for (size_t gi = 0; gi < g->n; gi++) {
            bool any = false;
            for (size_t i = g->offsets[gi]; i < g->offsets[gi + 1] && !any; i++)
                any = !et_col_missing(c, g->rows[i]);
            if (!any) {
                et_col_release(o);
                return ET_TAB_UNSUPPORTED;
            }
        }
    }
    size_t most = 0;
    for (size_t gi = 0; gi < g->n; gi++)
        if (g->offsets[gi + 1] - g->offsets[gi] > most)
            most = g->offsets[gi + 1] - g->offsets[gi];
    double *x = malloc((most ? most : 1) * sizeof *x);
    if (!x) {
        et_col_release(o);
        return ET_TAB_NOMEM;
    }
    double *d = et_col_mut_data(o);
    for (size_t gi = 0; gi < g->n; gi++) {
        size_t k = g->offsets[gi + 1] - g->offsets[gi];
        size_t m = numbers_of(c, g->rows + g->offsets[gi], k, x);
        d[gi] = kernel(what, x, m, q);
    }
    free(x);
    *out = o;
    return ET_TAB_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int et_tab_describe(const et_column *c, const double *q, size_t nq, double *out)
{
    size_t n = c->n;
    double *x = malloc((n ? n : 1) * sizeof *x);
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!x || !s) {
        free(x), free(s);
        return ET_TAB_NOMEM;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (et_col_missing(c, i))
            continue;
        x[m++] = c->kind == ET_COL_I64 ? (double)et_col_i64(c, i) : et_col_f64(c, i);
    }
    /* NaN as each value's Lua source made it: _core.agg's (NAN) for the
     * statistics, 0/0 for min and max */
    double nan = lua_nan();
    out[0] = (double)m;
    out[1] = m ? et_numpy_sum(x, m) / (double)m : NAN;
    out[2] = NAN;
    if (m >= 2) {
        double avg = out[1];
        for (size_t i = 0; i < m; i++)
            s[i] = (avg - x[i]) * (avg - x[i]);
        out[2] = sqrt(et_numpy_sum(s, m) / (double)(m - 1));
    }
    memcpy(s, x, m * sizeof *s);
    qsort(s, m, sizeof *s, cmp_double);
    out[3] = m ? s[0] + 0.0 : nan; /* frame.lua sorted x + 0.0: -0.0 reads 0.0 */
    for (size_t k = 0; k < nq; k++)
        out[4 + k] = m ? et_percentile_sorted(s, m, q[k] * 100) : NAN;
    out[4 + nq] = m ? s[m - 1] + 0.0 : nan;
    free(x), free(s);
    return ET_TAB_OK;
}
