/*
 * bigalloc.h - large zeroed allocations on huge pages.
 *
 * From ET_BIG_ALLOC_MIN bytes on, an allocation is an anonymous private
 * mapping of its own advised MADV_HUGEPAGE: tens of MB of new memory in
 * 4 KiB pages cost more in page faults than filling them, and a mapping is
 * given back to the system whole when it is freed.  Smaller allocations,
 * a system without MADV_HUGEPAGE and a refused mapping use calloc.  Used
 * by the model's sample arena and pass 1's ticks (model/builder.c) and the
 * raw-event frame's columns (table/fromrun.c).
 *
 * Memory from a mapping is outside ASan's view (no redzones); fixture-size
 * inputs stay under the threshold.
 */
#ifndef ET_BIGALLOC_H
#define ET_BIGALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* The size from which et_big_alloc maps (4 MiB). */
#define ET_BIG_ALLOC_MIN ((size_t)4 << 20)

/* `bytes` zeroed bytes (at least 1 allocated when bytes is 0); *mapped
 * tells et_big_free how they were obtained.  NULL when out of memory. */
void *et_big_alloc(size_t bytes, bool *mapped);

/* Free what et_big_alloc gave, with the same `bytes` and `mapped`.  NULL
 * is accepted. */
void et_big_free(void *p, size_t bytes, bool mapped);

#endif
