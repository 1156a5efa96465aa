/*
 * test_bundled.c - the BundledProgram reader (bundled.h): the repository's
 * .bpte from the shared corpus (every test case, every expected value), the
 * fixtures in tests/bundled (every kind of value, suite choice, and the
 * malformed-but-parseable files with their expected messages), and hostile
 * variants made here: every truncation length, a flipped byte at every
 * position, wrong identifiers, unknown union types, size-prefixed layouts.
 *
 * Environment: ET_SRC (the source tree, default "."), ET_SHARED (the shared
 * directory, default "../shared"; the corpus tests are skipped when it is
 * absent).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/bundled.h"
#include "tap.h"

typedef tap_bytes bytes;


static const char *src_dir;

static bytes fixture(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/bundled/%s", src_dir, name);
    return tap_read_file(path);
}

static bool str_is(et_str s, const char *want)
{
    return s.p && s.n == strlen(want) && memcmp(s.p, want, s.n) == 0;
}

/* Read every value of every case of every suite and every element of every
 * readable tensor; returns the number of values, or -1 when a tensor view
 * of a verified program fails. */
static long walk_all(const et_bundled *bp, double *sum)
{
    long n = 0;
    for (uint32_t s = 0; s < et_bundled_num_suites(bp); s++) {
        et_bundled_suite su;
        et_bundled_suite_at(bp, s, &su);
        for (uint32_t k = 0; k < su.test_cases.count; k++) {
            et_bundled_case c;
            et_bundled_case_at(bp, &su, k, &c);
            const fb_vec *lists[2] = {&c.inputs, &c.expected_outputs};
            for (int l = 0; l < 2; l++)
                for (uint32_t i = 0; i < lists[l]->count; i++) {
                    et_bvalue v;
                    et_bundled_value(bp, lists[l], i, &v);
                    n++;
                    if (v.kind != ET_BVAL_TENSOR) {
                        *sum += (double)v.int_val + v.double_val + v.bool_val;
                        continue;
                    }
                    et_tensor t;
                    et_error err;
                    if (et_bundled_tensor(bp, &v, &t, "value", &err) != 0) {
                        diag("%s", err.msg);
                        return -1;
                    }
                    if (!et_tensor_readable(&t))
                        continue;
                    for (uint64_t e = 0; e < t.numel; e++) {
                        double d;
                        if (et_tensor_get_f64(&t, e, &d) != 0)
                            return -1;
                        *sum += d == d ? d : 0;
                    }
                }
        }
    }
    return n;
}

/* ------------------------------------------------------------------ */

static void test_repo_bpte(const bytes *f)
{
    et_bundled bp;
    et_error err;
    int rc = et_bundled_open(&bp, f->p, f->n, &err);
    if (!ok(rc == 0, "repo_bundled_program.bpte opens")) {
        diag("%s", err.msg);
        return;
    }
    ok(!bp.size_prefixed && bp.version == 2, "plain (not size-prefixed), version 2");
    ok(bp.program.count == 1696 && memcmp(f->p + bp.program.pos + 4, "ET12", 4) == 0,
       "the embedded program: 1696 bytes, identifier ET12");
    is_int(et_bundled_num_suites(&bp), 1, "one method test suite");
    et_bundled_suite su;
    et_bundled_suite_at(&bp, 0, &su);
    ok(str_is(su.method_name, "forward"), "its method is \"forward\"");
    is_int(et_bundled_find_suite(&bp, "forward"), 0, "find_suite(\"forward\") = 0");
    is_int(et_bundled_find_suite(&bp, "forwar"), -1, "find_suite(\"forwar\") = -1");
    is_int(et_bundled_reference_suite(&bp), 0, "the reference suite is 0");
    is_int(su.test_cases.count, 10, "ten test cases");
    is_int((long long)bp.num_values, 30, "30 values (2 inputs + 1 expected output per case)");
    is_int((long long)bp.num_tensors, 30, "all of them tensors");
    int good = 0;
    for (uint32_t k = 0; k < su.test_cases.count; k++) {
        et_bundled_case c;
        et_bundled_case_at(&bp, &su, k, &c);
        bool case_ok = c.inputs.count == 2 && c.expected_outputs.count == 1;
        for (uint32_t i = 0; case_ok && i < 3; i++) {
            et_bvalue v;
            bool is_out = i == 2;
            et_bundled_value(&bp, is_out ? &c.expected_outputs : &c.inputs, is_out ? 0 : i, &v);
            et_tensor t;
            case_ok = v.kind == ET_BVAL_TENSOR && v.scalar_type == 3 && v.sizes.count == 2 &&
                      et_bundled_size_at(&bp, &v, 0) == 2 && et_bundled_size_at(&bp, &v, 1) == 2 &&
                      v.data.count == 16 && v.dim_order.count == 2 &&
                      et_bundled_tensor(&bp, &v, &t, "v", &err) == 0 && t.numel == 4 &&
                      t.elem_size == 4 && t.strides[0] == 2 && t.strides[1] == 1 &&
                      t.data == f->p + v.data.pos;
            for (uint64_t e = 0; case_ok && e < 4; e++) {
                int64_t x;
                case_ok = et_tensor_get_i64(&t, e, &x) == 0 && x == (is_out ? 2 : 0);
            }
        }
        good += case_ok;
    }
    is_int(good, 10,
           "every case: inputs two INT[2, 2] zeros, expected output INT[2, 2] = [2, 2, 2, 2], "
           "viewed in place");
    et_bvalue v;
    et_bundled_case c;
    et_bundled_case_at(&bp, &su, 10, &c);
    et_bundled_value(&bp, &c.expected_outputs, 0, &v);
    ok(c.inputs.count == 0 && c.expected_outputs.count == 0 && v.kind == ET_BVAL_NONE,
       "case 10 (out of range) reads as empty");
    et_bundled_close(&bp);
}

