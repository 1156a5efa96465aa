/*
 * shown.h - text as a terminal is given it: the one escaping of control
 * characters for everything etinspect writes for a person to read (see
 * shown.c).
 *
 * Names in a dump or an ETRecord are bytes chosen by whoever wrote the
 * file; written raw to a terminal, an escape sequence among them sets the
 * window title, writes the clipboard (OSC 52) or clears the screen.  Every
 * display form - the command line's table and the framed styles (frame.c,
 * frame.lua), tostring of the binding's objects, Graph:print on a
 * terminal, warnings and error messages on standard error, the legacy
 * tables on a terminal - shows them through this escaping; data outputs
 * (TSV, CSV, JSON, SQLite, HTML, the fields read from Lua) keep the bytes
 * as they are.
 *
 * The escapes are Python's repr() of the character: "\n", "\t", "\r", and
 * "\xNN" for the other C0 controls (bytes 0x00-0x1f), DEL (0x7f) and the
 * C1 controls (U+0080-U+009F in UTF-8, "\x9b" for CSI).  Every other byte
 * passes as it is, a byte of an invalid UTF-8 sequence too (a UTF-8
 * terminal shows it as U+FFFD).
 */
#ifndef ET_SHOWN_H
#define ET_SHOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"

/* The length of the UTF-8 sequence at s[0..n) (n > 0) and its code point
 * in *cp, or 0 when none starts there: a lead byte C2-F4 and as many
 * continuation bytes as it announces (overlong 3- and 4-byte forms and
 * surrogates are not told apart).  The one decoding of display widths:
 * this escaping and frame.c's Python string semantics count code points
 * with it, so that their widths agree. */
size_t et_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether s[0..n) holds anything that is escaped. */
bool et_shown_needed(const char *s, size_t n);

/* Python's len() of s[0..n) once escaped: one per code point, one per byte
 * of an invalid UTF-8 sequence, an escape's length for each escaped
 * character ("\n": 2, "\x1b": 4). */
size_t et_shown_width(const char *s, size_t n);

/* Append s[0..n) escaped to sb (strbuf.h: a failure marks sb). */
void et_sb_add_shown(et_strbuf *sb, const char *s, size_t n);

/* Write s[0..n) escaped to `out`; 0, or EOF when a write failed. */
int et_fput_shown(FILE *out, const char *s, size_t n);

/* Copy s[0..n) escaped into dst (cap bytes, cap > 0), cut at an escape's
 * or a UTF-8 sequence's boundary when it does not fit, NUL-terminated;
 * returns the length written.  4 * n + 1 bytes always suffice. */
size_t et_shown_copy(char *dst, size_t cap, const char *s, size_t n);

#endif
