/*
 * test_table.c - the Frame engine's verbs (src/core/table/table.h): the
 * stable multi-key sort (NaN and absent cells last or first, -0.0 tied with
 * 0.0, descending keys keeping ties in row order, text by bytes), groups
 * (sorted or first-seen, dropna, nil apart from NaN), the aggregators
 * against straightforward computations (median and quantile by a full
 * sort, wrapping integer sums), joins in frame.lua's row order (duplicate
 * keys, missing keys matching, outer keys first-seen), gathers and coalesce.
 */
#include <math.h>
#include <string.h>

#include "table/table.h"
#include "tap.h"

static et_column *f64(const double *x, size_t n)
{
    et_column *c = et_col_new(ET_COL_F64, n, false, NULL);
    memcpy(et_col_mut_data(c), x, n * sizeof *x);
    return c;
}

static et_column *i64(const int64_t *x, size_t n)
{
    et_column *c = et_col_new(ET_COL_I64, n, false, NULL);
    memcpy(et_col_mut_data(c), x, n * sizeof *x);
    return c;
}

/* A text column of n strings (NULL: absent). */
static et_column *str(et_strpool *p, const char *const *s, size_t n)
{
    bool holes = false;
    for (size_t i = 0; i < n; i++)
        holes |= s[i] == NULL;
    et_column *c = et_col_new(ET_COL_STR, n, holes, p);
    uint32_t *ids = et_col_mut_data(c);
    for (size_t i = 0; i < n; i++) {
        if (s[i])
            et_strpool_intern(p, s[i], strlen(s[i]), &ids[i]);
        else
            et_col_mut_valid(c)[i] = ET_ABSENT;
    }
    return c;
}

