/*
 * fb.h - bounds-checked, in-place access to a FlatBuffers buffer.
 *
 * Wire rules (FlatBuffers binary format; spec §2.2): all integers are
 * little-endian; a uoffset is a u32 counted forward from where it is stored;
 * a table starts with an i32 soffset to its vtable (vtable = table - soffset);
 * a vtable is u16 vtable size, u16 table inline size, then one u16 per field
 * slot (offset of the field inside the table, 0 = absent); strings and
 * vectors start with a u32 element count; strings end with a NUL that the
 * count excludes; vectors of tables hold one uoffset per element.
 *
 * Two layers live here:
 *
 *  - Accessors (static inline, for the hot path).  Every read is checked
 *    against the buffer bounds and yields the field's default (or "absent")
 *    when a check fails, so even an unverified buffer cannot make them read
 *    outside it.  They do not report errors.
 *  - Verifier primitives (fb.c).  A schema-specific verifier (etdump.c) uses
 *    them to walk the whole buffer once before any accessor is used, and to
 *    report the first problem with its byte offset.
 *
 * Positions are byte offsets from the start of the mapped file (not from the
 * start of the FlatBuffer), so messages name file offsets directly.
 * Buffers are limited to 2^31 bytes, as in FlatBuffers itself.
 */
#ifndef ET_FB_H
#define ET_FB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"

/* The bytes a FlatBuffer lives in: [start, end) of `data`. */
typedef struct fb_buf {
    const uint8_t *data; /* start of the mapped file */
    uint32_t start;      /* first byte of the FlatBuffer (4 when size-prefixed) */
    uint32_t end;        /* one past its last byte */
} fb_buf;

/* A table, resolved: where it is and what its vtable says. */
typedef struct fb_table {
    uint32_t pos;    /* table start (the soffset) */
    uint32_t vt;     /* vtable start */
    uint16_t vtsize; /* vtable size in bytes (>= 4) */
    uint16_t tsize;  /* table inline size in bytes (>= 4) */
} fb_table;

/* A vector: `count` elements starting at `pos` (just after the count). */
typedef struct fb_vec {
    uint32_t pos;
    uint32_t count;
} fb_vec;

/* ---- raw little-endian loads; the caller has checked the bounds ---- */

static inline uint16_t fb_ld_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t fb_ld_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}
static inline uint64_t fb_ld_u64(const uint8_t *p)
{
    return (uint64_t)fb_ld_u32(p) | ((uint64_t)fb_ld_u32(p + 4) << 32);
}

/* True when [pos, pos+n) lies inside the buffer. */
static inline bool fb_in(const fb_buf *b, uint64_t pos, uint64_t n)
{
    return pos >= b->start && pos <= b->end && n <= (uint64_t)b->end - pos;
}

/* Resolve the table at `pos` into `t`.  Returns false (and leaves `t` empty)
 * when the table header or its vtable would lie outside the buffer. */
static inline bool fb_table_at(const fb_buf *b, uint64_t pos, fb_table *t)
{
    t->pos = t->vt = 0;
    t->vtsize = t->tsize = 0;
    if (!fb_in(b, pos, 4))
        return false;
    int64_t vt = (int64_t)pos - (int64_t)(int32_t)fb_ld_u32(b->data + pos);
    if (vt < 0 || !fb_in(b, (uint64_t)vt, 4))
        return false;
    uint16_t vtsize = fb_ld_u16(b->data + vt);
    uint16_t tsize = fb_ld_u16(b->data + vt + 2);
    if (vtsize < 4 || !fb_in(b, (uint64_t)vt, vtsize) || tsize < 4 || !fb_in(b, pos, tsize))
        return false;
    t->pos = (uint32_t)pos;
    t->vt = (uint32_t)vt;
    t->vtsize = vtsize;
    t->tsize = tsize;
    return true;
}

/* Offset of field `slot` inside table `t`, or 0 when the field is absent
 * (slot beyond the vtable, or a zero entry).  The caller still checks that
 * the field's bytes fit in the table (fb_field). */
static inline uint16_t fb_slot(const fb_buf *b, const fb_table *t, unsigned slot)
{
    uint32_t e = 4u + 2u * slot;
    if (e + 2u > t->vtsize)
        return 0;
    return fb_ld_u16(b->data + t->vt + e);
}

/* Absolute position of field `slot` of byte size `size`, or 0 when absent
 * or when it would not fit inside the table's inline bytes. */
