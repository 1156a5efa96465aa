/*
 * test_table_column.c - the Frame engine's columns (src/core/table/column.h):
 * string pools (NUL and invalid UTF-8 bytes, ids dense and stable, ranks by
 * bytes), owned and borrowed columns (the owner released with the last
 * column), take, slice and masks.
 */
#include <string.h>

#include "table/column.h"
#include "tap.h"

static int released;
static void on_release(void *ctx)
{
    released += *(int *)ctx;
}

int main(void)
{
    et_strpool *p = et_strpool_new();
    uint32_t a, b, c, a2;
    ok(et_strpool_intern(p, "b\0x", 3, &a) == 0 && a == 0, "first string gets id 0");
    ok(et_strpool_intern(p, "\xff\xfe", 2, &b) == 0 && b == 1, "invalid UTF-8 interned");
    ok(et_strpool_intern(p, "b", 1, &c) == 0 && c == 2, "a prefix is another string");
    ok(et_strpool_intern(p, "b\0x", 3, &a2) == 0 && a2 == a, "same bytes, same id");
    size_t len;
    const char *s = et_strpool_get(p, a, &len);
    is_mem(s, len, "b\0x", 3, "bytes with a NUL kept");
    for (int i = 0; i < 1000; i++) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, "k%d", i);
        uint32_t id;
        et_strpool_intern(p, buf, (size_t)n, &id);
        if (id != (uint32_t)i + 3) {
            ok(0, "dense ids while growing (%d)", i);
            break;
        }
    }
    is_int(et_strpool_count(p), 1003, "count");
    s = et_strpool_get(p, 2, &len);
    is_mem(s, len, "b", 1, "ids keep their bytes after growth");
    const uint32_t *r = et_strpool_ranks(p);
    ok(r && r[c] < r[a] && r[a] < r[b], "ranks by bytes: \"b\" < \"b\\0x\" < \"\\xff\\xfe\"");

    et_column *col = et_col_new(ET_COL_STR, 4, true, p);
    uint32_t *ids = et_col_mut_data(col);
    ids[0] = a, ids[1] = b, ids[2] = c, ids[3] = a;
    et_col_mut_valid(col)[2] = 0;
    ok(et_col_missing(col, 2) && !et_col_missing(col, 1), "validity");
    size_t idx[] = {3, 2, 0};
    et_column *t = et_col_take(col, idx, 3);
    ok(t && t->n == 3 && et_col_str(t, 0) == a && !et_col_present(t, 1) && t->pool == p,
       "take: cells, validity and pool");
    et_col_release(t);

    static const double xs[] = {1.5, 0.0 / 0.0, -2};
    int weight = 1;
    released = 0;
    et_col_owner *o = et_col_owner_new(on_release, &weight);
    et_column *f = et_col_borrow(ET_COL_F64, 3, xs, 0, NULL, NULL, ET_LIST_F64, o);
    et_col_owner_release(o);
    is_int(released, 0, "the owner lives while a column borrows");
    ok(et_col_missing(f, 1) && !et_col_missing(f, 0), "NaN is missing");
    et_column *sl = et_col_slice(f, 1, 2);
    et_col_release(f);
    is_int(released, 0, "a slice keeps its column (and the owner) alive");
    ok(sl->n == 2 && et_col_f64(sl, 1) == -2, "slice cells");
    et_column *whole = et_col_slice(sl, 0, 2);
    ok(whole == sl, "a slice of everything is the column itself");
    et_col_release(whole);
    et_col_release(sl);
    is_int(released, 1, "the owner released once, with the last column");

    uint8_t mask[] = {0, 1, 1, 0, 1};
    size_t *mi, k;
    ok(et_mask_indices(mask, 5, &mi, &k) == 0 && k == 3 && mi[0] == 1 && mi[2] == 4, "mask indices");
    free(mi);
    et_col_release(col);
    et_strpool_release(p);
    return done_testing();
}
