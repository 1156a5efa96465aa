/*
 * test_tensor.c - tensor views (tensor.h): strides, every scalar type,
 * half / bfloat16 / float8 decoding and encoding, bounds and overflow
 * checks, statistics.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "format/etdump.h"
#include "tap.h"
#include "format/tensor.h"

static int view(et_tensor *t, int st, uint32_t nd, const int64_t *sz, const int64_t *strd,
                const void *base, uint64_t n, int64_t off, et_error *err)
{
    return et_tensor_init(t, st, nd, sz, strd, base, n, off, "test", err);
}

static void test_contiguous_and_strides(void)
{
    float f[6] = {10, 11, 12, 13, 14, 15};
    et_tensor t;
    et_error err;
    int64_t sz[2] = {2, 3};
    ok(view(&t, ET_ST_FLOAT, 2, sz, NULL, f, sizeof f, 0, &err) == 0, "f32[2,3] contiguous");
    is_int((long long)t.numel, 6, "numel 6");
    is_int(t.strides[0], 3, "default strides [3,1]");
    is_int(t.strides[1], 1, "default strides [3,1] (inner)");
    is_int((long long)t.span, 24, "span 24 bytes");
    ok(et_tensor_is_contiguous(&t), "contiguous");
    double v;
    ok(et_tensor_get_f64(&t, 4, &v) == 0 && v == 14, "element 4 = 14");
    ok(et_tensor_get_f64(&t, 6, &v) == -1, "element 6 out of range");
    int64_t iv;
    ok(et_tensor_get_i64(&t, 0, &iv) == -1, "get_i64 refuses a float tensor");

    /* the transposed tensor of the corpus: sizes [3,2], strides [1,3] */
    int64_t tsz[2] = {3, 2}, tst[2] = {1, 3};
    ok(view(&t, ET_ST_FLOAT, 2, tsz, tst, f, sizeof f, 0, &err) == 0, "f32[3,2] strides [1,3]");
    ok(!et_tensor_is_contiguous(&t), "transposed is not contiguous");
    double all[6];
    ok(et_tensor_read_f64(&t, 0, 6, all) == 0, "read all");
    double want[6] = {10, 13, 11, 14, 12, 15};
    ok(memcmp(all, want, sizeof want) == 0, "logical order follows strides: 10 13 11 14 12 15");
    ok(et_tensor_read_f64(&t, 3, 3, all) == 0 && all[0] == 14 && all[2] == 15,
       "read from the middle");
    ok(et_tensor_read_f64(&t, 4, 3, all) == -1, "read past numel refused");
    uint8_t bytes[24];
    ok(et_tensor_copy_bytes(&t, bytes) == 0, "copy bytes");
    float back[6];
    memcpy(back, bytes, sizeof back);
    ok(back[1] == 13 && back[5] == 15, "bytes in logical order");

    /* stride 0 (broadcast) and a 0-dim scalar */
    int64_t bsz[2] = {4, 2}, bst[2] = {0, 1};
    ok(view(&t, ET_ST_FLOAT, 2, bsz, bst, f, 8, 0, &err) == 0, "broadcast view of 2 floats");
    ok(et_tensor_get_f64(&t, 7, &v) == 0 && v == 11, "broadcast element 7 = 11");
    ok(view(&t, ET_ST_FLOAT, 0, NULL, NULL, f + 2, 4, 0, &err) == 0 && t.numel == 1,
       "0-dim scalar");
    ok(et_tensor_get_f64(&t, 0, &v) == 0 && v == 12, "scalar value");

    /* unaligned data */
    uint8_t raw[9];
    double d = 3.25;
    memcpy(raw + 1, &d, 8);
    int64_t one = 1;
    ok(view(&t, ET_ST_DOUBLE, 1, &one, NULL, raw, sizeof raw, 1, &err) == 0 &&
           et_tensor_get_f64(&t, 0, &v) == 0 && v == 3.25,
       "unaligned double via offset 1");
}