static inline uint32_t fb_field(const fb_buf *b, const fb_table *t, unsigned slot, unsigned size)
{
    uint16_t off = fb_slot(b, t, slot);
    if (off == 0 || (uint32_t)off + size > t->tsize)
        return 0;
    return t->pos + off;
}

static inline int8_t fb_get_i8(const fb_buf *b, const fb_table *t, unsigned slot, int8_t def)
{
    uint32_t p = fb_field(b, t, slot, 1);
    return p ? (int8_t)b->data[p] : def;
}
static inline uint8_t fb_get_u8(const fb_buf *b, const fb_table *t, unsigned slot, uint8_t def)
{
    uint32_t p = fb_field(b, t, slot, 1);
    return p ? b->data[p] : def;
}
static inline int32_t fb_get_i32(const fb_buf *b, const fb_table *t, unsigned slot, int32_t def)
{
    uint32_t p = fb_field(b, t, slot, 4);
    return p ? (int32_t)fb_ld_u32(b->data + p) : def;
}
static inline uint32_t fb_get_u32(const fb_buf *b, const fb_table *t, unsigned slot, uint32_t def)
{
    uint32_t p = fb_field(b, t, slot, 4);
    return p ? fb_ld_u32(b->data + p) : def;
}
static inline uint64_t fb_get_u64(const fb_buf *b, const fb_table *t, unsigned slot, uint64_t def)
{
    uint32_t p = fb_field(b, t, slot, 8);
    return p ? fb_ld_u64(b->data + p) : def;
}
static inline int64_t fb_get_i64(const fb_buf *b, const fb_table *t, unsigned slot, int64_t def)
{
    return (int64_t)fb_get_u64(b, t, slot, (uint64_t)def);
}
static inline float fb_get_f32(const fb_buf *b, const fb_table *t, unsigned slot, float def)
{
    uint32_t p = fb_field(b, t, slot, 4);
    if (!p)
        return def;
    uint32_t u = fb_ld_u32(b->data + p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline double fb_get_f64(const fb_buf *b, const fb_table *t, unsigned slot, double def)
{
    uint32_t p = fb_field(b, t, slot, 8);
    if (!p)
        return def;
    uint64_t u = fb_ld_u64(b->data + p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Follow the uoffset stored at `pos`; 0 when it points outside the buffer. */
static inline uint32_t fb_deref(const fb_buf *b, uint32_t pos)
{
    if (!fb_in(b, pos, 4))
        return 0;
    uint64_t target = (uint64_t)pos + fb_ld_u32(b->data + pos);
    return fb_in(b, target, 4) ? (uint32_t)target : 0;
}

/* Sub-table field: true and `out` filled when present and resolvable. */
static inline bool fb_get_table(const fb_buf *b, const fb_table *t, unsigned slot, fb_table *out)
{
    uint32_t p = fb_field(b, t, slot, 4);
    uint32_t target = p ? fb_deref(b, p) : 0;
    if (!target) {
        memset(out, 0, sizeof *out);
        return false;
    }
    return fb_table_at(b, target, out);
}

/* String field: true with `*s`/`*len` set when present (the bytes are
 * NUL-terminated in verified buffers, but may contain NULs). */
static inline bool fb_get_string(const fb_buf *b, const fb_table *t, unsigned slot,
                                 const char **s, uint32_t *len)
{
    uint32_t p = fb_field(b, t, slot, 4);
    uint32_t target = p ? fb_deref(b, p) : 0;
    if (target) {
        uint32_t n = fb_ld_u32(b->data + target);
        if (fb_in(b, (uint64_t)target + 4, n)) {
            *s = (const char *)b->data + target + 4;
            *len = n;
            return true;
        }
    }
    *s = NULL;
    *len = 0;
    return false;
}

/* Vector field with elements of `elem_size` bytes: true with `v` filled
 * when present and inside the buffer. */
static inline bool fb_get_vector(const fb_buf *b, const fb_table *t, unsigned slot,
                                 unsigned elem_size, fb_vec *v)
{
    uint32_t p = fb_field(b, t, slot, 4);
    uint32_t target = p ? fb_deref(b, p) : 0;
    if (target) {
        uint32_t n = fb_ld_u32(b->data + target);
        if (fb_in(b, (uint64_t)target + 4, (uint64_t)n * elem_size)) {
            v->pos = target + 4;
            v->count = n;
            return true;
        }
    }
    v->pos = v->count = 0;
    return false;
}

/* Element `i` of a vector of tables. */
static inline bool fb_vec_table(const fb_buf *b, const fb_vec *v, uint32_t i, fb_table *out)
{
    if (i >= v->count) {
        memset(out, 0, sizeof *out);
        return false;
    }
    uint32_t target = fb_deref(b, v->pos + 4u * i);
    if (!target) {
        memset(out, 0, sizeof *out);
        return false;
    }
    return fb_table_at(b, target, out);
}

/* ------------------------------------------------------------------ */
/* Verifier primitives (fb.c).  Each returns 0 when the item is sound,
 * or -1 with `err` set to a message that names the byte offset and what
 * was expected.  `what` names the item in messages (e.g. "field 'name'"). */

typedef struct fb_verifier {
    const fb_buf *b;
    uint64_t tables_left; /* budget: table visits allowed (guards against
                             shared/overlapping offsets blowing up the walk) */
    et_error *err;
    uint32_t vt_cache[64]; /* vtables already checked (position + 1; 0 = empty) */
} fb_verifier;

/* Prepend a printf-formatted segment ("events[3]", "tensor") to the field
 * path `path` (capacity `cap`, truncated when too long): joined with "."
 * unless the path is empty or starts with "[".  Verifiers call it while
 * unwinding after a failure, so the message ends up naming the whole path
 * ("run_data[0].events[17].profile_event.name").  Returns -1. */
int fb_path_vprepend(char *path, size_t cap, const char *fmt, va_list ap);

/* A required field is absent: `err` set to "byte POS: TABLE: required
 * field 'FIELD' is absent" (ET_ERR_FORMAT).  Returns -1. */
int fb_fail_missing(fb_verifier *v, const fb_table *t, const char *table, const char *field);

/* Start a verifier over `b`: the table budget is one table per 4 bytes. */
void fb_verifier_init(fb_verifier *v, const fb_buf *b, et_error *err);

/* The table at `pos` (soffset aligned to 4, vtable inside the buffer and
 * aligned to 2, vtable size even and >= 4, inline size >= 4 and inside the
 * buffer, every field of the vtable inside the inline bytes). */
int fb_verify_table_at(fb_verifier *v, uint64_t pos, fb_table *t, const char *what);

/* Out-of-line error reporters for the inline checks below. */
int fb_fail_scalar(fb_verifier *v, const fb_table *t, unsigned slot, unsigned size,
                   const char *what);
int fb_fail_offset(fb_verifier *v, uint32_t p, const char *what);

/* Scalar field `slot` of `size` bytes (1, 2, 4 or 8): fits in the table and
 * is aligned to its size. */
static inline int fb_verify_scalar(fb_verifier *v, const fb_table *t, unsigned slot,
                                   unsigned size, const char *what)
{
    uint16_t off = fb_slot(v->b, t, slot);
    if (off == 0)
        return 0;
    if ((uint32_t)off + size > t->tsize || ((t->pos + off) & (size - 1)) != 0)
        return fb_fail_scalar(v, t, slot, size, what);
    return 0;
}

/* Offset field `slot` (a uoffset to a table, string or vector): returns the
 * target position in `*target` (0 when absent).  The uoffset must be
 * aligned, non-zero, and point inside the buffer. */
static inline int fb_verify_offset(fb_verifier *v, const fb_table *t, unsigned slot,
                                   uint32_t *target, const char *what)
{
    *target = 0;
    uint16_t off = fb_slot(v->b, t, slot);
    if (off == 0)
        return 0;
    uint32_t p = t->pos + off;
    if ((uint32_t)off + 4 > t->tsize || (p & 3) != 0)
        return fb_fail_scalar(v, t, slot, 4, what);
    uint32_t o = fb_ld_u32(v->b->data + p);
    uint64_t tg = (uint64_t)p + o;
    if (o == 0 || o > INT32_MAX || !fb_in(v->b, tg, 4))
        return fb_fail_offset(v, p, what);
    *target = (uint32_t)tg;
    return 0;
}

/* String at `pos`: aligned count, bytes and terminating NUL inside. */
int fb_verify_string_at(fb_verifier *v, uint32_t pos, const char *what);

/* Vector at `pos` with `elem_size`-byte elements: aligned count, elements
 * inside the buffer (count * size computed without overflow); fills `vec`. */
int fb_verify_vector_at(fb_verifier *v, uint32_t pos, unsigned elem_size, fb_vec *vec,
                        const char *what);

/* Element `i` of a vector of tables: its uoffset and the table it names. */
int fb_verify_vec_table(fb_verifier *v, const fb_vec *vec, uint32_t i, fb_table *t,
                        const char *what);

#endif
