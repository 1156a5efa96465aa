/*
 * test_numeric.c - unit tests for numeric.c (spec §1.7, §7.5) and npy.c
 * (TAP output).
 *
 * The comparator facts are the reference's unit tests (spec §7.5:
 * l1/mse/snr_comparator_test.py), computed by hand; the compare_results
 * facts are worked out from §1.7 (float32 arithmetic, Python's round).
 * The .npy cases are built here byte by byte: every version, byte order,
 * fortran order, dtype, and the hostile headers the reader must refuse.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/npy.h"
#include "model/numeric.h"
#include "tap.h"

/* ------------------------------------------------------------- helpers */

#define ST_BYTE 0
#define ST_INT 3
#define ST_LONG 4
#define ST_HALF 5
#define ST_FLOAT 6
#define ST_DOUBLE 7
#define ST_BOOL 11

/* A contiguous tensor over `data` (bytes = numel * element size). */
static et_tensor mk(int st, uint32_t nd, const int64_t *sizes, const void *data, size_t bytes)
{
    et_tensor t;
    et_error err;
    if (et_tensor_init_in(&t, st, nd, sizes, NULL, data, bytes, 0, "t", "test data", &err) != 0)
        diag("mk: %s", err.msg);
    return t;
}

#define VEC(st, arr) mk(st, 1, (int64_t[]){(int64_t)(sizeof arr / sizeof arr[0])}, arr, sizeof arr)
#define MAT(st, r, c, arr) mk(st, 2, (int64_t[]){r, c}, arr, sizeof arr)

static int near(double got, double want, const char *what)
{
    int pass;
    if (isnan(want))
        pass = isnan(got);
    else if (isinf(want))
        pass = got == want;
    else
        pass = fabs(got - want) <= 1e-12 * (fabs(want) > 1 ? fabs(want) : 1);
    if (!ok(pass, "%s", what))
        diag("     got: %.17g\n#   wanted: %.17g", got, want);
    return pass;
}

/* distance d(a, b); NaN when it fails */
static double dist(et_distance d, const et_tensor *a, const et_tensor *b)
{
    double out;
    et_error err;
    if (et_numeric_distance(d, a, b, &out, &err) != 0) {
        diag("unexpected error: %s", err.msg);
        return NAN;
    }
    return out;
}

static double metric(et_metric m, const et_tensor *a, const et_tensor *b)
{
    double out;
    et_error err;
    if (et_numeric_metric(m, a, b, &out, &err) != 0) {
        diag("unexpected error: %s", err.msg);
        return -12345;
    }
    return out;
}

static double sc(double v, et_tensor *t, double *storage)
{
    *storage = v;
    et_numeric_scalar(t, storage);
    return v;
}

/* ------------------------------------------------------------- §7.5 facts */

static void test_names(void)
{
    is_int(et_distance_from_name("MSE", 3), ET_DIST_MSE, "distance 'MSE'");
    is_int(et_distance_from_name(" mse\n", 5), ET_DIST_MSE, "distance ' mse\\n': strip, upper");
    is_int(et_distance_from_name("l1", 2), ET_DIST_L1, "distance 'l1'");
    is_int(et_distance_from_name("\tSnr ", 5), ET_DIST_SNR, "distance '\\tSnr '");
    is_int(et_distance_from_name("MSEE", 4), -1, "distance 'MSEE' unknown");
    is_int(et_distance_from_name("  ", 2), -1, "distance '  ' unknown");
    is_int(et_distance_from_name("L 1", 3), -1, "distance 'L 1' unknown");
    is_str(et_distance_name(ET_DIST_SNR), "SNR", "name of SNR");
    is_int(et_metric_from_name("cosine_similarity"), ET_METRIC_COSINE, "metric cosine_similarity");
    is_int(et_metric_from_name("MSE"), -1, "metric names are exact (lower case)");
}

