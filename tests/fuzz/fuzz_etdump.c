/*
 * fuzz_etdump.c - libFuzzer target for the ETDump reader and the model.
 *
 * Each input is copied into a heap block of exactly its size (so that
 * AddressSanitizer sees a read one byte past the end), then:
 *  1. et_etdump_open + et_etdump_verify_all; when both succeed, every run,
 *     allocator, event, value, tensor, tensor-list element and int64
 *     size/stride is read back through the accessors, touching every byte
 *     they point at, and every event of every run once more through the
 *     event cursor (et_event_cursor, the Lua iterator's decoder), which
 *     must decode it as et_etdump_event_verified does;
 *  2. the whole model is built with et_inspector_open (etdump_data, ns ->
 *     ms); every debug value and run output of every run of every block is
 *     decoded (values.h) and each tensor read in full (every element, the
 *     statistics, the byte copy: no cap hides the product's own bound), once
 *     with no debug buffer, once with the input itself as the debug buffer
 *     and, for an
 *     input of the form "ETDB" u32le N, N bytes, ETDump, once with those
 *     N bytes as the debug buffer (the ETDump is the rest); the model is
 *     built again with its samples and statistics deferred (defer_stats),
 *     and once more with the whole model deferred (defer_model, as Lua
 *     opens it): et_inspector_ready must give the same blocks, warnings,
 *     samples and statistics bit for bit, and a dump the eager build
 *     refuses must be refused at open with the same message.
 * Inputs without the "ETDB" header are plain ETDumps, as before.
 * It checks these invariants with __builtin_trap(): a failed open or
 * verify leaves an error message; the model refuses exactly the inputs the
 * reader refuses (apart from value errors such as an end time before a
 * start time); an accepted dump's event counts add up to its events; a
 * value that fails to decode leaves an error message; a tensor view never
 * points outside its buffer, holds no more elements than its bytes unless
 * it broadcasts within the budget, and a readable view reads every element
 * it claims.
 *
 * Build and run: make fuzz (FUZZ_SECONDS=N), see scripts/fuzz.sh.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/etdump.h"
#include "model/model.h"
#include "format/tensor.h"
#include "model/values.h"
#include "../tools/etwalk.h"

#define ET_FUZZ_CHUNK 4096 /* elements read per call */

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink; /* keeps the walk's reads alive */

/* Read a tensor view as a user would: every element (in chunks, as
 * doubles and, for integer types, as int64s), the statistics and the
 * bytes - no cap: the product bounds a view by its bytes and the
 * broadcast budget (tensor.h), and that bound is an invariant here.
 * Traps on a broken invariant. */
static void read_tensor(const et_tensor *t, et_value_buffer buf)
{
    if (t->data) {
        if (!buf.data || t->data < buf.data || t->span > buf.size ||
            (uint64_t)(t->data - buf.data) > buf.size - t->span)
            __builtin_trap(); /* a view outside its buffer */
    }
    char why[96];
    sink += et_tensor_unreadable(t, why, sizeof why) != NULL;
    if (!et_tensor_readable(t))
        return;
    /* work proportional to the bytes: at most what they hold, or a
     * broadcast within the budget */
    if (t->numel > buf.size / (uint64_t)t->elem_size && t->numel > et_tensor_max_broadcast())
        __builtin_trap();
    static double f[ET_FUZZ_CHUNK];
    static int64_t iv[ET_FUZZ_CHUNK];
    bool is_float = et_scalar_type_kind(t->scalar_type) == ET_ELEM_FLOAT;
    for (uint64_t first = 0; first < t->numel; first += ET_FUZZ_CHUNK) {
        uint64_t n = t->numel - first < ET_FUZZ_CHUNK ? t->numel - first : ET_FUZZ_CHUNK;
        if (et_tensor_read_f64(t, first, n, f) != 0)
            __builtin_trap();
        if (!is_float && et_tensor_read_i64(t, first, n, iv) != 0)
            __builtin_trap();
        sink += (uint64_t)(f[0] == f[0]) + (is_float ? 0 : (uint64_t)iv[n - 1]);
    }
    double x;
    if (t->numel && et_tensor_get_f64(t, t->numel - 1, &x) != 0)
        __builtin_trap();
    et_tensor_stats s;
    if (et_tensor_stats_compute(t, &s) != 0 || s.count != t->numel)
        __builtin_trap();
    sink += s.nan_count + s.inf_count;
    uint8_t *b = malloc(t->numel * (uint64_t)t->elem_size + 1);
    if (b) {
        if (et_tensor_copy_bytes(t, b) != 0)
            __builtin_trap();
        sink += t->numel ? b[0] : 0;
        free(b);
    }
}

