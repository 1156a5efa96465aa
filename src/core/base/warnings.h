/*
 * warnings.h - a list of warnings: one sentence each, in the order found.
 *
 * The one warning list of the core: an inspector's (et_inspector.warnings,
 * which the ETRecord linkage appends to as well) and a legacy profiler
 * dump's (et_legacy.warnings) and the Lua binding's (insp.warnings, each
 * message once: et_warnings_add_once).  A zeroed et_warnings is an empty
 * list.
 */
#ifndef ET_WARNINGS_H
#define ET_WARNINGS_H

#include <stdarg.h>
#include <stddef.h>

typedef struct et_warnings {
    size_t n;     /* warnings */
    char **items; /* n NUL-terminated sentences, owned by the list */
    size_t cap;   /* room in items (grown geometrically) */
    /* et_warnings_add_once's index of the items by content: an open-
     * addressing hash table of index_cap slots (a power of two, at most
     * half full), each 0 (empty) or an item's position + 1; it covers
     * items[0 .. indexed).  NULL until et_warnings_add_once needs it;
     * dropped by et_warnings_truncate when items it covers go. */
    size_t *index;
    size_t index_cap;
    size_t indexed;
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

/* Append `msg` (a NUL-terminated string, copied whole: not clipped) unless
 * a warning equal to it is in the list already, however it was added.
 * Returns 1 when it was appended, 0 when it was there (the list is
 * unchanged), or -1 out of memory (the list is as it was).  Average time
 * O(1) (not a scan: a hash index of the items, built at the first call
 * and grown with the list; a list given warnings by the other functions
 * in between is indexed from where it was left). */
int et_warnings_add_once(et_warnings *w, const char *msg);

/* Take back the warnings from index `n` on (freed), keeping the first n;
 * nothing happens when the list has n or fewer. */
void et_warnings_truncate(et_warnings *w, size_t n);

/* Free every warning, the list's array and its index; the list is left empty (it may
 * be used again).  NULL is accepted. */
void et_warnings_free(et_warnings *w);

#endif