static void test_l1(void)
{
    float x[] = {1, 2, 3, 4};
    et_tensor a = MAT(ST_FLOAT, 2, 2, x), b = MAT(ST_FLOAT, 2, 2, x);
    near(dist(ET_DIST_L1, &a, &b), 0.0, "L1 identical -> 0.0");

    et_tensor s1, s2;
    double v1, v2;
    sc(1, &s1, &v1);
    sc(2, &s2, &v2);
    near(dist(ET_DIST_L1, &s1, &s2), 1.0, "L1(1, 2) = 1.0");

    double p[] = {3, 2, -1, NAN}, q[] = {NAN, 0, -3, 1};
    et_tensor tp = VEC(ST_DOUBLE, p), tq = VEC(ST_DOUBLE, q);
    near(dist(ET_DIST_L1, &tp, &tq), 8.0, "L1([3,2,-1,NaN], [NaN,0,-3,1]) = 8.0");

    double m1[] = {4, 9, 6, 4}, m2[] = {1, 2, 3, 5};
    et_tensor a2 = MAT(ST_DOUBLE, 2, 2, m1), b2 = MAT(ST_DOUBLE, 2, 2, m2);
    near(dist(ET_DIST_L1, &a2, &b2), 14.0, "L1([[4,9],[6,4]], [[1,2],[3,5]]) = 14.0");
}

static void test_mse(void)
{
    et_tensor s1, s2;
    double v1, v2;
    sc(10, &s1, &v1);
    sc(2, &s2, &v2);
    near(dist(ET_DIST_MSE, &s1, &s2), 64.0, "MSE(10, 2) = 64.0");

    double p[] = {3, 1, -3, NAN}, q[] = {NAN, 0, -3, 2};
    et_tensor tp = VEC(ST_DOUBLE, p), tq = VEC(ST_DOUBLE, q);
    near(dist(ET_DIST_MSE, &tp, &tq), 14.0 / 4, "MSE([3,1,-3,NaN], [NaN,0,-3,2]) = 14/4");

    double m1[] = {4, 9, 6, 4}, m2[] = {1, 2, 3, 10};
    et_tensor a = MAT(ST_DOUBLE, 2, 2, m1), b = MAT(ST_DOUBLE, 2, 2, m2);
    near(dist(ET_DIST_MSE, &a, &b), 103.0 / 4, "MSE([[4,9],[6,4]], [[1,2],[3,10]]) = 103/4");
}

static void test_snr(void)
{
    float x[] = {1, -2, 3};
    et_tensor a = VEC(ST_FLOAT, x), b = VEC(ST_FLOAT, x);
    near(dist(ET_DIST_SNR, &a, &b), INFINITY, "SNR identical -> +inf");

    et_tensor s1, s2;
    double v1, v2;
    sc(1, &s1, &v1);
    sc(2, &s2, &v2);
    near(dist(ET_DIST_SNR, &s1, &s2), 0.0, "SNR(1, 2) = 0.0");

    double p[] = {NAN, 1}, q[] = {0, 1};
    et_tensor tp = VEC(ST_DOUBLE, p), tq = VEC(ST_DOUBLE, q);
    near(dist(ET_DIST_SNR, &tp, &tq), INFINITY, "SNR([NaN,1], [0,1]) = +inf");

    double m1[] = {4, 9, 6, 4}, m2[] = {1, 2, 3, 5};
    et_tensor a2 = MAT(ST_DOUBLE, 2, 2, m1), b2 = MAT(ST_DOUBLE, 2, 2, m2);
    near(dist(ET_DIST_SNR, &a2, &b2), 10 * log10(37.25 / 17),
         "SNR([[4,9],[6,4]], [[1,2],[3,5]]) = 10*log10(37.25/17)");

    double z[] = {0, 0};
    et_tensor tz = VEC(ST_DOUBLE, z);
    near(dist(ET_DIST_SNR, &tz, &tz), NAN, "SNR of zeros against zeros: 0/0 = NaN");
    double one[] = {1, 1};
    et_tensor t1 = VEC(ST_DOUBLE, one);
    near(dist(ET_DIST_SNR, &tz, &t1), -INFINITY, "SNR of a zero signal with noise: -inf");
}