/* Decode every debug value and run output of `insp` against `buf`. */
static void read_values(const et_inspector *insp, et_value_buffer buf)
{
    char what[400];
    et_error err;
    for (size_t bi = 0; bi < insp->n_blocks; bi++) {
        const et_block *b = &insp->blocks[bi];
        for (size_t r = 0; r < b->n_runs; r++) {
            for (size_t e = 0; e <= b->n_events; e++) {
                uint32_t first, count;
                size_t ev = e < b->n_events ? e : SIZE_MAX;
                if (ev == SIZE_MAX) {
                    first = b->run_output_first[r];
                    count = b->run_output_count[r];
                } else if (b->events[e].has_debug_data) {
                    first = b->events[e].debug_first[r];
                    count = b->events[e].debug_count[r];
                } else {
                    continue;
                }
                for (uint32_t k = 0; k < count; k++) {
                    uint32_t pos = b->value_pool[first + k];
                    et_value_label(what, sizeof what, insp, bi, r, ev, k, pos);
                    et_value v;
                    et_error_clear(&err);
                    if (et_value_decode(&insp->dump, pos, buf, what, &v, &err) != 0) {
                        if (!err.msg[0])
                            __builtin_trap();
                        continue;
                    }
                    if (v.type == ET_VAL_TENSOR)
                        read_tensor(&v.tensor, buf);
                    for (uint32_t i = 0; v.type == ET_VAL_TENSOR_LIST && i < v.n_tensors; i++) {
                        et_tensor t;
                        et_error_clear(&err);
                        if (et_value_list_tensor(&insp->dump, &v, i, buf, what, &t, &err) == 0)
                            read_tensor(&t, buf);
                        else if (!err.msg[0])
                            __builtin_trap();
                    }
                }
            }
        }
    }
}

/* Run one input through the reader and the model (see the top of the
 * file).  data, size: the input.  Returns 0 (libFuzzer's convention); a
 * broken invariant traps. */
static bool str_same(et_str a, et_str b)
{
    return a.n == b.n && (a.p == NULL) == (b.p == NULL) && (!a.n || memcmp(a.p, b.p, a.n) == 0);
}

/* Every event of every verified run through the event cursor (the Lua
 * iterator's decoder) must decode as et_etdump_event_verified does. */
static void cursor_matches(const et_etdump *d)
{
    for (uint32_t ri = 0; ri < et_etdump_num_runs(d); ri++) {
        et_run r;
        et_etdump_run(d, ri, &r);
        et_event_cursor c;
        et_event_cursor_init(&c, d, ri, &r);
        for (uint32_t i = 0; i < r.events.count; i++) {
            et_raw_event a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            et_event_cursor_get(&c, i, &a);
            et_etdump_event_verified(d, ri, &r, i, &b);
            if (a.kind != b.kind)
                __builtin_trap();
            if (a.kind == ET_EV_PROFILE &&
                (!str_same(a.name, b.name) || !str_same(a.delegate_debug_id_str, b.delegate_debug_id_str) ||
                 !str_same(a.metadata, b.metadata) || a.start_time != b.start_time ||
                 a.end_time != b.end_time || a.instruction_id != b.instruction_id ||
                 a.delegate_debug_id_int != b.delegate_debug_id_int || a.chain_value != b.chain_value ||
                 a.chain_neg != b.chain_neg))
                __builtin_trap();
        }
    }
}

/* An inspector opened with defer_stats (and, when `model`, defer_model,
 * as Lua opens it) made ready (et_inspector_ready): the samples it fills
 * and the statistics it computes equal the ones the eager build has, and
 * with the model deferred so do its blocks, its warnings (in another
 * order: the dump's own come first) and the dump's event counters. */