/* The same bytes behind a size prefix: read the same; cut, a clear error. */
static void test_size_prefixed(const bytes *f)
{
    size_t n = f->n + 4;
    uint8_t *p = malloc(n);
    p[0] = (uint8_t)f->n, p[1] = (uint8_t)(f->n >> 8), p[2] = (uint8_t)(f->n >> 16),
    p[3] = (uint8_t)(f->n >> 24);
    /* the buffer moves by 4 bytes: the repository's file has no 8-byte
     * scalars (the verifier checks alignment by file offset), so every
     * field stays aligned */
    memcpy(p + 4, f->p, f->n);
    et_bundled bp;
    et_error err;
    int rc = et_bundled_open(&bp, p, n, &err);
    ok(rc == 0 && bp.size_prefixed && et_bundled_num_suites(&bp) == 1,
       "size-prefixed copy opens (identifier at byte 8)");
    if (rc != 0)
        diag("%s", err.msg);
    double sum = 0;
    ok(rc == 0 && walk_all(&bp, &sum) == 30 && sum == 80.0,
       "size-prefixed: 30 values, the expected outputs sum to 80");
    et_bundled_close(&bp);
    rc = et_bundled_open(&bp, p, n - 1, &err);
    ok(rc != 0 && strstr(err.msg, "byte 0: truncated BundledProgram: the size prefix says"),
       "size-prefixed, one byte short: \"%s\"", err.msg);
    p[0] = 4, p[1] = p[2] = p[3] = 0;
    rc = et_bundled_open(&bp, p, n, &err);
    ok(rc != 0 && strstr(err.msg, "size prefix 4 is too small"), "size prefix 4: \"%s\"",
       err.msg);
    free(p);
}

/* Every length 0 .. n-1 fails with a message (a copy of exactly that many
 * bytes, so that ASan sees any read past it). */
static void truncation_sweep(const char *name, const bytes *f)
{
    size_t bad = 0, silent = 0;
    char first_bad[200] = "";
    for (size_t len = 0; len < f->n; len++) {
        uint8_t *p = malloc(len ? len : 1);
        memcpy(p, f->p, len);
        et_bundled bp;
        et_error err;
        err.msg[0] = '\0';
        if (et_bundled_open(&bp, p, len, &err) == 0) {
            if (!bad++)
                snprintf(first_bad, sizeof first_bad, "length %zu opened", len);
            et_bundled_close(&bp);
        } else if (!err.msg[0]) {
            silent++;
        }
        free(p);
    }
    ok(bad == 0 && silent == 0, "%s: each of the %zu truncations fails with a message%s%s", name,
       f->n, bad ? ": " : "", first_bad);
}

/* Flip every byte in turn: the program opens or fails with a message;
 * when it opens, every value and element reads back. */
