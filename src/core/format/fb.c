/* fb.c - FlatBuffers verifier primitives; see fb.h. */
#include "format/fb.h"

#include <stdio.h>

#include <inttypes.h>

void fb_verifier_init(fb_verifier *v, const fb_buf *b, et_error *err)
{
    v->b = b;
    v->err = err;
    v->tables_left = ((uint64_t)b->end - b->start) / 4u + 1u;
    memset(v->vt_cache, 0, sizeof v->vt_cache);
}

int fb_verify_table_at(fb_verifier *v, uint64_t pos, fb_table *t, const char *what)
{
    const fb_buf *b = v->b;
    if (v->tables_left == 0)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: more tables than the buffer can hold "
                       "(offsets are shared or overlapping)",
                       pos, what);
    v->tables_left--;
    if (!fb_in(b, pos, 4))
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: table starts outside the buffer [%u, %u)", pos,
                       what, b->start, b->end);
    if ((pos & 3) != 0)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: table is not aligned to 4 bytes", pos, what);
    int32_t soff = (int32_t)fb_ld_u32(b->data + pos);
    int64_t vt = (int64_t)pos - soff;
    if (vt < 0 || !fb_in(b, (uint64_t)vt, 4))
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: vtable offset %" PRId32
                       " points outside the buffer (to byte %" PRId64 ")",
                       pos, what, soff, vt);
    if ((vt & 1) != 0)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRId64 ": %s: vtable is not aligned to 2 bytes", vt, what);
    uint16_t vtsize = fb_ld_u16(b->data + vt);
    uint16_t tsize = fb_ld_u16(b->data + vt + 2);
    uint32_t *cached = &v->vt_cache[((uint64_t)vt >> 1) & 63];
    if (*cached == (uint32_t)vt + 1) {
        /* vtable already checked; only the table's own extent remains */
        if (!fb_in(b, pos, tsize))
            return et_fail(v->err, ET_ERR_FORMAT,
                           "byte %" PRIu64 ": %s: table of %u bytes runs past the end of the "
                           "buffer (%u)",
                           pos, what, tsize, b->end);
        goto done;
    }
    if (vtsize < 4 || vtsize % 2 != 0)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRId64 ": %s: vtable size %u is invalid (expected an even "
                       "number >= 4)",
                       vt, what, vtsize);
    if (!fb_in(b, (uint64_t)vt, vtsize))
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRId64 ": %s: vtable of %u bytes runs past the end of the "
                       "buffer (%u)",
                       vt, what, vtsize, b->end);
    if (tsize < 4)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: table size %u is invalid (expected >= 4)", pos, what,
                       tsize);
    if (!fb_in(b, pos, tsize))
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s: table of %u bytes runs past the end of the buffer "
                       "(%u)",
                       pos, what, tsize, b->end);
    for (uint32_t e = 4; e + 2 <= vtsize; e += 2) {
        uint16_t off = fb_ld_u16(b->data + vt + e);
        if (off != 0 && off < 4)
            return et_fail(v->err, ET_ERR_FORMAT,
                           "byte %" PRIu64 ": %s: field slot %u has offset %u, inside the "
                           "table's 4-byte header",
                           pos, what, (e - 4) / 2, off);
        if (off >= tsize)
            return et_fail(v->err, ET_ERR_FORMAT,
                           "byte %" PRIu64 ": %s: field slot %u has offset %u outside the "
                           "table's %u bytes",
                           pos, what, (e - 4) / 2, off, tsize);
    }
    *cached = (uint32_t)vt + 1;
done:
    t->pos = (uint32_t)pos;
    t->vt = (uint32_t)vt;
    t->vtsize = vtsize;
    t->tsize = tsize;
    return 0;
}

int fb_fail_scalar(fb_verifier *v, const fb_table *t, unsigned slot, unsigned size,
                   const char *what)
{
    uint16_t off = fb_slot(v->b, t, slot);
    if ((uint32_t)off + size > t->tsize)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %u: %s: %u-byte field at offset %u does not fit in the table's "
                       "%u bytes",
                       t->pos, what, size, off, t->tsize);
    return et_fail(v->err, ET_ERR_FORMAT, "byte %u: %s: %u-byte field is not aligned to %u bytes",
                   t->pos + off, what, size, size);
}

