/*
 * shown.c - the one escaping of control characters for a terminal
 * (shown.h).
 *
 * step() looks at the text from one position: either an escape to write
 * for the character there, or a run of bytes to pass as they are (a valid
 * UTF-8 sequence, or one byte of an invalid one).  Every function here is
 * a loop over step(), so that what is escaped, how wide it is and what is
 * written cannot disagree.
 *
 * Plain C11.
 */
#include "base/shown.h"

#include <stdint.h>
#include <string.h>

/* See shown.h: the one UTF-8 decoding of display widths. */
size_t et_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    uint32_t c = s[0];
    size_t len;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, c &= 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, c &= 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, c &= 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    *cp = c;
    return len;
}

/* At s[0..n) (n > 0): the escape for the character there in esc (its
 * length returned, *used the bytes it stands for), or 0 with *used the
 * bytes to pass as they are (one character). */
static size_t step(const unsigned char *s, size_t n, char esc[5], size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    uint32_t cp = 0;
    size_t len = et_utf8_next(s, n, &cp);
    *used = len ? len : 1; /* a byte of an invalid sequence alone: shown as U+FFFD */
    /* a control only in its shortest form: one byte for C0 and DEL, two for
     * C1 (a terminal shows an overlong encoding as U+FFFD) */
    if (!((len == 1 && (cp < 0x20 || cp == 0x7f)) || (len == 2 && cp <= 0x9f)))
        return 0;
    esc[0] = '\\';
    if (cp == '\n' || cp == '\t' || cp == '\r') {
        esc[1] = cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r';
        return 2;
    }
    esc[1] = 'x';
    esc[2] = hex[cp >> 4];
    esc[3] = hex[cp & 15];
    return 4;
}

bool et_shown_needed(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char esc[5];
    size_t used;
    for (size_t i = 0; i < n; i += used) {
        if (p[i] >= 0x20 && p[i] < 0x7f) { /* printable ASCII: the common case */
            used = 1;
            continue;
        }
        if (step(p + i, n - i, esc, &used))
            return true;
    }
    return false;
}

size_t et_shown_width(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char esc[5];
    size_t used, w = 0;
    for (size_t i = 0; i < n; i += used) {
        size_t e = step(p + i, n - i, esc, &used);
        w += e ? e : 1;
    }
    return w;
}

void et_sb_add_shown(et_strbuf *sb, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char esc[5];
    size_t used, start = 0;
    for (size_t i = 0; i < n; i += used) {
        size_t e = step(p + i, n - i, esc, &used);
        if (e) {
            et_sb_add(sb, s + start, i - start);
            et_sb_add(sb, esc, e);
            start = i + used;
        }
    }
    et_sb_add(sb, s + start, n - start);
}

int et_fput_shown(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char esc[5];
    size_t used, start = 0;
    for (size_t i = 0; i < n; i += used) {
        size_t e = step(p + i, n - i, esc, &used);
        if (e) {
            if (fwrite(s + start, 1, i - start, out) != i - start || fwrite(esc, 1, e, out) != e)
                return EOF;
            start = i + used;
        }
    }
    return fwrite(s + start, 1, n - start, out) == n - start ? 0 : EOF;
}

size_t et_shown_copy(char *dst, size_t cap, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    char esc[5];
    size_t used, o = 0;
    for (size_t i = 0; i < n; i += used) {
        size_t e = step(p + i, n - i, esc, &used);
        const char *src = e ? esc : s + i;
        size_t len = e ? e : used;
        if (o + len >= cap)
            break;
        memcpy(dst + o, src, len);
        o += len;
    }
    dst[o] = '\0';
    return o;
}