static void corruption_sweep(const char *name, const bytes *f)
{
    size_t opened = 0, failed = 0, broken = 0;
    uint8_t *p = malloc(f->n);
    for (size_t i = 0; i < f->n; i++) {
        for (int flip = 0; flip < 2; flip++) {
            memcpy(p, f->p, f->n);
            p[i] ^= flip ? 0xff : 0x01;
            et_bundled bp;
            et_error err;
            err.msg[0] = '\0';
            if (et_bundled_open(&bp, p, f->n, &err) == 0) {
                double sum = 0;
                opened++;
                if (walk_all(&bp, &sum) < 0)
                    broken++;
                et_bundled_close(&bp);
            } else {
                failed++;
                if (!err.msg[0])
                    broken++;
            }
        }
    }
    free(p);
    ok(broken == 0, "%s: %zu one-byte corruptions: %zu open and read back, %zu fail with a message",
       name, 2 * f->n, opened, failed);
}

static void expect_fail(const uint8_t *p, size_t n, const char *want, const char *desc)
{
    et_bundled bp;
    et_error err;
    err.msg[0] = '\0';
    int rc = et_bundled_open(&bp, p, n, &err);
    if (!ok(rc != 0 && strstr(err.msg, want), "%s: \"%s\"", desc, want))
        diag("got rc %d: %s", rc, err.msg);
    if (rc == 0)
        et_bundled_close(&bp);
}

static void test_identifiers(void)
{
    uint8_t b[16] = {12, 0, 0, 0, 'B', 'P', '0', '8', 0, 0, 0, 0, 0, 0, 0, 0};
    expect_fail(b, 0, "empty file, expected a BundledProgram", "empty file");
    expect_fail(b, 4, "file is only 4 bytes, too short for a BundledProgram", "a 4-byte file");
    expect_fail(b, 7, "file is only 7 bytes", "a 7-byte file");
    memcpy(b + 4, "ED00", 4);
    expect_fail(b, 16, "found \"ED00\" (and \"\\x00\\x00\\x00\\x00\"): this is an ETDump",
                "identifier ED00 (an ETDump)");
    memcpy(b + 4, "BP07", 4);
    expect_fail(b, 16, "a BundledProgram of an older schema", "identifier BP07");
    memcpy(b + 4, "ET12", 4);
    expect_fail(b, 16, "an ExecuTorch program (.pte), not a BundledProgram", "identifier ET12");
    memcpy(b + 4, "XP08", 4);
    expect_fail(b, 16,
                "not a BundledProgram: expected file identifier \"BP08\" at byte 4 (or 8 when "
                "size-prefixed), found \"XP08\"",
                "identifier XP08");
    memcpy(b + 4, "BP08", 4);
    b[0] = 0;
    expect_fail(b, 16, "byte 0: invalid root offset 0", "root offset 0");
    b[0] = 0xf0, b[3] = 0x7f;
    expect_fail(b, 16, "root offset 2130706672 points outside the buffer", "root offset huge");
    b[0] = 8, b[3] = 0;
    /* root table at 8 with soffset 0: vtable at 8 = the table itself, size 0 */
    expect_fail(b, 16, "BundledProgram: vtable size 0 is invalid", "root vtable size 0");
}

/* Check the value `v` is an Int/Bool/Double with the given value. */
static bool scalar_is(const et_bvalue *v, et_bvalue_kind kind, double want)
{
    if (v->kind != kind)
        return false;
    switch (kind) {
    case ET_BVAL_INT: return (double)v->int_val == want;
    case ET_BVAL_BOOL: return v->bool_val == (want != 0);
    case ET_BVAL_DOUBLE: return v->double_val == want;
    default: return false;
    }
}

/* Tensor value with elements `want` (n of them, read as doubles). */
static bool tensor_is(const et_bundled *bp, const et_bvalue *v, int st, uint32_t ndim,
                      const double *want, uint64_t n)
{
    et_tensor t;
    et_error err;
    if (v->kind != ET_BVAL_TENSOR || v->scalar_type != st ||
        et_bundled_tensor(bp, v, &t, "v", &err) != 0 || t.ndim != ndim || t.numel != n)
        return false;
    for (uint64_t i = 0; i < n; i++) {
        double d;
        if (et_tensor_get_f64(&t, i, &d) != 0 || d != want[i])
            return false;
    }
    return true;
}

