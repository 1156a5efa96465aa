/*
 * fuzz_program.c - libFuzzer target for the ExecuTorch program reader
 * (program.h) and its summaries (output/progsummary.h).
 *
 * Each input is copied into a heap block of exactly its size (so that
 * AddressSanitizer sees a read one byte past the end), then:
 *  1. et_program_open; a refusal must leave an ET_ERR_FORMAT message;
 *  2. for an accepted program: every method, its operators (full names),
 *     delegates (blob size and place, compile specs), planned buffer
 *     sizes, values' kinds and every instruction (by chain, and by
 *     instruction id with et_pmethod_instruction_at) are read;
 *  3. the text summary and the JSON document are written (to /dev/null),
 *     and the program is diffed against itself (et_progsum_diff).
 * Invariants, checked with __builtin_trap(): the instructions counted by
 * the verifier are those walked; every instruction of a verified program
 * has a kind; a KernelCall's operator and a DelegateCall's delegate are
 * in range; an inline delegate blob lies inside the FlatBuffer and a
 * segment one inside the input; buffer sizes are >= 0; the summaries
 * succeed, the diff too.
 *
 * Seeds: the programs of tests/pte and tests/malformed (scripts/fuzz.sh);
 * build and run: make build/fuzz/fuzz_program,
 * sh scripts/fuzz.sh build/fuzz/fuzz_program SECONDS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "format/program.h"
#include "output/progsummary.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double sink; /* keeps the walk's reads alive */
static FILE *devnull;

static void walk_method(const et_program *p, uint32_t mi, uint64_t *instructions)
{
    et_pmethod m;
    et_program_method(p, mi, &m);
    if (!m.name.p)
        __builtin_trap(); /* required, so verified */
    for (uint32_t i = 0; i < m.operators.count; i++) {
        char name[256];
        et_pmethod_operator_name(p, &m, i, name, sizeof name);
        sink += (double)strlen(name);
    }
    for (uint32_t i = 0; i < m.delegates.count; i++) {
        et_pdelegate d;
        if (!et_pmethod_delegate(p, &m, i, &d) || !d.id.p)
            __builtin_trap();
        if (d.bytes && (d.offset > p->file_size || d.bytes > p->file_size - d.offset))
            __builtin_trap();
        if (!d.in_segment && d.bytes && d.offset + d.bytes > p->program_size)
            __builtin_trap();
        for (uint32_t k = 0; k < d.compile_specs.count; k++) {
            et_str key;
            const uint8_t *v;
            uint32_t n;
            et_pdelegate_compile_spec(p, &d, k, &key, &v, &n);
            sink += n ? v[n - 1] : 0;
        }
    }
    for (uint32_t i = 0; i < m.buffer_sizes.count; i++)
        if (et_pmethod_buffer_size(p, &m, i) < 0)
            __builtin_trap();
    for (uint32_t i = 0; i < m.values.count; i++)
        sink += et_pmethod_value_kind(p, &m, i);
    uint64_t id = 0;
    for (uint32_t c = 0; c < m.chains.count; c++) {
        fb_vec v = et_pmethod_chain_instructions(p, &m, c);
        for (uint32_t i = 0; i < v.count; i++, id++) {
            et_pinstr in, again;
            et_program_instruction(p, &v, i, &in);
            if (in.kind == ET_PINSTR_NONE)
                __builtin_trap();
            if (in.kind == ET_PINSTR_KERNEL && (in.index < 0 || (uint32_t)in.index >= m.operators.count))
                __builtin_trap();
            if (in.kind == ET_PINSTR_DELEGATE && (in.index < 0 || (uint32_t)in.index >= m.delegates.count))
                __builtin_trap();
            if (!et_pmethod_instruction_at(p, &m, id, &again) || again.pos != in.pos)
                __builtin_trap();
            sink += in.args.count;
        }
    }
    if (id != et_pmethod_num_instructions(p, &m))
        __builtin_trap();
    *instructions += id;
}

/* Run one input through the reader and the summaries (see the top of the
 * file).  data, size: the input.  Returns 0 (libFuzzer's convention); a
 * broken invariant traps. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    if (size)
        memcpy(p, data, size);
    et_program prog;
    et_error err;
    et_error_clear(&err);
    if (et_program_open(&prog, p, size, &err) != 0) {
        if (!err.msg[0] || err.kind != ET_ERR_FORMAT)
            __builtin_trap();
        free(p);
        return 0;
    }
    uint64_t instructions = 0;
    for (uint32_t i = 0; i < et_program_num_methods(&prog); i++)
        walk_method(&prog, i, &instructions);
    if (instructions != prog.num_instructions)
        __builtin_trap();
    et_strbuf sb = {0};
    et_progsum_text(&prog, "fuzz.pte", &sb);
    if (sb.failed)
        __builtin_trap();
    sink += (double)sb.n;
    et_sb_free(&sb);
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (devnull && et_progsum_write_json(&prog, "fuzz.pte", devnull) != 0)
        __builtin_trap();
    et_strbuf d = {0}; /* the program against itself (methods of one name may repeat) */
    et_progsum_diff(&prog, "a", &prog, "b", &d);
    if (d.failed)
        __builtin_trap();
    et_sb_free(&d);
    et_program_close(&prog);
    free(p);
    return 0;
}
