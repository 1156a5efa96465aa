/* etdump.c - ETDump layout detection, schema verifier and accessors; see etdump.h. */
#define _DEFAULT_SOURCE /* madvise */
#include "format/etdump.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ET_PREFETCH_AHEAD 8
#if defined(__GNUC__) || defined(__clang__)
#define ET_PREFETCH(p) __builtin_prefetch(p)
#else
#define ET_PREFETCH(p) ((void)(p))
#endif
/* for the per-event fast path, which the verifier's loop and the event
 * cursor share: a call per event would cost more than its checks */
#if defined(__GNUC__) || defined(__clang__)
#define ET_HOT_INLINE inline __attribute__((always_inline))
#else
#define ET_HOT_INLINE inline
#endif

/* ------------------------------------------------------------------ */
/* Verification.  Each verify_* function checks one table and everything
 * below it.  On failure the innermost primitive writes "byte N: ..." into
 * the error, and every level on the way out prepends its field name to
 * `path`, so the final message reads "run_data[2].events[9].profile_event.name:
 * byte N: ...". */

typedef struct vctx {
    fb_verifier fv;
    et_etdump *d;
    char path[256];
    uint64_t pe_ok; /* (vtable << 3 | pos & 7) + 1 whose ProfileEvent scalars passed */
    /* fast path (v_run_events): the layout of the last Event and ProfileEvent
     * vtables that passed the full checks; ev_vt 0 = none yet */
    et_event_layout fl;
} vctx;
typedef et_event_layout fast_layout;

/* Prepend one path segment ("events[3]", "tensor", ...); returns -1. */
static int seg(vctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int seg(vctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fb_path_vprepend(c->path, sizeof c->path, fmt, ap);
    va_end(ap);
    return -1;
}

static int missing(vctx *c, const fb_table *t, const char *table, const char *field)
{
    return fb_fail_missing(&c->fv, t, table, field);
}

/* An optional string field. */
static int v_string(vctx *c, const fb_table *t, unsigned slot, const char *name, bool required,
                    const char *table)
{
    uint32_t target;
    if (fb_verify_offset(&c->fv, t, slot, &target, "offset to string") != 0)
        return seg(c, "%s", name);
    if (!target)
        return required ? missing(c, t, table, name) : 0;
    if (fb_verify_string_at(&c->fv, target, "string") != 0)
        return seg(c, "%s", name);
    return 0;
}

/* An optional vector field of scalars. */
static int v_scalar_vector(vctx *c, const fb_table *t, unsigned slot, unsigned elem,
                           const char *name, bool required, const char *table)
{
    uint32_t target;
    fb_vec vec;
    if (fb_verify_offset(&c->fv, t, slot, &target, "offset to vector") != 0)
        return seg(c, "%s", name);
    if (!target)
        return required ? missing(c, t, table, name) : 0;
    if (fb_verify_vector_at(&c->fv, target, elem, &vec, "vector") != 0)
        return seg(c, "%s", name);
    if (elem > 4 && vec.count > 0 && vec.pos % elem != 0)
        return et_fail(c->fv.err, ET_ERR_FORMAT,
                       "byte %u: %s: elements are not aligned to %u bytes", vec.pos, name,
                       elem),
               seg(c, "%s", name);
    return 0;
}

/* An optional sub-table field: resolves it into `out` (pos 0 when absent). */
static int v_subtable(vctx *c, const fb_table *t, unsigned slot, const char *name,
                      fb_table *out)
{
    uint32_t target;
    memset(out, 0, sizeof *out);
    if (fb_verify_offset(&c->fv, t, slot, &target, "offset to table") != 0)
        return seg(c, "%s", name);
    if (!target)
        return 0;
    if (fb_verify_table_at(&c->fv, target, out, "table") != 0)
        return seg(c, "%s", name);
    return 0;
}

/* A one-field scalar table (Int, Bool, Float, Double) under `name`. */
static int v_scalar_table(vctx *c, const fb_table *t, unsigned slot, const char *name,
                          unsigned size)
{
    fb_table st;
    if (v_subtable(c, t, slot, name, &st) != 0)
        return -1;
    if (st.pos && fb_verify_scalar(&c->fv, &st, ETD_SCALAR_VAL, size, "value") != 0)
        return seg(c, "%s", name);
    return 0;
}

static int v_tensor(vctx *c, const fb_table *t)
{
    if (fb_verify_scalar(&c->fv, t, ETD_TENSOR_SCALAR_TYPE, 1, "scalar_type") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_TENSOR_OFFSET, 8, "offset") != 0)
        return -1;
    if (v_scalar_vector(c, t, ETD_TENSOR_SIZES, 8, "sizes", true, "Tensor") != 0 ||
        v_scalar_vector(c, t, ETD_TENSOR_STRIDES, 8, "strides", true, "Tensor") != 0)
        return -1;
    return 0;
}