static void test_kinds(void)
{
    bytes f = fixture("kinds.bpte");
    if (!ok(f.p != NULL, "read tests/bundled/kinds.bpte"))
        return;
    et_bundled bp;
    et_error err;
    int rc = et_bundled_open(&bp, f.p, f.n, &err);
    if (!ok(rc == 0, "kinds.bpte opens")) {
        diag("%s", err.msg);
        free(f.p);
        return;
    }
    is_int(et_bundled_num_suites(&bp), 2, "two suites");
    is_int(et_bundled_find_suite(&bp, "encode"), 0, "\"encode\" is suite 0");
    is_int(et_bundled_find_suite(&bp, "forward"), 1, "\"forward\" is suite 1");
    is_int(et_bundled_reference_suite(&bp), 1, "the reference suite is \"forward\", not the first");
    et_bundled_suite su;
    et_bundled_suite_at(&bp, 1, &su);
    is_int(su.test_cases.count, 3, "forward: three cases");
    et_bundled_case c;
    et_bundled_case_at(&bp, &su, 0, &c);
    ok(c.inputs.count == 2 && c.expected_outputs.count == 14, "case 0: 2 inputs, 14 expected outputs");
    et_bvalue v[14];
    for (uint32_t i = 0; i < 14; i++)
        et_bundled_value(&bp, &c.expected_outputs, i, &v[i]);
    static const double tr[] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    ok(tensor_is(&bp, &v[0], 6, 2, tr, 6), "FLOAT[2, 3] stored with dim_order [1, 0] reads 0.5 .. 5.5 in logical order");
    et_tensor t;
    ok(et_bundled_tensor(&bp, &v[0], &t, "v", &err) == 0 && t.strides[0] == 1 && t.strides[1] == 2,
       "... its strides from dim_order: [1, 2]");
    static const double pi[] = {3.141592653589793};
    ok(tensor_is(&bp, &v[1], 7, 0, pi, 1) && v[1].dim_order.count == 0,
       "DOUBLE scalar (sizes [], no dim_order): pi");
    ok(tensor_is(&bp, &v[2], 6, 2, NULL, 0) && v[2].data.count == 0 &&
           et_bundled_tensor(&bp, &v[2], &t, "v", &err) == 0 && t.sizes[0] == 0 && t.sizes[1] == 4,
       "FLOAT[0, 4]: empty, no data");
    static const double bo[] = {1, 0, 1};
    ok(tensor_is(&bp, &v[3], 11, 1, bo, 3), "BOOL[3] = [true, false, true]");
    et_bundled_tensor(&bp, &v[4], &t, "v", &err);
    int64_t l0 = 0, l1 = 0;
    ok(v[4].scalar_type == 4 && et_tensor_get_i64(&t, 0, &l0) == 0 &&
           et_tensor_get_i64(&t, 1, &l1) == 0 && l0 == -5 && l1 == (int64_t)1 << 40,
       "LONG[2] = [-5, 2^40]");
    static const double ch[] = {-128, -1, 127};
    ok(tensor_is(&bp, &v[5], 1, 1, ch, 3), "CHAR[3] = [-128, -1, 127]");
    static const double ha[] = {1.0, -2.0};
    ok(tensor_is(&bp, &v[6], 5, 1, ha, 2), "HALF[2] = [1, -2]");
    static const double by[] = {250, 7};
    ok(tensor_is(&bp, &v[7], 0, 1, by, 2) && v[7].data.count == 4,
       "BYTE[2] (scalar_type absent: the default) = [250, 7], data longer than needed");
    ok(v[8].kind == ET_BVAL_INT && v[8].int_val == INT64_MAX, "Int 9223372036854775807");
    ok(scalar_is(&v[9], ET_BVAL_INT, 0), "Int with int_val absent: 0");
    ok(scalar_is(&v[10], ET_BVAL_BOOL, 0), "Bool with bool_val absent: false");
    ok(scalar_is(&v[11], ET_BVAL_BOOL, 1), "Bool true");
    ok(scalar_is(&v[12], ET_BVAL_DOUBLE, -0.5), "Double -0.5");
    ok(scalar_is(&v[13], ET_BVAL_DOUBLE, 0), "Double with double_val absent: 0");
    ok(et_bundled_tensor(&bp, &v[8], &t, "v", &err) != 0 && err.kind == ET_ERR_VALUE &&
           strstr(err.msg, "v: not a Tensor"),
       "a tensor view of an Int: \"not a Tensor\"");
    et_bundled_value(&bp, &c.inputs, 1, &v[0]);
    ok(scalar_is(&v[0], ET_BVAL_INT, -7), "input 1: Int -7");
    et_bundled_case_at(&bp, &su, 1, &c);
    ok(c.inputs.count == 0 && c.expected_outputs.count == 0, "case 1: no inputs, no outputs (vectors absent)");
    et_bundled_case_at(&bp, &su, 2, &c);
    et_bundled_value(&bp, &c.expected_outputs, 0, &v[0]);
    ok(c.inputs.count == 0 && c.expected_outputs.count == 1 && scalar_is(&v[0], ET_BVAL_INT, 42),
       "case 2: expected output Int 42");
    double sum = 0;
    is_int(walk_all(&bp, &sum), 19, "19 values in all");
    et_bundled_close(&bp);
    truncation_sweep("kinds.bpte", &f);
    corruption_sweep("kinds.bpte", &f);
    free(f.p);
}

