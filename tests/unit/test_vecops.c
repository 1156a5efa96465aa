/*
 * test_vecops.c - the kernels of Series expressions (src/core/table/
 * vecops.h) at the edges pandas' generated cases do not reach: int64
 * wrap-around and INT64_MIN // -1, Python's floor division and remainder
 * signs, division by zero as pandas gives it, negative powers refused,
 * NaN in comparisons and in membership sets, broadcast scalars (step 0).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "table/vecops.h"
#include "tap.h"

int main(void)
{
    int64_t a[] = {7, -7, 7, -7, INT64_MIN, INT64_MAX, 0};
    int64_t b[] = {2, 2, -2, -2, -1, 1, 5};
    int64_t o[7];
    et_vec_arith_i64(ET_VOP_FLOORDIV, a, 1, b, 1, o, 7);
    ok(o[0] == 3 && o[1] == -4 && o[2] == -4 && o[3] == 3, "// floors as Python (3, -4, -4, 3)");
    ok(o[4] == INT64_MIN, "INT64_MIN // -1 wraps to INT64_MIN (NumPy), no trap");
    et_vec_arith_i64(ET_VOP_MOD, a, 1, b, 1, o, 7);
    ok(o[0] == 1 && o[1] == 1 && o[2] == -1 && o[3] == -1 && o[4] == 0, "%% takes the divisor's sign");
    int64_t one = 1;
    et_vec_arith_i64(ET_VOP_ADD, a + 5, 1, &one, 0, o, 1);
    ok(o[0] == INT64_MIN, "INT64_MAX + 1 wraps (a scalar operand, step 0)");
    ok(et_vec_i64_has_zero(b, 1, 7) == 0 && et_vec_i64_has_zero(a + 6, 1, 1) == 1, "has_zero");

    int64_t z[] = {0, 0, 0, 3};
    int64_t x[] = {5, -5, 0, 7};
    double d[4];
    et_vec_divmod_i64_f64(ET_VOP_FLOORDIV, x, 1, z, 1, d, 4);
    ok(d[0] == INFINITY && d[1] == -INFINITY && isnan(d[2]) && d[3] == 2.0, "int // 0: inf, -inf, nan (pandas)");
    et_vec_divmod_i64_f64(ET_VOP_MOD, x, 1, z, 1, d, 4);
    ok(isnan(d[0]) && isnan(d[1]) && isnan(d[2]) && d[3] == 1.0, "int %% 0: nan (pandas)");

    int64_t base[] = {3, 2, 0}, ex[] = {4, 63, 0}, neg[] = {1, -1, 2};
    size_t bad = 99;
    ok(et_vec_pow_i64(base, 1, ex, 1, o, 3, &bad) == 0 && o[0] == 81 && o[1] == INT64_MIN && o[2] == 1,
       "int ** int: 81, 2**63 wraps, 0**0 is 1");
    ok(et_vec_pow_i64(base, 1, neg, 1, o, 3, &bad) == -1 && bad == 1, "a negative exponent refused, its index");

    double fa[] = {7.5, -7.5, 0.0, NAN, 5.0};
    double two = -2.0, zero = 0.0;
    double r[5];
    et_vec_arith_f64(ET_VOP_FLOORDIV, fa, 1, &two, 0, r, 5);
    ok(r[0] == -4.0 && r[1] == 3.0 && r[2] == 0.0 && signbit(r[2]) && isnan(r[3]), "float // -2 (NumPy; -0.0)");
    et_vec_arith_f64(ET_VOP_MOD, fa, 1, &two, 0, r, 5);
    ok(r[0] == -0.5 && r[1] == -1.5 && r[2] == 0.0 && signbit(r[2]), "float %% -2 takes the divisor's sign");
    et_vec_arith_f64(ET_VOP_FLOORDIV, fa, 1, &zero, 0, r, 5);
    ok(r[0] == INFINITY && r[1] == -INFINITY && isnan(r[2]), "float // 0: x / 0");
    et_vec_arith_f64(ET_VOP_MOD, fa, 1, &zero, 0, r, 5);
    ok(isnan(r[0]) && isnan(r[2]), "float %% 0: nan");

    uint8_t m[5];
    double lim = 0.0;
    et_vec_cmp_f64(ET_VCMP_GT, fa, 1, &lim, 0, m, 5);
    ok(memcmp(m, "\1\0\0\0\1", 5) == 0, "> with NaN: false");
    et_vec_cmp_f64(ET_VCMP_NE, fa, 1, fa, 1, m, 5);
    ok(memcmp(m, "\0\0\0\1\0", 5) == 0, "NaN != NaN: true");
    int8_t ord[] = {-1, 0, 1};
    uint8_t miss[] = {0, 1, 0};
    et_vec_cmp_order(ET_VCMP_LE, ord, miss, m, 3);
    ok(memcmp(m, "\1\0\0", 3) == 0, "order to <=, a missing cell false");
    et_vec_cmp_order(ET_VCMP_NE, ord, miss, m, 3);
    ok(memcmp(m, "\1\1\1", 3) == 0, "order to !=, a missing cell true");

    double set[] = {NAN, 5.0, -7.5};
    et_vec_sort_set(set, 3);
    ok(set[0] == -7.5 && set[1] == 5.0 && isnan(set[2]), "the set sorted, NaN last");
    et_vec_isin_f64(fa, set, 3, m, 5);
    ok(memcmp(m, "\0\1\0\1\1", 5) == 0, "isin: NaN matches NaN (pandas)");
    et_vec_isin_f64(fa, set, 2, m, 5);
    ok(memcmp(m, "\0\1\0\0\1", 5) == 0, "isin without NaN in the set");

    uint8_t p[] = {1, 1, 0, 0}, q[] = {1, 0, 1, 0}, t = 1;
    et_vec_and(p, 1, q, 1, m, 4);
    ok(memcmp(m, "\1\0\0\0", 4) == 0, "and");
    et_vec_or(p, 1, q, 1, m, 4);
    ok(memcmp(m, "\1\1\1\0", 4) == 0, "or");
    et_vec_xor(p, 1, &t, 0, m, 4);
    ok(memcmp(m, "\0\0\1\1", 4) == 0, "xor with a scalar");
    et_vec_not(q, m, 4);
    ok(memcmp(m, "\0\1\0\1", 4) == 0, "not");
    uint32_t ids[] = {2, 0, 1};
    uint8_t lut[] = {1, 0, 1}, mi[] = {0, 0, 1};
    et_vec_map_ids(ids, lut, mi, 0, m, 3);
    ok(memcmp(m, "\1\1\0", 3) == 0, "map ids through a table, a missing cell given");
    int64_t ng[] = {INT64_MIN, 5};
    et_vec_neg_i64(ng, o, 2);
    ok(o[0] == INT64_MIN && o[1] == -5, "-INT64_MIN wraps");
    return done_testing();
}
