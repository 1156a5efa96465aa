/*
 * fuzz_bundled.c - libFuzzer target for the BundledProgram reader
 * (bundled.h) and the reference-output assignment of the model.
 *
 * Each input is copied into a heap block of exactly its size (so that
 * AddressSanitizer sees a read one byte past the end), then:
 *  1. et_bundled_open; when it succeeds, every suite, test case and value
 *     is decoded, every Tensor value is viewed with et_bundled_tensor and
 *     every element of a readable view is read (as a double, and as an
 *     int64 where the type is an integer type);
 *  2. an accepted program is written to a temporary file and opened as
 *     the bundled_program_path of an Inspector over a small ETDump built
 *     here (runs with bundled_input_index -1, 0, 1, 2, 7, 1000, -5); every
 *     block's reference output is walked the same way.
 * Invariants, checked with __builtin_trap(): a refused input leaves a
 * message; a verified program's tensor views never fail, and their bytes
 * lie inside the input; the values counted by the verifier are those
 * walked; the reference suite is a valid index; the Inspector accepts
 * every program the reader accepts, and a block's reference case is its
 * bundled_input_index.
 *
 * Seeds: the shared corpus's .bpte and the .bpte files of tests/bundled
 * (scripts/fuzz.sh); build and run: make build/fuzz/fuzz_bundled,
 * sh scripts/fuzz.sh build/fuzz/fuzz_bundled SECONDS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/bundled.h"
#include "model/model.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double sink; /* keeps the walk's reads alive */

/* Walk the values of `values`: decode each, view and read each tensor.
 * `lo`, `hi`: the bytes tensors must lie in.  Returns the number of
 * values. */
static uint64_t walk_values(const et_bundled *bp, const fb_vec *values, const uint8_t *lo,
                            const uint8_t *hi)
{
    for (uint32_t i = 0; i < values->count; i++) {
        et_bvalue v;
        et_bundled_value(bp, values, i, &v);
        switch (v.kind) {
        case ET_BVAL_INT: sink += (double)v.int_val; continue;
        case ET_BVAL_BOOL: sink += v.bool_val; continue;
        case ET_BVAL_DOUBLE: sink += v.double_val == v.double_val ? v.double_val : 0; continue;
        case ET_BVAL_TENSOR: break;
        default: __builtin_trap(); /* the verifier lets no other kind through */
        }
        for (uint32_t d = 0; d < v.sizes.count; d++)
            sink += et_bundled_size_at(bp, &v, d);
        et_tensor t;
        et_error err;
        if (et_bundled_tensor(bp, &v, &t, "value", &err) != 0)
            __builtin_trap();
        if (!et_tensor_readable(&t))
            continue;
        if (t.numel && (!t.data || t.data < lo || t.span > (uint64_t)(hi - t.data)))
            __builtin_trap();
        for (uint64_t e = 0; e < t.numel; e++) {
            double x;
            int64_t n;
            if (et_tensor_get_f64(&t, e, &x) != 0)
                __builtin_trap();
            sink += x == x ? x : 0;
            if (et_tensor_get_i64(&t, e, &n) == 0)
                sink += (double)n;
        }
    }
    return values->count;
}

/* A plain ETDump of one "Execute" RunData per index of `bii` (no events),
 * assembled by hand: root table, run_data vector, one RunData table each
 * (name, bundled_input_index) sharing one vtable, then the name. */
static const int32_t bii[] = {-1, 0, 1, 2, 7, 1000, -5};
#define N_RUNS (sizeof bii / sizeof bii[0])
static uint8_t dump[64 + 16 * N_RUNS];
static size_t dump_size;

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

