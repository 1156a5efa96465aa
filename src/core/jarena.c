/* jarena.c - jansson documents in a bump arena; see jarena.h. */
#include "jarena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct et_jarena_chunk {
    struct et_jarena_chunk *next;
    alignas(max_align_t) char data[];
};

#define CHUNK (1u << 20)
#define ALIGN (alignof(max_align_t))

static et_jarena *active; /* the arena of the parse in progress */

static void *arena_malloc(size_t n)
{
    et_jarena *a = active;
    n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (n == 0)
        n = ALIGN;
    if ((size_t)(a->end - a->cur) < n) {
        size_t size = n > CHUNK / 4 ? n : CHUNK;
        struct et_jarena_chunk *c = malloc(sizeof *c + size);
        if (!c) {
            a->failed = 1;
            return NULL;
        }
        a->bytes += sizeof *c + size;
        c->next = a->chunks;
        a->chunks = c;
        if (n > CHUNK / 4) /* a big block of its own: keep the current chunk's free space */
            return c->data;
        a->cur = c->data;
        a->end = c->data + size;
    }
    void *p = a->cur;
    a->cur += n;
    return p;
}

static void arena_free(void *p)
{
    (void)p; /* everything goes with et_jarena_free */
}

json_t *et_jarena_load(et_jarena *a, const char *text, size_t n, size_t flags, json_error_t *je)
{
    json_malloc_t old_malloc;
    json_free_t old_free;
    json_get_alloc_funcs(&old_malloc, &old_free);
    active = a;
    json_set_alloc_funcs(arena_malloc, arena_free);
    json_t *root = json_loadb(text, n, flags, je);
    json_set_alloc_funcs(old_malloc, old_free);
    active = NULL;
    if (a->failed && root) /* jansson may not notice every failed allocation */
        root = NULL;
    if (!root && a->failed) {
        memset(je, 0, sizeof *je);
        strcpy(je->text, "out of memory");
    }
    return root;
}

void et_jarena_free(et_jarena *a)
{
    for (struct et_jarena_chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    memset(a, 0, sizeof *a);
}
