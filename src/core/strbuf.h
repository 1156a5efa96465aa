/*
 * strbuf.h - a growable byte string, for building cells and documents.
 *
 * Appending never fails visibly: on out of memory the buffer is marked
 * `failed`, further appends are ignored, and the owner checks the flag
 * once at the end.
 */
#ifndef ET_STRBUF_H
#define ET_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct et_strbuf {
    char *p;      /* NUL-terminated when not NULL */
    size_t n;     /* bytes used */
    size_t cap;
    bool failed;  /* an allocation failed */
} et_strbuf;

/* Append n bytes of data (data NULL: reserve n bytes, contents undefined,
 * for a caller that writes them through sb->p and then sets sb->n). */
void et_sb_add(et_strbuf *sb, const void *data, size_t n);
/* Append a NUL-terminated string (without its NUL). */
void et_sb_adds(et_strbuf *sb, const char *s);
/* Append one byte. */
void et_sb_addc(et_strbuf *sb, char c);
/* Append an integer in decimal ("-12", "18446744073709551615"). */
void et_sb_add_i64(et_strbuf *sb, int64_t v);
void et_sb_add_u64(et_strbuf *sb, uint64_t v);

/* Write v in decimal at o and return the number of digits (1..20).  No NUL;
 * o needs room for 24 bytes (up to 8 bytes past the digits may be
 * overwritten). */
size_t et_u64_to_chars(char *o, uint64_t v);
/* Python str() of a list of integers: "[1, 2, 3]". */
void et_sb_add_u64_list(et_strbuf *sb, const uint64_t *v, size_t n);
/* A list of n floats, "[x, y]", each as Python's repr(); with `json`, NaN
 * and infinities as null (else "nan", "inf", "-inf" as Python prints). */
void et_sb_add_repr_list(et_strbuf *sb, const double *x, size_t n, bool json);
/* Python repr() of a float (see pyfmt.h). */
void et_sb_add_repr(et_strbuf *sb, double v);
/* Python repr() of a str (n bytes of UTF-8): single quotes unless the
 * text holds a single quote and no double quote; backslash escapes for
 * the backslash, the quote, \n, \r, \t and \xNN for other bytes below
 * 0x20 and 0x7f; other bytes as they are. */
void et_sb_add_pystr(et_strbuf *sb, const char *s, size_t n);
/* A JSON string literal of n bytes of UTF-8: quotes, backslash escapes for
 * '"', '\\', \n, \t, \r and \u00XX for other bytes below 0x20; a byte
 * that does not start a valid UTF-8 sequence becomes \ufffd. */
void et_sb_add_json_str(et_strbuf *sb, const char *s, size_t n);
/* Empty the buffer, keeping its storage. */
void et_sb_reset(et_strbuf *sb);
void et_sb_free(et_strbuf *sb);

#endif
