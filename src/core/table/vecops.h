/*
 * vecops.h - the kernels of the Frame's vectorised expressions (issue 24
 * item 3): element-wise arithmetic, comparisons, boolean logic and
 * membership over plain typed arrays, with pandas 1.5 / NumPy's semantics.
 * The Lua binding (src/lua/l_series.c) builds Series from them;
 * docs/lua-api.md "Series" gives the user's view.  Depends on base/ only.
 *
 * Operands are arrays of n elements, or a scalar broadcast to n: each
 * operand comes with a step in elements, 1 for an array and 0 for a scalar
 * (a[i * sa]).  Missing numbers are NaN (the binding turns a missing cell
 * of an int64 or bool column into NaN and computes in float64, as pandas
 * does with a column of ints that has a missing value).
 *
 *  - float64 arithmetic is IEEE: x / 0 is inf, -inf or nan; // and % are
 *    NumPy's floor_divide and remainder (Python's floor semantics: the
 *    remainder has the divisor's sign; x // 0 is x / 0, x % 0 is nan);
 *    ^ is pow();
 *  - int64 +, -, *, unary - wrap around (as NumPy's int64); // and % floor
 *    (Python); INT64_MIN // -1 is INT64_MIN (NumPy); a zero divisor makes
 *    the whole result float64, as pandas does (x // 0: inf, -inf, or nan
 *    for 0 // 0; x % 0: nan), see et_vec_i64_has_zero; ^ with a negative
 *    exponent is an error (NumPy: "Integers to negative integer powers are
 *    not allowed"); / is always float64;
 *  - comparisons give one byte per element (0 or 1): with NaN every
 *    comparison is false but != (true).
 *
 * No function allocates; none fails but et_vec_pow_i64 (a negative
 * exponent).
 */
#ifndef ET_TABLE_VECOPS_H
#define ET_TABLE_VECOPS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    ET_VOP_ADD = 0,
    ET_VOP_SUB,
    ET_VOP_MUL,
    ET_VOP_DIV,      /* true division: float64 */
    ET_VOP_FLOORDIV, /* // */
    ET_VOP_MOD,      /* % (Python's) */
    ET_VOP_POW,      /* ^ (Python's **) */
} et_vop;

typedef enum {
    ET_VCMP_EQ = 0,
    ET_VCMP_NE,
    ET_VCMP_LT,
    ET_VCMP_LE,
    ET_VCMP_GT,
    ET_VCMP_GE,
} et_vcmp;

/* out[i] = a[i*sa] op b[i*sb], float64 (every op). */
void et_vec_arith_f64(et_vop op, const double *a, size_t sa, const double *b, size_t sb,
                      double *out, size_t n);

/* out[i] = a[i*sa] op b[i*sb], int64, for ADD, SUB, MUL, and FLOORDIV and
 * MOD when no divisor is 0 (check et_vec_i64_has_zero first; a zero
 * divisor here gives 0).  Not for DIV or POW. */
void et_vec_arith_i64(et_vop op, const int64_t *a, size_t sa, const int64_t *b, size_t sb,
                      int64_t *out, size_t n);

/* FLOORDIV or MOD of int64 operands as float64, pandas' result when some
 * divisor is 0: those elements inf / -inf / nan (//) or nan (%), the
 * others the exact int64 result converted. */
void et_vec_divmod_i64_f64(et_vop op, const int64_t *a, size_t sa, const int64_t *b, size_t sb,
                           double *out, size_t n);

/* Is some b[i*sb] (i < n) zero? */
int et_vec_i64_has_zero(const int64_t *b, size_t sb, size_t n);

/* out[i] = a[i*sa] ** b[i*sb] in int64 (wrapping, as NumPy); -1 when an
 * exponent is negative (*bad = its index), else 0. */
int et_vec_pow_i64(const int64_t *a, size_t sa, const int64_t *b, size_t sb, int64_t *out,
                   size_t n, size_t *bad);

/* out[i] = -a[i] (wrapping for int64). */
void et_vec_neg_f64(const double *a, double *out, size_t n);
void et_vec_neg_i64(const int64_t *a, int64_t *out, size_t n);

/* out[i] = a[i*sa] cmp b[i*sb] (0 or 1). */
void et_vec_cmp_f64(et_vcmp op, const double *a, size_t sa, const double *b, size_t sb,
                    uint8_t *out, size_t n);
void et_vec_cmp_i64(et_vcmp op, const int64_t *a, size_t sa, const int64_t *b, size_t sb,
                    uint8_t *out, size_t n);

/* Three-way results (-1, 0, 1) to a comparison's bytes: out[i] = (ord[i]
 * cmp 0), and 0 (1 for NE) where missing[i] (missing may be NULL). */
void et_vec_cmp_order(et_vcmp op, const int8_t *ord, const uint8_t *missing, uint8_t *out, size_t n);

/* out[i] = lut[ids[i]] for dictionary-encoded text (a result per distinct
 * string, computed once); `missing` (NULL or n bytes, nonzero: missing)
 * gives `miss` there. */
void et_vec_map_ids(const uint32_t *ids, const uint8_t *lut, const uint8_t *missing, uint8_t miss,
                    uint8_t *out, size_t n);

/* Boolean logic over 0/1 bytes: and, or, not. */
void et_vec_and(const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, uint8_t *out, size_t n);
void et_vec_or(const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, uint8_t *out, size_t n);
void et_vec_xor(const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, uint8_t *out, size_t n);
void et_vec_not(const uint8_t *a, uint8_t *out, size_t n);

/* out[i] = a[i] is among set[0..k) (sorted ascending with NaNs last,
 * et_vec_sort_set); a NaN matches a NaN of the set, as pandas' isin. */
void et_vec_isin_f64(const double *a, const double *set, size_t k, uint8_t *out, size_t n);

/* Sort a membership set for et_vec_isin_f64 (in place; NaNs last). */
void et_vec_sort_set(double *set, size_t k);

/* Python's floor division and remainder of doubles (NumPy's). */
double et_vec_floordiv(double a, double b);
double et_vec_mod(double a, double b);

#endif