static void test_shape_errors(void)
{
    float x3[] = {1, 2, 3}, x4[] = {1, 2, 3, 4};
    et_tensor a = VEC(ST_FLOAT, x3), b = VEC(ST_FLOAT, x4);
    static const char *const want[] = {
        "Error computing MSE difference between tensors: The size of tensor a (3) must match "
        "the size of tensor b (4) at non-singleton dimension 0",
        "Error computing L1 difference between tensors: The size of tensor a (3) must match "
        "the size of tensor b (4) at non-singleton dimension 0",
        "Error computing SNR difference between tensors: The size of tensor a (3) must match "
        "the size of tensor b (4) at non-singleton dimension 0"};
    for (int d = ET_DIST_MSE; d <= ET_DIST_SNR; d++) {
        double out;
        et_error err;
        et_error_clear(&err);
        int rc = et_numeric_distance((et_distance)d, &a, &b, &out, &err);
        is_int(rc, -1, "%s: shape [3] vs [4] is an error", et_distance_name((et_distance)d));
        is_str(err.msg, want[d], "%s: the reference's message", et_distance_name((et_distance)d));
    }
    /* the dimension is counted in the broadcast shape */
    float m[6] = {0};
    et_tensor m23 = MAT(ST_FLOAT, 2, 3, m), v4 = VEC(ST_FLOAT, x4);
    double out;
    et_error err;
    et_numeric_distance(ET_DIST_L1, &m23, &v4, &out, &err);
    is_str(err.msg,
           "Error computing L1 difference between tensors: The size of tensor a (3) must "
           "match the size of tensor b (4) at non-singleton dimension 1",
           "[2, 3] vs [4]: non-singleton dimension 1");
}

static void test_nan_rule(void)
{
    /* a NaN in an operand: its NaN -> 0 and its infinities -> +-DBL_MAX */
    double p[] = {INFINITY, NAN}, q[] = {INFINITY, 0};
    et_tensor tp = VEC(ST_DOUBLE, p), tq = VEC(ST_DOUBLE, q);
    near(dist(ET_DIST_L1, &tp, &tq), INFINITY,
         "NaN rule: only the operand holding NaN has its inf replaced (DBL_MAX - inf = -inf)");
    double r[] = {-INFINITY, NAN}, s[] = {-INFINITY, NAN};
    et_tensor tr = VEC(ST_DOUBLE, r), ts = VEC(ST_DOUBLE, s);
    near(dist(ET_DIST_L1, &tr, &ts), 0.0, "NaN rule: both operands' -inf -> -DBL_MAX, NaN -> 0");
    double u[] = {INFINITY, 1};
    et_tensor tu = VEC(ST_DOUBLE, u);
    near(dist(ET_DIST_MSE, &tu, &tu), NAN, "no NaN: infinities stay (inf - inf = NaN)");
    float f[] = {NAN, 2};
    double g[] = {5, 2};
    et_tensor tf = VEC(ST_FLOAT, f), tg = VEC(ST_DOUBLE, g);
    near(dist(ET_DIST_MSE, &tf, &tg), 12.5, "NaN rule on a float32 tensor against float64");
}

