/*
 * test_thrift.c - the encoders the Parquet writer is built on, against the
 * bytes of their specifications written out by hand: Thrift's compact
 * protocol (base/thrift.h: short and long field headers, ids that go
 * down, zigzag varints, booleans in the type nibble, binaries, short and
 * long list headers, nested structs whose ids start again, the depth
 * limit) and Parquet's RLE/bit-packed hybrid (et_parquet_rle: the
 * specification's bit-packing example, RLE runs and their value widths,
 * padding of the last group, the 63-group limit, and a decoder's round
 * trip over values of every bit width).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/thrift.h"
#include "output/parquet.h"
#include "tap.h"

static int same(et_strbuf *sb, const char *want, size_t n, const char *what)
{
    return is_mem(sb->p, sb->n, want, n, "%s", what);
}

/* Decode the hybrid encoding of `n` values of `w` bits from p[0..len):
 * 0 when the values are v, else -1. */
static int decode_rle(const unsigned char *p, size_t len, int w, const uint32_t *v, size_t n)
{
    size_t at = 0, k = 0;
    while (k < n) {
        uint64_t h = 0;
        int shift = 0;
        for (;;) {
            if (at >= len)
                return -1;
            unsigned char b = p[at++];
            h |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        if (h & 1) { /* bit-packed: h >> 1 groups of 8 */
            size_t count = (size_t)(h >> 1) * 8;
            uint64_t acc = 0;
            int bits = 0;
            for (size_t i = 0; i < count; i++) {
                while (bits < w) {
                    if (at >= len)
                        return -1;
                    acc |= (uint64_t)p[at++] << bits;
                    bits += 8;
                }
                uint32_t x = (uint32_t)(acc & ((w == 32 ? 0 : (1ull << w)) - 1));
                if (w == 32)
                    x = (uint32_t)acc;
                acc >>= w;
                bits -= w;
                if (k < n && x != v[k++])
                    return -1;
            }
        } else { /* RLE: h >> 1 copies of a value of (w + 7) / 8 bytes */
            uint32_t x = 0;
            for (int i = 0; i < (w + 7) / 8; i++) {
                if (at >= len)
                    return -1;
                x |= (uint32_t)p[at++] << (8 * i);
            }
            for (uint64_t i = 0; i < h >> 1; i++)
                if (k >= n || x != v[k++])
                    return -1;
        }
    }
    return at == len ? 0 : -1;
}

int main(void)
{
    et_strbuf sb = {0};
    et_thrift t;

    /* field headers: delta 1..15 in the high nibble, else type + zigzag id */
    et_thrift_init(&t, &sb);
    et_thrift_field_i32(&t, 1, 0);
    et_thrift_field_i32(&t, 2, -1);
    et_thrift_field_i64(&t, 17, 300);
    et_thrift_field_i32(&t, 100, 1);
    et_thrift_field_i32(&t, 3, 64);
    et_thrift_end(&t);
    same(&sb, "\x15\x00" "\x15\x01" "\xf6\xd8\x04" "\x05\xc8\x01\x02" "\x05\x06\x80\x01" "\x00", 16,
         "i32/i64 fields: short headers, a long one past 15, one for an id that goes down");

    /* booleans in the type nibble, a byte, binaries */
    et_sb_reset(&sb);
    et_thrift_init(&t, &sb);
    et_thrift_field_bool(&t, 1, true);
    et_thrift_field_bool(&t, 2, false);
    et_thrift_field_byte(&t, 3, 64);
    et_thrift_field_string(&t, 4, "ab");
    et_thrift_field_binary(&t, 5, "", 0);
    et_thrift_end(&t);
    same(&sb, "\x11" "\x12" "\x13\x40" "\x18\x02" "ab" "\x18\x00" "\x00", 11,
         "bool (1 true, 2 false), byte, string, empty binary");

    /* lists: short header below 15 elements, long from 15 */
    et_sb_reset(&sb);
    et_thrift_init(&t, &sb);
    et_thrift_field_list(&t, 2, ET_THRIFT_I32, 3);
    et_thrift_i32(&t, 0);
    et_thrift_i32(&t, 3);
    et_thrift_i32(&t, 8);
    et_thrift_field_list(&t, 3, ET_THRIFT_BINARY, 15);
    for (int i = 0; i < 15; i++)
        et_thrift_binary(&t, "x", 1);
    et_thrift_field_list(&t, 4, ET_THRIFT_STRUCT, 300);
    et_thrift_end(&t);
    {
        char want[64];
        size_t n = 0;
        memcpy(want + n, "\x29\x35\x00\x06\x10", 5), n += 5;
        memcpy(want + n, "\x19\xf8\x0f", 3), n += 3;
        for (int i = 0; i < 15; i++)
            memcpy(want + n, "\x01x", 2), n += 2;
        memcpy(want + n, "\x19\xfc\xac\x02\x00", 5), n += 5;
        same(&sb, want, n, "lists: 3 i32s (short header), 15 binaries and 300 structs (long)");
    }

    /* nested structs: their ids start again, the outer one's resume */
    et_sb_reset(&sb);
    et_thrift_init(&t, &sb);
    et_thrift_field_struct(&t, 3);
    et_thrift_field_i32(&t, 1, 7);
    et_thrift_field_struct(&t, 10);
    et_thrift_end(&t);
    et_thrift_end(&t);
    et_thrift_field_i32(&t, 4, 1);
    et_thrift_field_list(&t, 5, ET_THRIFT_STRUCT, 2);
    et_thrift_struct(&t);
    et_thrift_field_i32(&t, 1, 2);
    et_thrift_end(&t);
    et_thrift_struct(&t);
    et_thrift_end(&t);
    et_thrift_end(&t);
    same(&sb, "\x3c" "\x15\x0e" "\x9c" "\x00" "\x00" "\x15\x02" "\x19\x2c" "\x15\x04\x00" "\x00" "\x00",
         15, "nested structs and a list of structs: ids from 0 inside, resumed outside");
    ok(!sb.failed, "... the buffer did not fail");

    /* deeper than ET_THRIFT_MAX_DEPTH: the buffer is marked failed */
    et_sb_reset(&sb);
    et_thrift_init(&t, &sb);
    for (int i = 0; i < ET_THRIFT_MAX_DEPTH + 1; i++)
        et_thrift_field_struct(&t, 1);
    ok(sb.failed, "structs nested deeper than ET_THRIFT_MAX_DEPTH mark the buffer failed");
    sb.failed = false;

    /* the RLE/bit-packed hybrid */
    {
        uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        et_sb_reset(&sb);
        et_parquet_rle(&sb, v, 8, 3);
        same(&sb, "\x03\x88\xc6\xfa", 4, "0..7 at 3 bits: one bit-packed group (the spec's example)");
    }
    {
        uint32_t v[20];
        for (int i = 0; i < 20; i++)
            v[i] = 300;
        et_sb_reset(&sb);
        et_parquet_rle(&sb, v, 20, 9);
        same(&sb, "\x28\x2c\x01", 3, "20 x 300 at 9 bits: an RLE run, its value in 2 bytes");
        et_sb_reset(&sb);
        et_parquet_rle(&sb, v, 8, 32);
        same(&sb, "\x10\x2c\x01\x00\x00", 5, "8 x 300 at 32 bits: the value in 4 bytes");
    }
    {
        uint32_t v[10] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
        et_sb_reset(&sb);
        et_parquet_rle(&sb, v, 10, 1);
        same(&sb, "\x05\xaa\x02", 3, "10 alternating bits: two groups, the last padded with zeros");
    }
    {
        uint32_t v[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1};
        et_sb_reset(&sb);
        et_parquet_rle(&sb, v, 12, 1);
        same(&sb, "\x14\x01\x03\x02", 4, "a run of 10, then a padded group of 2");
    }
    {
        static uint32_t v[64 * 8];
        for (int i = 0; i < 64 * 8; i++)
            v[i] = (uint32_t)(i & 1);
        et_sb_reset(&sb);
        et_parquet_rle(&sb, v, 64 * 8, 1);
        is_int((long long)sb.n, 1 + 63 + 1 + 1, "512 alternating bits: 63 groups, then 1");
        ok(sb.n == 66 && (unsigned char)sb.p[0] == 0x7f && (unsigned char)sb.p[64] == 0x03,
           "... headers 63 * 2 + 1 and 1 * 2 + 1");
    }
    et_sb_reset(&sb);
    et_parquet_rle(&sb, NULL, 0, 5);
    is_int((long long)sb.n, 0, "no values: no bytes");

    /* a decoder's round trip: every width, runs and noise mixed */
    srand(28);
    int bad = 0;
    static uint32_t v[5000];
    for (int w = 1; w <= 32; w++) {
        uint64_t mask = w == 32 ? 0xffffffffu : (1u << w) - 1;
        for (int trial = 0; trial < 4; trial++) {
            size_t n = (size_t)(rand() % 5000);
            for (size_t i = 0; i < n;) {
                uint32_t x = (uint32_t)(((uint64_t)rand() << 16 ^ (uint64_t)rand()) & mask);
                size_t r = rand() % 3 == 0 ? (size_t)(rand() % 40) + 1 : 1;
                for (size_t k = 0; k < r && i < n; k++)
                    v[i++] = x;
            }
            et_sb_reset(&sb);
            et_parquet_rle(&sb, v, n, w);
            if (sb.failed || decode_rle((const unsigned char *)sb.p, sb.n, w, v, n) != 0) {
                diag("width %d, %zu values: the decoding differs", w, n);
                bad++;
            }
        }
    }
    is_int(bad, 0, "decoded again, 128 random sequences (widths 1 to 32) give their values");

    et_sb_free(&sb);
    return done_testing();
}
