/* vecops.c - element-wise kernels of the Frame's expressions; see vecops.h. */
#include "table/vecops.h"

#include <math.h>
#include <stdlib.h>

double et_vec_floordiv(double a, double b)
{
    if (b == 0.0)
        return a / b;
    double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0) {
        if ((b < 0) != (mod < 0))
            div -= 1.0;
    }
    if (div != 0.0) {
        double fl = floor(div);
        if (div - fl > 0.5)
            fl += 1.0;
        return fl;
    }
    return copysign(0.0, a / b);
}

double et_vec_mod(double a, double b)
{
    double mod = fmod(a, b);
    if (b == 0.0)
        return mod; /* nan */
    if (mod != 0.0) {
        if ((b < 0) != (mod < 0))
            mod += b;
    } else {
        mod = copysign(0.0, b);
    }
    return mod;
}

void et_vec_arith_f64(et_vop op, const double *a, size_t sa, const double *b, size_t sb,
                      double *out, size_t n)
{
    size_t i;
    switch (op) {
    case ET_VOP_ADD:
        for (i = 0; i < n; i++)
            out[i] = a[i * sa] + b[i * sb];
        break;
    case ET_VOP_SUB:
        for (i = 0; i < n; i++)
            out[i] = a[i * sa] - b[i * sb];
        break;
    case ET_VOP_MUL:
        for (i = 0; i < n; i++)
            out[i] = a[i * sa] * b[i * sb];
        break;
    case ET_VOP_DIV:
        for (i = 0; i < n; i++)
            out[i] = a[i * sa] / b[i * sb];
        break;
    case ET_VOP_FLOORDIV:
        for (i = 0; i < n; i++)
            out[i] = et_vec_floordiv(a[i * sa], b[i * sb]);
        break;
    case ET_VOP_MOD:
        for (i = 0; i < n; i++)
            out[i] = et_vec_mod(a[i * sa], b[i * sb]);
        break;
    case ET_VOP_POW:
        for (i = 0; i < n; i++)
            out[i] = pow(a[i * sa], b[i * sb]);
        break;
    }
}

/* Python's a // b and a % b of int64 (b != 0); INT64_MIN // -1 wraps. */
static int64_t idiv(int64_t a, int64_t b)
{
    if (b == -1)
        return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t imod(int64_t a, int64_t b)
{
    if (b == -1)
        return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

void et_vec_arith_i64(et_vop op, const int64_t *a, size_t sa, const int64_t *b, size_t sb,
                      int64_t *out, size_t n)
{
    size_t i;
    switch (op) {
    case ET_VOP_ADD:
        for (i = 0; i < n; i++)
            out[i] = (int64_t)((uint64_t)a[i * sa] + (uint64_t)b[i * sb]);
        break;
    case ET_VOP_SUB:
        for (i = 0; i < n; i++)
            out[i] = (int64_t)((uint64_t)a[i * sa] - (uint64_t)b[i * sb]);
        break;
    case ET_VOP_MUL:
        for (i = 0; i < n; i++)
            out[i] = (int64_t)((uint64_t)a[i * sa] * (uint64_t)b[i * sb]);
        break;
    case ET_VOP_FLOORDIV:
        for (i = 0; i < n; i++)
            out[i] = b[i * sb] ? idiv(a[i * sa], b[i * sb]) : 0;
        break;
    case ET_VOP_MOD:
        for (i = 0; i < n; i++)
            out[i] = b[i * sb] ? imod(a[i * sa], b[i * sb]) : 0;
        break;
    case ET_VOP_DIV:
    case ET_VOP_POW:
        for (i = 0; i < n; i++)
            out[i] = 0;
        break;
    }
}

void et_vec_divmod_i64_f64(et_vop op, const int64_t *a, size_t sa, const int64_t *b, size_t sb,
                           double *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int64_t x = a[i * sa], y = b[i * sb];
        if (y != 0)
            out[i] = (double)(op == ET_VOP_MOD ? imod(x, y) : idiv(x, y));
        else if (op == ET_VOP_MOD || x == 0)
            out[i] = NAN;
        else
            out[i] = x > 0 ? INFINITY : -INFINITY;
    }
}

int et_vec_i64_has_zero(const int64_t *b, size_t sb, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i * sb] == 0)
            return 1;
    return 0;
}