static void test_broadcast(void)
{
    double m[] = {1, 2, 3, 4, 5, 6}, row[] = {1, 1, 1}, col[] = {1, 2};
    et_tensor a = MAT(ST_DOUBLE, 2, 3, m), r = VEC(ST_DOUBLE, row);
    near(dist(ET_DIST_L1, &a, &r), 0 + 1 + 2 + 3 + 4 + 5, "broadcast [2,3] - [3]");
    et_tensor c = mk(ST_DOUBLE, 2, (int64_t[]){2, 1}, col, sizeof col);
    /* [[1,2,3],[4,5,6]] - [[1],[2]] = [[0,1,2],[2,3,4]] */
    near(dist(ET_DIST_L1, &a, &c), 12, "broadcast [2,3] - [2,1]");
    /* [2,1] against [1,3]: outer difference */
    double rr[] = {10, 20, 30};
    et_tensor r13 = mk(ST_DOUBLE, 2, (int64_t[]){1, 3}, rr, sizeof rr);
    /* |1-10|+|1-20|+|1-30|+|2-10|+|2-20|+|2-30| = 9+19+29+8+18+28 */
    near(dist(ET_DIST_L1, &c, &r13), 111, "broadcast [2,1] - [1,3] (general path)");
    near(dist(ET_DIST_MSE, &c, &r13), (81 + 361 + 841 + 64 + 324 + 784) / 6.0,
         "MSE over the broadcast shape's 6 elements");
    et_tensor s;
    double sv;
    sc(2, &s, &sv);
    near(dist(ET_DIST_L1, &a, &s), 1 + 0 + 1 + 2 + 3 + 4, "a tensor against a scalar");
    near(dist(ET_DIST_L1, &s, &a), 1 + 0 + 1 + 2 + 3 + 4, "a scalar against a tensor");
    /* SNR's signal power is over a's own elements */
    near(dist(ET_DIST_SNR, &s, &a), 10 * log10(4.0 / ((1 + 0 + 1 + 4 + 9 + 16) / 6.0)),
         "SNR: signal power of a scalar a, noise over the broadcast");
    /* [1,1,3] against [3]: no expansion, same order */
    et_tensor a113 = mk(ST_DOUBLE, 3, (int64_t[]){1, 1, 3}, m, 3 * sizeof(double));
    near(dist(ET_DIST_L1, &a113, &r), 0 + 1 + 2, "[1,1,3] against [3]");
    /* empty */
    et_tensor e0 = mk(ST_DOUBLE, 2, (int64_t[]){0, 3}, NULL, 0);
    near(dist(ET_DIST_L1, &e0, &r), 0, "L1 over no elements: 0");
    near(dist(ET_DIST_MSE, &e0, &r), NAN, "MSE over no elements: NaN");

    /* the broadcast budget (issue 14): [1024, 1] against [1, 2048] makes
     * 2^21 pairs from 3072 elements - refused, not computed */
    static float col1k[1024], row2k[2048];
    et_tensor big_c = mk(ST_FLOAT, 2, (int64_t[]){1024, 1}, col1k, sizeof col1k);
    et_tensor big_r = mk(ST_FLOAT, 2, (int64_t[]){1, 2048}, row2k, sizeof row2k);
    et_error err;
    double out = 0;
    ok(et_numeric_distance(ET_DIST_L1, &big_c, &big_r, &out, &err) == -1,
       "[1024, 1] against [1, 2048]: over the broadcast budget");
    is_str(err.msg,
           "Error computing L1 difference between tensors: broadcasting tensor a (float32 "
           "[1024, 1]) against tensor b (float32 [1, 2048]) makes 2097152 elements, more than "
           "the broadcast budget of 1048576 elements (raise it with --max_broadcast_elements "
           "or etinspect.limits)",
           "... message");
    ok(et_numeric_metric(ET_METRIC_MSE, &big_c, &big_r, &out, &err) == -1 &&
           strstr(err.msg, "broadcast budget"),
       "compare_results' mse: the same budget");
    ok(et_numeric_max_abs_diff(&big_c, &big_r, &out, &err) == -1 &&
           strstr(err.msg, "broadcast budget"),
       "max_abs_diff: the same budget");
    et_tensor_set_max_broadcast((uint64_t)1 << 21);
    ok(et_numeric_distance(ET_DIST_L1, &big_c, &big_r, &out, &err) == 0 && out == 0,
       "budget raised to 2^21: computed (L1 0)");
    et_tensor_set_max_broadcast(0);
    /* an operand as large as the broadcast is never refused */
    et_tensor big_r1 = mk(ST_FLOAT, 1, (int64_t[]){2048}, row2k, sizeof row2k);
    et_tensor s1;
    double one;
    sc(1, &s1, &one);
    ok(et_numeric_distance(ET_DIST_L1, &big_r1, &s1, &out, &err) == 0 && out == 2048,
       "a scalar against [2048]: no expansion beyond the operands (L1 2048)");
}

static void test_dtypes_strides(void)
{
    int32_t i[] = {1, 2, 3, 4};
    double d[] = {1, 2, 3, 6};
    et_tensor ti = VEC(ST_INT, i), td = VEC(ST_DOUBLE, d);
    near(dist(ET_DIST_L1, &ti, &td), 2, "int32 against float64");
    uint8_t bo[] = {1, 0, 1}, bo2[] = {1, 1, 1};
    et_tensor tb = mk(ST_BOOL, 1, (int64_t[]){3}, bo, 3), tb2 = mk(ST_BOOL, 1, (int64_t[]){3}, bo2, 3);
    near(dist(ET_DIST_L1, &tb, &tb2), 1, "bool tensors as 0/1");
    uint16_t h[] = {0x3c00, 0x4000}; /* 1.0, 2.0 in IEEE half */
    float f[] = {1, 2.5f};
    et_tensor th = mk(ST_HALF, 1, (int64_t[]){2}, h, sizeof h), tf = VEC(ST_FLOAT, f);
    near(dist(ET_DIST_L1, &th, &tf), 0.5, "float16 against float32");
    /* a transposed view: storage [[1,2,3],[4,5,6]] read as its transpose */
    double m[] = {1, 2, 3, 4, 5, 6}, mt[] = {1, 4, 2, 5, 3, 6};
    et_tensor tv, tc = MAT(ST_DOUBLE, 3, 2, mt);
    et_error err;
    et_tensor_init_in(&tv, ST_DOUBLE, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, (const uint8_t *)m,
                      sizeof m, 0, "t", "test", &err);
    near(dist(ET_DIST_L1, &tv, &tc), 0, "strided (transposed) view equals its contiguous copy");
    /* unreadable */
    et_tensor nb = mk(ST_FLOAT, 2, (int64_t[]){2, 3}, NULL, 0);
    double out;
    is_int(et_numeric_distance(ET_DIST_MSE, &nb, &tc, &out, &err), -1, "a tensor without bytes");
    is_str(err.msg, "cannot read the elements of tensor a (float32 [2, 3]): no debug buffer",
           "its message names the tensor and why");
}