static bool same_idx(const size_t *a, const size_t *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_sort(void)
{
    double x[] = {2.0, NAN, -0.0, 1.0, 0.0, 2.0, -5.5};
    et_column *c = f64(x, 7);
    size_t idx[7] = {0, 1, 2, 3, 4, 5, 6};
    bool asc = false, desc = true;
    ok(et_tab_sort(&c, &asc, 1, false, idx, 7) == 0, "sort runs");
    size_t want1[] = {6, 2, 4, 3, 0, 5, 1};
    ok(same_idx(idx, want1, 7), "ascending: -0.0 ties 0.0 in row order, NaN last");
    for (size_t i = 0; i < 7; i++)
        idx[i] = i;
    et_tab_sort(&c, &desc, 1, true, idx, 7);
    size_t want2[] = {1, 0, 5, 3, 2, 4, 6};
    ok(same_idx(idx, want2, 7), "descending: ties keep row order, NaN first with na_first");

    et_strpool *p = et_strpool_new();
    const char *s[] = {"b", "a\0", "b", NULL, "a", "\xff"};
    et_column *t = str(p, s, 6);
    int64_t k[] = {1, 1, 0, 0, 1, 0};
    et_column *ki = i64(k, 6);
    et_column *keys[] = {t, ki};
    bool dirs[] = {false, true};
    size_t j[6] = {0, 1, 2, 3, 4, 5};
    et_tab_sort(keys, dirs, 2, false, j, 6);
    /* "a" (rows 1 and 4: "a\0" is "a" in C) , "b" (k desc: row 0 then 2),
     * "\xff", absent */
    size_t want3[] = {1, 4, 0, 2, 5, 3};
    ok(same_idx(j, want3, 6), "two keys: text by bytes, then an integer descending");
    et_col_release(c), et_col_release(t), et_col_release(ki);
    et_strpool_release(p);
}

static void test_groups_and_aggs(void)
{
    et_strpool *p = et_strpool_new();
    const char *s[] = {"b", "a", "b", NULL, "a", "b", "c"};
    et_column *key = str(p, s, 7);
    double x[] = {1.0, 4.0, 2.0, 9.0, NAN, 7.0, 3.0};
    et_column *val = f64(x, 7);
    et_groups g;
    ok(et_tab_group(&key, 1, 7, true, true, false, &g) == 0 && g.n == 3, "three groups, the absent key dropped");
    ok(g.first[0] == 1 && g.first[1] == 0 && g.first[2] == 6, "groups sorted by key: a, b, c");
    ok(g.offsets[2] - g.offsets[1] == 3 && g.rows[g.offsets[1]] == 0 && g.rows[g.offsets[1] + 2] == 5,
       "a group's rows ascending");
    et_column *o;
    size_t bad;
    et_tab_agg(val, &g, ET_AGG_COUNT, 0, &o, &bad);
    ok(et_col_i64(o, 0) == 1 && et_col_i64(o, 1) == 3, "count skips NaN");
    et_col_release(o);
    et_tab_agg(val, &g, ET_AGG_MEDIAN, 0, &o, &bad);
    ok(et_col_f64(o, 1) == 2.0 && et_col_f64(o, 0) == 4.0, "median of b: 2; of a: 4");
    et_col_release(o);
    et_tab_agg(val, &g, ET_AGG_MAX, 0, &o, &bad);
    ok(et_col_f64(o, 1) == 7.0, "max");
    et_col_release(o);
    ok(et_tab_agg(key, &g, ET_AGG_MEAN, 0, &o, &bad) == ET_TAB_NOT_NUMBERS && bad == 1,
       "mean over text: not numbers, at the first text cell of the groups");
    et_tab_agg(key, &g, ET_AGG_MIN, 0, &o, &bad);
    ok(o->kind == ET_COL_STR && et_col_str(o, 2) == et_col_str(key, 6), "min of text keeps text");
    et_col_release(o);
    et_groups_free(&g);

    ok(et_tab_group(&key, 1, 7, false, false, false, &g) == 0 && g.n == 4 && g.first[2] == 3,
       "dropna = false, first-seen order: the absent key is a group");
    et_groups_free(&g);
    et_col_release(key), et_col_release(val);
    et_strpool_release(p);

    /* median and quantile against a full sort, on many sizes */
    uint64_t r = 88172645463325252ULL;
    for (size_t n = 1; n < 300; n += 7) {
        double *v = malloc(n * sizeof *v), *s2 = malloc(n * sizeof *s2);
        int64_t *zero = calloc(n, sizeof *zero);
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            v[i] = (double)(r % 50) / 4.0;
        }
        memcpy(s2, v, n * sizeof *v);
        qsort(s2, n, sizeof *s2, cmpd);
        et_column *vc = f64(v, n), *kc = i64(zero, n);
        et_groups gg;
        et_tab_group(&kc, 1, n, true, true, false, &gg);
        et_column *m, *q;
        et_tab_agg(vc, &gg, ET_AGG_MEDIAN, 0, &m, &bad);
        et_tab_agg(vc, &gg, ET_AGG_QUANTILE, 0.3, &q, &bad);
        double wm = n % 2 ? s2[n / 2] : (s2[n / 2 - 1] + s2[n / 2]) / 2.0;
        double qi = 0.3 * (double)(n - 1);
        size_t i = (size_t)qi;
        double fr = fmod(qi, 1.0);
        double wq = (fr == 0.0 || i + 1 >= n) ? s2[i] : s2[i] + (s2[i + 1] - s2[i]) * fr;
        if (et_col_f64(m, 0) != wm || et_col_f64(q, 0) != wq)
            ok(0, "median and quantile(0.3) of %zu values equal the sorted ones", n);
        et_col_release(m), et_col_release(q), et_col_release(vc), et_col_release(kc);
        et_groups_free(&gg);
        free(v), free(s2), free(zero);
    }
    ok(1, "median and quantile(0.3) equal a full sort's on sizes 1..295");

    int64_t big[] = {INT64_MAX, 1, 5};
    int64_t z[] = {0, 0, 0};
    et_column *bc = i64(big, 3), *zc = i64(z, 3);
    et_groups gg;
    et_tab_group(&zc, 1, 3, true, true, false, &gg);
    et_tab_agg(bc, &gg, ET_AGG_SUM, 0, &o, &bad);
    ok(o->kind == ET_COL_I64 && et_col_i64(o, 0) == INT64_MIN + 5, "an integer sum wraps as Lua's");
    et_col_release(o), et_col_release(bc), et_col_release(zc);
    et_groups_free(&gg);
}

