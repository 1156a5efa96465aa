/*
 * test_shown.c - the one escaping for a terminal (base/shown.h): C0
 * controls, DEL and the C1 controls (U+0080-U+009F) escaped as Python's
 * repr() shows them; everything else (UTF-8, bytes of invalid sequences,
 * overlong encodings) as it is; the width, the strbuf, FILE and
 * fixed-buffer forms agree.
 */
#include "base/shown.h"

#include "tap.h"

/* Check every form of s[0..n) against `want`. */
static void check(const char *s, size_t n, const char *want, const char *what)
{
    et_strbuf sb = {0};
    et_sb_add_shown(&sb, s, n);
    is_mem(sb.p ? sb.p : "", sb.n, want, strlen(want), "%s: escaped", what);
    char buf[256];
    size_t len = et_shown_copy(buf, sizeof buf, s, n);
    is_mem(buf, len, want, strlen(want), "%s: the fixed-buffer copy", what);
    char *mem = NULL;
    size_t msize = 0;
    FILE *f = open_memstream(&mem, &msize);
    int rc = f ? et_fput_shown(f, s, n) : -1;
    if (f)
        fclose(f);
    ok(rc == 0 && msize == strlen(want) && memcmp(mem, want, msize) == 0, "%s: the FILE form", what);
    free(mem);
    ok(et_shown_needed(s, n) == (strlen(want) != n || memcmp(want, s, n) != 0), "%s: needed", what);
    et_sb_free(&sb);
}

int main(void)
{
    check("plain ascii", 11, "plain ascii", "printable ASCII");
    check("\x1b]0;title\x07", 10, "\\x1b]0;title\\x07", "OSC: ESC and BEL");
    check("a\nb\tc\rd", 7, "a\\nb\\tc\\rd", "newline, tab, CR");
    check("\x00\x7f", 2, "\\x00\\x7f", "NUL and DEL");
    check("\xc2\x9b" "2J", 4, "\\x9b2J", "U+009B (CSI) in UTF-8");
    check("\xc2\xb5s \xe2\x82\xac", 7, "\xc2\xb5s \xe2\x82\xac", "UTF-8 (µ, €) unchanged");
    check("\x9b\xff\xa0", 3, "\x9b\xff\xa0", "bytes of invalid sequences unchanged (a UTF-8 terminal shows U+FFFD)");
    check("\xc2", 1, "\xc2", "a cut sequence at the end unchanged");
    check("\xe0\x80\x9b", 3, "\xe0\x80\x9b", "an overlong encoding of ESC unchanged (shown as U+FFFD)");
    is_int((long long)et_shown_width("\x1b[2J\xc2\xb5\n", 7), 4 + 3 + 1 + 2, "width: \\x1b + [2J + µ + \\n");
    is_int((long long)et_shown_width("\xc2\x9b", 2), 4, "width: U+009B shows as 4");
    char small[8];
    size_t n = et_shown_copy(small, sizeof small, "ab\x1b\x1b", 4);
    ok(n == 6 && strcmp(small, "ab\\x1b") == 0, "a copy that does not fit is cut at an escape's boundary (%s)", small);
    return done_testing();
}
