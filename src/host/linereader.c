/*
 * linereader.c - lines of input that is not a terminal (linereader.h).
 *
 * A buffer of at most r->max + 2 bytes (r->max is ET_LINE_MAX, 1 MiB: a
 * longest line, its newline, and room for the terminating NUL) is filled
 * in reads of up to 64 KiB.  A line is returned in place; what follows it stays in
 * the buffer and moves to its front before the next read.  A line that
 * fills the buffer without a newline is over-long, and reading stops
 * there: bounded memory and bounded work for any input.
 */
#include "linereader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK ((size_t)64 << 10)

void et_linereader_init(et_linereader *r, et_line_read_fn read, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->read = read;
    r->ctx = ctx;
    r->max = ET_LINE_MAX;
}

void et_linereader_free(et_linereader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = r->start = r->end = 0;
}

ssize_t et_line_read_fd(void *ctx, char *buf, size_t n)
{
    return read(*(const int *)ctx, buf, n);
}

/* Refuse the reading from here on with status `s`. */
static et_line_status stop(et_linereader *r, et_line_status s)
{
    r->failed = 1;
    return s;
}

et_line_status et_linereader_next(et_linereader *r, char **line, size_t *len)
{
    if (r->failed)
        return ET_LINE_END;
    for (;;) {
        size_t have = r->end - r->start;
        char *p = r->buf ? r->buf + r->start : NULL;
        char *nl = have > r->scanned ? memchr(p + r->scanned, '\n', have - r->scanned) : NULL;
        r->scanned = have;
        if (nl || (r->eof && have > 0)) {
            size_t n = nl ? (size_t)(nl - p) : have;
            r->line_no++;
            if (n > r->max)
                return stop(r, ET_LINE_TOO_LONG);
            char *z = memchr(p, '\0', n);
            if (z) {
                r->nul_at = (size_t)(z - p);
                return stop(r, ET_LINE_NUL);
            }
            p[n] = '\0'; /* the newline's place, or the room kept after the end */
            r->start += n + (nl != NULL);
            r->scanned = 0;
            *line = p;
            *len = n;
            return ET_LINE_OK;
        }
        if (r->eof)
            return ET_LINE_END;
        if (have > r->max) { /* a longest line and one byte more, no newline */
            r->line_no++;
            return stop(r, ET_LINE_TOO_LONG);
        }
        if (r->start > 0 && p) { /* what is left of the buffer to its front */
            memmove(r->buf, p, have);
            r->start = 0;
            r->end = have;
        }
        if (r->cap - r->end < 2 && r->cap < r->max + 2) { /* room for a byte and the NUL */
            size_t cap = r->cap ? r->cap * 2 : CHUNK;
            if (cap > r->max + 2)
                cap = r->max + 2;
            char *b = realloc(r->buf, cap);
            if (!b) {
                r->error = ENOMEM;
                return stop(r, ET_LINE_ERROR);
            }
            r->buf = b;
            r->cap = cap;
        }
        size_t room = r->cap - r->end - 1; /* one byte kept for the NUL */
        ssize_t got = r->read(r->ctx, r->buf + r->end, room < CHUNK ? room : CHUNK);
        if (got < 0) {
            if (errno == EINTR)
                return ET_LINE_INTERRUPTED;
            r->error = errno;
            return stop(r, ET_LINE_ERROR);
        }
        if (got == 0)
            r->eof = 1;
        r->end += (size_t)got;
    }
}
