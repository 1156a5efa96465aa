/* bigalloc.c - see bigalloc.h. */
#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
#include "base/bigalloc.h"

#include <stdlib.h>
#include <sys/mman.h>

void *et_big_alloc(size_t bytes, bool *mapped)
{
    *mapped = false;
#if defined(MADV_HUGEPAGE)
    if (bytes >= ET_BIG_ALLOC_MIN) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            madvise(p, bytes, MADV_HUGEPAGE);
            *mapped = true;
            return p;
        }
    }
#endif
    return calloc(bytes ? bytes : 1, 1);
}

void et_big_free(void *p, size_t bytes, bool mapped)
{
    if (mapped)
        munmap(p, bytes);
    else
        free(p);
}