static void test_types(void)
{
    et_tensor t;
    et_error err;
    int64_t n = 2;
    uint8_t b[16];
    double v;
    int64_t iv;
    /* every integer type: two elements, the second negative where signed */
    struct {
        int st;
        int64_t x0, x1;
    } cases[] = {
        {ET_ST_BYTE, 250, 3},          {ET_ST_CHAR, -128, 72},      {ET_ST_SHORT, -300, 400},
        {ET_ST_INT, -4, 2147483647},   {ET_ST_LONG, -2, 1000000000000LL},
        {ET_ST_BOOL, 1, 0},            {ET_ST_QINT8, -5, 7},        {ET_ST_QUINT8, 200, 1},
        {ET_ST_QINT32, -70000, 9},     {ET_ST_BITS16, 65535, 1},    {ET_ST_UINT16, 65530, 65533},
        {ET_ST_UINT32, 4000000000LL, 1}, {ET_ST_UINT64, 1, INT64_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = cases[i].st, es = et_scalar_type_size(st);
        ok(et_tensor_encode_i64(st, cases[i].x0, b) == 0 &&
               et_tensor_encode_i64(st, cases[i].x1, b + es) == 0,
           "%s: encode", et_scalar_type_name(st));
        ok(view(&t, st, 1, &n, NULL, b, 2u * (uint64_t)es, 0, &err) == 0, "%s: view",
           et_scalar_type_name(st));
        ok(et_tensor_get_i64(&t, 0, &iv) == 0 && iv == cases[i].x0 &&
               et_tensor_get_i64(&t, 1, &iv) == 0 && iv == cases[i].x1,
           "%s: integers read back", et_scalar_type_name(st));
        ok(et_tensor_get_f64(&t, 1, &v) == 0 && v == (double)cases[i].x1, "%s: as double",
           et_scalar_type_name(st));
    }
    ok(et_tensor_encode_i64(ET_ST_CHAR, 128, b) == -1, "int8 128 does not fit");
    ok(et_tensor_encode_i64(ET_ST_BYTE, -1, b) == -1, "uint8 -1 does not fit");
    ok(et_tensor_encode_f64(ET_ST_INT, 1.5, b) == -1, "int32 1.5 is not integral");
    ok(et_tensor_encode_f64(ET_ST_UINT64, 18446744073709551615.0, b) == -1,
       "uint64 2^64 does not fit");
    ok(et_tensor_encode_f64(ET_ST_UINT64, 9223372036854775808.0, b) == 0, "uint64 2^63 fits");
    ok(view(&t, ET_ST_UINT64, 1, &n, NULL, b, 16, 0, &err) == 0 &&
           et_tensor_get_f64(&t, 0, &v) == 0 && v == 9223372036854775808.0,
       "uint64 2^63 reads as a double");

    /* half */
    uint16_t h[6] = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0x7e00};
    int64_t six = 6;
    ok(view(&t, ET_ST_HALF, 1, &six, NULL, h, sizeof h, 0, &err) == 0, "half view");
    double hv[6];
    et_tensor_read_f64(&t, 0, 6, hv);
    ok(hv[0] == 1.0 && hv[1] == -2.0 && hv[2] == 65504.0 && hv[3] == ldexp(1, -24) &&
           isinf(hv[4]) && isnan(hv[5]),
       "half: 1, -2, 65504, 2^-24, inf, nan");
    is_int(et_double_to_half(0.1), 0x2e66, "half(0.1) = 0x2e66");
    is_int(et_double_to_half(65519.0), 0x7bff, "half(65519) rounds to 65504");
    is_int(et_double_to_half(65520.0), 0x7c00, "half(65520) overflows to inf");
    is_int(et_double_to_half(ldexp(1, -25)), 0, "half(2^-25) ties to even: 0");
    is_int(et_double_to_half(ldexp(3, -26)), 1, "half(1.5 * 2^-25) rounds up to 2^-24");
    is_int(et_double_to_half(-0.0), 0x8000, "half(-0) keeps its sign");
    long bad = -1;
    for (uint32_t x = 0; x < 0x10000 && bad < 0; x++) {
        double dv = et_half_to_double((uint16_t)x);
        if (!isnan(dv) && et_double_to_half(dv) != x)
            bad = (long)x;
    }
    ok(bad < 0, "half: every non-NaN pattern round-trips (first bad %ld)", bad);

    /* bfloat16 */
    uint16_t bf[3] = {0x3f80, 0xc049, 0x7f80};
    int64_t three = 3;
    ok(view(&t, ET_ST_BFLOAT16, 1, &three, NULL, bf, sizeof bf, 0, &err) == 0, "bf16 view");
    double bv[3];
    et_tensor_read_f64(&t, 0, 3, bv);
    ok(bv[0] == 1.0 && bv[1] == -3.140625 && isinf(bv[2]), "bf16: 1, -3.140625, inf");
    is_int(et_double_to_bfloat16(3.14159), 0x4049, "bf16(3.14159) = 0x4049");
    is_int(et_double_to_bfloat16(1.0 + ldexp(1, -8)), 0x3f80, "bf16: tie to even");

    /* float8 */
    ok(et_float8_to_double(ET_ST_FLOAT8E4M3FN, 0x7e) == 448.0, "e4m3fn max 448");
    ok(isnan(et_float8_to_double(ET_ST_FLOAT8E4M3FN, 0x7f)), "e4m3fn 0x7f NaN");
    ok(et_float8_to_double(ET_ST_FLOAT8E4M3FN, 0x01) == ldexp(1, -9), "e4m3fn min subnormal");
    ok(et_float8_to_double(ET_ST_FLOAT8E5M2, 0x7b) == 57344.0, "e5m2 max 57344");
    ok(isinf(et_float8_to_double(ET_ST_FLOAT8E5M2, 0xfc)) &&
           et_float8_to_double(ET_ST_FLOAT8E5M2, 0xfc) < 0,
       "e5m2 0xfc -inf");
    ok(isnan(et_float8_to_double(ET_ST_FLOAT8E5M2FNUZ, 0x80)), "e5m2fnuz 0x80 NaN");
    ok(et_float8_to_double(ET_ST_FLOAT8E5M2FNUZ, 0x7f) == 57344.0, "e5m2fnuz max 57344");
    ok(et_float8_to_double(ET_ST_FLOAT8E4M3FNUZ, 0x7f) == 240.0, "e4m3fnuz max 240");
    ok(et_float8_to_double(ET_ST_FLOAT8E4M3FNUZ, 0x08) == ldexp(1, -7), "e4m3fnuz min normal");
    int f8[4] = {ET_ST_FLOAT8E5M2, ET_ST_FLOAT8E4M3FN, ET_ST_FLOAT8E5M2FNUZ,
                 ET_ST_FLOAT8E4M3FNUZ};
    for (int k = 0; k < 4; k++) {
        int bad8 = -1;
        for (int x = 0; x < 256 && bad8 < 0; x++) {
            double dv = et_float8_to_double(f8[k], (uint8_t)x);
            uint8_t o;
            if (isnan(dv))
                continue;
            et_tensor_encode_f64(f8[k], dv, &o);
            if (o != x)
                bad8 = x;
        }
        ok(bad8 < 0, "%s: every non-NaN byte round-trips (first bad %d)",
           et_scalar_type_name(f8[k]), bad8);
    }
    uint8_t o;
    et_tensor_encode_f64(ET_ST_FLOAT8E4M3FN, 1000.0, &o);
    is_int(o, 0x7f, "e4m3fn overflow is NaN");
    et_tensor_encode_f64(ET_ST_FLOAT8E5M2, 1e6, &o);
    is_int(o, 0x7c, "e5m2 overflow is inf");

    /* unreadable types */
    int64_t four = 4;
    ok(view(&t, ET_ST_QUINT4X2, 1, &four, NULL, b, 16, 0, &err) == 0, "QUINT4X2 view is made");
    ok(!et_tensor_readable(&t) && et_tensor_get_f64(&t, 0, &v) == -1, "QUINT4X2 unreadable");
    char why[96];
    is_str(et_tensor_unreadable(&t, why, sizeof why), "scalar type QUINT4X2 cannot be read",
           "QUINT4X2 reason");
    ok(view(&t, 99, 1, &four, NULL, b, 16, 0, &err) == 0 && !et_tensor_readable(&t),
       "scalar type 99 view made, unreadable");
    is_str(et_tensor_unreadable(&t, why, sizeof why), "unknown scalar type 99 cannot be read",
           "unknown type reason");
    is_int(et_scalar_type_from_name("float32"), ET_ST_FLOAT, "from_name float32");
    is_int(et_scalar_type_from_name("QUINT4x2"), ET_ST_QUINT4X2, "from_name QUINT4x2");
    is_int(et_scalar_type_from_name("nope"), -1, "from_name unknown");
}

