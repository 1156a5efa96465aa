/*
 * fuzz_compare.c - libFuzzer target: tensor views with any sizes, strides
 * (zero strides: broadcasting) and offsets over a byte buffer, and the
 * comparisons over them (--compare_results' metrics, calculate_numeric_gap's
 * distances, max |a - b|), with NumPy broadcasting between the two.
 *
 * Input: two tensor headers, then the buffer both views look at:
 *   u8 scalar type, u8 flags (bit 0: strides given, bit 1: a Python
 *   scalar instead of a tensor), u8 ndim (mod 6), then per dimension
 *   a u32le size and an i32le stride (when given), then a u32le offset;
 *   the rest of the input is the buffer (a heap block of exactly its size).
 * Every view is made with et_tensor_init_in; a readable one is read in
 * full (every element, the statistics, the byte copy); then all three
 * distances, all three metrics and max |a - b| are computed both ways.
 * No cap besides the product's own: the broadcast budget (tensor.h) is
 * what keeps every loop bounded, and the invariants check it.
 * Invariants, checked with __builtin_trap(): a refused view or comparison
 * leaves a message; a view lies inside the buffer and holds no more
 * elements than the bytes from its offset unless it broadcasts within the
 * budget; a readable view reads every element it claims; a comparison of
 * readable operands fails only for shapes that do not broadcast, for the
 * budget, or (cosine) for unequal shapes.
 *
 * Seeds: tests/fuzz/seeds/fuzz_compare/ (tests/fuzz/fuzz_compare.seeds);
 * make fuzz / scripts/fuzz.sh.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/numeric.h"
#include "format/tensor.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double sink;

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static uint32_t u32(reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        v |= (uint32_t)(r->left ? *r->p : 0) << (8 * i);
        if (r->left)
            r->p++, r->left--;
    }
    return v;
}

static uint8_t u8(reader *r)
{
    uint8_t v = r->left ? *r->p : 0;
    if (r->left)
        r->p++, r->left--;
    return v;
}

typedef struct spec {
    int st;
    bool strided, scalar;
    uint32_t ndim;
    int64_t sizes[ET_TENSOR_MAX_DIM], strides[ET_TENSOR_MAX_DIM];
    int64_t offset;
} spec;

static void read_spec(reader *r, spec *s)
{
    s->st = u8(r) % 32;
    uint8_t fl = u8(r);
    s->strided = fl & 1;
    s->scalar = fl & 2;
    s->ndim = u8(r) % 6;
    for (uint32_t d = 0; d < s->ndim; d++) {
        s->sizes[d] = (int64_t)u32(r);
        if (s->strided)
            s->strides[d] = (int64_t)(int32_t)u32(r);
    }
    s->offset = (int64_t)u32(r);
}

/* Read a view in full; check the bounds. */
static void read_all(const et_tensor *t, const uint8_t *buf, size_t n)
{
    if (t->data && (t->data < buf || (uint64_t)(t->data - buf) > n ||
                    t->span > n - (uint64_t)(t->data - buf)))
        __builtin_trap();
    if (!et_tensor_readable(t))
        return;
    uint64_t avail = t->data ? n - (uint64_t)(t->data - buf) : 0;
    if (t->numel > avail / (uint64_t)t->elem_size && t->numel > et_tensor_max_broadcast())
        __builtin_trap(); /* work beyond the bytes and the budget */
    static double f[1024];
    for (uint64_t i = 0; i < t->numel; i += 1024) {
        uint64_t k = t->numel - i < 1024 ? t->numel - i : 1024;
        if (et_tensor_read_f64(t, i, k, f) != 0)
            __builtin_trap();
        sink += f[0];
    }
    et_tensor_stats s;
    if (et_tensor_stats_compute(t, &s) != 0 || s.count != t->numel)
        __builtin_trap();
    sink += s.mean;
    uint8_t *b = malloc(t->numel * (uint64_t)t->elem_size + 1);
    if (b) {
        if (et_tensor_copy_bytes(t, b) != 0)
            __builtin_trap();
        free(b);
    }
    sink += et_tensor_is_contiguous(t);
}

/* A comparison failed: only for these reasons. */
static void check_failure(const et_error *err, bool cosine)
{
    if (!err->msg[0])
        __builtin_trap();
    if (strstr(err->msg, "must match the size of tensor b") ||
        strstr(err->msg, "broadcast budget") || (cosine && strstr(err->msg, "same shape")))
        return;
    fprintf(stderr, "fuzz_compare: unexpected failure: %s\n", err->msg);
    __builtin_trap();
}

static void compare(const et_tensor *a, const et_tensor *b)
{
    et_error err;
    double out;
    for (int d = ET_DIST_MSE; d <= ET_DIST_SNR; d++) {
        et_error_clear(&err);
        if (et_numeric_distance((et_distance)d, a, b, &out, &err) != 0)
            check_failure(&err, false);
        else
            sink += out;
    }
    for (int m = ET_METRIC_SNR; m <= ET_METRIC_COSINE; m++) {
        et_error_clear(&err);
        if (et_numeric_metric((et_metric)m, a, b, &out, &err) != 0)
            check_failure(&err, m == ET_METRIC_COSINE);
        else
            sink += out;
    }
    et_error_clear(&err);
    if (et_numeric_max_abs_diff(a, b, &out, &err) != 0)
        check_failure(&err, false);
    uint32_t nd;
    int64_t sizes[ET_TENSOR_MAX_DIM];
    et_error_clear(&err);
    if (et_numeric_broadcast_shape(a, b, &nd, sizes, &err) != 0 && !err.msg[0])
        __builtin_trap();
}

/* One input (see the top of the file).  Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    spec s[2];
    read_spec(&r, &s[0]);
    read_spec(&r, &s[1]);
    uint8_t *buf = malloc(r.left ? r.left : 1);
    if (!buf)
        return 0;
    if (r.left)
        memcpy(buf, r.p, r.left);
    size_t n = r.left;
    et_tensor t[2];
    double storage[2];
    bool made[2];
    for (int k = 0; k < 2; k++) {
        et_error err;
        et_error_clear(&err);
        if (s[k].scalar) {
            storage[k] = (double)s[k].offset - 1e5;
            et_numeric_scalar(&t[k], &storage[k]);
            made[k] = true;
            continue;
        }
        made[k] = et_tensor_init_in(&t[k], s[k].st, s[k].ndim, s[k].sizes,
                                    s[k].strided ? s[k].strides : NULL, n ? buf : NULL, n,
                                    s[k].offset, "fuzz", "buffer", &err) == 0;
        if (!made[k] && !err.msg[0])
            __builtin_trap();
        if (made[k])
            read_all(&t[k], buf, n);
    }
    if (made[0] && made[1] && et_tensor_readable(&t[0]) && et_tensor_readable(&t[1])) {
        compare(&t[0], &t[1]);
        compare(&t[1], &t[0]);
    }
    free(buf);
    return 0;
}
