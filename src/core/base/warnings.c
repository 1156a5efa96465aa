/* warnings.c - a list of warnings; see warnings.h. */
#include "base/warnings.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for one more item in w->items (doubling).  Returns 0, or -1 out of
 * memory (the list unchanged). */
static int reserve_one(et_warnings *w)
{
    if (w->n < w->cap)
        return 0;
    if (w->cap > SIZE_MAX / sizeof *w->items / 2)
        return -1;
    size_t cap = w->cap ? w->cap * 2 : 8;
    char **items = realloc(w->items, cap * sizeof *items);
    if (!items)
        return -1;
    w->items = items;
    w->cap = cap;
    return 0;
}

int et_warnings_vaddn(et_warnings *w, size_t max, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int len = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (len < 0)
        return -1;
    size_t n = (size_t)len < max ? (size_t)len : max;
    if (reserve_one(w) != 0)
        return -1;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return -1;
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    if (n < (size_t)len) {
        s[n] = 0;
        char *t = realloc(s, n + 1);
        s = t ? t : s;
    }
    w->items[w->n++] = s;
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

/* ---- et_warnings_add_once's index ------------------------------------- */

/* FNV-1a, 64 bits (folded to size_t). */
static size_t hash_str(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    }
    return (size_t)(h ^ (h >> 32));
}

/* Put item `pos` in the index (which has an empty slot). */
static void index_put(size_t *index, size_t cap, const char *item, size_t pos)
{
    size_t mask = cap - 1;
    size_t i = hash_str(item) & mask;
    while (index[i])
        i = (i + 1) & mask;
    index[i] = pos + 1;
}

/* Make the index cover every item with room for one more (at most half
 * full after it).  Returns 0, or -1 out of memory (the index as it was). */
static int index_update(et_warnings *w)
{
    if (w->index && (w->n + 1) <= w->index_cap / 2) {
        for (; w->indexed < w->n; w->indexed++)
            index_put(w->index, w->index_cap, w->items[w->indexed], w->indexed);
        return 0;
    }
    size_t cap = 16;
    while (cap / 2 < w->n + 1) {
        if (cap > SIZE_MAX / sizeof *w->index / 2)
            return -1;
        cap *= 2;
    }
    size_t *index = calloc(cap, sizeof *index);
    if (!index)
        return -1;
    for (size_t k = 0; k < w->n; k++)
        index_put(index, cap, w->items[k], k);
    free(w->index);
    w->index = index;
    w->index_cap = cap;
    w->indexed = w->n;
    return 0;
}

static void index_drop(et_warnings *w)
{
    free(w->index);
    w->index = NULL;
    w->index_cap = w->indexed = 0;
}

int et_warnings_add_once(et_warnings *w, const char *msg)
{
    if (index_update(w) != 0)
        return -1;
    size_t mask = w->index_cap - 1;
    size_t i = hash_str(msg) & mask;
    for (; w->index[i]; i = (i + 1) & mask)
        if (strcmp(w->items[w->index[i] - 1], msg) == 0)
            return 0;
    if (reserve_one(w) != 0)
        return -1;
    char *s = strdup(msg);
    if (!s)
        return -1;
    w->index[i] = w->n + 1;
    w->items[w->n++] = s;
    w->indexed = w->n;
    return 1;
}

void et_warnings_truncate(et_warnings *w, size_t n)
{
    if (w->n <= n)
        return;
    if (w->index && n < w->indexed)
        index_drop(w); /* it names items that go: made anew when needed */
    while (w->n > n)
        free(w->items[--w->n]);
}

void et_warnings_free(et_warnings *w)
{
    if (!w)
        return;
    et_warnings_truncate(w, 0);
    index_drop(w);
    free(w->items);
    w->items = NULL;
    w->cap = 0;
}
