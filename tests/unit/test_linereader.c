/*
 * test_linereader.c - the REPL's reader of input that is not a terminal
 * (src/host/linereader.c, compiled into this test): lines split at '\n'
 * and returned whole whatever the reads' sizes, the 1 MiB limit exactly, a
 * NUL byte named by its line and offset, the end of reading after a
 * refusal, EINTR without loss, a read error, and non-ASCII bytes passed
 * unchanged.
 */
#include <errno.h>

#include "host/linereader.c"
#include "tap.h"

/* A source: `data` served `step` bytes at a time (0: as much as asked);
 * `eintr_every` > 0 makes every so many reads fail with EINTR; `fail_at`
 * > 0 makes the read at that offset fail with EIO. */
typedef struct {
    const char *data;
    size_t size, at, step, reads, eintr_every, fail_at;
} source;

static ssize_t src_read(void *ctx, char *buf, size_t n)
{
    source *s = ctx;
    s->reads++;
    if (s->eintr_every && s->reads % s->eintr_every == 0) {
        errno = EINTR;
        return -1;
    }
    if (s->fail_at && s->at >= s->fail_at) {
        errno = EIO;
        return -1;
    }
    size_t left = s->size - s->at;
    if (s->step && n > s->step)
        n = s->step;
    if (n > left)
        n = left;
    memcpy(buf, s->data + s->at, n);
    s->at += n;
    return (ssize_t)n;
}

/* Read every line of `data` in reads of `step` bytes; the lines joined by
 * "|" into out; returns the final status. */
static et_line_status all_lines(const char *data, size_t size, size_t step, size_t eintr,
                                char *out, size_t cap)
{
    source s = {data, size, 0, step, 0, eintr, 0};
    et_linereader r;
    et_linereader_init(&r, src_read, &s);
    size_t o = 0;
    et_line_status st;
    out[0] = '\0';
    for (;;) {
        char *line;
        size_t len;
        st = et_linereader_next(&r, &line, &len);
        if (st == ET_LINE_INTERRUPTED)
            continue;
        if (st != ET_LINE_OK)
            break;
        if (o + len + 2 < cap) {
            if (o)
                out[o++] = '|';
            memcpy(out + o, line, len);
            o += len;
            out[o] = '\0';
        }
    }
    et_linereader_free(&r);
    return st;
}

int main(void)
{
    char out[256];
    static const char text[] = "a = 1\n\nprint(\"\xc2\xb5s\", #\"\xe9\")\r\nlast";
    for (size_t step = 0; step <= 7; step++) {
        et_line_status st = all_lines(text, sizeof text - 1, step, 0, out, sizeof out);
        ok(st == ET_LINE_END &&
               strcmp(out, "a = 1||print(\"\xc2\xb5s\", #\"\xe9\")\r|last") == 0,
           "reads of %zu bytes: 4 lines, the empty one, bytes unchanged, the last without newline",
           step);
    }
    ok(all_lines(text, sizeof text - 1, 3, 2, out, sizeof out) == ET_LINE_END &&
           strcmp(out, "a = 1||print(\"\xc2\xb5s\", #\"\xe9\")\r|last") == 0,
       "every second read interrupted (EINTR): nothing lost");
    ok(all_lines("", 0, 0, 0, out, sizeof out) == ET_LINE_END && out[0] == '\0',
       "empty input: no line");
    ok(all_lines("\n", 1, 0, 0, out, sizeof out) == ET_LINE_END && out[0] == '\0',
       "one newline: one empty line");

    /* a NUL byte: named, and the reading ends */
    {
        static const char d[] = "ok\nab\0c\nafter\n";
        source s = {d, sizeof d - 1, 0, 0, 0, 0, 0};
        et_linereader r;
        et_linereader_init(&r, src_read, &s);
        char *line;
        size_t len;
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_OK && len == 2, "line 1 before the NUL");
        et_line_status st = et_linereader_next(&r, &line, &len);
        ok(st == ET_LINE_NUL && r.line_no == 2 && r.nul_at == 2, "the NUL: line 2, offset 2 (got %d, %zu, %zu)",
           (int)st, r.line_no, r.nul_at);
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_END, "then the end: no line after it");
        et_linereader_free(&r);
    }
    /* the limit */
    {
        size_t n = ET_LINE_MAX + 2;
        char *big = malloc(n + 8);
        if (!big)
            return 1;
        memset(big, 'x', n + 8);
        big[ET_LINE_MAX] = '\n'; /* a line of exactly ET_LINE_MAX */
        big[ET_LINE_MAX + 1] = 'y';
        source s = {big, ET_LINE_MAX + 2, 0, 0, 0, 0, 0};
        et_linereader r;
        et_linereader_init(&r, src_read, &s);
        char *line;
        size_t len;
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_OK && len == ET_LINE_MAX &&
               line[len] == '\0',
           "a line of exactly ET_LINE_MAX bytes is read");
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_OK && len == 1 && line[0] == 'y',
           "the next line after it");
        ok(r.cap <= ET_LINE_MAX + 2, "the buffer stays within ET_LINE_MAX + 2 bytes (%zu)", r.cap);
        et_linereader_free(&r);

        memset(big, 'x', n + 8);
        source s2 = {big, n + 8, 0, 1000, 0, 0, 0};
        et_linereader_init(&r, src_read, &s2);
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_TOO_LONG && r.line_no == 1,
           "ET_LINE_MAX + 1 bytes without a newline: too long, line 1");
        ok(s2.at <= ET_LINE_MAX + 1, "read no further than the limit (%zu bytes read)", s2.at);
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_END, "then the end");
        et_linereader_free(&r);

        big[ET_LINE_MAX + 1] = '\n'; /* one byte over, newline right after */
        source s3 = {big, ET_LINE_MAX + 2, 0, 0, 0, 0, 0};
        et_linereader_init(&r, src_read, &s3);
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_TOO_LONG, "ET_LINE_MAX + 1 bytes and a newline: too long");
        et_linereader_free(&r);
        free(big);
    }
    /* a read error */
    {
        static const char d[] = "one\ntwo";
        source s = {d, sizeof d - 1, 0, 4, 0, 0, 4};
        et_linereader r;
        et_linereader_init(&r, src_read, &s);
        char *line;
        size_t len;
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_OK && strcmp(line, "one") == 0, "a line before the error");
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_ERROR && r.error == EIO, "the read error: EIO");
        ok(et_linereader_next(&r, &line, &len) == ET_LINE_END, "then the end");
        et_linereader_free(&r);
    }
    return done_testing();
}
