/*
 * fuzz_etdump.c - libFuzzer target for the ETDump reader and the model.
 *
 * Each input is copied into a heap block of exactly its size (so that
 * AddressSanitizer sees a read one byte past the end), then:
 *  1. et_etdump_open + et_etdump_verify_all; when both succeed, every run,
 *     allocator, event, value, tensor, tensor-list element and int64
 *     size/stride is read back through the accessors, touching every byte
 *     they point at;
 *  2. the whole model is built with et_inspector_open (etdump_data, ns ->
 *     ms) and freed.
 * It checks three invariants with __builtin_trap(): a failed open or verify
 * leaves an error message; the model refuses exactly the inputs the reader
 * refuses (apart from value errors such as an end time before a start
 * time); an accepted dump's event counts add up to its events.
 *
 * Build and run: make fuzz (FUZZ_SECONDS=N), see scripts/fuzz.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etdump.h"
#include "model.h"
#include "../tools/etwalk.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink; /* keeps the walk's reads alive */

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

    et_etdump d;
    et_error err;
    et_error_clear(&err);
    int reader_ok = 0;
    if (et_etdump_open(&d, p, size, &err) == 0) {
        if (et_etdump_verify_all(&d, &err) == 0) {
            uint64_t n_events;
            reader_ok = 1;
            sink += walk(&d, &n_events);
            if (d.num_profile_events + d.num_debug_events + d.num_allocation_events +
                    d.num_empty_events != n_events)
                __builtin_trap();
        } else if (!err.msg[0]) {
            __builtin_trap();
        }
    } else if (!err.msg[0]) {
        __builtin_trap();
    }
    et_etdump_close(&d);

    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_data = p;
    o.etdump_size = size;
    et_error_clear(&err);
    et_inspector *insp = et_inspector_open(&o, &err);
    if (insp) {
        if (!reader_ok) /* the model accepted what the reader refused */
            __builtin_trap();
        sink += insp->n_blocks;
        et_inspector_free(insp);
    } else if (reader_ok && err.kind == ET_ERR_FORMAT) {
        __builtin_trap(); /* the model found a format error the verifier missed */
    } else if (!err.msg[0]) {
        __builtin_trap();
    }
    free(p);
    return 0;
}
