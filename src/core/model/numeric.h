/*
 * numeric.h - numerical comparison of tensors (spec §1.7, §7.5).
 *
 * Two families of functions, both over et_tensor views (tensor.h, strides
 * honoured, any readable scalar type):
 *
 *   the distances of calculate_numeric_gap's built-in comparators (spec
 *   §7.5: MSEComparator, L1Comparator, SNRComparator), computed as the
 *   reference computes them after convert_to_float_tensor: every element
 *   as float64; an operand holding any NaN has its NaN replaced by 0 and
 *   its infinities by the largest finite float64 of their sign
 *   (torch.nan_to_num), an operand without NaN is left alone; the two
 *   operands broadcast as NumPy / PyTorch broadcast;
 *
 *   the metrics of compare_results (spec §1.7: "snr", "mse",
 *   "cosine_similarity"): both tensors cast to float32, element-wise
 *   arithmetic in float32, the reduction's result a float32, then Python's
 *   round(x, 2).
 *
 * A scalar (a Python int, float or bool of the reference) is a 0-dim
 * float64 tensor: et_numeric_scalar() makes one.
 *
 * Sums are compensated (Neumaier) float64 sums; the reference's torch
 * reductions sum in cascade, so results can differ from it in the last
 * bits (never for the small integral values of the unit tests; compare_results'
 * rounding to 2 decimals hides it).
 *
 * Nothing here allocates: operands are read in chunks (equal shapes, a
 * scalar against a tensor) or element by element (general broadcasting).
 * Work is bounded: a broadcast that expands beyond both operands ([N, 1]
 * against [1, M]) may make at most et_tensor_max_broadcast() element
 * pairs (tensor.h), else the functions below fail with "broadcasting
 * tensor a (float32 [1000, 1]) against tensor b (float32 [1, 1000000])
 * makes 1000000000 elements, more than the broadcast budget of 1048576
 * elements (raise it with --max_broadcast_elements or etinspect.limits)".
 * Errors fill an et_error (ET_ERR_VALUE) and return -1.
 */
#ifndef ET_NUMERIC_H
#define ET_NUMERIC_H

#include <stddef.h>

#include "base/error.h"
#include "format/tensor.h"

/* The built-in distances of calculate_numeric_gap (spec §7.5). */
typedef enum {
    ET_DIST_MSE = 0, /* mean((a - b)^2) */
    ET_DIST_L1,      /* sum(|a - b|) */
    ET_DIST_SNR      /* 10 * log10(mean(a^2) / mean((a - b)^2)), dB */
} et_distance;

/* The distance named `name` (`len` bytes) after Python's str.strip() and
 * str.upper(): " mse " and "Mse" are ET_DIST_MSE.  Returns the distance,
 * or -1 for any other name (the caller raises "Unsupported distance
 * metric 'x'"). */
int et_distance_from_name(const char *name, size_t len);

/* "MSE", "L1" or "SNR". */
const char *et_distance_name(et_distance d);

/* Distance `d` between `a` (the reference / AOT side) and `b` (the
 * runtime side), in float64:
 *   MSE  mean over the broadcast shape of (a - b)^2 (NaN for no elements);
 *   L1   sum over the broadcast shape of |a - b| (0 for no elements);
 *   SNR  10 * log10(mean(a^2) / mean((a - b)^2)) in dB, the signal power
 *        over `a`'s own elements: +inf when the error is 0 and the signal
 *        not, NaN for 0 / 0.
 * Stores the result in *out and returns 0, or returns -1 with `err` set:
 * "Error computing MSE difference between tensors: The size of tensor a
 * (3) must match the size of tensor b (4) at non-singleton dimension 0"
 * (shapes that do not broadcast; PyTorch's wording after the reference's
 * prefix), "cannot read the elements of tensor a (float32 [2, 3]): no
 * debug buffer" (an unreadable operand). */
int et_numeric_distance(et_distance d, const et_tensor *a, const et_tensor *b, double *out,
                        et_error *err);

/* The metrics of compare_results (spec §1.7), in its fixed order. */
typedef enum {
    ET_METRIC_SNR = 0,   /* 10*log10(mean(ref^2) / mean((ref - val)^2)), dB */
    ET_METRIC_MSE,       /* mean((ref - val)^2) */
    ET_METRIC_COSINE     /* sum(ref*val) / (sqrt(sum(ref^2)) * sqrt(sum(val^2))) */
} et_metric;

/* The metric named `name` ("snr", "mse", "cosine_similarity"; exact), or -1. */
int et_metric_from_name(const char *name);

/* Metric `m` of `ref` (the reference output) and `val` (the run output)
 * as compare_results computes it: both cast to float32 (NaN kept), the
 * element-wise differences, squares and products in float32, each mean or
 * sum rounded to float32, the final ratio / logarithm in float32, and the
 * result rounded to 2 decimals as Python's round(x, 2) does (so 1e-3
 * gives 0.0, an exact match gives snr inf, 0/0 gives nan).  SNR and MSE
 * broadcast the two tensors; cosine similarity needs equal shapes.
 * Returns 0, or -1 with `err` set: "Input tensors must have the same
 * shape" (cosine), "The size of tensor a (3) must match the size of tensor
 * b (4) at non-singleton dimension 0" (SNR, MSE), an unreadable tensor. */
int et_numeric_metric(et_metric m, const et_tensor *ref, const et_tensor *val, double *out,
                      et_error *err);

/* Largest |a - b| over the broadcast shape, in float64 (no NaN
 * replacement: a NaN on either side gives NaN; NaN for no elements).
 * Returns 0, or -1 with `err` set as et_numeric_distance (no prefix). */
int et_numeric_max_abs_diff(const et_tensor *a, const et_tensor *b, double *out, et_error *err);

/* Make `t` a 0-dim float64 tensor holding *storage (which must outlive
 * `t`): how a Python scalar enters these functions. */
void et_numeric_scalar(et_tensor *t, double *storage);

/* The broadcast shape of `a` and `b` (NumPy rules: dimensions aligned at
 * the right, each pair equal or one of them 1).  Returns 0 with *ndim and
 * sizes[0..*ndim) set (sizes has ET_TENSOR_MAX_DIM entries), or -1 with
 * `err` set to PyTorch's message ("The size of tensor a (3) must match the
 * size of tensor b (4) at non-singleton dimension 0"). */
int et_numeric_broadcast_shape(const et_tensor *a, const et_tensor *b, uint32_t *ndim,
                               int64_t *sizes, et_error *err);

#endif