static int v_value(vctx *c, const fb_table *t)
{
    fb_table sub;
    if (fb_verify_scalar(&c->fv, t, ETD_VALUE_VAL, 1, "val") != 0)
        return -1;
    if (v_subtable(c, t, ETD_VALUE_TENSOR, "tensor", &sub) != 0)
        return -1;
    if (sub.pos && v_tensor(c, &sub) != 0)
        return seg(c, "tensor");
    if (v_subtable(c, t, ETD_VALUE_TENSOR_LIST, "tensor_list", &sub) != 0)
        return -1;
    if (sub.pos) {
        uint32_t target;
        fb_vec vec;
        if (fb_verify_offset(&c->fv, &sub, ETD_TENSORLIST_TENSORS, &target, "tensors") != 0)
            return seg(c, "tensors"), seg(c, "tensor_list");
        if (!target)
            return missing(c, &sub, "TensorList", "tensors"), seg(c, "tensor_list");
        if (fb_verify_vector_at(&c->fv, target, 4, &vec, "tensors") != 0)
            return seg(c, "tensors"), seg(c, "tensor_list");
        for (uint32_t i = 0; i < vec.count; i++) {
            fb_table tt;
            if (fb_verify_vec_table(&c->fv, &vec, i, &tt, "Tensor") != 0 || v_tensor(c, &tt) != 0)
                return seg(c, "[%" PRIu32 "]", i), seg(c, "tensors"), seg(c, "tensor_list");
        }
    }
    if (v_scalar_table(c, t, ETD_VALUE_INT, "int_value", 8) != 0 ||
        v_scalar_table(c, t, ETD_VALUE_FLOAT, "float_value", 4) != 0 ||
        v_scalar_table(c, t, ETD_VALUE_DOUBLE, "double_value", 8) != 0 ||
        v_scalar_table(c, t, ETD_VALUE_BOOL, "bool_value", 1) != 0 ||
        v_scalar_table(c, t, ETD_VALUE_OUTPUT, "output", 1) != 0)
        return -1;
    return 0;
}

static int v_profile_event(vctx *c, const fb_table *t)
{
    /* The scalar checks depend only on the vtable and the table's alignment
     * modulo 8; tables written by one writer share a handful of vtables. */
    uint64_t key = (((uint64_t)t->vt << 3) | (t->pos & 7u)) + 1u;
    if (key != c->pe_ok && (fb_verify_scalar(&c->fv, t, ETD_PE_CHAIN, 4, "chain_index") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_PE_INSTR, 4, "instruction_id") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_PE_DID_INT, 4, "delegate_debug_id_int") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_PE_START, 8, "start_time") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_PE_END, 8, "end_time") != 0))
        return -1;
    c->pe_ok = key;
    if (v_string(c, t, ETD_PE_NAME, "name", false, "ProfileEvent") != 0 ||
        v_string(c, t, ETD_PE_DID_STR, "delegate_debug_id_str", false, "ProfileEvent") != 0 ||
        v_scalar_vector(c, t, ETD_PE_METADATA, 1, "delegate_debug_metadata", false,
                        "ProfileEvent") != 0)
        return -1;
    return 0;
}

static int v_debug_event(vctx *c, const fb_table *t)
{
    fb_table val;
    if (fb_verify_scalar(&c->fv, t, ETD_DE_CHAIN, 8, "chain_index") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_DE_INSTR, 4, "instruction_id") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_DE_DID_INT, 4, "delegate_debug_id_int") != 0)
        return -1;
    if (v_string(c, t, ETD_DE_DID_STR, "delegate_debug_id_str", false, "DebugEvent") != 0 ||
        v_string(c, t, ETD_DE_NAME, "name", false, "DebugEvent") != 0)
        return -1;
    if (v_subtable(c, t, ETD_DE_ENTRY, "debug_entry", &val) != 0)
        return -1;
    if (!val.pos)
        return missing(c, t, "DebugEvent", "debug_entry");
    if (v_value(c, &val) != 0)
        return seg(c, "debug_entry");
    return 0;
}

static int v_event(vctx *c, const fb_table *t)
{
    fb_table p, a, d;
    if (v_subtable(c, t, ETD_EVENT_PROFILE, "profile_event", &p) != 0)
        return -1;
    if (p.pos && v_profile_event(c, &p) != 0)
        return seg(c, "profile_event");
    if (v_subtable(c, t, ETD_EVENT_ALLOCATION, "allocation_event", &a) != 0)
        return -1;
    if (a.pos && (fb_verify_scalar(&c->fv, &a, ETD_AE_ALLOCATOR_ID, 4, "allocator_id") != 0 ||
                  fb_verify_scalar(&c->fv, &a, ETD_AE_SIZE, 8, "allocation_size") != 0))
        return seg(c, "allocation_event");
    if (v_subtable(c, t, ETD_EVENT_DEBUG, "debug_event", &d) != 0)
        return -1;
    if (d.pos && v_debug_event(c, &d) != 0)
        return seg(c, "debug_event");
    /* count the member that et_etdump_event() will pick */
    if (p.pos)
        c->d->num_profile_events++;
    else if (d.pos)
        c->d->num_debug_events++;
    else if (a.pos)
        c->d->num_allocation_events++;
    else
        c->d->num_empty_events++;
    return 0;
}