static void test_checks(void)
{
    et_tensor t;
    et_error err;
    uint8_t buf[4184];
    memset(buf, 0, sizeof buf);
    int64_t sz[1] = {16};
    ok(view(&t, ET_ST_FLOAT, 1, sz, NULL, buf, sizeof buf, 4140, &err) == -1,
       "offset 4140 + 64 bytes past 4184");
    is_str(err.msg,
           "test: offset 4140 + 64 bytes runs past the end of the debug buffer (4184 bytes)",
           "message of the offset check");
    ok(view(&t, ET_ST_FLOAT, 1, sz, NULL, buf, sizeof buf, 5000, &err) == -1,
       "offset past the end");
    ok(view(&t, ET_ST_FLOAT, 1, sz, NULL, buf, sizeof buf, 4120, &err) == 0, "exact fit");
    ok(view(&t, ET_ST_FLOAT, 1, sz, NULL, buf, 4, 0, &err) == -1, "a 4-byte buffer");
    int64_t big[2] = {INT64_MAX, 4};
    ok(view(&t, ET_ST_FLOAT, 2, big, NULL, buf, sizeof buf, 0, &err) == -1 &&
           strstr(err.msg, "overflow"),
       "numel overflow: %s", err.msg);
    int64_t big1[1] = {INT64_MAX / 2};
    ok(view(&t, ET_ST_LONG, 1, big1, NULL, buf, sizeof buf, 0, &err) == -1 &&
           strstr(err.msg, "overflow"),
       "size x dtype overflow: %s", err.msg);
    int64_t big2[1] = {(int64_t)1 << 40};
    ok(view(&t, ET_ST_LONG, 1, big2, NULL, buf, sizeof buf, 0, &err) == -1 &&
           strstr(err.msg, "runs past"),
       "huge span past the buffer: %s", err.msg);
    int64_t st2[2] = {INT64_MAX, 1}, sz2[2] = {3, 1};
    ok(view(&t, ET_ST_FLOAT, 2, sz2, st2, buf, sizeof buf, 0, &err) == -1 &&
           strstr(err.msg, "overflow"),
       "stride span overflow: %s", err.msg);
    int64_t neg[1] = {-1};
    ok(view(&t, ET_ST_FLOAT, 1, neg, NULL, buf, sizeof buf, 0, &err) == -1 &&
           strstr(err.msg, "negative size"),
       "negative size");
    int64_t nst[1] = {-1};
    ok(view(&t, ET_ST_FLOAT, 1, sz, nst, buf, sizeof buf, 0, &err) == -1 &&
           strstr(err.msg, "negative stride"),
       "negative stride");
    ok(view(&t, ET_ST_FLOAT, 1, sz, NULL, buf, sizeof buf, -5, &err) == -1, "offset -5");
    ok(view(&t, ET_ST_FLOAT, 1, sz, NULL, buf, sizeof buf, -1, &err) == -1,
       "offset -1 with elements");
    int64_t empty[2] = {0, 4};
    ok(view(&t, ET_ST_FLOAT, 2, empty, NULL, buf, sizeof buf, -1, &err) == 0 && t.numel == 0,
       "empty f32[0,4] at offset -1");
    ok(et_tensor_readable(&t) && !et_tensor_unreadable(&t, (char[8]){0}, 8), "empty: readable");
    int64_t zero_big[3] = {0, INT64_MAX, INT64_MAX};
    ok(view(&t, ET_ST_FLOAT, 3, zero_big, NULL, buf, sizeof buf, -1, &err) == 0 &&
           t.numel == 0,
       "a zero size makes any shape empty");
    int64_t dims[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    ok(view(&t, ET_ST_FLOAT, 17, dims, NULL, buf, sizeof buf, 0, &err) == -1,
       "17 dimensions refused");
    /* no debug buffer */
    ok(view(&t, ET_ST_FLOAT, 1, sz, NULL, NULL, 0, 4100, &err) == 0, "no buffer: view made");
    char why[96];
    ok(!et_tensor_readable(&t), "no buffer: unreadable");
    is_str(et_tensor_unreadable(&t, why, sizeof why), "no debug buffer", "no buffer reason");
    double v;
    ok(et_tensor_get_f64(&t, 0, &v) == -1, "no buffer: get fails");
}

static void test_stats(void)
{
    et_tensor t;
    et_error err;
    et_tensor_stats s;
    float f[6] = {1, 2, 3, 4, 5, 6};
    int64_t sz[2] = {3, 2}, st[2] = {1, 3};
    view(&t, ET_ST_FLOAT, 2, sz, st, f, sizeof f, 0, &err);
    ok(et_tensor_stats_compute(&t, &s) == 0, "stats");
    ok(s.min == 1 && s.max == 6 && s.sum == 21 && s.mean == 3.5 && !s.is_int, "min max sum mean");
    ok(fabs(s.std - sqrt(17.5 / 6)) < 1e-15, "population std");
    float g[4] = {1, NAN, INFINITY, -INFINITY};
    int64_t four = 4;
    view(&t, ET_ST_FLOAT, 1, &four, NULL, g, sizeof g, 0, &err);
    et_tensor_stats_compute(&t, &s);
    ok(s.nan_count == 1 && s.inf_count == 2 && isnan(s.min) && isnan(s.mean), "nan and inf");
    int64_t L[3] = {INT64_MAX, 1, -5};
    int64_t three = 3;
    view(&t, ET_ST_LONG, 1, &three, NULL, L, sizeof L, 0, &err);
    et_tensor_stats_compute(&t, &s);
    ok(s.is_int && s.imin == -5 && s.imax == INT64_MAX && !s.isum_exact, "int64 overflowing sum");
    int32_t I[3] = {-4, 10, 3};
    view(&t, ET_ST_INT, 1, &three, NULL, I, sizeof I, 0, &err);
    et_tensor_stats_compute(&t, &s);
    ok(s.is_int && s.isum_exact && s.isum == 9 && s.imin == -4 && s.imax == 10, "int32 stats");
    /* a large strided tensor: sum of 0..N-1 over a transposed layout */
    enum { R = 300, C = 500 };
    static double big[R * C];
    for (int i = 0; i < R * C; i++)
        big[i] = i;
    int64_t bsz[2] = {C, R}, bst[2] = {1, C};
    view(&t, ET_ST_DOUBLE, 2, bsz, bst, big, sizeof big, 0, &err);
    et_tensor_stats_compute(&t, &s);
    ok(s.sum == (double)(R * C) * (R * C - 1) / 2 && s.max == R * C - 1, "large transposed sum");
    double x;
    et_tensor_get_f64(&t, 1, &x);
    ok(x == C, "transposed element 1 is element C of the storage");
    int64_t zero = 0;
    view(&t, ET_ST_FLOAT, 1, &zero, NULL, NULL, 0, -1, &err);
    ok(et_tensor_stats_compute(&t, &s) == 0 && s.count == 0 && isnan(s.mean) && s.sum == 0,
       "empty stats");
}

/* Work proportional to the bytes (issue 14): views that repeat elements,
 * the broadcast budget, overflow-free shapes. */
static void test_bounds(void)
{
    et_tensor t;
    et_error err;
    float f[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    et_tensor_stats s;

    /* sizes [2^40], stride 0 over one float: refused, not 2^40 reads */
    int64_t huge[1] = {(int64_t)1 << 40}, zero[1] = {0};
    ok(view(&t, ET_ST_FLOAT, 1, huge, zero, f, 4, 0, &err) == -1, "[2^40] stride 0: refused");
    is_str(err.msg,
           "test: sizes [1099511627776] with strides [0] broadcast 1099511627776 elements from "
           "4 bytes, more than the broadcast budget of 1048576 elements (raise it with "
           "--max_broadcast_elements or etinspect.limits)",
           "... the message names sizes, strides, bytes and the budget");
    /* real broadcasting within the budget: bounded and correct */
    int64_t k[1] = {1000};
    ok(view(&t, ET_ST_FLOAT, 1, k, zero, f, 4, 0, &err) == 0 && t.numel == 1000,
       "[1000] stride 0 over one float: a broadcast within the budget");
    ok(et_tensor_stats_compute(&t, &s) == 0 && s.sum == 1500.0 && s.min == 1.5 && s.max == 1.5,
       "... its statistics: sum 1500, min = max = 1.5");
    ok(!et_tensor_is_contiguous(&t), "... not contiguous");
    /* a broadcast dimension next to real ones: [3, 2] strides [0, 1] */
    int64_t sz2[2] = {3, 2}, st2[2] = {0, 1};
    ok(view(&t, ET_ST_FLOAT, 2, sz2, st2, f, 8, 0, &err) == 0 && t.numel == 6,
       "[3, 2] strides [0, 1] over 8 bytes: accepted");
    ok(et_tensor_stats_compute(&t, &s) == 0 && s.sum == 12.0, "... sum 3 * (1.5 + 2.5) = 12");
    /* a last dimension of size 1 may carry any stride, even one whose byte
     * step overflows (fuzz_etdump: UBSan in foreach_run) */
    int64_t sz1[2] = {2, 1}, st1[2] = {2, (int64_t)2594073385365405697};
    ok(view(&t, ET_ST_FLOAT, 2, sz1, st1, f, 16, 0, &err) == 0 && t.numel == 2 &&
           !et_tensor_is_contiguous(&t),
       "[2, 1] strides [2, 2594073385365405697]: accepted (size 1 ignores its stride), strided");
    ok(et_tensor_stats_compute(&t, &s) == 0 && s.sum == 5.0 && s.min == 1.5 && s.max == 3.5,
       "... its statistics read elements 0 and 2 (sum 5)");
    double two[2] = {0, 0};
    ok(et_tensor_read_f64(&t, 0, 2, two) == 0 && two[0] == 1.5 && two[1] == 3.5,
       "... read as doubles: 1.5, 3.5");
    /* the budget is the limit, and it can be raised and restored */
    int64_t at[1] = {(int64_t)ET_TENSOR_MAX_BROADCAST}, over[1] = {at[0] + 1};
    ok(view(&t, ET_ST_FLOAT, 1, at, zero, f, 4, 0, &err) == 0, "exactly the budget: accepted");
    ok(view(&t, ET_ST_FLOAT, 1, over, zero, f, 4, 0, &err) == -1, "one more: refused");
    is_int((long long)et_tensor_set_max_broadcast(over[0]), (long long)ET_TENSOR_MAX_BROADCAST,
           "set_max_broadcast returns the previous budget");
    ok(view(&t, ET_ST_FLOAT, 1, over, zero, f, 4, 0, &err) == 0, "raised: accepted");
    et_tensor_set_max_broadcast(0);
    is_int((long long)et_tensor_max_broadcast(), (long long)ET_TENSOR_MAX_BROADCAST,
           "0 restores the default");
    /* no broadcasting needed: as many elements as the bytes hold is fine,
     * whatever the strides (the reference reads numel * elem_size bytes) */
    int64_t sz3[2] = {2, 2}, st3[2] = {1, 1};
    ok(view(&t, ET_ST_FLOAT, 2, sz3, st3, f, 16, 0, &err) == 0,
       "[2, 2] strides [1, 1] over 16 bytes: the bytes hold 4 elements");
    /* overlapping non-zero strides beyond the bytes: refused */
    float g[8] = {0};
    int64_t sz4[2] = {3, 3};
    ok(view(&t, ET_ST_FLOAT, 2, sz4, st3, g, 32, 12, &err) == -1,
       "[3, 3] strides [1, 1] at offset 12 of 32 bytes (9 elements, room for 5): refused");
    is_str(err.msg,
           "test: sizes [3, 3] with strides [1, 1] name 9 elements of 4 bytes, more than the 20 "
           "bytes from offset 12 in the debug buffer hold (only a zero stride may repeat "
           "elements)",
           "... the message says only zero strides may repeat elements");
    /* a broadcast whose other dimensions overlap beyond the bytes: refused */
    int64_t sz5[3] = {4, 3, 3}, st5[3] = {0, 1, 1};
    ok(view(&t, ET_ST_FLOAT, 3, sz5, st5, g, 32, 12, &err) == -1 &&
           strstr(err.msg, "only a zero stride may repeat"),
       "[4, 3, 3] strides [0, 1, 1]: the 9 elements besides the broadcast do not fit");
    /* without bytes there is nothing to read: the shape alone is kept */
    ok(view(&t, ET_ST_FLOAT, 1, huge, zero, NULL, 0, 0, &err) == 0 && !et_tensor_readable(&t),
       "no buffer: [2^40] stride 0 is a shape without data");

    /* sizes [0, 2^62, 4]: empty, and is_contiguous does not overflow
     * (UBSan checks the signed arithmetic in the sanitizer build) */
    int64_t e3[3] = {0, (int64_t)1 << 62, 4};
    ok(view(&t, ET_ST_FLOAT, 3, e3, NULL, f, 16, -1, &err) == 0 && t.numel == 0,
       "[0, 2^62, 4] is empty");
    ok(et_tensor_is_contiguous(&t), "... and contiguous (no signed overflow)");
    int64_t big3[3] = {1, (int64_t)1 << 62, 4};
    t.ndim = 3;
    t.numel = 1;
    memcpy(t.sizes, big3, sizeof big3);
    t.strides[0] = INT64_MAX, t.strides[1] = 4, t.strides[2] = 1;
    ok(et_tensor_is_contiguous(&t), "hand-made [1, 2^62, 4] strides [max, 4, 1]: contiguous");
    t.sizes[0] = 2;
    ok(!et_tensor_is_contiguous(&t), "... [2, 2^62, 4]: the product passes 2^63, not contiguous");

    /* byte counts stay below 2^63: nbytes is never negative */
    int64_t m1[1] = {INT64_MAX};
    ok(view(&t, ET_ST_SHORT, 1, m1, NULL, NULL, 0, 0, &err) == -1,
       "[2^63 - 1] int16: numel * 2 passes 2^63, refused");
    is_str(err.msg, "test: 9223372036854775807 elements of 2 bytes overflow 64 bits",
           "... message");
    ok(view(&t, ET_ST_BYTE, 1, m1, NULL, NULL, 0, 0, &err) == 0 &&
           t.numel * (uint64_t)t.elem_size == (uint64_t)INT64_MAX,
       "[2^63 - 1] uint8 (no bytes): nbytes 2^63 - 1 still fits");
    int64_t s2[2] = {(int64_t)1 << 40, (int64_t)1 << 30}, st6[2] = {0, 0};
    ok(view(&t, ET_ST_FLOAT, 2, s2, st6, f, 4, 0, &err) == -1 &&
           strstr(err.msg, "the number of elements overflows 64 bits"),
       "[2^40, 2^30] strides [0, 0]: 2^70 elements overflow");
}

int main(void)
{
    test_contiguous_and_strides();
    test_types();
    test_checks();
    test_stats();
    test_bounds();
    return done_testing();
}
