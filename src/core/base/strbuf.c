/* strbuf.c - see strbuf.h. */
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pyfmt.h"

void et_sb_add(et_strbuf *sb, const void *data, size_t n)
{
    if (sb->failed)
        return;
    if (sb->n + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 64;
        while (cap < sb->n + n + 1) {
            if (cap > SIZE_MAX / 2) {
                sb->failed = true;
                return;
            }
            cap *= 2;
        }
        char *p = realloc(sb->p, cap);
        if (!p) {
            sb->failed = true;
            return;
        }
        sb->p = p;
        sb->cap = cap;
    }
    if (n && data)
        memcpy(sb->p + sb->n, data, n);
    sb->n += n;
    sb->p[sb->n] = '\0';
}

void et_sb_adds(et_strbuf *sb, const char *s) { et_sb_add(sb, s, strlen(s)); }

void et_sb_addc(et_strbuf *sb, char c) { et_sb_add(sb, &c, 1); }

void et_sb_add_i64(et_strbuf *sb, int64_t v)
{
    if (v < 0) {
        et_sb_addc(sb, '-');
        et_sb_add_u64(sb, (uint64_t)0 - (uint64_t)v);
    } else {
        et_sb_add_u64(sb, (uint64_t)v);
    }
}

void et_sb_add_u64(et_strbuf *sb, uint64_t v)
{
    char b[24];
    et_sb_add(sb, b, et_u64_to_chars(b, v));
}

void et_sb_add_u64_list(et_strbuf *sb, const uint64_t *v, size_t n)
{
    /* reserve the worst case (20 digits and ", " each) once, then write */
    if (n > (SIZE_MAX - 4) / 22) {
        sb->failed = true;
        return;
    }
    size_t before = sb->n;
    et_sb_add(sb, NULL, 0);
    if (sb->failed)
        return;
    size_t need = n * 22 + 2;
    et_sb_add(sb, NULL, need); /* grows; the bytes are written below */
    if (sb->failed)
        return;
    char *o = sb->p + before;
    *o++ = '[';
    for (size_t i = 0; i < n; i++) {
        if (i) {
            *o++ = ',';
            *o++ = ' ';
        }
        o += et_u64_to_chars(o, v[i]);
    }
    *o++ = ']';
    sb->n = (size_t)(o - sb->p);
    sb->p[sb->n] = '\0';
}

void et_sb_add_repr_list(et_strbuf *sb, const double *x, size_t n, bool json)
{
    /* reserve the worst case once, then write in place */
    if (n > (SIZE_MAX - 4) / (ET_PYFMT_BUFSZ + 2)) {
        sb->failed = true;
        return;
    }
    size_t before = sb->n;
    et_sb_add(sb, NULL, n * (ET_PYFMT_BUFSZ + 2) + 2);
    if (sb->failed)
        return;
    char *o = sb->p + before;
    *o++ = '[';
    for (size_t i = 0; i < n; i++) {
        if (i) {
            *o++ = ',';
            *o++ = ' ';
        }
        if (json && !isfinite(x[i])) {
            memcpy(o, "null", 4);
            o += 4;
        } else {
            o += et_pyfmt_repr(x[i], o);
        }
    }
    *o++ = ']';
    sb->n = (size_t)(o - sb->p);
    sb->p[sb->n] = '\0';
}

void et_sb_add_repr(et_strbuf *sb, double v)
{
    char b[ET_PYFMT_BUFSZ];
    et_sb_add(sb, b, et_pyfmt_repr(v, b));
}

void et_sb_reset(et_strbuf *sb)
{
    sb->n = 0;
    if (sb->p)
        sb->p[0] = '\0';
}

int et_sb_drain(et_strbuf *sb, FILE *out, bool force)
{
    if (sb->failed)
        return -1;
    if (force || sb->n > (1u << 20)) {
        if (sb->n && fwrite(sb->p, 1, sb->n, out) != sb->n)
            return -1;
        et_sb_reset(sb);
    }
    return 0;
}

void et_sb_free(et_strbuf *sb)
{
    free(sb->p);
    memset(sb, 0, sizeof *sb);
}

void et_sb_add_pystr(et_strbuf *sb, const char *s, size_t n)
{
    char q = '\'';
    if (memchr(s, '\'', n) && !memchr(s, '"', n))
        q = '"';
    et_sb_addc(sb, q);
    size_t run = 0; /* start of the bytes not yet copied */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f && c != '\\' && c != (unsigned char)q)
            continue;
        et_sb_add(sb, s + run, i - run);
        run = i + 1;
        char esc[5] = {'\\', 0, 0, 0, 0};
        switch (c) {
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\\': esc[1] = '\\'; break;
        default:
            if (c == (unsigned char)q) {
                esc[1] = q;
            } else {
                static const char hex[] = "0123456789abcdef";
                esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15];
            }
        }
        et_sb_adds(sb, esc);
    }
    et_sb_add(sb, s + run, n - run);
    et_sb_addc(sb, q);
}

void et_sb_add_json_str(et_strbuf *sb, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    et_sb_addc(sb, '"');
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            et_sb_addc(sb, '\\');
            et_sb_addc(sb, (char)c);
            i++;
        } else if (c < 0x20) {
            char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
            switch (c) {
            case '\n': et_sb_adds(sb, "\\n"); break;
            case '\t': et_sb_adds(sb, "\\t"); break;
            case '\r': et_sb_adds(sb, "\\r"); break;
            default: et_sb_adds(sb, e);
            }
            i++;
        } else if (c < 0x80) {
            size_t j = i + 1; /* copy the run of plain ASCII at once */
            while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] < 0x80 &&
                   s[j] != '"' && s[j] != '\\')
                j++;
            et_sb_add(sb, s + i, j - i);
            i = j;
        } else {
            /* validate one UTF-8 sequence */
            size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
            uint32_t cp = len == 4 ? c & 7u : len == 3 ? c & 15u : c & 31u;
            bool ok = len > 0 && i + len <= n && c <= 0xf4;
            for (size_t k = 1; ok && k < len; k++) {
                unsigned char cc = (unsigned char)s[i + k];
                ok = (cc & 0xc0) == 0x80;
                cp = (cp << 6) | (cc & 0x3fu);
            }
            if (ok && ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
                       (len == 4 && (cp < 0x10000 || cp > 0x10ffff))))
                ok = false;
            if (ok) {
                et_sb_add(sb, s + i, len);
                i += len;
            } else {
                et_sb_adds(sb, "\\ufffd");
                i++;
            }
        }
    }
    et_sb_addc(sb, '"');
}
