/*
 * memsummary.h - the memory an inspector's blocks allocate, per allocator
 * (allocation events, spec §2.4; not in the reference): the rows, and the
 * --memory table.
 */
#ifndef ET_MEMSUMMARY_H
#define ET_MEMSUMMARY_H

#include <stdint.h>

#include "base/error.h"
#include "output/frame.h"
#include "model/model.h"

/* Memory of one block over its runs, per allocator (allocation events,
 * spec §2.4; not in the reference). */
typedef struct et_memory_row {
    int32_t allocator_id;   /* as the events give it (1-based into the allocators) */
    et_str allocator;       /* its name, or {NULL, 0} when the block's allocators
                               do not name it */
    uint64_t allocations;   /* allocation events, over all runs */
    uint64_t bytes;         /* their sizes added up (bytes), over all runs */
    uint64_t largest;       /* the largest single allocation (bytes) */
} et_memory_row;

/* The memory rows of `blk`: one per allocator id that has allocations, in
 * ascending id order.  Stores a malloc'd array in *rows (NULL when there
 * are none) and returns their number, or -1 out of memory. */
long et_block_memory_summary(const et_block *blk, et_memory_row **rows);

/* The --memory table: columns event_block_name, allocator_id, allocator,
 * runs, allocations, bytes, bytes_per_run (INT: bytes / runs rounded to
 * the byte, half up), largest (bytes are integers throughout);
 * one row per block and allocator (et_block_memory_summary).  Returns NULL
 * with `err` set (ET_ERR_NOMEM) on failure. */
et_frame *et_report_memory_frame(const et_inspector *insp, et_error *err);

#endif