int fb_fail_offset(fb_verifier *v, uint32_t p, const char *what)
{
    uint32_t off = fb_ld_u32(v->b->data + p);
    if (off == 0 || off > INT32_MAX)
        return et_fail(v->err, ET_ERR_FORMAT, "byte %u: %s: invalid offset %" PRIu32, p, what,
                       off);
    return et_fail(v->err, ET_ERR_FORMAT,
                   "byte %u: %s: offset %" PRIu32 " points past the end of the buffer "
                   "(to byte %" PRIu64 ", buffer ends at %u)",
                   p, what, off, (uint64_t)p + off, v->b->end);
}

int fb_verify_string_at(fb_verifier *v, uint32_t pos, const char *what)
{
    const fb_buf *b = v->b;
    if (pos % 4 != 0)
        return et_fail(v->err, ET_ERR_FORMAT, "byte %u: %s: string is not aligned to 4 bytes",
                       pos, what);
    if (!fb_in(b, pos, 4))
        return et_fail(v->err, ET_ERR_FORMAT, "byte %u: %s: string starts past the end", pos,
                       what);
    uint32_t n = fb_ld_u32(b->data + pos);
    if (!fb_in(b, (uint64_t)pos + 4, (uint64_t)n + 1))
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %u: %s of %" PRIu32 " bytes runs past the end of the buffer (%u)",
                       pos, what, n, b->end);
    if (b->data[(uint64_t)pos + 4 + n] != 0)
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %" PRIu64 ": %s is not NUL-terminated",
                       (uint64_t)pos + 4 + n, what);
    return 0;
}

int fb_verify_vector_at(fb_verifier *v, uint32_t pos, unsigned elem_size, fb_vec *vec,
                        const char *what)
{
    const fb_buf *b = v->b;
    if (pos % 4 != 0)
        return et_fail(v->err, ET_ERR_FORMAT, "byte %u: %s: vector is not aligned to 4 bytes",
                       pos, what);
    if (!fb_in(b, pos, 4))
        return et_fail(v->err, ET_ERR_FORMAT, "byte %u: %s: vector starts past the end", pos,
                       what);
    uint32_t n = fb_ld_u32(b->data + pos);
    uint64_t bytes = (uint64_t)n * elem_size;
    if (!fb_in(b, (uint64_t)pos + 4, bytes))
        return et_fail(v->err, ET_ERR_FORMAT,
                       "byte %u: %s: vector of %" PRIu32 " elements of %u bytes does not fit "
                       "in the %" PRIu64 " bytes left in the buffer",
                       pos, what, n, elem_size, (uint64_t)b->end - pos - 4);
    vec->pos = pos + 4;
    vec->count = n;
    return 0;
}

int fb_verify_vec_table(fb_verifier *v, const fb_vec *vec, uint32_t i, fb_table *t,
                        const char *what)
{
    uint32_t p = vec->pos + 4u * i;
    uint32_t off = fb_ld_u32(v->b->data + p);
    uint64_t tg = (uint64_t)p + off;
    if (off == 0 || off > INT32_MAX || !fb_in(v->b, tg, 4))
        return fb_fail_offset(v, p, what);
    return fb_verify_table_at(v, tg, t, what);
}

int fb_path_vprepend(char *path, size_t cap, const char *fmt, va_list ap)
{
    char s[96];
    vsnprintf(s, sizeof s, fmt, ap);
    et_join3(path, cap, s, (path[0] == '[' || !path[0]) ? "" : ".", path);
    return -1;
}

int fb_fail_missing(fb_verifier *v, const fb_table *t, const char *table, const char *field)
{
    return et_fail(v->err, ET_ERR_FORMAT, "byte %u: %s: required field '%s' is absent", t->pos,
                   table, field);
}
