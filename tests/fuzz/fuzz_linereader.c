/*
 * fuzz_linereader.c - libFuzzer target for the REPL's reader of input
 * that is not a terminal (src/host/linereader.c).
 *
 * The input's first byte chooses the reads' sizes (2 to 254 bytes, or as
 * much as asked when 0) and whether every few reads fail with EINTR, its
 * second the longest line (r.max: 1 to 255 bytes, or ET_LINE_MAX when 0,
 * so that the limit is reached by short inputs); the rest is the stream.  Invariants, checked with __builtin_trap(): every
 * line returned is a NUL-terminated piece of the stream without '\n' or
 * NUL, at most r.max bytes; the lines and their newlines rebuild the
 * stream's prefix up to where reading ended; reading ends with the end of
 * the stream, or with a NUL byte (at the offset reported) or an over-long
 * line at the point that follows; after that every call returns
 * ET_LINE_END; the buffer never exceeds r.max + 2 bytes.
 *
 * Seeds: none needed (any bytes); run with scripts/fuzz.sh (make fuzz).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/linereader.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    const uint8_t *data;
    size_t size, at, step, reads, eintr_every;
} source;

static ssize_t src_read(void *ctx, char *buf, size_t n)
{
    source *s = ctx;
    s->reads++;
    if (s->eintr_every && s->reads % s->eintr_every == 0) {
        errno = EINTR;
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

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c))                                                                                  \
            __builtin_trap();                                                                      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    source s = {data + 2, size - 2, 0, data[0] & 0x7f ? (size_t)(data[0] & 0x7f) * 2 : 0, 0,
                data[0] & 0x80 ? 3 : 0};
    et_linereader r;
    et_linereader_init(&r, src_read, &s);
    if (data[1])
        r.max = data[1];
    size_t pos = 0; /* the stream's bytes accounted for by the lines so far */
    et_line_status st;
    for (;;) {
        char *line;
        size_t len;
        st = et_linereader_next(&r, &line, &len);
        CHECK(r.cap <= r.max + 2);
        if (st == ET_LINE_INTERRUPTED)
            continue;
        if (st != ET_LINE_OK)
            break;
        CHECK(len <= r.max && line[len] == '\0');
        CHECK(memchr(line, '\n', len) == NULL && memchr(line, '\0', len) == NULL);
        CHECK(pos + len <= s.size && memcmp(line, s.data + pos, len) == 0);
        pos += len;
        if (pos < s.size) {
            CHECK(s.data[pos] == '\n');
            pos++;
        }
    }
    const uint8_t *rest = s.data + pos;
    size_t left = s.size - pos;
    const uint8_t *nl = memchr(rest, '\n', left);
    size_t this_line = nl ? (size_t)(nl - rest) : left;
    switch (st) {
    case ET_LINE_END:
        CHECK(left == 0);
        break;
    case ET_LINE_NUL:
        CHECK(r.nul_at < this_line && rest[r.nul_at] == '\0' && this_line <= r.max &&
              memchr(rest, '\0', r.nul_at) == NULL);
        break;
    case ET_LINE_TOO_LONG:
        CHECK(this_line > r.max);
        break;
    default:
        CHECK(0); /* no read error, no running out of memory here */
    }
    char *line;
    size_t len;
    CHECK(et_linereader_next(&r, &line, &len) == ET_LINE_END);
    et_linereader_free(&r);
    return 0;
}
