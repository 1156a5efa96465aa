/* warnings.c - a list of warnings; see warnings.h. */
#include "base/warnings.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int et_warnings_vaddn(et_warnings *w, size_t max, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int len = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (len < 0)
        return -1;
    size_t n = (size_t)len < max ? (size_t)len : max;
    if (w->n >= SIZE_MAX / sizeof *w->items - 1)
        return -1;
    char **items = realloc(w->items, (w->n + 1) * sizeof *items);
    if (!items)
        return -1;
    w->items = items;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return -1;
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    if (n < (size_t)len) {
        s[n] = 0;
        char *t = realloc(s, n + 1);
        s = t ? t : s;
    }
    items[w->n++] = s;
    return 0;
}

int et_warnings_addn(et_warnings *w, size_t max, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = et_warnings_vaddn(w, max, fmt, ap);
    va_end(ap);
    return rc;
}

int et_warnings_add(et_warnings *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = et_warnings_vaddn(w, ET_WARNING_MAX, fmt, ap);
    va_end(ap);
    return rc;
}

void et_warnings_truncate(et_warnings *w, size_t n)
{
    while (w->n > n)
        free(w->items[--w->n]);
}

void et_warnings_free(et_warnings *w)
{
    if (!w)
        return;
    et_warnings_truncate(w, 0);
    free(w->items);
    w->items = NULL;
}