/* RunData's own fields and allocators; its events are checked by v_run_events. */
static int v_run(vctx *c, const fb_table *t, uint32_t *n_events)
{
    uint32_t target;
    fb_vec vec;
    *n_events = 0;
    if (v_string(c, t, ETD_RUN_NAME, "name", true, "RunData") != 0 ||
        fb_verify_scalar(&c->fv, t, ETD_RUN_BII, 4, "bundled_input_index") != 0)
        return -1;
    if (fb_verify_offset(&c->fv, t, ETD_RUN_ALLOCATORS, &target, "offset to vector") != 0)
        return seg(c, "allocators");
    if (target) {
        if (fb_verify_vector_at(&c->fv, target, 4, &vec, "vector") != 0)
            return seg(c, "allocators");
        for (uint32_t i = 0; i < vec.count; i++) {
            fb_table a;
            if (fb_verify_vec_table(&c->fv, &vec, i, &a, "Allocator") != 0 ||
                v_string(c, &a, ETD_ALLOCATOR_NAME, "name", true, "Allocator") != 0)
                return seg(c, "[%" PRIu32 "]", i), seg(c, "allocators");
        }
    }
    if (fb_verify_offset(&c->fv, t, ETD_RUN_EVENTS, &target, "offset to vector") != 0)
        return seg(c, "events");
    if (target && fb_verify_vector_at(&c->fv, target, 4, &vec, "vector") != 0)
        return seg(c, "events");
    if (target)
        *n_events = vec.count;
    return 0;
}

static void decode_event(const fb_buf *b, const fb_table *ev, et_raw_event *e);

/* String or byte vector at the uoffset stored at `p`: checks what depends on
 * its position (alignment, length and NUL inside the buffer). */
static inline bool fast_bytes(const fb_buf *b, uint32_t p, bool nul, et_str *out)
{
    uint32_t o = fb_ld_u32(b->data + p);
    uint64_t s = (uint64_t)p + o;
    if (o - 1u >= (uint32_t)INT32_MAX || (s & 3) || s + 4 > b->end)
        return false;
    uint32_t n = fb_ld_u32(b->data + s);
    if ((uint64_t)n + nul > (uint64_t)b->end - s - 4)
        return false;
    if (nul && b->data[s + 4 + n] != 0)
        return false;
    out->p = (const char *)b->data + s + 4;
    out->n = n;
    return true;
}

/* A ProfileEvent's kind, position and scalar fields, at the offsets `off`
 * its vtable gives (verified: every read is inside the buffer). */
static inline void profile_scalars(const fb_buf *b, uint32_t t, const uint16_t off[8],
                                   et_raw_event *e)
{
    const uint8_t *d = b->data + t;
    int32_t chain = off[ETD_PE_CHAIN] ? (int32_t)fb_ld_u32(d + off[ETD_PE_CHAIN]) : 0;
    e->kind = ET_EV_PROFILE;
    e->pos = t;
    e->chain_value = (uint64_t)(int64_t)chain;
    e->chain_neg = chain < 0;
    e->instruction_id = off[ETD_PE_INSTR] ? (int32_t)fb_ld_u32(d + off[ETD_PE_INSTR]) : -1;
    e->delegate_debug_id_int = off[ETD_PE_DID_INT] ? (int32_t)fb_ld_u32(d + off[ETD_PE_DID_INT]) : -1;
    e->start_time = off[ETD_PE_START] ? fb_ld_u64(d + off[ETD_PE_START]) : 0;
    e->end_time = off[ETD_PE_END] ? fb_ld_u64(d + off[ETD_PE_END]) : 0;
}

/* The common case, checked and decoded in one go: an Event whose vtable has
 * the cached layout `L` (only profile_event set) pointing at a ProfileEvent
 * whose vtable has the cached layout.  The vtables were fully verified when
 * they were cached; what depends on the tables' positions is checked here.
 * Returns true when the event was handled (the caller counts its two
 * tables and the profile event); false sends it down the general path
 * (which also reports the error, if there is one). */
static ET_HOT_INLINE bool fast_profile_event(const fb_buf *b, const fast_layout *L, uint32_t ep,
                                             et_raw_event *e)
{
    /* an offset is 1..INT32_MAX: (o - 1) below INT32_MAX; a cached table
     * size is at least 4, so "the table is inside" covers its soffset */
    uint32_t eo = fb_ld_u32(b->data + ep);
    uint64_t et = (uint64_t)ep + eo;
    if (eo - 1u >= (uint32_t)INT32_MAX || (et & 3) || et + L->ev_tsize > b->end ||
        (int64_t)et - (int32_t)fb_ld_u32(b->data + et) != (int64_t)L->ev_vt)
        return false;
    uint32_t pp = (uint32_t)et + L->ev_off_p;
    uint32_t po = fb_ld_u32(b->data + pp);
    uint64_t pt = (uint64_t)pp + po;
    if (po - 1u >= (uint32_t)INT32_MAX || (pt & 3) || pt + L->pe_tsize > b->end ||
        (int64_t)pt - (int32_t)fb_ld_u32(b->data + pt) != (int64_t)L->pe_vt)
        return false;
    /* 8-byte fields must be aligned; 4-byte ones are, as the table is */
    if (!((L->align_ok >> ((pt >> 2) & 1)) & 1))
        return false;
    const uint16_t *off = L->pe_off;
    uint32_t t = (uint32_t)pt;
    e->name.p = e->delegate_debug_id_str.p = e->metadata.p = NULL;
    e->name.n = e->delegate_debug_id_str.n = e->metadata.n = 0;
    if ((off[ETD_PE_NAME] && !fast_bytes(b, t + off[ETD_PE_NAME], true, &e->name)) ||
        (off[ETD_PE_DID_STR] &&
         !fast_bytes(b, t + off[ETD_PE_DID_STR], true, &e->delegate_debug_id_str)) ||
        (off[ETD_PE_METADATA] && !fast_bytes(b, t + off[ETD_PE_METADATA], false, &e->metadata)))
        return false;
    profile_scalars(b, t, off, e);
    return true;
}