static void build_dump(void)
{
    uint8_t *d = dump;
    put32(d + 0, 16);                       /* root offset -> table at 16 */
    memcpy(d + 4, "ED00", 4);
    put16(d + 8, 8), put16(d + 10, 8);      /* ETDump vtable: 2 slots, table 8 bytes */
    put16(d + 12, 0), put16(d + 14, 4);     /* version absent, run_data at +4 */
    put32(d + 16, (uint32_t)(16 - 8));      /* soffset to the vtable at 8 */
    put32(d + 20, 24 - 20);                 /* run_data -> vector at 24 */
    put32(d + 24, (uint32_t)N_RUNS);
    uint32_t vt = 28 + 4 * (uint32_t)N_RUNS; /* RunData vtable */
    put16(d + vt, 8), put16(d + vt + 2, 12);
    put16(d + vt + 4, 4), put16(d + vt + 6, 8);
    uint32_t tab = vt + 8;                  /* the RunData tables */
    uint32_t name = tab + 12 * (uint32_t)N_RUNS; /* then "Execute" (uoffsets point forward) */
    for (uint32_t i = 0; i < N_RUNS; i++, tab += 12) {
        put32(d + 28 + 4 * i, tab - (28 + 4 * i));
        put32(d + tab, (uint32_t)(int32_t)(tab - vt));
        put32(d + tab + 4, name - (tab + 4));
        put32(d + tab + 8, (uint32_t)bii[i]);
    }
    put32(d + name, 7);
    memcpy(d + name + 4, "Execute\0", 8);
    dump_size = name + 12;
}

static char tmp_path[4096];

/* atexit: remove the temporary program file. */
static void remove_tmp(void)
{
    if (tmp_path[0])
        remove(tmp_path);
}

/* Open an Inspector over the hand-built dump with the program in `p`
 * (`size` bytes, already accepted by the reader) and walk the blocks'
 * reference outputs. */
static void check_model(const uint8_t *p, size_t size)
{
    if (!dump_size)
        build_dump();
    if (!tmp_path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(tmp_path, sizeof tmp_path, "%s/fuzz_bundled.%ld.bpte", dir && *dir ? dir : "/tmp",
                 (long)getpid());
        atexit(remove_tmp);
    }
    FILE *f = fopen(tmp_path, "wb");
    if (!f)
        return;
    size_t w = fwrite(p, 1, size, f);
    if (fclose(f) != 0 || w != size)
        return;
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_data = dump;
    o.etdump_size = dump_size;
    o.bundled_program_path = tmp_path;
    et_error err;
    et_error_clear(&err);
    et_inspector *insp = et_inspector_open(&o, &err);
    if (!insp) {
        if (err.kind != ET_ERR_IO && err.kind != ET_ERR_NOMEM)
            __builtin_trap(); /* the model refused a program the reader accepted */
        return;
    }
    const et_bundled *bp = insp->bundled;
    if (!bp)
        __builtin_trap();
    for (size_t i = 0; i < insp->n_blocks; i++) {
        const et_block *blk = &insp->blocks[i];
        et_bundled_case c;
        bool has = et_block_reference_case(insp, blk, &c);
        if (has != (blk->reference_case >= 0) ||
            (has && blk->reference_case != blk->bundled_input_index))
            __builtin_trap();
        if (has)
            walk_values(bp, &c.expected_outputs, bp->buf.data, bp->buf.data + bp->file.size);
    }
    sink += (double)insp->warnings.n;
    et_inspector_free(insp);
}

/* Run one input through the reader and the model (see the top of the
 * file).  data, size: the input.  Returns 0 (libFuzzer's convention); a
 * broken invariant traps. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    if (size)
        memcpy(p, data, size);
    et_bundled bp;
    et_error err;
    et_error_clear(&err);
    if (et_bundled_open(&bp, p, size, &err) != 0) {
        if (!err.msg[0] || err.kind != ET_ERR_FORMAT)
            __builtin_trap();
        free(p);
        return 0;
    }
    uint64_t values = 0;
    uint32_t n = et_bundled_num_suites(&bp);
    int32_t ref = et_bundled_reference_suite(&bp);
    if (ref < -1 || (ref >= 0 && (uint32_t)ref >= n))
        __builtin_trap();
    for (uint32_t s = 0; s < n; s++) {
        et_bundled_suite su;
        et_bundled_suite_at(&bp, s, &su);
        if (!su.method_name.p)
            __builtin_trap(); /* required, so verified */
        sink += su.method_name.n;
        for (uint32_t k = 0; k < su.test_cases.count; k++) {
            et_bundled_case c;
            et_bundled_case_at(&bp, &su, k, &c);
            values += walk_values(&bp, &c.inputs, p, p + size);
            values += walk_values(&bp, &c.expected_outputs, p, p + size);
        }
    }
    if (values != bp.num_values)
        __builtin_trap();
    sink += bp.program.count ? p[bp.program.pos + bp.program.count - 1] : 0;
    et_bundled_close(&bp);
    check_model(p, size);
    free(p);
    return 0;
}
