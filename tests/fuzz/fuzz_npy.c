/*
 * fuzz_npy.c - libFuzzer target for the .npy reader (npy.h) and the
 * numeric comparisons over what it gives (numeric.h).
 *
 * Each input is a whole .npy file, copied into a heap block of exactly its
 * size (so ASan sees any read past it).  An accepted array is read in full:
 * every element through et_tensor_get_f64, then the built-in distances of
 * the array against itself and against a scalar, the compare_results
 * metrics against itself, and max |a - a|.  Invariants, checked with
 * __builtin_trap(): a refused input leaves a message; an accepted one has
 * its data inside the input (or in the byte-swapped copy), every element
 * readable, L1(a, a) == 0 or NaN (infinities), and the distances never
 * fail for an array against itself.
 *
 * Seeds: the .npy files of tests/npy/ (tests/npy/README.md); run with scripts/fuzz.sh
 * (make fuzz).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/npy.h"
#include "model/numeric.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double sink;

/* Parse one input and check it (see the top of the file).  Returns 0
 * (libFuzzer's convention). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    if (size)
        memcpy(p, data, size);
    et_npy n;
    et_error err;
    err.msg[0] = 0;
    if (et_npy_parse(&n, p, size, &err) != 0) {
        if (!err.msg[0])
            __builtin_trap();
        free(p);
        return 0;
    }
    const et_tensor *t = &n.tensor;
    uint64_t need = t->numel * (uint64_t)t->elem_size;
    if (t->numel && !n.byte_swapped &&
        (t->data < p + n.data_offset || need > size - n.data_offset))
        __builtin_trap();
    /* the view's bytes: every element of a non-empty array is readable */
    for (uint64_t i = 0; i < t->numel; i++) {
        double v;
        if (et_tensor_get_f64(t, i, &v) != 0)
            __builtin_trap();
        sink += v;
    }
    double out, s = 1.5;
    et_tensor sc;
    et_numeric_scalar(&sc, &s);
    for (int d = ET_DIST_MSE; d <= ET_DIST_SNR; d++) {
        if (et_numeric_distance((et_distance)d, t, t, &out, &err) != 0)
            __builtin_trap();
        if (d == ET_DIST_L1 && !(out == 0 || isnan(out)))
            __builtin_trap();
        if (et_numeric_distance((et_distance)d, t, &sc, &out, &err) != 0)
            __builtin_trap();
        sink += out;
    }
    for (int m = ET_METRIC_SNR; m <= ET_METRIC_COSINE; m++) {
        if (et_numeric_metric((et_metric)m, t, t, &out, &err) != 0)
            __builtin_trap();
        sink += out;
    }
    if (et_numeric_max_abs_diff(t, t, &out, &err) != 0)
        __builtin_trap();
    et_npy_close(&n);
    free(p);
    return 0;
}