int et_vec_pow_i64(const int64_t *a, size_t sa, const int64_t *b, size_t sb, int64_t *out,
                   size_t n, size_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        int64_t e = b[i * sb];
        if (e < 0) {
            *bad = i;
            return -1;
        }
        uint64_t base = (uint64_t)a[i * sa], r = 1;
        for (uint64_t k = (uint64_t)e; k; k >>= 1) {
            if (k & 1)
                r *= base;
            base *= base;
        }
        out[i] = (int64_t)r;
    }
    return 0;
}

void et_vec_neg_f64(const double *a, double *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = -a[i];
}

void et_vec_neg_i64(const int64_t *a, int64_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (int64_t)(0 - (uint64_t)a[i]);
}

#define CMP_LOOP(T)                                                                                \
    do {                                                                                           \
        size_t i;                                                                                  \
        switch (op) {                                                                              \
        case ET_VCMP_EQ:                                                                           \
            for (i = 0; i < n; i++)                                                                \
                out[i] = a[i * sa] == b[i * sb];                                                   \
            break;                                                                                 \
        case ET_VCMP_NE:                                                                           \
            for (i = 0; i < n; i++)                                                                \
                out[i] = a[i * sa] != b[i * sb];                                                   \
            break;                                                                                 \
        case ET_VCMP_LT:                                                                           \
            for (i = 0; i < n; i++)                                                                \
                out[i] = a[i * sa] < b[i * sb];                                                    \
            break;                                                                                 \
        case ET_VCMP_LE:                                                                           \
            for (i = 0; i < n; i++)                                                                \
                out[i] = a[i * sa] <= b[i * sb];                                                   \
            break;                                                                                 \
        case ET_VCMP_GT:                                                                           \
            for (i = 0; i < n; i++)                                                                \
                out[i] = a[i * sa] > b[i * sb];                                                    \
            break;                                                                                 \
        case ET_VCMP_GE:                                                                           \
            for (i = 0; i < n; i++)                                                                \
                out[i] = a[i * sa] >= b[i * sb];                                                   \
            break;                                                                                 \
        }                                                                                          \
    } while (0)

void et_vec_cmp_f64(et_vcmp op, const double *a, size_t sa, const double *b, size_t sb,
                    uint8_t *out, size_t n)
{
    CMP_LOOP(double);
}

void et_vec_cmp_i64(et_vcmp op, const int64_t *a, size_t sa, const int64_t *b, size_t sb,
                    uint8_t *out, size_t n)
{
    CMP_LOOP(int64_t);
}

void et_vec_cmp_order(et_vcmp op, const int8_t *ord, const uint8_t *missing, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int o = ord[i];
        uint8_t r = 0;
        switch (op) {
        case ET_VCMP_EQ: r = o == 0; break;
        case ET_VCMP_NE: r = o != 0; break;
        case ET_VCMP_LT: r = o < 0; break;
        case ET_VCMP_LE: r = o <= 0; break;
        case ET_VCMP_GT: r = o > 0; break;
        case ET_VCMP_GE: r = o >= 0; break;
        }
        if (missing && missing[i])
            r = op == ET_VCMP_NE;
        out[i] = r;
    }
}

void et_vec_map_ids(const uint32_t *ids, const uint8_t *lut, const uint8_t *missing, uint8_t miss,
                    uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (missing && missing[i]) ? miss : lut[ids[i]];
}

void et_vec_and(const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a[i * sa] && b[i * sb];
}

void et_vec_or(const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a[i * sa] || b[i * sb];
}

void et_vec_xor(const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (a[i * sa] != 0) != (b[i * sb] != 0);
}

void et_vec_not(const uint8_t *a, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = !a[i];
}

static int cmp_set(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    if (a != a)
        return b != b ? 0 : 1;
    if (b != b)
        return -1;
    return (a > b) - (a < b);
}

void et_vec_sort_set(double *set, size_t k)
{
    if (k > 1)
        qsort(set, k, sizeof *set, cmp_set);
}

void et_vec_isin_f64(const double *a, const double *set, size_t k, uint8_t *out, size_t n)
{
    size_t nums = k; /* the set's numbers come before its NaNs */
    while (nums > 0 && set[nums - 1] != set[nums - 1])
        nums--;
    int has_nan = nums < k;
    for (size_t i = 0; i < n; i++) {
        double x = a[i];
        if (x != x) {
            out[i] = (uint8_t)has_nan;
            continue;
        }
        size_t lo = 0, hi = nums;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (set[mid] < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        out[i] = lo < nums && set[lo] == x;
    }
}
