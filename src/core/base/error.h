/*
 * error.h - the error record every fallible core function fills in.
 *
 * Core functions never print and never exit.  A function that fails returns
 * -1 (or NULL) and writes one human-readable sentence into an et_error the
 * caller passed in: what was being read (file, byte offset or field), what
 * was expected and what was found.  The caller decides how to show it.
 */
#ifndef ET_ERROR_H
#define ET_ERROR_H

#include <stddef.h>

/* What kind of failure, so that hosts can map errors to exit codes and
 * Lua error categories (mirroring the reference's exception types). */
typedef enum {
    ET_ERR_NONE = 0,
    ET_ERR_IO,       /* a file could not be opened, mapped, read or written */
    ET_ERR_FORMAT,   /* the input is not what its format requires */
    ET_ERR_VALUE,    /* well-formed input with values the model rejects */
    ET_ERR_USAGE,    /* the caller passed an invalid combination of options */
    ET_ERR_NOMEM     /* out of memory */
} et_error_kind;

typedef struct et_error {
    et_error_kind kind;
    char msg[1024];
} et_error;

/* Set `err` (which may be NULL) to kind and a printf-formatted message.
 * Always returns -1 so that callers can write `return et_fail(...)`. */
int et_fail(et_error *err, et_error_kind kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefix the message already in `err` with "PREFIX: " (e.g. a file name).
 * Returns -1. */
int et_error_prefix(et_error *err, const char *prefix);

/* Write a + sep + b into dst (capacity cap, always NUL-terminated,
 * truncated when too long).  dst may alias b (it is copied first). */
void et_join3(char *dst, size_t cap, const char *a, const char *sep, const char *b);

/* Reset `err` to ET_ERR_NONE with an empty message. */
void et_error_clear(et_error *err);

#endif
