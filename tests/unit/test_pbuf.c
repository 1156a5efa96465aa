/*
 * test_pbuf.c - the protocol buffers writer (pbuf.h) and the Perfetto
 * packet helpers (perfetto.h): varints at every width boundary, negative
 * int64s as ten bytes, fixed64 and doubles little-endian, nested messages
 * whose length outgrows its byte (127, 128, 16384 bytes), event packets
 * whose lengths are set in place or widened, name interning (one iid per
 * distinct name, also after the table grows), and an END packet equal to
 * the generic open/close path.  The bytes are compared with the wire
 * format written out by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pbuf.h"
#include "output/perfetto.h"
#include "tap.h"

static int same(et_strbuf *sb, const char *want, size_t n, const char *what)
{
    return is_mem(sb->p, sb->n, want, n, "%s", what);
}

int main(void)
{
    et_strbuf sb = {0};
    static const struct {
        uint64_t v;
        const char *b;
        size_t n;
    } vs[] = {{0, "\x08\x00", 2},
              {1, "\x08\x01", 2},
              {127, "\x08\x7f", 2},
              {128, "\x08\x80\x01", 3},
              {300, "\x08\xac\x02", 3},
              {16383, "\x08\xff\x7f", 3},
              {16384, "\x08\x80\x80\x01", 4},
              {UINT64_MAX, "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11}};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        et_sb_reset(&sb);
        et_pb_uint(&sb, 1, vs[i].v);
        char what[64];
        snprintf(what, sizeof what, "varint %llu", (unsigned long long)vs[i].v);
        same(&sb, vs[i].b, vs[i].n, what);
    }
    et_sb_reset(&sb);
    et_pb_int(&sb, 4, -1);
    same(&sb, "\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11, "int64 -1: ten bytes");
    et_sb_reset(&sb);
    et_pb_uint(&sb, 60, 1);
    same(&sb, "\xe0\x03\x01", 3, "a field number above 15: a two-byte tag");
    et_sb_reset(&sb);
    et_pb_fixed64(&sb, 47, 0x0102030405060708u);
    same(&sb, "\xf9\x02\x08\x07\x06\x05\x04\x03\x02\x01", 10, "fixed64, little-endian");
    et_sb_reset(&sb);
    et_pb_double(&sb, 5, 1.0);
    same(&sb, "\x29\x00\x00\x00\x00\x00\x00\xf0\x3f", 9, "double 1.0");
    et_sb_reset(&sb);
    et_pb_bytes(&sb, 2, "abc", 3);
    same(&sb, "\x12\x03" "abc", 5, "a string");

    /* nested messages of 127, 128 and 16384 bytes */
    static const size_t lens[] = {0, 127, 128, 16384};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        et_sb_reset(&sb);
        et_pb_uint(&sb, 1, 7);
        size_t at = et_pb_open(&sb, 2);
        char *body = malloc(lens[k] + 1);
        memset(body, 'x', lens[k]);
        et_sb_add(&sb, body, lens[k]);
        et_pb_close(&sb, at);
        et_pb_uint(&sb, 3, 9);
        char hdr[16];
        size_t h = 0;
        hdr[h++] = 0x08, hdr[h++] = 7, hdr[h++] = 0x12;
        h += (size_t)(et_pb_put_varint(hdr + h, lens[k]) - (hdr + h));
        size_t n = h + lens[k] + 2;
        char *want = malloc(n);
        memcpy(want, hdr, h);
        memcpy(want + h, body, lens[k]);
        want[h + lens[k]] = 0x18, want[h + lens[k] + 1] = 9;
        char what[64];
        snprintf(what, sizeof what, "a nested message of %zu bytes", lens[k]);
        same(&sb, want, n, what);
        free(body);
        free(want);
    }

    /* event packets */
    et_pf pf;
    et_pf_init(&pf);
    et_sb_reset(&sb);
    size_t at = et_pf_event_open(&pf, &sb, 300, ET_PF_SLICE_END, 5);
    et_pf_event_close(&sb, at);
    et_strbuf sb2 = {0};
    et_pf_slice_end(&pf, &sb2, 300, 5);
    same(&sb, "\x0a\x0d\x40\xac\x02\x50\x01\x68\x02\x5a\x04\x48\x02\x58\x05", 15,
         "an END packet: ts, sequence, flags, the event");
    is_mem(sb2.p, sb2.n, sb.p, sb.n, "et_pf_slice_end writes the same bytes");
    et_sb_reset(&sb);
    et_pf_default_track(&pf, &sb, 5);
    et_sb_reset(&sb);
    et_pf_slice_end(&pf, &sb, 300, 5);
    same(&sb, "\x0a\x0b\x40\xac\x02\x50\x01\x68\x02\x5a\x02\x48\x02", 13,
         "on the default track: no track_uuid");
    et_sb_reset(&sb);
    at = et_pf_event_open(&pf, &sb, 1, ET_PF_SLICE_BEGIN, 6);
    char big[200];
    memset(big, 'y', sizeof big);
    et_pf_ann_str(&sb, ET_PF_A_MODULE, big, sizeof big);
    et_pf_event_close(&sb, at);
    /* packet: 0a LEN(2) 40 01 50 01 68 02 5a LEN(2) 48 01 58 06 22 LEN(2) 08 06 32 LEN(2) 200*y */
    ok(sb.n == 1 + 2 + 6 + 1 + 2 + 4 + 1 + 2 + 2 + 1 + 2 + 200, "a packet over 127 bytes: "
       "its lengths widen (%zu bytes)", sb.n);
    ok((unsigned char)sb.p[1] == 0x80 + ((sb.n - 3) & 0x7f) && sb.p[2] == (char)((sb.n - 3) >> 7),
       "... the packet's length is right");

    /* interning */
    uint64_t a = et_pf_intern(&pf, "alpha", 5), b = et_pf_intern(&pf, "beta", 4);
    ok(a == 1 && b == 2, "new names get iids 1, 2");
    ok(et_pf_intern(&pf, "alpha", 5) == 1, "a known name keeps its iid");
    ok(et_pf_intern(&pf, "alph", 4) == 3, "a prefix is another name");
    char names[1000][16];
    int all = 1;
    for (int i = 0; i < 1000; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        if (et_pf_intern(&pf, names[i], strlen(names[i])) != (uint64_t)(4 + i))
            all = 0;
    }
    for (int i = 0; i < 1000; i++)
        if (et_pf_intern(&pf, names[i], strlen(names[i])) != (uint64_t)(4 + i))
            all = 0;
    ok(all && et_pf_intern(&pf, "beta", 4) == 2, "1000 names more: the table grows, iids stay");
    et_sb_reset(&sb);
    et_pf_flush_interned(&pf, &sb);
    ok(sb.n > 1000 * 6, "the new names go out in one packet (%zu bytes)", sb.n);
    size_t n1 = sb.n;
    et_pf_flush_interned(&pf, &sb);
    ok(sb.n == n1, "... once");
    et_pf_free(&pf);
    et_sb_free(&sb);
    et_sb_free(&sb2);
    return done_testing();
}
