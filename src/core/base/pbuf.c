/* pbuf.c - protocol buffers wire format; see pbuf.h. */
#include "base/pbuf.h"

#include <string.h>

static void add_varint(et_strbuf *sb, uint64_t v)
{
    char *o = et_sb_room(sb, 10);
    if (o)
        et_sb_setlen(sb, et_pb_put_varint(o, v));
}

static void add_tag(et_strbuf *sb, uint32_t field, unsigned wire)
{
    add_varint(sb, (uint64_t)field << 3 | wire);
}

void et_pb_uint(et_strbuf *sb, uint32_t field, uint64_t v)
{
    char *o = et_sb_room(sb, 20);
    if (!o)
        return;
    o = et_pb_put_varint(o, (uint64_t)field << 3 | ET_PB_VARINT);
    et_sb_setlen(sb, et_pb_put_varint(o, v));
}

void et_pb_int(et_strbuf *sb, uint32_t field, int64_t v)
{
    et_pb_uint(sb, field, (uint64_t)v);
}

void et_pb_fixed64(et_strbuf *sb, uint32_t field, uint64_t v)
{
    add_tag(sb, field, ET_PB_I64);
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    et_sb_add(sb, b, 8);
}

void et_pb_double(et_strbuf *sb, uint32_t field, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    et_pb_fixed64(sb, field, u);
}

void et_pb_bytes(et_strbuf *sb, uint32_t field, const void *p, size_t n)
{
    add_tag(sb, field, ET_PB_LEN);
    add_varint(sb, n);
    if (n)
        et_sb_add(sb, p, n);
}

size_t et_pb_open(et_strbuf *sb, uint32_t field)
{
    add_tag(sb, field, ET_PB_LEN);
    size_t at = sb->n;
    et_sb_addc(sb, 0);
    return at;
}

void et_pb_close(et_strbuf *sb, size_t at)
{
    if (sb->failed || at >= sb->n)
        return;
    size_t len = sb->n - at - 1;
    char tmp[10];
    size_t k = (size_t)(et_pb_put_varint(tmp, len) - tmp);
    if (k > 1) { /* make room: move the message up by k - 1 bytes */
        if (!et_sb_room(sb, k - 1))
            return;
        memmove(sb->p + at + k, sb->p + at + 1, len);
        sb->n += k - 1;
        sb->p[sb->n] = '\0';
    }
    memcpy(sb->p + at, tmp, k);
}
