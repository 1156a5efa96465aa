/*
 * warnings.h - a list of warnings: one sentence each, in the order found.
 *
 * The one warning list of the core: an inspector's (et_inspector.warnings,
 * which the ETRecord linkage appends to as well) and a legacy profiler
 * dump's (et_legacy.warnings).  A zeroed et_warnings is an empty list.
 */
#ifndef ET_WARNINGS_H
#define ET_WARNINGS_H

#include <stdarg.h>
#include <stddef.h>

typedef struct et_warnings {
    size_t n;     /* warnings */
    char **items; /* n NUL-terminated sentences, owned by the list */
} et_warnings;

/* The longest warning et_warnings_add keeps, in bytes (a longer one is
 * clipped to its first ET_WARNING_MAX bytes). */
#define ET_WARNING_MAX 1023

/* Append a warning made from a printf format, clipped to ET_WARNING_MAX
 * bytes.  Returns 0, or -1 out of memory (the warning is lost, the list
 * is as it was). */
int et_warnings_add(et_warnings *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* et_warnings_add with the text clipped to `max` bytes instead (max may
 * exceed ET_WARNING_MAX; SIZE_MAX: not clipped). */
int et_warnings_addn(et_warnings *w, size_t max, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* et_warnings_addn with a va_list (`ap` is consumed as by vsnprintf). */
int et_warnings_vaddn(et_warnings *w, size_t max, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

/* Take back the warnings from index `n` on (freed), keeping the first n;
 * nothing happens when the list has n or fewer. */
void et_warnings_truncate(et_warnings *w, size_t n);

/* Free every warning and the list's array; the list is left empty (it may
 * be used again).  NULL is accepted. */
void et_warnings_free(et_warnings *w);

#endif