/* ------------------------------------------------------------- §1.7 metrics */

static void test_metrics(void)
{
    float r[] = {1, 2, 3, 4}, v[] = {1, 2, 3, 5};
    et_tensor tr = VEC(ST_FLOAT, r), tv = VEC(ST_FLOAT, v);
    near(metric(ET_METRIC_MSE, &tr, &tv), 0.25, "compare_results mse = 0.25");
    near(metric(ET_METRIC_SNR, &tr, &tv), 14.77, "compare_results snr = round(10*log10(30), 2)");
    near(metric(ET_METRIC_COSINE, &tr, &tv), 0.99,
         "compare_results cosine = round(34/sqrt(30*39), 2)");
    near(metric(ET_METRIC_SNR, &tr, &tr), INFINITY, "snr of identical outputs: inf");
    near(metric(ET_METRIC_MSE, &tr, &tr), 0.0, "mse of identical outputs: 0.0");
    near(metric(ET_METRIC_COSINE, &tr, &tr), 1.0, "cosine of identical outputs: 1.0");

    float z[] = {0, 0}, h[] = {0.5f, 0};
    et_tensor tz = VEC(ST_FLOAT, z), th = VEC(ST_FLOAT, h);
    near(metric(ET_METRIC_MSE, &tz, &th), 0.12, "round(0.125, 2) = 0.12 (Python: ties to even)");
    near(metric(ET_METRIC_SNR, &tz, &tz), NAN, "snr 0/0: nan");
    near(metric(ET_METRIC_COSINE, &tz, &tz), NAN, "cosine of zero vectors: nan");
    float small[] = {1, 2, 3, 4.001f};
    et_tensor ts = VEC(ST_FLOAT, small);
    near(metric(ET_METRIC_MSE, &tr, &ts), 0.0, "a tiny mse rounds to 0.0");

    /* float32 casting: 16777217 and 16777216 are one float32 */
    int64_t big1[] = {16777217}, big2[] = {16777216};
    et_tensor b1 = VEC(ST_LONG, big1), b2 = VEC(ST_LONG, big2);
    near(metric(ET_METRIC_MSE, &b1, &b2), 0.0, "int64 values cast to float32 first");
    et_error err;
    double out;
    int32_t ii[] = {3, 4};
    et_tensor td1 = VEC(ST_INT, ii);
    float ff[] = {3, 4};
    et_tensor tf = VEC(ST_FLOAT, ff);
    near(metric(ET_METRIC_COSINE, &td1, &tf), 1.0, "int32 against float32");

    float nanv[] = {NAN, 1};
    et_tensor tn = VEC(ST_FLOAT, nanv);
    near(metric(ET_METRIC_MSE, &tn, &tf), NAN, "no NaN replacement in compare_results: nan");

    /* cosine needs equal shapes; mse and snr broadcast */
    et_tensor r14 = mk(ST_FLOAT, 2, (int64_t[]){1, 4}, r, sizeof r);
    is_int(et_numeric_metric(ET_METRIC_COSINE, &tr, &r14, &out, &err), -1,
           "cosine of [4] and [1, 4]: an error");
    is_str(err.msg, "Input tensors must have the same shape", "... the reference's message");
    near(metric(ET_METRIC_MSE, &tr, &r14), 0.0, "mse of [4] and [1, 4] broadcasts");
    float x3[] = {1, 2, 3};
    et_tensor t3 = VEC(ST_FLOAT, x3);
    is_int(et_numeric_metric(ET_METRIC_MSE, &tr, &t3, &out, &err), -1, "mse of [4] and [3]");
    is_str(err.msg,
           "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
           "dimension 0",
           "... PyTorch's message");

    /* max |a - b| */
    double mad;
    is_int(et_numeric_max_abs_diff(&tr, &tv, &mad, &err), 0, "max_abs_diff");
    near(mad, 1.0, "max_abs_diff = 1");
    et_numeric_max_abs_diff(&tn, &tf, &mad, &err);
    near(mad, NAN, "max_abs_diff with a NaN: NaN");
}

