/*
 * jarena.h - parse a JSON document with jansson into an arena.
 *
 * jansson allocates every value, key and string separately; on a 12 MB
 * exported program that is millions of malloc/free calls, and glibc's
 * free lists cost more than the parse.  et_jarena_load runs json_loadb
 * with jansson's allocator pointed at a bump arena; the document is
 * dropped all at once with et_jarena_free (never json_decref it).
 *
 * Not thread-safe: jansson's allocator is process-wide, and it is switched
 * for the length of the parse (then restored).
 */
#ifndef ET_JARENA_H
#define ET_JARENA_H

#include <stddef.h>

#include <jansson.h>

typedef struct et_jarena {
    struct et_jarena_chunk *chunks; /* newest first */
    char *cur, *end;                /* free space of the newest chunk */
    size_t bytes;                   /* allocated from the system, in all */
    int failed;                     /* an allocation failed */
} et_jarena;

/* json_loadb(text, n, flags, je) with every value allocated in `a` (which
 * must start zeroed, or be reused after et_jarena_free).  Returns the
 * document or NULL (je set, as json_loadb sets it; out of memory reads
 * "out of memory").  Free the document only with et_jarena_free. */
json_t *et_jarena_load(et_jarena *a, const char *text, size_t n, size_t flags, json_error_t *je);

/* Free everything allocated in `a` and zero it. */
void et_jarena_free(et_jarena *a);

#endif