static void test_join(void)
{
    et_strpool *p = et_strpool_new(), *q = et_strpool_new();
    const char *l[] = {"x", "y", "x", NULL, "z"};
    const char *rr[] = {"y", "x", NULL, "x", "w"};
    et_column *lk = str(p, l, 5), *rk = str(q, rr, 5); /* two pools: bytes decide */
    size_t *li, *ri, n;
    ok(et_tab_join(&lk, 5, &rk, 5, 1, 1, &li, &ri, &n) == 0 && n == 7, "left join: 7 rows");
    size_t wl[] = {0, 0, 1, 2, 2, 3, 4}, wr[] = {1, 3, 0, 1, 3, 2, ET_NO_ROW};
    ok(same_idx(li, wl, 7) && same_idx(ri, wr, 7),
       "left rows in order, each with its matches in order; missing keys match; no match: none");
    et_column *g = et_col_gather(rk, ri, n);
    ok(g->valid[6] == ET_NAN && et_col_missing(g, 6) && !et_col_missing(g, 0), "a gather's hole is NaN");
    et_col_release(g);
    free(li), free(ri);
    ok(et_tab_join(&lk, 5, &rk, 5, 1, 0, &li, &ri, &n) == 0 && n == 6 && li[0] == 0 && ri[1] == 3 &&
           li[2] == 2 && li[4] == 1,
       "inner: grouped by key in the left's first-seen order");
    free(li), free(ri);
    ok(et_tab_join(&lk, 5, &rk, 5, 1, 3, &li, &ri, &n) == 0 && n == 8, "outer: 8 rows");
    /* keys in first-seen order (pandas' sort=False): the left's x, y, the
     * missing key, z, then the right's w */
    size_t ol[] = {0, 0, 2, 2, 1, 3, 4, ET_NO_ROW}, or_[] = {1, 3, 1, 3, 0, 2, ET_NO_ROW, 4};
    ok(same_idx(li, ol, 8) && same_idx(ri, or_, 8),
       "outer: keys first-seen, the left's then the right's others, the missing key in its place");
    et_column *k = et_col_coalesce(lk, li, rk, ri, n);
    size_t len;
    ok(k && k->pool != p && strcmp(et_strpool_get(k->pool, et_col_str(k, 7), &len), "w") == 0,
       "coalesce: the right's key where the left has none, in a pool of both");
    et_col_release(k);
    free(li), free(ri);
    double d[] = {1.0, 2.0};
    int64_t e[] = {2, 1};
    et_column *dc = f64(d, 2), *ec = i64(e, 2);
    ok(et_tab_join(&dc, 2, &ec, 2, 1, 0, &li, &ri, &n) == 0 && n == 2 && ri[0] == 1, "float and int keys match by value");
    free(li), free(ri);
    ok(et_tab_join(&dc, 2, &lk, 5, 1, 0, &li, &ri, &n) == ET_TAB_UNSUPPORTED, "number and text keys: unsupported");
    et_col_release(dc), et_col_release(ec), et_col_release(lk), et_col_release(rk);
    et_strpool_release(p), et_strpool_release(q);
}

static void test_describe(void)
{
    double x[] = {3.0, NAN, -0.0, 1.0};
    et_column *c = f64(x, 4);
    double q[] = {0.5}, out[6];
    ok(et_tab_describe(c, q, 1, out) == 0, "describe runs");
    ok(out[0] == 3 && out[3] == 0.0 && !signbit(out[3]) && out[4] == 1.0 && out[5] == 3.0,
       "count 3, min 0.0 (not -0.0), median 1, max 3");
    et_col_release(c);
}

int main(void)
{
    test_sort();
    test_groups_and_aggs();
    test_join();
    test_describe();
    return done_testing();
}