/* ------------------------------------------------------------- npy */

/* A .npy file: version, header dict text (padded with spaces and '\n' so
 * that the data starts at a multiple of 64), then `data`. */
static size_t npy_bytes(uint8_t *out, int major, const char *dict, const void *data, size_t n)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t hl = strlen(dict) + 1;
    while ((pre + hl) % 64)
        hl++;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    if (major == 1) {
        out[8] = (uint8_t)(hl & 0xff);
        out[9] = (uint8_t)(hl >> 8);
    } else {
        out[8] = (uint8_t)(hl & 0xff);
        out[9] = (uint8_t)(hl >> 8);
        out[10] = out[11] = 0;
    }
    memset(out + pre, ' ', hl);
    memcpy(out + pre, dict, strlen(dict));
    out[pre + hl - 1] = '\n';
    if (n)
        memcpy(out + pre + hl, data, n);
    return pre + hl + n;
}

static double elem(const et_tensor *t, uint64_t i)
{
    double v = NAN;
    et_tensor_get_f64(t, i, &v);
    return v;
}

static void test_npy_good(void)
{
    uint8_t buf[1024];
    et_npy n;
    et_error err;
    float f[] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
    size_t len = npy_bytes(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                           f, sizeof f);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy 1.0 <f4 (2, 3)");
    is_int(n.tensor.scalar_type, ST_FLOAT, "  float32");
    is_int(n.tensor.ndim, 2, "  2 dimensions");
    is_int(n.tensor.sizes[1], 3, "  shape (2, 3)");
    is_int((long long)n.data_offset, 128, "  data at byte 128 (header padded to 64 bytes)");
    ok(elem(&n.tensor, 5) == 5.5, "  element 5");
    ok(n.tensor.data == buf + 128, "  viewed in place");
    et_npy_close(&n);

    len = npy_bytes(buf, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", f,
                    sizeof f);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy 2.0 (4-byte header length)");
    is_int(n.major, 2, "  version 2");
    ok(elem(&n.tensor, 1) == 1.5, "  element 1");
    et_npy_close(&n);
    len = npy_bytes(buf, 3, "{\"shape\": (6,), \"fortran_order\": False, \"descr\": \"<f4\"}", f,
                    sizeof f);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy 3.0, keys in another order, double quotes");
    et_npy_close(&n);

    /* big-endian float64 and int32: swapped into a copy */
    uint8_t be[16] = {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18, /* pi */
                      0xc0, 0x00, 0, 0, 0, 0, 0, 0};                 /* -2 */
    len = npy_bytes(buf, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", be, 16);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy >f8");
    ok(n.byte_swapped && n.owned, "  byte-swapped into a copy");
    ok(elem(&n.tensor, 0) == 3.141592653589793 && elem(&n.tensor, 1) == -2, "  pi, -2");
    et_npy_close(&n);
    uint8_t bi[8] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe};
    len = npy_bytes(buf, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", bi, 8);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy >i4");
    int64_t iv = 0, iw = 0;
    et_tensor_get_i64(&n.tensor, 0, &iv);
    et_tensor_get_i64(&n.tensor, 1, &iw);
    ok(iv == 258 && iw == -2, "  258, -2");
    et_npy_close(&n);

    /* fortran order: the bytes hold the columns */
    int64_t col[] = {1, 4, 2, 5, 3, 6}; /* [[1,2,3],[4,5,6]] column-major */
    len = npy_bytes(buf, 1, "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3), }", col,
                    sizeof col);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy fortran_order True");
    ok(n.fortran_order, "  fortran_order");
    int good = 1;
    for (int i = 0; i < 6; i++)
        good &= elem(&n.tensor, (uint64_t)i) == i + 1;
    ok(good, "  read in logical row-major order through the strides");
    is_int(n.tensor.strides[0], 1, "  strides (1, 2)");
    et_npy_close(&n);

    /* dtypes */
    static const struct {
        const char *descr;
        int st;
        size_t es;
    } dt[] = {{"|b1", ST_BOOL, 1}, {"?", ST_BOOL, 1},  {"<f2", ST_HALF, 2}, {"|u1", ST_BYTE, 1},
              {"|i1", 1, 1},       {"<u2", 27, 2},     {"<i2", 2, 2},       {"<u4", 28, 4},
              {"<u8", 29, 8},      {"=i4", ST_INT, 4}, {"i8", ST_LONG, 8}};
    uint8_t zeros[16] = {0};
    for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (2,), }",
                 dt[i].descr);
        len = npy_bytes(buf, 1, dict, zeros, 2 * dt[i].es);
        int rc = et_npy_parse(&n, buf, len, &err);
        ok(rc == 0 && n.tensor.scalar_type == dt[i].st, "descr '%s'", dt[i].descr);
        if (rc)
            diag("%s", err.msg);
        et_npy_close(&n);
    }
    uint16_t hv[] = {0x3c00};
    len = npy_bytes(buf, 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (), }", hv, 2);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy shape (): a 0-dim array");
    ok(n.tensor.ndim == 0 && n.tensor.numel == 1 && elem(&n.tensor, 0) == 1.0, "  holding 1.0");
    et_npy_close(&n);
    len = npy_bytes(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", NULL, 0);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy shape (0, 4): empty");
    is_int((long long)n.tensor.numel, 0, "  no elements");
    et_npy_close(&n);
    len = npy_bytes(buf, 1,
                    "{'descr': '>i2', 'fortran_order': True, "
                    "'shape': (1, 0, 4, 666666666666666666, 3), }",
                    NULL, 0);
    is_int(et_npy_parse(&n, buf, len, &err), 0,
           "fortran order, a zero dimension beside a huge one (found by fuzz_npy)");
    is_int((long long)n.tensor.numel, 0, "  no elements");
    et_npy_close(&n);
    len = npy_bytes(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 1L), }", f, 8);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "npy shape (2L, 1L): Python 2's longs");
    et_npy_close(&n);
    len = npy_bytes(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f, 24);
    is_int(et_npy_parse(&n, buf, len, &err), 0, "trailing bytes after the data are allowed");
    et_npy_close(&n);
}

