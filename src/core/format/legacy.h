/*
 * legacy.h - the legacy profiler's dumps (prof_result_t blocks, spec §9),
 * read and post-processed as ExecuTorch's parse_profiler_results.py does.
 *
 * A dump is a sequence of blocks, each laid out as (all sizes in bytes,
 * every struct 8-byte aligned, in the device's byte order):
 *
 *   prof_header_t      64   name[32], prof_ver (1), max_prof_entries,
 *                           prof_entries, max_allocator_entries,
 *                           allocator_entries, max_mem_prof_entries,
 *                           mem_prof_entries (uint32 each), 4 padding
 *   prof_event_t       56   x max_prof_entries: name[32], int32 chain_idx,
 *                           uint32 instruction_idx, uint64 start_time,
 *                           uint64 end_time
 *   prof_allocator_t   40   x max_allocator_entries: name[32],
 *                           uint64 allocator_id
 *   mem_prof_event_t    8   x max_mem_prof_entries: uint32 allocator_id,
 *                           uint32 allocation_size
 *
 * Only the first prof_entries / allocator_entries / mem_prof_entries slots
 * of each region are used.  Names are 32 bytes, NUL-padded, and not
 * NUL-terminated when 32 characters long.  The byte order is the device's:
 * the reader takes the one in which the first block's prof_ver reads 1.
 *
 * Post-processing (spec §9.3): blocks with the same name are iterations of
 * one block (grouped in first-appearance order); their events are matched
 * by position, and must agree in number and names, and their memory events
 * in number, allocator and size.  Times are converted from the dump's time
 * scale to milliseconds (ns, us, ms) or left in cycles, rounded to 4
 * decimals when divided; framework tax and per-allocator memory totals are
 * computed per block.
 *
 * Like the reference, only the entries in use are read: a dump that ends
 * after the last block's entries in use but before the end of its slots is
 * read, with a warning (the block is then the last).  An empty input has
 * no blocks (a warning; the reference prints nothing).
 *
 * Differences from the reference (docs/differences.md): names keep bytes
 * that are not UTF-8 (the reference raises); an allocation whose allocator
 * no table names gets a NULL name and a warning (the reference raises
 * KeyError); a framework tax over a zero execution time is undefined (NaN)
 * with a warning (the reference divides by zero); big-endian dumps are read.
 */
#ifndef ET_LEGACY_H
#define ET_LEGACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/timescale.h"
#include "base/warnings.h"

#define ET_PROF_VER 1u
#define ET_PROF_NAME_MAX_LEN 32u
#define ET_PROF_HEADER_SIZE 64u
#define ET_PROF_EVENT_SIZE 56u
#define ET_PROF_ALLOCATOR_SIZE 40u
#define ET_PROF_ALLOCATION_SIZE 8u

/* One event of a block, over its iterations. */
typedef struct et_legacy_event {
    char *name;             /* NULs removed; NUL-terminated copy */
    size_t name_len;
    int32_t chain_idx;      /* -1: outside any chain (first iteration's) */
    uint32_t instruction_idx;
    uint64_t *start_ticks;  /* per iteration, raw */
    uint64_t *end_ticks;    /* per iteration, raw */
    double *ts;             /* per iteration: start in ms (or raw when integral) */
    double *duration;       /* per iteration: end - start in ms (or raw when integral) */
    int64_t *duration_int;  /* per iteration when the dump is integral, else NULL */
} et_legacy_event;

/* One memory event (mem_prof_event_t). */
typedef struct et_legacy_allocation {
    uint32_t allocator_id;
    uint32_t allocation_size; /* bytes */
    size_t mem;               /* index of its allocator in the block's mem[] */
} et_legacy_allocation;

/* Memory of a block: the allocations of its first iteration summed per
 * allocator, in first-seen order. */
typedef struct et_legacy_mem {
    uint64_t allocator_id;
    const char *allocator_name; /* NULL when no allocator table names it */
    uint64_t total;             /* bytes */
} et_legacy_mem;

/* One block: every iteration of one name. */
typedef struct et_legacy_block {
    char *name;               /* NULs removed; NUL-terminated copy */
    size_t name_len;
    size_t n_iterations;
    uint64_t *offset;         /* per iteration: byte offset of its header */
    uint32_t *raw_index;      /* per iteration: its position among the file's blocks */
    size_t n_events;
    et_legacy_event *events;
    size_t n_allocations;     /* of each iteration (they are equal) */
    et_legacy_allocation *allocations; /* the first iteration's */
    size_t n_mem;
    et_legacy_mem *mem;
    /* framework tax (spec §9.3), when the block has a Method::execute event
     * and at least one native_call / delegate_execute event */
    bool has_tax;
    double *exec_time;        /* per iteration (ms or raw) */
    double *kernel_time;      /* per iteration: kernels and delegates */
    int64_t *exec_time_int;   /* the same as integers when integral, else NULL */
    int64_t *kernel_time_int;
    double *tax_percent;      /* per iteration; NaN when exec_time is 0 */
} et_legacy_block;

/* An allocator table entry (the table is global: a later entry with the
 * same id replaces the earlier name, as in the reference). */
typedef struct et_legacy_allocator {
    uint64_t allocator_id;
    char *name;
} et_legacy_allocator;

typedef struct et_legacy {
    et_time_scale time_scale;   /* of the dump's ticks: ns, us, ms or cycles */
    bool integral;              /* ms or cycles: values are integers, not rounded */
    bool big_endian;
    size_t n_raw_blocks;        /* blocks in the file */
    size_t n_blocks;
    et_legacy_block *blocks;
    size_t n_allocators;
    et_legacy_allocator *allocators;
    et_warnings warnings;       /* one sentence each (at most 511 bytes), in order */
} et_legacy;

/* Read and post-process a legacy profiler dump.  `label` names the input
 * in messages (a path); `ts` is the time scale of the dump's ticks (ns, us,
 * ms or cycles).  Errors, with NULL returned and `err` set:
 *   ET_ERR_USAGE   ts is seconds (the legacy tool has no such scale);
 *   ET_ERR_FORMAT  a block truncated (its header, or its entries in use,
 *                  past the end); prof_ver other than 1; an entry count above
 *                  its maximum; iterations of one block that differ in
 *                  their events or memory events (the reference's
 *                  ValueError meanings); a duration or sum beyond 64 bits;
 *                  every message names the label, the block's byte offset
 *                  and the field;
 *   ET_ERR_NOMEM   out of memory. */
et_legacy *et_legacy_read(const uint8_t *data, size_t size, const char *label, et_time_scale ts,
                          et_error *err);

/* Free a legacy dump and everything it owns; NULL is accepted. */
void et_legacy_free(et_legacy *lg);

#endif
