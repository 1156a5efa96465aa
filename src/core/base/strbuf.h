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
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
/* Room for n more bytes (and the NUL) at the end of sb, for a writer that
 * fills them in place: returns sb->p + sb->n, or NULL when sb has failed
 * or cannot grow (then marked failed).  The writer then sets the length
 * with et_sb_setlen.  Inline: the common case is a comparison. */
static inline char *et_sb_room(et_strbuf *sb, size_t n)
{
    /* cap > n whenever cap > 0: the NUL is stored */
    if (sb->failed || sb->cap == 0 || n >= sb->cap - sb->n) {
        size_t before = sb->n;
        et_sb_add(sb, NULL, n);
        if (sb->failed)
            return NULL;
        sb->n = before;
    }
    return sb->p + sb->n;
}
/* The end of what was written from et_sb_room's pointer: sets sb->n and
 * the NUL. */
static inline void et_sb_setlen(et_strbuf *sb, const char *end)
{
    sb->n = (size_t)(end - sb->p);
    sb->p[sb->n] = '\0';
}
/* Empty the buffer, keeping its storage. */
void et_sb_reset(et_strbuf *sb);

/* For a document built piece by piece: write the buffer to `out` and
 * empty it when it holds over 1 MiB, or whatever it holds when `force`.
 * Returns 0, or -1 when the buffer failed (a failed allocation) or the
 * write did (errno as fwrite left it). */
int et_sb_drain(et_strbuf *sb, FILE *out, bool force);
void et_sb_free(et_strbuf *sb);

/* a[0, n) == b[0, n), 8 bytes at a time inline: names are short, and a
 * call to memcmp costs more than comparing them. */
static inline bool et_bytes_equal(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        uint64_t x, y;
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return false;
        }
        memcpy(&x, a + n - 8, 8); /* the last 8, overlapping */
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* ---- integers to decimal text, inline: every writer's hot path ---- */

/* Number of decimal digits of v (1..20). */
static inline unsigned et_u64_len_(uint64_t v)
{
    static const uint64_t p10[20] = {
        UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000),
        UINT64_C(100000), UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000),
        UINT64_C(1000000000), UINT64_C(10000000000), UINT64_C(100000000000),
        UINT64_C(1000000000000), UINT64_C(10000000000000), UINT64_C(100000000000000),
        UINT64_C(1000000000000000), UINT64_C(10000000000000000),
        UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
        UINT64_C(10000000000000000000)};
#if defined(__GNUC__) || defined(__clang__)
    /* log10 from the bit length (1233 / 4096 ~ log10(2)), corrected once */
    unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;
    return t + ((v | 1) >= p10[t]);
#else
    unsigned n = 1;
    while (n < 20 && v >= p10[n])
        n++;
    return n;
#endif
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 8 decimal digits of v < 10^8 (leading zeros included) as ASCII, the
 * first digit in the lowest byte: both 4-digit halves, then their 2-digit
 * and 1-digit parts, are split in parallel lanes of one 64-bit word. */
static inline uint64_t et_digits8_(uint32_t v)
{
    uint64_t merged = (uint64_t)(v / 10000) | ((uint64_t)(v % 10000) << 32);
    uint64_t top = ((merged * 10486) >> 20) & ((UINT64_C(0x7F) << 32) | UINT64_C(0x7F));
    uint64_t bottom = merged - 100 * top;
    uint64_t hundreds = (bottom << 16) + top;
    uint64_t tens = ((hundreds * 103) >> 10) &
                    ((UINT64_C(0xF) << 48) | (UINT64_C(0xF) << 32) | (UINT64_C(0xF) << 16) | 0xF);
    uint64_t ones = hundreds - 10 * tens;
    return ((ones << 8) + tens) + UINT64_C(0x3030303030303030);
}
#endif

/* Write v in decimal at o and return the number of digits (1..20).  No NUL;
 * o needs room for 20 bytes (up to 8 bytes, and never past o + 20, may be
 * written beyond the digits). */
static inline size_t et_u64_to_chars(char *o, uint64_t v)
{
    size_t n = et_u64_len_(v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= 8) {
        uint64_t d = et_digits8_((uint32_t)v) >> (8 * (8 - n));
        memcpy(o, &d, 8);
        return n;
    }
    if (n <= 16) {
        uint64_t d = et_digits8_((uint32_t)(v / 100000000)) >> (8 * (16 - n));
        memcpy(o, &d, 8);
        d = et_digits8_((uint32_t)(v % 100000000));
        memcpy(o + n - 8, &d, 8);
        return n;
    }
#endif
    static const char et_digit_pairs_[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char *p = o + n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        p -= 2;
        memcpy(p, et_digit_pairs_ + d, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, et_digit_pairs_ + v * 2, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return n;
}

#endif
