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

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink; /* keeps the walk's reads alive */

/* Sum the bytes of s (absent: 0). */
static uint64_t touch(et_str s)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; s.p && i < s.n; i++)
        sum += (unsigned char)s.p[i];
    return sum;
}

/* Read a tensor's fields, sizes and strides.  Returns a checksum. */
static uint64_t walk_tensor(const et_etdump *d, const et_raw_value *v)
{
    uint64_t sum = (uint64_t)v->offset + (uint64_t)et_scalar_type_size(v->scalar_type);
    const char *name = et_scalar_type_name(v->scalar_type);
    sum += name ? (unsigned char)name[0] : 0;
    for (uint32_t i = 0; i < v->sizes.count; i++)
        sum += (uint64_t)et_etdump_i64_at(d, &v->sizes, i);
    for (uint32_t i = 0; i < v->strides.count; i++)
        sum += (uint64_t)et_etdump_i64_at(d, &v->strides, i);
    return sum;
}

/* Read the Value table at pos and what hangs below it.  Returns a checksum. */
static uint64_t walk_value(const et_etdump *d, uint32_t pos)
{
    et_raw_value v, t;
    uint64_t sum = (uint64_t)et_etdump_value_type(d, pos);
    et_etdump_value(d, pos, &v);
    uint32_t fbits;
    uint64_t dbits;
    memcpy(&fbits, &v.float_val, sizeof fbits);
    memcpy(&dbits, &v.double_val, sizeof dbits);
    sum += (uint64_t)v.val + (uint64_t)v.int_val + v.bool_val + v.is_output + fbits + dbits;
    if (v.has_tensor)
        sum += walk_tensor(d, &v);
    for (uint32_t i = 0; v.has_tensor_list && i < v.tensors.count; i++) {
        et_etdump_list_tensor(d, &v, i, &t);
        sum += walk_tensor(d, &t);
    }
    return sum;
}

/* Read every run of a verified dump through the accessors.  n_events
 * receives the number of events seen.  Returns a checksum. */
static uint64_t walk(const et_etdump *d, uint64_t *n_events)
{
    uint64_t sum = 0;
    *n_events = 0;
    for (uint32_t i = 0; i < et_etdump_num_runs(d); i++) {
        et_run r;
        et_etdump_run(d, i, &r);
        sum += touch(r.name) + (uint64_t)r.bundled_input_index;
        for (uint32_t a = 0; a < r.allocators.count; a++)
            sum += touch(et_etdump_allocator_name(d, &r, a));
        *n_events += r.events.count;
        for (uint32_t k = 0; k < r.events.count; k++) {
            et_raw_event e;
            et_etdump_event(d, &r, k, &e);
            sum += (uint64_t)e.kind + e.pos;
            switch (e.kind) {
            case ET_EV_PROFILE:
                sum += touch(et_etdump_profile_metadata(d, e.pos)) + touch(e.metadata) +
                       e.start_time + e.end_time;
                /* fall through */
            case ET_EV_DEBUG:
                sum += touch(e.name) + touch(e.delegate_debug_id_str) + e.chain_value +
                       (uint64_t)e.instruction_id + (uint64_t)e.delegate_debug_id_int;
                if (e.kind == ET_EV_DEBUG) {
                    if (!e.value_pos) /* verified: debug_entry is required */
                        __builtin_trap();
                    sum += walk_value(d, e.value_pos) + e.is_output;
                }
                break;
            case ET_EV_ALLOCATION:
                sum += (uint64_t)e.allocator_id + e.allocation_size;
                break;
            case ET_EV_EMPTY:
                break;
            }
        }
    }
    return sum;
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
