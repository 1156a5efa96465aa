/* jarena.c - a bump arena; see jarena.h. */
#include "base/jarena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct et_jarena_chunk {
    struct et_jarena_chunk *next;
    alignas(max_align_t) char data[];
};

#define CHUNK ((size_t)64 << 10)
#define ALIGN (alignof(max_align_t))

void *et_jarena_alloc(et_jarena *a, size_t n)
{
    if (n > SIZE_MAX - ALIGN - sizeof(struct et_jarena_chunk)) {
        a->failed = true;
        return NULL;
    }
    n = n ? (n + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN;
    if ((size_t)(a->end - a->cur) >= n) {
        void *p = a->cur;
        a->cur += n;
        return p;
    }
    bool big = n > CHUNK / 4;
    size_t size = big ? n : CHUNK;
    struct et_jarena_chunk *c = malloc(sizeof *c + size);
    if (!c) {
        a->failed = true;
        return NULL;
    }
    a->bytes += sizeof *c + size;
    if (big && a->chunks) { /* below the current chunk: keep its free space */
        c->next = a->chunks->next;
        a->chunks->next = c;
        return c->data;
    }
    c->next = a->chunks;
    a->chunks = c;
    a->cur = c->data + n;
    a->end = c->data + size;
    return c->data;
}

void *et_jarena_array(et_jarena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        a->failed = true;
        return NULL;
    }
    return et_jarena_alloc(a, n * size);
}

char *et_jarena_strndup(et_jarena *a, const char *s, size_t n)
{
    char *p = n < SIZE_MAX ? et_jarena_alloc(a, n + 1) : NULL;
    if (!p) {
        a->failed = true;
        return NULL;
    }
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *et_jarena_strdup(et_jarena *a, const char *s)
{
    return et_jarena_strndup(a, s, strlen(s));
}

void et_jarena_free(et_jarena *a)
{
    for (struct et_jarena_chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    memset(a, 0, sizeof *a);
}