/* Remember the layout of the Event table `ev` (resolved by fb_table_at or
 * the verifier) in `L` when it is a profile event (and only that) whose
 * fields all fit in their tables, for fast_profile_event(); else leave `L`
 * as it is.  Every offset cached is checked here against the table size
 * cached with it, so the fast path needs no verification of the bytes. */
static void cache_layout(const fb_buf *b, const fb_table *ev, fast_layout *L)
{
    static const uint8_t size[8] = {4, 4, 4, 4, 4, 4, 8, 8}; /* by ETD_PE_* slot */
    fb_table pe;
    if (fb_slot(b, ev, ETD_EVENT_ALLOCATION) || fb_slot(b, ev, ETD_EVENT_DEBUG) ||
        !fb_get_table(b, ev, ETD_EVENT_PROFILE, &pe) || ev->tsize < 4 || pe.tsize < 4)
        return;
    uint16_t off_p = fb_slot(b, ev, ETD_EVENT_PROFILE), pe_off[8];
    if (off_p < 4 || (uint32_t)off_p + 4 > ev->tsize)
        return;
    for (unsigned k = 0; k < 8; k++) {
        pe_off[k] = fb_slot(b, &pe, k);
        if (pe_off[k] && (pe_off[k] < 4 || (uint32_t)pe_off[k] + size[k] > pe.tsize))
            return;
    }
    L->ev_vt = ev->vt;
    L->ev_tsize = ev->tsize;
    L->ev_off_p = off_p;
    L->pe_vt = pe.vt;
    L->pe_tsize = pe.tsize;
    memcpy(L->pe_off, pe_off, sizeof pe_off);
    /* where start_time and end_time are aligned, for a table at 0 or 4 mod 8 */
    L->align_ok = 0;
    for (unsigned m = 0; m < 2; m++) {
        unsigned s0 = L->pe_off[ETD_PE_START], s1 = L->pe_off[ETD_PE_END];
        if ((!s0 || (4 * m + s0) % 8 == 0) && (!s1 || (4 * m + s1) % 8 == 0))
            L->align_ok |= (uint8_t)(1u << m);
    }
}

/* How many events ahead v_run_events asks for the tables: a run's tables
 * lie in order, but each new page stops the hardware's prefetcher. */
#define ET_VERIFY_AHEAD 32

static int v_run_events(vctx *c, const fb_vec *events, et_raw_event *out)
{
    et_raw_event scratch;
    const fb_buf *b = &c->d->buf;
    uint32_t count = events->count;
    bool early = false;
    for (uint32_t i = 0; i < count;) {
        if (c->fl.ev_vt) {
            /* the common case in a tight loop: layout, budget and count in
             * locals (they are written back below) */
            const fast_layout L = c->fl;
            uint64_t left = c->fv.tables_left;
            uint32_t i0 = i;
            for (; i < count && left >= 2; i++, left -= 2) {
                if (i + ET_VERIFY_AHEAD < count) {
                    /* the vector is inside the buffer (verified with the run) */
                    uint32_t q = events->pos + 4u * (i + ET_VERIFY_AHEAD);
                    uint64_t t = (uint64_t)q + fb_ld_u32(b->data + q);
                    if (t + 64 < b->end) {
                        ET_PREFETCH(b->data + t);
                        ET_PREFETCH(b->data + t + 64);
                    }
                }
                et_raw_event *e = out ? &out[i] : &scratch;
                if (!fast_profile_event(b, &L, events->pos + 4u * i, e))
                    break;
                early |= e->end_time < e->start_time;
            }
            c->fv.tables_left = left;
            c->d->num_profile_events += i - i0;
            if (i >= count)
                break;
        }
        fb_table e;
        if (fb_verify_vec_table(&c->fv, events, i, &e, "Event") != 0 || v_event(c, &e) != 0)
            return seg(c, "[%" PRIu32 "]", i), seg(c, "events");
        cache_layout(&c->d->buf, &e, &c->fl);
        et_raw_event *d = out ? &out[i] : &scratch;
        decode_event(&c->d->buf, &e, d); /* checked: the bytes may change */
        early |= d->kind == ET_EV_PROFILE && d->end_time < d->start_time;
        i++;
    }
    c->d->profile_ends_early |= early;
    return 0;
}

/* Render 4 identifier bytes for a message: printable ASCII as is, others as \xNN. */
static void show4(const uint8_t *p, char out[20])
{
    char *o = out;
    for (int i = 0; i < 4; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
            *o++ = (char)p[i];
        else
            o += sprintf(o, "\\x%02x", p[i]);
    }
    *o = '\0';
}

/* Give back the pages of bytes [lo, hi] of `data` (a file mapping) and
 * the kernel's fault-around window on either side. */
static void give_back(const uint8_t *data, size_t size, uint64_t lo, uint64_t hi)
{
    const uint64_t around = 64 << 10;
    uintptr_t base = (uintptr_t)data;
    uintptr_t a = (base + (lo > around ? lo - around : 0)) & ~(uintptr_t)4095;
    uintptr_t z = base + (hi + around < size ? hi + around : size);
    a = a < base ? (base + 4095) & ~(uintptr_t)4095 : a;
    z &= ~(uintptr_t)4095;
    if (z > a)
        madvise((void *)a, z - a, MADV_DONTNEED);
}

