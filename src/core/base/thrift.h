/*
 * thrift.h - a Thrift compact-protocol encoder: structs, fields, lists,
 * integers, booleans and binaries appended to an et_strbuf, as the Apache
 * Parquet file format writes its FileMetaData and PageHeaders (parquet.h).
 * No schema, no reflection: the caller names each field by its id in the
 * .thrift file and writes the fields of a struct in increasing id order.
 *
 * The wire format (Thrift's compact protocol specification):
 *  - a field starts with one byte, (id delta << 4) | type, when its id
 *    exceeds the previous field's of the same struct by 1 to 15; else with
 *    the byte `type` followed by the id as a zigzag varint;
 *  - a boolean field's value is its type (1 true, 2 false);
 *  - i16, i32 and i64 values are zigzag varints, a byte is one byte;
 *  - a binary (or string) is its length as a varint, then its bytes;
 *  - a list starts with (size << 4) | element type when size < 15, else
 *    0xF0 | element type followed by the size as a varint;
 *  - a struct ends with a stop byte (0); a nested struct's field ids start
 *    again from 0.
 * Like strbuf, nothing fails visibly: an out-of-memory buffer is marked
 * failed and the owner checks it once.  Structs nest up to
 * ET_THRIFT_MAX_DEPTH deep (deeper ones are a programming error: the
 * buffer is marked failed).
 */
#ifndef ET_THRIFT_H
#define ET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/* Compact-protocol type codes (field headers and list headers). */
enum {
    ET_THRIFT_TRUE = 1, /* a boolean field that is true (list elements: BOOL) */
    ET_THRIFT_FALSE = 2,
    ET_THRIFT_BYTE = 3,
    ET_THRIFT_I16 = 4,
    ET_THRIFT_I32 = 5,
    ET_THRIFT_I64 = 6,
    ET_THRIFT_DOUBLE = 7,
    ET_THRIFT_BINARY = 8,
    ET_THRIFT_LIST = 9,
    ET_THRIFT_SET = 10,
    ET_THRIFT_MAP = 11,
    ET_THRIFT_STRUCT = 12
};

#define ET_THRIFT_MAX_DEPTH 16

/* An encoder writing onto `sb`: the last field id of each open struct. */
typedef struct et_thrift {
    et_strbuf *sb;
    int depth;
    int16_t last[ET_THRIFT_MAX_DEPTH];
} et_thrift;

/* Start encoding onto `sb` (appended; the outermost struct is open: its
 * fields follow, et_thrift_end closes it). */
void et_thrift_init(et_thrift *t, et_strbuf *sb);

/* Fields of the open struct, `id` as in the .thrift file (1..32767). */
void et_thrift_field_bool(et_thrift *t, int16_t id, bool v);
void et_thrift_field_byte(et_thrift *t, int16_t id, int8_t v);
void et_thrift_field_i32(et_thrift *t, int16_t id, int32_t v);
void et_thrift_field_i64(et_thrift *t, int16_t id, int64_t v);
void et_thrift_field_binary(et_thrift *t, int16_t id, const void *p, size_t n);
/* A string field: a binary of strlen(s) bytes. */
void et_thrift_field_string(et_thrift *t, int16_t id, const char *s);
/* Open a struct field (or a union's member): its fields follow, then
 * et_thrift_end. */
void et_thrift_field_struct(et_thrift *t, int16_t id);
/* A list field of `n` elements of type `elem` (ET_THRIFT_*): the elements
 * follow, written with the functions below. */
void et_thrift_field_list(et_thrift *t, int16_t id, int elem, size_t n);

/* List elements. */
void et_thrift_i32(et_thrift *t, int32_t v);
void et_thrift_i64(et_thrift *t, int64_t v);
void et_thrift_binary(et_thrift *t, const void *p, size_t n);
/* Open a struct element of a list: its fields follow, then
 * et_thrift_end. */
void et_thrift_struct(et_thrift *t);

/* Close the innermost open struct (its stop byte). */
void et_thrift_end(et_thrift *t);

/* An unsigned varint of v at o (room for 10 bytes); returns the end. */
char *et_thrift_put_varint(char *o, uint64_t v);

#endif
