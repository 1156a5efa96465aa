/*
 * linereader.h - lines of input that is not a terminal, read with a
 * bound (see linereader.c).
 *
 * The REPL reads a pipe or a file through this, never through libedit:
 * libedit's readline() corrupted the heap on a line holding a NUL byte and
 * grew without bound on `-i < /dev/zero`.  A line is at most ET_LINE_MAX
 * bytes (without its newline) and holds no NUL byte; bytes are passed on
 * as they are (UTF-8 or not).
 */
#ifndef ET_LINEREADER_H
#define ET_LINEREADER_H

#include <stddef.h>
#include <sys/types.h>

/* The longest line, in bytes, without its newline: 1 MiB. */
#define ET_LINE_MAX ((size_t)1 << 20)

/* Reads up to `n` bytes into `buf`: the count, 0 at the end of input,
 * -1 with errno set on an error (EINTR: interrupted, retried by nobody). */
typedef ssize_t (*et_line_read_fn)(void *ctx, char *buf, size_t n);

typedef enum {
    ET_LINE_OK,          /* a line */
    ET_LINE_END,         /* the end of input (after the last line) */
    ET_LINE_NUL,         /* the line holds a NUL byte (at r->nul_at) */
    ET_LINE_TOO_LONG,    /* the line is longer than ET_LINE_MAX */
    ET_LINE_ERROR,       /* the read failed (r->error: errno) */
    ET_LINE_INTERRUPTED, /* the read was interrupted (EINTR); nothing is lost:
                          * the next call goes on */
} et_line_status;

typedef struct {
    et_line_read_fn read;
    void *ctx;
    char *buf;          /* buf[start .. end): read, not yet returned */
    size_t cap, start, end;
    size_t max;         /* the longest line: ET_LINE_MAX (a test may lower it
                         * after et_linereader_init, to reach the limit sooner) */
    size_t scanned;     /* buf[start .. start + scanned) holds no newline */
    size_t line_no;     /* lines returned or refused so far (1-based: the
                         * last one's number) */
    size_t nul_at;      /* ET_LINE_NUL: the byte offset of the first NUL in the line */
    int error;          /* ET_LINE_ERROR: errno */
    int eof, failed;    /* the input ended; a status ended the reading */
} et_linereader;

/* Start reading lines through `read(ctx, ...)`, at most ET_LINE_MAX
 * bytes each. Allocates nothing yet. */
void et_linereader_init(et_linereader *r, et_line_read_fn read, void *ctx);

/* Free what the reader holds; it may not be used afterwards. */
void et_linereader_free(et_linereader *r);

/* The next line: ET_LINE_OK with *line its bytes (without the newline,
 * NUL-terminated after *len bytes; valid until the next call) and *len its
 * length; a last line without a newline counts.  ET_LINE_NUL,
 * ET_LINE_TOO_LONG and ET_LINE_ERROR end the reading: every later call
 * returns ET_LINE_END (an over-long line or a binary stream has no next
 * line worth finding: /dev/zero has none).  Out of memory is ET_LINE_ERROR
 * with ENOMEM.  The buffer stays within r->max + 2 bytes whatever the
 * input. */
et_line_status et_linereader_next(et_linereader *r, char **line, size_t *len);

/* A read function for et_linereader_init: read(2) on the file descriptor
 * *(int *)ctx. */
ssize_t et_line_read_fd(void *ctx, char *buf, size_t n);

#endif
