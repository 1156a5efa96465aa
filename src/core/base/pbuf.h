/*
 * pbuf.h - a protocol buffers writer: fields appended to an et_strbuf in
 * the wire format (varints, 64-bit and length-delimited fields; no
 * schema, no reflection).  The caller chooses field numbers from its
 * .proto; this only encodes.  A nested message is opened with
 * et_pb_open (one byte reserved for its length) and closed with
 * et_pb_close, which widens the length when the message outgrew it.
 * Like strbuf, nothing fails visibly: an out-of-memory buffer is marked
 * failed and the owner checks it once.
 */
#ifndef ET_PBUF_H
#define ET_PBUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/* Wire types. */
enum { ET_PB_VARINT = 0, ET_PB_I64 = 1, ET_PB_LEN = 2 };

/* A varint of v at o (room for 10 bytes); returns the end. */
static inline char *et_pb_put_varint(char *o, uint64_t v)
{
    while (v >= 0x80) {
        *o++ = (char)(v | 0x80);
        v >>= 7;
    }
    *o++ = (char)v;
    return o;
}

/* Field `field` as an unsigned varint (uint32, uint64, enum, bool). */
void et_pb_uint(et_strbuf *sb, uint32_t field, uint64_t v);
/* Field `field` as an int64/int32 varint (negatives take 10 bytes). */
void et_pb_int(et_strbuf *sb, uint32_t field, int64_t v);
/* Field `field` as fixed64. */
void et_pb_fixed64(et_strbuf *sb, uint32_t field, uint64_t v);
/* Field `field` as a double. */
void et_pb_double(et_strbuf *sb, uint32_t field, double v);
/* Field `field` as n bytes (string, bytes, or an encoded message). */
void et_pb_bytes(et_strbuf *sb, uint32_t field, const void *p, size_t n);
/* Open nested message field `field`: returns the offset to give to
 * et_pb_close once its fields are appended. */
size_t et_pb_open(et_strbuf *sb, uint32_t field);
/* Close the message opened at `at`: write its length. */
void et_pb_close(et_strbuf *sb, size_t at);

#endif
