/*
 * jarena.h - a bump arena for what is built from JSON: an ETRecord's maps,
 * a graph's lists, module stacks and generated names.  Nothing is freed
 * one by one; everything goes at once with et_jarena_free.  Small requests
 * share chunks of 64 KiB; a request above 16 KiB gets a chunk of its own
 * (so a chunk wastes at most a quarter of itself).
 */
#ifndef ET_JARENA_H
#define ET_JARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct et_jarena {
    struct et_jarena_chunk *chunks; /* newest first */
    char *cur, *end;                /* free space of the current chunk */
    size_t bytes;                   /* allocated from the system, in all */
    bool failed;                    /* an allocation failed (out of memory or
                                       a size that overflows) */
} et_jarena;

/* n bytes aligned for any object (n == 0: a valid pointer all the same),
 * or NULL with a->failed set.  `a` starts zeroed. */
void *et_jarena_alloc(et_jarena *a, size_t n);

/* An array of n elements of `size` bytes (n * size checked for overflow),
 * or NULL with a->failed set. */
void *et_jarena_array(et_jarena *a, size_t n, size_t size);

/* A NUL-terminated copy of the n bytes at s, or NULL with a->failed set. */
char *et_jarena_strndup(et_jarena *a, const char *s, size_t n);

/* A copy of the string s, or NULL with a->failed set. */
char *et_jarena_strdup(et_jarena *a, const char *s);

/* Free everything allocated in `a` and zero it. */
void et_jarena_free(et_jarena *a);

#endif
