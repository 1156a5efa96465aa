/*
 * etwalk.h - read every field of a verified ETDump through the accessors
 * (header-only; shared by tests/unit/test_etdump.c and the fuzz target).
 *
 * The walk touches every byte the accessors point at and returns a
 * checksum, so that ASan sees any read outside the buffer and the compiler
 * cannot drop the reads.  It aborts when a verified dump breaks an
 * invariant the verifier promises (a debug event without its value).
 */
#ifndef ET_TESTS_ETWALK_H
#define ET_TESTS_ETWALK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/etdump.h"

/* Sum the bytes of s (absent: 0). */
static uint64_t touch(et_str s)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; s.p && i < s.n; i++)
        sum += (unsigned char)s.p[i];
    return sum;
}

/* Read a tensor's fields and every size and stride.  Returns a checksum. */
static uint64_t walk_tensor(const et_etdump *d, const et_raw_value *v)
{
    uint64_t sum = (uint64_t)(int64_t)v->scalar_type + (uint64_t)v->offset;
    sum += (uint64_t)et_scalar_type_size(v->scalar_type);
    const char *name = et_scalar_type_name(v->scalar_type);
    sum += name ? (unsigned char)name[0] : 0;
    for (uint32_t i = 0; i < v->sizes.count; i++)
        sum += (uint64_t)et_etdump_i64_at(d, &v->sizes, i);
    for (uint32_t i = 0; i < v->strides.count; i++)
        sum += (uint64_t)et_etdump_i64_at(d, &v->strides, i);
    return sum;
}

/* Read the Value table at pos and everything below it.  Returns a checksum. */
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

/* Read every run, allocator, event and value of a verified dump through
 * the accessors.  n_events (may be NULL) receives the number of events
 * seen.  Returns a checksum. */
static uint64_t walk(const et_etdump *d, uint64_t *n_events)
{
    uint64_t sum = 0, events = 0;
    for (uint32_t i = 0; i < et_etdump_num_runs(d); i++) {
        et_run r;
        et_etdump_run(d, i, &r);
        sum += touch(r.name) + (uint64_t)r.bundled_input_index;
        events += r.events.count;
        for (uint32_t a = 0; a < r.allocators.count; a++)
            sum += touch(et_etdump_allocator_name(d, &r, a));
        for (uint32_t k = 0; k < r.events.count; k++) {
            et_raw_event e;
            et_etdump_event(d, &r, k, &e);
            sum += (uint64_t)e.kind + e.pos;
            if (e.kind == ET_EV_PROFILE || e.kind == ET_EV_DEBUG)
                sum += touch(e.name) + touch(e.delegate_debug_id_str) + e.chain_value +
                       (uint64_t)e.instruction_id + (uint64_t)e.delegate_debug_id_int;
            if (e.kind == ET_EV_PROFILE)
                sum += touch(e.metadata) + e.start_time + e.end_time +
                       touch(et_etdump_profile_metadata(d, e.pos));
            if (e.kind == ET_EV_DEBUG) {
                if (!e.value_pos) /* verified: debug_entry is required */
                    abort();
                sum += walk_value(d, e.value_pos) + e.is_output;
            }
            if (e.kind == ET_EV_ALLOCATION)
                sum += (uint64_t)e.allocator_id + e.allocation_size;
        }
    }
    if (n_events)
        *n_events = events;
    return sum;
}

#endif