static int open_dump(et_etdump *d, const uint8_t *data, size_t size, bool mapped, et_error *err);

int et_etdump_open(et_etdump *d, const uint8_t *data, size_t size, et_error *err)
{
    return open_dump(d, data, size, false, err);
}

int et_etdump_open_mapped(et_etdump *d, const uint8_t *data, size_t size, et_error *err)
{
    return open_dump(d, data, size, true, err);
}

static int open_dump(et_etdump *d, const uint8_t *data, size_t size, bool mapped, et_error *err)
{
    memset(d, 0, sizeof *d);
    if (size == 0)
        return et_fail(err, ET_ERR_FORMAT,
                       "empty file, expected an ETDump (a FlatBuffer with identifier \"ED00\")");
    if (size < 8)
        return et_fail(err, ET_ERR_FORMAT,
                       "file is only %zu bytes, too short for an ETDump (a plain one needs 8 "
                       "bytes: root offset and identifier \"ED00\"; a size-prefixed one 12)",
                       size);
    if (size > (size_t)INT32_MAX)
        return et_fail(err, ET_ERR_FORMAT,
                       "file is %zu bytes, larger than a FlatBuffer can be (2 GiB)", size);
    uint32_t start, end;
    if (size >= 12 && memcmp(data + 8, "ED00", 4) == 0) {
        uint32_t prefix = fb_ld_u32(data);
        if ((uint64_t)prefix > size - 4)
            return et_fail(err, ET_ERR_FORMAT,
                           "byte 0: truncated ETDump: the size prefix says %" PRIu32
                           " bytes follow, but the file has only %zu after it",
                           prefix, size - 4);
        if (prefix < 8)
            return et_fail(err, ET_ERR_FORMAT,
                           "byte 0: size prefix %" PRIu32
                           " is too small to hold the root offset and identifier",
                           prefix);
        d->size_prefixed = true;
        start = 4;
        end = 4 + prefix;
        d->trailing_bytes = size - 4 - prefix;
    } else if (memcmp(data + 4, "ED00", 4) == 0) {
        start = 0;
        end = (uint32_t)size;
    } else {
        char a[20], b[20];
        show4(data + 4, b);
        if (size >= 12) {
            show4(data + 8, a);
            return et_fail(err, ET_ERR_FORMAT,
                           "not an ETDump: expected file identifier \"ED00\" at byte 8 "
                           "(size-prefixed) or byte 4 (plain), found \"%s\" and \"%s\"",
                           a, b);
        }
        return et_fail(err, ET_ERR_FORMAT,
                       "not an ETDump (or a size-prefixed one cut to %zu bytes): expected file "
                       "identifier \"ED00\" at byte 4, found \"%s\"",
                       size, b);
    }
    d->buf.data = data;
    d->buf.start = start;
    d->buf.end = end;

    vctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    fb_verifier_init(&c.fv, &d->buf, err);
    uint32_t root = fb_ld_u32(data + start);
    uint64_t rootpos = (uint64_t)start + root;
    fb_table t;
    if (root == 0)
        return et_fail(err, ET_ERR_FORMAT,
                       "byte %" PRIu32 ": invalid root offset 0 (expected the position of the "
                       "root table)",
                       start);
    if (!fb_in(&d->buf, rootpos, 4))
        return et_fail(err, ET_ERR_FORMAT,
                       "byte %" PRIu32 ": root offset %" PRIu32
                       " points outside the buffer (which ends at byte %" PRIu32 ")",
                       start, root, end);
    if (fb_verify_table_at(&c.fv, rootpos, &t, "ETDump") != 0)
        return -1;
    if (fb_verify_scalar(&c.fv, &t, ETD_ETDUMP_VERSION, 4, "version") != 0)
        return -1;
    d->version = fb_get_u32(&d->buf, &t, ETD_ETDUMP_VERSION, 0);
    uint32_t target;
    if (fb_verify_offset(&c.fv, &t, ETD_ETDUMP_RUN_DATA, &target, "run_data") != 0)
        return -1;
    if (!target)
        return missing(&c, &t, "ETDump", "run_data");
    if (fb_verify_vector_at(&c.fv, target, 4, &d->run_data, "run_data") != 0)
        return -1;
    d->run_event_counts = malloc((d->run_data.count ? d->run_data.count : 1) * sizeof(uint32_t));
    if (!d->run_event_counts)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    uint64_t lo = UINT64_MAX, hi = 0; /* RunData tables read since the last give_back */
    for (uint32_t i = 0; i < d->run_data.count; i++) {
        fb_table r;
        if (fb_verify_vec_table(&c.fv, &d->run_data, i, &r, "RunData") != 0 ||
            v_run(&c, &r, &d->run_event_counts[i]) != 0) {
            seg(&c, "run_data[%" PRIu32 "]", i);
            et_error_prefix(err, c.path);
            et_etdump_close(d);
            return -1;
        }
        if (mapped) {
            lo = r.pos < lo ? r.pos : lo;
            hi = r.pos > hi ? r.pos : hi;
            if (i % 64 == 63 || i + 1 == d->run_data.count) {
                give_back(data, size, lo, hi);
                lo = UINT64_MAX, hi = 0;
            }
        }
    }
    d->tables_left = c.fv.tables_left;
    d->runs_verified = calloc(d->run_data.count ? d->run_data.count : 1, 1);
    if (!d->runs_verified) {
        et_etdump_close(d);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    return 0;
}

int et_etdump_verify_run(et_etdump *d, uint32_t i, et_raw_event *events, et_error *err)
{
    if (i >= d->run_data.count)
        return et_fail(err, ET_ERR_VALUE, "run %" PRIu32 " does not exist", i);
    if (d->runs_verified[i] && !events)
        return 0;
    vctx c;
    c.d = d;
    c.path[0] = '\0';
    c.pe_ok = 0;
    c.fl.ev_vt = 0;
    fb_verifier_init(&c.fv, &d->buf, err);
    c.fv.tables_left = d->tables_left;
    et_run r;
    et_etdump_run(d, i, &r);
    if (d->runs_verified[i]) {
        /* decoded again as the verifier decodes (the fastest bulk decode:
         * its checks pass, the run being verified), on a copy that takes
         * the counts and flags, with no budget to spend */
        et_etdump again = *d;
        c.d = &again;
        c.fv.tables_left = UINT64_MAX;
        if (v_run_events(&c, &r.events, events) != 0) {
            /* it passed before: the bytes are not those verified */
            seg(&c, "run_data[%" PRIu32 "]", i);
            et_error_prefix(err, c.path);
            return et_error_prefix(err, ET_ETDUMP_CHANGED);
        }
        return 0;
    }
    if (v_run_events(&c, &r.events, events) != 0) {
        seg(&c, "run_data[%" PRIu32 "]", i);
        return et_error_prefix(err, c.path);
    }
    d->tables_left = c.fv.tables_left;
    d->runs_verified[i] = 1;
    return 0;
}

int et_etdump_verify_all(et_etdump *d, et_error *err)
{
    for (uint32_t i = 0; i < d->run_data.count; i++)
        if (et_etdump_verify_run(d, i, NULL, err) != 0)
            return -1;
    return 0;
}

void et_etdump_close(et_etdump *d)
{
    free(d->runs_verified);
    free(d->run_event_counts);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------------ */
/* Accessors. */

void et_etdump_run(const et_etdump *d, uint32_t i, et_run *r)
{
    fb_table t;
    memset(r, 0, sizeof *r);
    r->bundled_input_index = -1;
    if (!fb_vec_table(&d->buf, &d->run_data, i, &t))
        return;
    fb_get_string(&d->buf, &t, ETD_RUN_NAME, &r->name.p, &r->name.n);
    r->bundled_input_index = fb_get_i32(&d->buf, &t, ETD_RUN_BII, -1);
    r->has_events = fb_get_vector(&d->buf, &t, ETD_RUN_EVENTS, 4, &r->events);
    fb_get_vector(&d->buf, &t, ETD_RUN_ALLOCATORS, 4, &r->allocators);
}

et_str et_etdump_allocator_name(const et_etdump *d, const et_run *r, uint32_t i)
{
    et_str s = {NULL, 0};
    fb_table t;
    if (fb_vec_table(&d->buf, &r->allocators, i, &t))
        fb_get_string(&d->buf, &t, ETD_ALLOCATOR_NAME, &s.p, &s.n);
    return s;
}

/* Decode the Event table `ev` into `e` (shared by the accessor and the
 * verifier, which decodes each event right after checking it). */
static void decode_event(const fb_buf *b, const fb_table *ev, et_raw_event *e)
{
    fb_table m;
    e->kind = ET_EV_EMPTY;
    e->pos = ev->pos;
    if (fb_get_table(b, ev, ETD_EVENT_PROFILE, &m)) {
        e->kind = ET_EV_PROFILE;
        e->pos = m.pos;
        fb_get_string(b, &m, ETD_PE_NAME, &e->name.p, &e->name.n);
        int32_t chain = fb_get_i32(b, &m, ETD_PE_CHAIN, 0);
        e->chain_value = (uint64_t)(int64_t)chain;
        e->chain_neg = chain < 0;
        e->instruction_id = fb_get_i32(b, &m, ETD_PE_INSTR, -1);
        e->delegate_debug_id_int = fb_get_i32(b, &m, ETD_PE_DID_INT, -1);
        fb_get_string(b, &m, ETD_PE_DID_STR, &e->delegate_debug_id_str.p,
                      &e->delegate_debug_id_str.n);
        fb_vec md;
        if (fb_get_vector(b, &m, ETD_PE_METADATA, 1, &md)) {
            e->metadata.p = (const char *)b->data + md.pos;
            e->metadata.n = md.count;
        } else {
            e->metadata.p = NULL;
            e->metadata.n = 0;
        }
        e->start_time = fb_get_u64(b, &m, ETD_PE_START, 0);
        e->end_time = fb_get_u64(b, &m, ETD_PE_END, 0);
        return;
    }
    if (fb_get_table(b, ev, ETD_EVENT_DEBUG, &m)) {
        e->kind = ET_EV_DEBUG;
        e->pos = m.pos;
        e->metadata = (et_str){NULL, 0}; /* every string is set, whatever the kind */
        e->start_time = e->end_time = 0;
        fb_get_string(b, &m, ETD_DE_NAME, &e->name.p, &e->name.n);
        e->chain_value = fb_get_u64(b, &m, ETD_DE_CHAIN, 0);
        e->chain_neg = false;
        e->instruction_id = fb_get_i32(b, &m, ETD_DE_INSTR, -1);
        e->delegate_debug_id_int = fb_get_i32(b, &m, ETD_DE_DID_INT, -1);
        fb_get_string(b, &m, ETD_DE_DID_STR, &e->delegate_debug_id_str.p,
                      &e->delegate_debug_id_str.n);
        fb_table val, out;
        e->value_pos = 0;
        e->is_output = false;
        if (fb_get_table(b, &m, ETD_DE_ENTRY, &val)) {
            e->value_pos = val.pos;
            if (fb_get_table(b, &val, ETD_VALUE_OUTPUT, &out))
                e->is_output = fb_get_u8(b, &out, ETD_SCALAR_VAL, 0) != 0;
        }
        return;
    }
    /* an allocation or an empty event: what profile and debug events have
     * is absent (a reader may look at a name whatever the kind) */
    e->name = e->delegate_debug_id_str = e->metadata = (et_str){NULL, 0};
    e->instruction_id = e->delegate_debug_id_int = -1;
    e->chain_value = 0;
    e->chain_neg = false;
    e->start_time = e->end_time = 0;
    e->value_pos = 0;
    e->is_output = false;
    e->allocator_id = 0;
    e->allocation_size = 0;
    if (fb_get_table(b, ev, ETD_EVENT_ALLOCATION, &m)) {
        e->kind = ET_EV_ALLOCATION;
        e->pos = m.pos;
        e->allocator_id = fb_get_i32(b, &m, ETD_AE_ALLOCATOR_ID, 0);
        e->allocation_size = fb_get_u64(b, &m, ETD_AE_SIZE, 0);
    }
}

void et_etdump_event(const et_etdump *d, const et_run *r, uint32_t i, et_raw_event *e)
{
    fb_table ev;
    if (!fb_vec_table(&d->buf, &r->events, i, &ev))
        ev = (fb_table){0, 0, 0, 0}; /* an empty event at byte 0 */
    decode_event(&d->buf, &ev, e);
}

static void read_tensor(const fb_buf *b, const fb_table *t, et_raw_value *v)
{
    v->has_tensor = true;
    v->scalar_type = fb_get_i8(b, t, ETD_TENSOR_SCALAR_TYPE, 0);
    fb_get_vector(b, t, ETD_TENSOR_SIZES, 8, &v->sizes);
    fb_get_vector(b, t, ETD_TENSOR_STRIDES, 8, &v->strides);
    v->offset = fb_get_i64(b, t, ETD_TENSOR_OFFSET, 0);
}

void et_etdump_value(const et_etdump *d, uint32_t pos, et_raw_value *v)
{
    const fb_buf *b = &d->buf;
    fb_table t, s;
    memset(v, 0, sizeof *v);
    if (!fb_table_at(b, pos, &t))
        return;
    v->val = (et_value_type)fb_get_u8(b, &t, ETD_VALUE_VAL, 0);
    if (fb_get_table(b, &t, ETD_VALUE_TENSOR, &s))
        read_tensor(b, &s, v);
    if (fb_get_table(b, &t, ETD_VALUE_TENSOR_LIST, &s))
        v->has_tensor_list = fb_get_vector(b, &s, ETD_TENSORLIST_TENSORS, 4, &v->tensors);
    if ((v->has_int = fb_get_table(b, &t, ETD_VALUE_INT, &s)))
        v->int_val = fb_get_i64(b, &s, ETD_SCALAR_VAL, 0);
    if ((v->has_bool = fb_get_table(b, &t, ETD_VALUE_BOOL, &s)))
        v->bool_val = fb_get_u8(b, &s, ETD_SCALAR_VAL, 0) != 0;
    if ((v->has_float = fb_get_table(b, &t, ETD_VALUE_FLOAT, &s)))
        v->float_val = fb_get_f32(b, &s, ETD_SCALAR_VAL, 0.0f);
    if ((v->has_double = fb_get_table(b, &t, ETD_VALUE_DOUBLE, &s)))
        v->double_val = fb_get_f64(b, &s, ETD_SCALAR_VAL, 0.0);
    if (fb_get_table(b, &t, ETD_VALUE_OUTPUT, &s))
        v->is_output = fb_get_u8(b, &s, ETD_SCALAR_VAL, 0) != 0;
}

void et_etdump_list_tensor(const et_etdump *d, const et_raw_value *list, uint32_t i,
                           et_raw_value *v)
{
    fb_table t;
    memset(v, 0, sizeof *v);
    v->val = ET_VAL_TENSOR;
    if (fb_vec_table(&d->buf, &list->tensors, i, &t))
        read_tensor(&d->buf, &t, v);
}

const char *et_scalar_type_name(int st)
{
    static const char *const names[] = {
        "BYTE", "CHAR", "SHORT", "INT", "LONG", "HALF", "FLOAT", "DOUBLE", NULL, NULL, NULL,
        "BOOL", "QINT8", "QUINT8", "QINT32", "BFLOAT16", "QUINT4X2", "QUINT2X4", NULL, NULL,
        NULL, NULL, "BITS16", "FLOAT8E5M2", "FLOAT8E4M3FN", "FLOAT8E5M2FNUZ", "FLOAT8E4M3FNUZ",
        "UINT16", "UINT32", "UINT64"};
    if (st < 0 || st >= (int)(sizeof names / sizeof names[0]))
        return NULL;
    return names[st];
}

et_str et_etdump_profile_metadata(const et_etdump *d, uint32_t pe_pos)
{
    et_str s = {NULL, 0};
    fb_table t;
    fb_vec v;
    if (pe_pos && fb_table_at(&d->buf, pe_pos, &t) &&
        fb_get_vector(&d->buf, &t, ETD_PE_METADATA, 1, &v)) {
        s.p = (const char *)d->buf.data + v.pos;
        s.n = v.count;
    }
    return s;
}

int et_scalar_type_size(int st)
{
    switch (st) {
    case 0: case 1: case 11: case 12: case 13: case 23: case 24: case 25: case 26: return 1;
    case 2: case 5: case 15: case 22: case 27: return 2;
    case 3: case 6: case 14: case 28: return 4;
    case 4: case 7: case 29: return 8;
    default: return 0;
    }
}

et_value_type et_etdump_value_type(const et_etdump *d, uint32_t pos)
{
    fb_table t;
    if (!fb_table_at(&d->buf, pos, &t))
        return ET_VAL_NULL;
    return (et_value_type)fb_get_u8(&d->buf, &t, ETD_VALUE_VAL, 0);
}

void et_etdump_event_verified(const et_etdump *d, uint32_t run_index, const et_run *r,
                              uint32_t i, et_raw_event *e)
{
    const fb_buf *b = &d->buf;
    /* Iteration is bound by memory latency: ask for the table a few events
     * ahead now (a guess until it is read: bounded, never followed) */
    if (run_index < d->run_data.count && d->runs_verified[run_index] &&
        i + ET_PREFETCH_AHEAD < r->events.count) {
        uint32_t q = r->events.pos + 4u * (i + ET_PREFETCH_AHEAD);
        uint64_t t = (uint64_t)q + fb_ld_u32(b->data + q);
        if (t < b->end)
            ET_PREFETCH(b->data + t);
    }
    et_etdump_event(d, r, i, e);
}

void et_event_cursor_init(et_event_cursor *c, const et_etdump *d, uint32_t run_index, const et_run *r)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->run_index = run_index;
    c->run = *r;
    c->verified = run_index < d->run_data.count && d->runs_verified[run_index];
}

/* Ask for the Event table of event i + 2A, and the ProfileEvent table and
 * name of event i + A (whose Event table came in A events ago).  The
 * positions are guesses until the tables' turn comes: each is bounded
 * before it is read, none is trusted. */
static inline void cursor_prefetch(const et_event_cursor *c, uint32_t i)
{
    const fb_buf *b = &c->d->buf;
    const et_run *r = &c->run;
    uint32_t p = r->events.pos + 4u * i;
    if (i + 2 * ET_PREFETCH_AHEAD < r->events.count) {
        uint32_t q = p + 8u * ET_PREFETCH_AHEAD;
        uint64_t t = (uint64_t)q + fb_ld_u32(b->data + q);
        if (t < b->end)
            ET_PREFETCH(b->data + t);
    }
    if (c->L.ev_vt && i + ET_PREFETCH_AHEAD < r->events.count) {
        uint32_t q = p + 4u * ET_PREFETCH_AHEAD;
        uint64_t t = (uint64_t)q + fb_ld_u32(b->data + q);
        if (t + c->L.ev_tsize > b->end ||
            (int64_t)t - (int32_t)fb_ld_u32(b->data + t) != (int64_t)c->L.ev_vt)
            return;
        uint64_t pp = t + c->L.ev_off_p, pt = pp + fb_ld_u32(b->data + pp);
        if (pt + c->L.pe_tsize > b->end)
            return;
        ET_PREFETCH(b->data + pt);
        if (c->L.pe_off[ETD_PE_NAME]) {
            uint64_t np = pt + c->L.pe_off[ETD_PE_NAME];
            uint64_t s = np + fb_ld_u32(b->data + np);
            if (s < b->end)
                ET_PREFETCH(b->data + s);
        }
    }
}

void et_event_cursor_get(et_event_cursor *c, uint32_t i, et_raw_event *e)
{
    const et_run *r = &c->run;
    if (!c->verified || i >= r->events.count) {
        et_etdump_event(c->d, r, i, e);
        return;
    }
    const fb_buf *b = &c->d->buf;
    cursor_prefetch(c, i);
    /* the common case: the cached layout, every position bounded */
    if (c->L.ev_vt && fast_profile_event(b, &c->L, r->events.pos + 4u * i, e))
        return;
    fb_table ev;
    if (!fb_vec_table(b, &r->events, i, &ev))
        ev = (fb_table){0, 0, 0, 0}; /* an empty event at byte 0 */
    decode_event(b, &ev, e);
    if (e->kind == ET_EV_PROFILE)
        cache_layout(b, &ev, &c->L);
}

const char *et_scalar_type_dtype(int st)
{
    switch (st) {
    case 0: return "uint8";
    case 1: return "int8";
    case 2: return "int16";
    case 3: return "int32";
    case 4: return "int64";
    case 5: return "float16";
    case 6: return "float32";
    case 7: return "float64";
    case 11: return "bool";
    case 15: return "bfloat16";
    case 22: case 27: return "uint16";
    case 28: return "uint32";
    case 29: return "uint64";
    default: return NULL;
    }
}
