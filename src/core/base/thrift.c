/* thrift.c - the Thrift compact-protocol encoder; see thrift.h. */
#include "base/thrift.h"

char *et_thrift_put_varint(char *o, uint64_t v)
{
    while (v >= 0x80) {
        *o++ = (char)(v | 0x80);
        v >>= 7;
    }
    *o++ = (char)v;
    return o;
}

static void varint(et_strbuf *sb, uint64_t v)
{
    char b[10];
    et_sb_add(sb, b, (size_t)(et_thrift_put_varint(b, v) - b));
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void et_thrift_init(et_thrift *t, et_strbuf *sb)
{
    t->sb = sb;
    t->depth = 0;
    t->last[0] = 0;
}

/* The header of field `id` of type `type` in the open struct. */
static void field(et_thrift *t, int16_t id, int type)
{
    int delta = id - t->last[t->depth];
    if (delta > 0 && delta <= 15) {
        et_sb_addc(t->sb, (char)(delta << 4 | type));
    } else {
        et_sb_addc(t->sb, (char)type);
        varint(t->sb, zigzag(id));
    }
    t->last[t->depth] = id;
}

static void open_struct(et_thrift *t)
{
    if (t->depth + 1 >= ET_THRIFT_MAX_DEPTH) {
        t->sb->failed = true;
        return;
    }
    t->last[++t->depth] = 0;
}

void et_thrift_field_bool(et_thrift *t, int16_t id, bool v)
{
    field(t, id, v ? ET_THRIFT_TRUE : ET_THRIFT_FALSE);
}

void et_thrift_field_byte(et_thrift *t, int16_t id, int8_t v)
{
    field(t, id, ET_THRIFT_BYTE);
    et_sb_addc(t->sb, (char)v);
}

void et_thrift_field_i32(et_thrift *t, int16_t id, int32_t v)
{
    field(t, id, ET_THRIFT_I32);
    varint(t->sb, zigzag(v));
}

void et_thrift_field_i64(et_thrift *t, int16_t id, int64_t v)
{
    field(t, id, ET_THRIFT_I64);
    varint(t->sb, zigzag(v));
}

void et_thrift_field_binary(et_thrift *t, int16_t id, const void *p, size_t n)
{
    field(t, id, ET_THRIFT_BINARY);
    et_thrift_binary(t, p, n);
}

void et_thrift_field_string(et_thrift *t, int16_t id, const char *s)
{
    et_thrift_field_binary(t, id, s, strlen(s));
}

void et_thrift_field_struct(et_thrift *t, int16_t id)
{
    field(t, id, ET_THRIFT_STRUCT);
    open_struct(t);
}

void et_thrift_field_list(et_thrift *t, int16_t id, int elem, size_t n)
{
    field(t, id, ET_THRIFT_LIST);
    if (n < 15) {
        et_sb_addc(t->sb, (char)(n << 4 | (size_t)elem));
    } else {
        et_sb_addc(t->sb, (char)(0xF0 | elem));
        varint(t->sb, n);
    }
}

void et_thrift_i32(et_thrift *t, int32_t v)
{
    varint(t->sb, zigzag(v));
}

void et_thrift_i64(et_thrift *t, int64_t v)
{
    varint(t->sb, zigzag(v));
}

void et_thrift_binary(et_thrift *t, const void *p, size_t n)
{
    varint(t->sb, n);
    et_sb_add(t->sb, p, n);
}

void et_thrift_struct(et_thrift *t)
{
    open_struct(t);
}

void et_thrift_end(et_thrift *t)
{
    et_sb_addc(t->sb, 0);
    if (t->depth > 0)
        t->depth--;
}
