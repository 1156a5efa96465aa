/*
 * report.h - the Inspector's tabular views of an inspector (spec §6.1-§6.4)
 * and its JSON export.
 *
 * These are the C versions of Inspector.to_dataframe(), the filtered frame
 * that print_data_tabular() and save_data_to_tsv() show, and etinspect's
 * --json document.
 */
#ifndef ET_REPORT_H
#define ET_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "frame.h"
#include "model.h"

/* Columns of Inspector.to_dataframe() (spec §6.1-§6.2) with units
 * " (ms)" etc. when include_units, one row per event of every block.
 * When `for_display`, the columns raw, delegate_debug_identifier,
 * stack_traces, module_hierarchy and debug_data are left out and rows whose
 * event name contains "OPERATOR_CALL" are dropped (spec §6.3), as
 * print_data_tabular() and save_data_to_tsv() do.
 * Cells: statistics FLOAT in target units (None for an event without perf
 * data: the reference builds one DataFrame per event, so these stay None
 * through pd.concat), lists as Python str().
 * Returns NULL with `err` set (ET_ERR_NOMEM) on failure. */
et_frame *et_report_frame(const et_inspector *insp, bool include_units, bool for_display,
                          et_error *err);

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

/* Write the --json document: inputs, the dump's runs, warnings, and every
 * block and event with all fields, named as the reference's attributes
 * (`_instruction_id`, `raw_delegate_debug_metadatas_hex` ...); numbers as
 * Python repr(); raw delegate metadata as lowercase hex; debug values as
 * raw descriptions (kind, scalar type, shape, strides, offset).  See
 * docs/json-format.md.  Returns 0, or -1 on a write error. */
int et_report_write_json(const et_inspector *insp, FILE *out);

/* For an inspector opened on a legacy profiler dump (insp->legacy): print
 * the legacy parser's three kinds of tables in PrettyTable's layout (spec
 * §9.3) - per block, its events with one column per iteration (titled with
 * the block's name; Frame always None); per block that has one, its
 * framework tax ("NAME framework tax calculations"); per block, its memory
 * per allocator.  Durations in ms (integers for ms and cycles dumps).
 * Each block's table has as many iteration columns as that block has
 * iterations (the reference reuses the largest count so far and fails).
 * Returns 0, or -1 on a write error or out of memory (or no legacy dump). */
int et_report_write_legacy_tables(const et_inspector *insp, FILE *out);

/* The --json document of a legacy profiler dump: inputs (path, size, byte
 * order, blocks in the file, time scale, unit), warnings, and per block its
 * iterations' header offsets, events (name, chain_idx, instruction_idx, ts
 * and duration per iteration as the legacy parser gives them, raw
 * start_time and end_time ticks), framework_tax (or null), memory per
 * allocator and the raw allocations.  See docs/json-format.md.  Returns 0,
 * or -1 on a write error (or no legacy dump). */
int et_report_write_legacy_json(const et_inspector *insp, FILE *out);

#endif