static void expect_bad(const char *dict, const void *data, size_t n, const char *want,
                       const char *what)
{
    uint8_t buf[512];
    size_t len = npy_bytes(buf, 1, dict, data, n);
    et_npy np;
    et_error err;
    et_error_clear(&err);
    int rc = et_npy_parse(&np, buf, len, &err);
    ok(rc == -1 && strstr(err.msg, want) != NULL, "refused: %s", what);
    if (rc != -1 || !strstr(err.msg, want))
        diag("message: %s\n#  wanted: %s", rc ? err.msg : "(accepted)", want);
    if (rc == 0)
        et_npy_close(&np);
}

static void test_npy_bad(void)
{
    uint8_t z[64] = {0};
    et_npy n;
    et_error err;
    is_int(et_npy_parse(&n, (const uint8_t *)"\x93NUMPX\x01\x00\x00\x00", 10, &err), -1,
           "wrong magic");
    is_str(err.msg, "not a .npy file (no \\x93NUMPY magic at its start)", "  its message");
    is_int(et_npy_parse(&n, (const uint8_t *)"\x93NUMPY\x01", 7, &err), -1, "7 bytes");
    uint8_t v4[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 4, 0, 0, 0, 0, 0};
    is_int(et_npy_parse(&n, v4, sizeof v4, &err), -1, "version 4.0");
    is_str(err.msg, "unsupported .npy format version 4.0 (1.0, 2.0 and 3.0 are read)",
           "  its message");
    uint8_t past[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 200, 0, '{', '}'};
    is_int(et_npy_parse(&n, past, sizeof past, &err), -1, "header past the end");
    is_str(err.msg,
           "the header (200 bytes at byte 10) runs past the end of the file (16 bytes)",
           "  its message");
    uint8_t huge[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0x7f};
    is_int(et_npy_parse(&n, huge, sizeof huge, &err), -1, "a 2 GiB header length");
    uint8_t v2short[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0, 0};
    is_int(et_npy_parse(&n, v2short, sizeof v2short, &err), -1, "version 2 with 10 bytes");

    expect_bad("{'descr': '<f4', 'fortran_order': False}", NULL, 0, "key 'shape' missing",
               "missing shape");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", z, 4,
               "unexpected key 'x'", "an extra key");
    expect_bad("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", z, 4,
               "key 'descr' appears twice", "a duplicate key");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", z, 4,
               "negative dimension 0", "a negative dimension");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", z, 12,
               "a one-element tuple is written (3,)", "(3) is not a tuple");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': [3]}", z, 12,
               "'shape': expected a tuple of integers, found '[3]}", "a list for the shape");
    expect_bad("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", z, 4,
               "structured dtypes", "a structured dtype");
    expect_bad("{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}", z, 8,
               "descr '<c8': complex arrays are not supported", "complex");
    expect_bad("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", z, 8,
               "object arrays (pickled Python objects) are not read", "object arrays");
    expect_bad("{'descr': '<U3', 'fortran_order': False, 'shape': (1,)}", z, 12,
               "string arrays", "unicode strings");
    expect_bad("{'descr': '<f16', 'fortran_order': False, 'shape': (1,)}", z, 16,
               "only float16, float32 and float64", "long double");
    expect_bad("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", z, 4,
               "'fortran_order': expected True or False", "fortran_order 0");
    expect_bad("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,)}", z, 4,
               "'fortran_order': expected True or False", "Falsey");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", z, 20,
               "the data needs 24 bytes after the header, the file has 20", "short data");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", z,
               4, "overflows 64 bits", "a dimension overflowing int64");
    expect_bad("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (4294967296, 4294967296, 4294967296)}",
               z, 4, "overflows 64 bits", "an element count overflowing");
    expect_bad("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
               z, 4, "more than 16 dimensions", "17 dimensions");
    expect_bad("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", z, 4,
               "expected ',' or '}' after 'descr', found 'fortran_orde'", "a broken quote");
    expect_bad("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}", z, 4,
               "escapes", "a string escape");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", z, 4,
               "unexpected 'x", "text after the dict");
    expect_bad("'descr'", z, 4, "expected '{'", "not a dict");
    expect_bad("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", z, 4,
               "expected ',' or '}' after 'descr'", "a missing comma");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2", z, 8,
               "expected ',' or ')'", "an unterminated tuple");
    expect_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", z, 4,
               "expected ',' or '}' after 'shape', found the end of the header",
               "an unterminated dict");
    expect_bad("{'descr': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'fortran_order': False, "
               "'shape': (1,)}",
               z, 4, "is too long", "a long descr");

    /* files */
    char path[] = "/tmp/test_numeric_XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    uint8_t buf[256];
    double d[] = {1.25, -7};
    size_t len = npy_bytes(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                           d, sizeof d);
    if (fp) {
        fwrite(buf, 1, len, fp);
        fclose(fp);
    }
    is_int(et_npy_open(&n, path, &err), 0, "et_npy_open");
    ok(elem(&n.tensor, 1) == -7, "  reads the mapped file");
    et_npy_close(&n);
    fp = fopen(path, "wb");
    if (fp) {
        fwrite(buf, 1, 20, fp);
        fclose(fp);
    }
    is_int(et_npy_open(&n, path, &err), -1, "a truncated file");
    ok(strncmp(err.msg, path, strlen(path)) == 0 && strstr(err.msg, ": the header (") != NULL,
       "  the message starts with the path");
    fp = fopen(path, "wb");
    if (fp)
        fclose(fp);
    is_int(et_npy_open(&n, path, &err), -1, "an empty file");
    remove(path);
    is_int(et_npy_open(&n, "/nonexistent/h_3.npy", &err), -1, "a missing file");
    is_int(err.kind, ET_ERR_IO, "  an I/O error");
    is_str(err.msg, "/nonexistent/h_3.npy: No such file or directory", "  its message");

    is_str(et_npy_descr(ST_FLOAT), "<f4", "descr of FLOAT");
    is_str(et_npy_descr(ST_BOOL), "|b1", "descr of BOOL");
    ok(et_npy_descr(15) == NULL, "no descr for BFLOAT16");
}

int main(void)
{
    test_names();
    test_l1();
    test_mse();
    test_snr();
    test_shape_errors();
    test_nan_rule();
    test_broadcast();
    test_dtypes_strides();
    test_metrics();
    test_npy_good();
    test_npy_bad();
    return done_testing();
}