static void test_suite_choice(void)
{
    static const struct {
        const char *file;
        uint32_t suites;
        int32_t ref;
    } cases[] = {{"no_forward.bpte", 2, -1}, {"only_encode.bpte", 1, 0}, {"empty.bpte", 0, -1},
                 {"distinct.bpte", 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bytes f = fixture(cases[i].file);
        et_bundled bp;
        et_error err;
        int rc = f.p ? et_bundled_open(&bp, f.p, f.n, &err) : -1;
        ok(rc == 0 && et_bundled_num_suites(&bp) == cases[i].suites &&
               et_bundled_reference_suite(&bp) == cases[i].ref,
           "%s: %u suites, reference suite %d", cases[i].file, cases[i].suites, cases[i].ref);
        if (rc == 0)
            et_bundled_close(&bp);
        free(f.p);
    }
}

/* distinct.bpte: case k's expected outputs are INT[2, 2] = 10k .. 10k+3,
 * Int 100+k, Double k+0.25, Bool (k even). */
static void test_distinct(void)
{
    bytes f = fixture("distinct.bpte");
    et_bundled bp;
    et_error err;
    if (!ok(f.p && et_bundled_open(&bp, f.p, f.n, &err) == 0, "distinct.bpte opens")) {
        free(f.p);
        return;
    }
    et_bundled_suite su;
    et_bundled_suite_at(&bp, 0, &su);
    int good = 0;
    for (uint32_t k = 0; k < su.test_cases.count; k++) {
        et_bundled_case c;
        et_bvalue v[4];
        et_bundled_case_at(&bp, &su, k, &c);
        for (uint32_t i = 0; i < 4; i++)
            et_bundled_value(&bp, &c.expected_outputs, i, &v[i]);
        double w[4] = {10.0 * k, 10.0 * k + 1, 10.0 * k + 2, 10.0 * k + 3};
        good += c.expected_outputs.count == 4 && tensor_is(&bp, &v[0], 3, 2, w, 4) &&
                scalar_is(&v[1], ET_BVAL_INT, 100 + k) &&
                scalar_is(&v[2], ET_BVAL_DOUBLE, k + 0.25) &&
                scalar_is(&v[3], ET_BVAL_BOOL, k % 2 == 0);
    }
    ok(su.test_cases.count == 10 && good == 10, "distinct.bpte: the ten cases' expected outputs");
    truncation_sweep("distinct.bpte", &f);
    et_bundled_close(&bp);
    free(f.p);
}

/* Each m_NAME.bpte fails; its message holds both lines of m_NAME.expect
 * (the field path, then the complaint). */
static void test_malformed_fixtures(void)
{
    static const char *const names[] = {
        "m_value_none", "m_short_data", "m_no_data", "m_dim_order_dup", "m_dim_order_len",
        "m_no_sizes", "m_negative_size", "m_too_many_dims", "m_huge_shape", "m_no_method_name"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char fn[64];
        snprintf(fn, sizeof fn, "%s.bpte", names[i]);
        bytes f = fixture(fn);
        snprintf(fn, sizeof fn, "%s.expect", names[i]);
        bytes e = fixture(fn);
        if (!f.p || !e.p) {
            ok(0, "%s: read the .bpte and the .expect", names[i]);
            free(f.p), free(e.p);
            continue;
        }
        e.p[e.n] = '\0';
        char *path = (char *)e.p, *nl = strchr(path, '\n');
        char *text = nl ? nl + 1 : path;
        if (nl)
            *nl = '\0';
        if ((nl = strchr(text, '\n')))
            *nl = '\0';
        et_bundled bp;
        et_error err;
        err.msg[0] = '\0';
        int rc = et_bundled_open(&bp, f.p, f.n, &err);
        if (!ok(rc != 0 && strncmp(err.msg, path, strlen(path)) == 0 && strstr(err.msg, text),
                "%s: \"%s ... %s\"", names[i], path, text))
            diag("got: %s", rc ? err.msg : "(opened)");
        if (rc == 0)
            et_bundled_close(&bp);
        free(f.p), free(e.p);
    }
}

/* Patch the val_type of the first expected output of only_encode.bpte. */
static void test_union_types(void)
{
    bytes f = fixture("only_encode.bpte");
    et_bundled bp;
    et_error err;
    if (!f.p || et_bundled_open(&bp, f.p, f.n, &err) != 0) {
        ok(0, "only_encode.bpte opens");
        free(f.p);
        return;
    }
    et_bundled_suite su;
    et_bundled_case c;
    et_bundled_suite_at(&bp, 0, &su);
    et_bundled_case_at(&bp, &su, 0, &c);
    fb_table t;
    uint32_t p = 0;
    if (fb_vec_table(&bp.buf, &c.expected_outputs, 0, &t))
        p = fb_field(&bp.buf, &t, ETB_VALUE_TYPE, 1);
    uint32_t vpos = t.pos;
    et_bundled_close(&bp);
    if (!ok(p != 0 && f.p[p] == ET_BVAL_INT, "found the val_type byte of a Value (Int)")) {
        free(f.p);
        return;
    }
    char want[200];
    f.p[p] = 9;
    snprintf(want, sizeof want,
             "method_test_suites[0].test_cases[0].expected_outputs[0]: byte %u: val_type 9 is "
             "not a member of ValueUnion",
             vpos);
    expect_fail(f.p, f.n, want, "val_type 9");
    f.p[p] = 0;
    expect_fail(f.p, f.n, "Value has no member (val_type NONE", "val_type 0 (NONE) with a member");
    f.p[p] = ET_BVAL_TENSOR;
    expect_fail(f.p, f.n, "expected_outputs[0].val: byte",
                "an Int table read as a Tensor (val_type 1): refused");
    f.p[p] = ET_BVAL_DOUBLE;
    /* an Int table read as a Double: the same 8 bytes, another meaning */
    ok(et_bundled_open(&bp, f.p, f.n, &err) == 0, "an Int table read as a Double: accepted");
    et_bundled_close(&bp);
    free(f.p);
}

static void test_open_path(const char *repo)
{
    et_error err;
    et_bundled *bp = et_bundled_open_path("/nonexistent/prog.bpte", &err);
    ok(!bp && err.kind == ET_ERR_IO && strstr(err.msg, "/nonexistent/prog.bpte"),
       "a missing file: I/O error naming it");
    bp = et_bundled_open_path("/", &err);
    ok(!bp && err.kind == ET_ERR_IO, "a directory: I/O error (%s)", err.msg);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/bundled/m_short_data.bpte", src_dir);
    bp = et_bundled_open_path(path, &err);
    char want[4200];
    snprintf(want, sizeof want, "%s: method_test_suites[0].test_cases[0].expected_outputs[1].val: byte ", path);
    ok(!bp && err.kind == ET_ERR_FORMAT && strncmp(err.msg, want, strlen(want)) == 0,
       "a malformed file: \"PATH: field path: byte N: ...\"");
    if (repo) {
        bp = et_bundled_open_path(repo, &err);
        ok(bp && bp->path && strcmp(bp->path, repo) == 0 && bp->file.size == 4608 &&
               et_bundled_num_suites(bp) == 1,
           "et_bundled_open_path maps the repository's .bpte");
        et_bundled_free(bp);
    }
    et_bundled_free(NULL);
}

int main(void)
{
    src_dir = getenv("ET_SRC");
    if (!src_dir || !*src_dir)
        src_dir = ".";
    const char *shared = getenv("ET_SHARED");
    if (!shared || !*shared)
        shared = "../shared";
    char repo[4096];
    snprintf(repo, sizeof repo, "%s/corpus/etdump/repo_bundled_program.bpte", shared);
    struct stat st;
    bool have_corpus = stat(repo, &st) == 0;

    test_identifiers();
    test_kinds();
    test_suite_choice();
    test_distinct();
    test_malformed_fixtures();
    test_union_types();
    test_open_path(have_corpus ? repo : NULL);
    if (!have_corpus) {
        skip_n(1, "no shared corpus ($ET_SHARED/corpus): repo_bundled_program.bpte not tested");
        return done_testing();
    }
    bytes f = tap_read_file(repo);
    if (ok(f.p != NULL, "read %s", repo)) {
        test_repo_bpte(&f);
        test_size_prefixed(&f);
        truncation_sweep("repo_bundled_program.bpte", &f);
        corruption_sweep("repo_bundled_program.bpte", &f);
    }
    free(f.p);
    return done_testing();
}