static void deferred_match(const et_inspector *eager, const uint8_t *p, size_t size, bool model)
{
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_data = p;
    o.etdump_size = size;
    o.defer_stats = true;
    o.defer_model = model;
    et_error err;
    et_inspector *lazy = et_inspector_open(&o, &err);
    if (!lazy) {
        if (err.kind != ET_ERR_NOMEM) /* refused what the eager build accepted */
            __builtin_trap();
        return;
    }
    if (model && et_inspector_model_pending(lazy) && lazy->n_blocks)
        __builtin_trap(); /* a pending model shows no block */
    if (et_inspector_ready(lazy, &err) == 0) {
        if (et_inspector_stats_pending(lazy) || et_inspector_model_pending(lazy) || lazy->n_blocks != eager->n_blocks)
            __builtin_trap();
        const et_etdump *dx = &eager->dump, *dy = &lazy->dump;
        if (dx->num_profile_events != dy->num_profile_events ||
            dx->num_debug_events != dy->num_debug_events ||
            dx->num_allocation_events != dy->num_allocation_events ||
            dx->num_empty_events != dy->num_empty_events)
            __builtin_trap();
        if (lazy->warnings.n != eager->warnings.n)
            __builtin_trap();
        for (size_t i = 0; i < eager->warnings.n; i++) {
            bool found = false;
            for (size_t j = 0; j < lazy->warnings.n && !found; j++)
                found = strcmp(eager->warnings.items[i], lazy->warnings.items[j]) == 0;
            if (!found)
                __builtin_trap();
        }
        for (size_t bi = 0; bi < eager->n_blocks; bi++)
            if (eager->blocks[bi].n_events != lazy->blocks[bi].n_events ||
                eager->blocks[bi].n_runs != lazy->blocks[bi].n_runs)
                __builtin_trap();
        for (size_t bi = 0; bi < eager->n_blocks; bi++)
            for (size_t e = 0; e < eager->blocks[bi].n_events; e++) {
                const et_perf_data *x = &eager->blocks[bi].events[e].perf_data;
                const et_perf_data *y = &lazy->blocks[bi].events[e].perf_data;
                const double xs[6] = {x->p10, x->p50, x->p90, x->avg, x->min, x->max};
                const double ys[6] = {y->p10, y->p50, y->p90, y->avg, y->min, y->max};
                if (memcmp(xs, ys, sizeof xs) != 0) /* bit for bit, NaN included */
                    __builtin_trap();
                /* the samples, filled with them (no converter here) */
                if (x->n != y->n || (x->n && (!x->raw || !y->raw)))
                    __builtin_trap();
                const uint64_t *xst = eager->blocks[bi].events[e].start_time;
                const uint64_t *yst = lazy->blocks[bi].events[e].start_time;
                if (x->n && (memcmp(x->raw, y->raw, x->n * sizeof *x->raw) != 0 ||
                             (xst && (!yst || memcmp(xst, yst, x->n * sizeof *xst) != 0))))
                    __builtin_trap();
            }
        if (et_inspector_samples_pending(lazy))
            __builtin_trap();
    }
    et_inspector_free(lazy);
}

/* An input the eager build refuses, opened as Lua opens it (the model
 * deferred): refused at open too, with the same message - a deferred
 * model never moves an error of the dump to a later read. */
static void deferred_refuses(const uint8_t *p, size_t size, const et_error *eager_err)
{
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.etdump_data = p;
    o.etdump_size = size;
    o.defer_stats = o.defer_model = true;
    et_error err;
    et_inspector *lazy = et_inspector_open(&o, &err);
    if (lazy) {
        et_inspector_free(lazy);
        if (eager_err->kind != ET_ERR_NOMEM)
            __builtin_trap();
        return;
    }
    if (err.kind != ET_ERR_NOMEM && eager_err->kind != ET_ERR_NOMEM &&
        strcmp(err.msg, eager_err->msg) != 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* "ETDB" u32le N, N bytes of debug buffer, then the ETDump */
    uint8_t *dbuf = NULL;
    size_t dsize = 0;
    if (size >= 8 && memcmp(data, "ETDB", 4) == 0) {
        uint32_t n = (uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 |
                     (uint32_t)data[7] << 24;
        if (n <= size - 8) {
            dsize = n;
            dbuf = malloc(dsize ? dsize : 1); /* exactly its size, as the input */
            if (!dbuf)
                return 0;
            memcpy(dbuf, data + 8, dsize);
            data += 8 + dsize;
            size -= 8 + dsize;
        }
    }
    uint8_t *p = malloc(size ? size : 1);
    if (!p) {
        free(dbuf);
        return 0;
    }
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
            cursor_matches(&d);
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
        deferred_match(insp, p, size, false);
        deferred_match(insp, p, size, true);
        et_value_buffer none = {NULL, 0}, self = {p, size}, given = {dbuf, dsize};
        read_values(insp, none);
        read_values(insp, self);
        if (dbuf)
            read_values(insp, given);
        et_inspector_free(insp);
    } else if (reader_ok && err.kind == ET_ERR_FORMAT) {
        __builtin_trap(); /* the model found a format error the verifier missed */
    } else if (!err.msg[0]) {
        __builtin_trap();
    } else {
        deferred_refuses(p, size, &err);
    }
    free(p);
    free(dbuf);
    return 0;
}
