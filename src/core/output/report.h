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

#include "base/error.h"
#include "output/frame.h"
#include "model/model.h"

/* Columns of Inspector.to_dataframe() (spec §6.1-§6.2) with units
 * " (ms)" etc. when include_units, one row per event of every block.
 * When `for_display`, the columns raw, delegate_debug_identifier,
 * stack_traces, module_hierarchy and debug_data are left out and rows whose
 * event name contains "OPERATOR_CALL" are dropped (spec §6.3), as
 * print_data_tabular() and save_data_to_tsv() do.
 * Cells: statistics FLOAT in target units (None for an event without perf
 * data: the reference builds one DataFrame per event, so these stay None
 * through pd.concat), lists as Python str() - except debug_data (not
 * displayed: spec §6.3), whose values the core does not render: one
 * "<value>" per entry of the first run ("[<value>, <value>]"); the Lua
 * frame (report.lua) holds the values themselves.
 * Returns NULL with `err` set (ET_ERR_NOMEM) on failure. */
et_frame *et_report_frame(const et_inspector *insp, bool include_units, bool for_display,
                          et_error *err);

/* ---- The rows of spec §6.1-§6.3, for the command line and the Lua API ----
 *
 * et_report_rows is the one implementation of the reference's
 * Event.to_dataframe, EventBlock.to_dataframe, Inspector.to_dataframe and
 * the filtered frame of print_data_tabular / save_data_to_tsv: which rows,
 * which columns in which order, their names, the None rules, op_types'
 * abbreviation, and the columns include_delegate_debug_data adds (spec
 * §6.2) with pandas' column union and dtypes.  et_report_frame calls it;
 * the Lua binding (src/lua/l_frame.c) calls it for insp:to_dataframe(),
 * blk:to_dataframe(), ev:to_dataframe(), print_data_tabular and
 * save_data_to_tsv. */

/* One value of an event's parsed delegate metadata (a dict entry, or a
 * whole list): the cell it becomes.  TEXT is Python's str() of the value
 * (a list, a dict, a str ...: pandas' object dtype); INT, FLOAT and BOOL
 * are Python int, float and bool.  NONE values are left out. */
typedef struct et_md_value {
    et_cell_kind kind;
    const char *text; /* TEXT: the bytes (copied by et_md_add) */
    size_t len;
    int64_t i;
    double d;
    bool b;
} et_md_value;

/* The parsed metadata of one event, filled by an et_report_md_fn. */
typedef struct et_md_fields et_md_fields;

/* Add `key` (klen bytes) = `v` to `m`, after the keys added before (a
 * dict's order).  A key added twice keeps its first place and its last
 * value.  Returns 0, or -1 out of memory. */
int et_md_add(et_md_fields *m, const char *key, size_t klen, const et_md_value *v);

/* The parsed delegate metadata of event `event` of block `block` (called
 * for delegated events only, once per event and call of et_report_rows):
 * add its fields with et_md_add -- a dict: one per key, in the dict's
 * order; a list: one field "delegate_debug_metadata" holding its str();
 * empty: none -- and return 0.  Return 1 to use the raw metadata instead
 * (as for events that are not delegated), -1 on an error (err set; the
 * rows are not built). */
typedef int (*et_report_md_fn)(void *ctx, size_t block, size_t event, et_md_fields *out,
                               et_error *err);

typedef struct et_report_opts {
    const char *units;    /* suffix of the statistics columns: "" or " (ms)"...;
                             NULL: " (<target time scale>)" */
    bool for_display;     /* spec §6.3: leave out raw, delegate_debug_identifier,
                             stack_traces, module_hierarchy, debug_data and the
                             rows whose event name contains "OPERATOR_CALL" */
    bool block_column;    /* the event_block_name column (Event.to_dataframe: false) */
    long block;           /* only this block (0-based), or -1 for every block
                             (then the blocks' frames are concatenated as
                             Inspector.to_dataframe does) */
    long event;           /* only this event of `block` (0-based), or -1 */
    bool include_delegate_debug_data; /* the metadata columns (spec §6.2) */
    bool no_list_text;    /* leave raw, stack_traces, module_hierarchy, debug_data
                             and start_time NONE, for a caller that fills them
                             with the events' own values (the Lua frames) */
    et_report_md_fn metadata; /* parsed metadata of delegated events; NULL:
                                 the raw metadata everywhere */
    void *ctx;                /* passed to `metadata` */
} et_report_opts;

/* Which event each row of an et_report_rows frame shows. */
typedef struct et_report_rowmap {
    size_t n;        /* rows */
    uint32_t *block; /* n block indices (malloc'd; free them) */
    uint32_t *event; /* n event indices within the block (malloc'd) */
    size_t n_md_columns; /* the last n_md_columns columns are metadata columns */
} et_report_rowmap;

/* The frame of spec §6.1-§6.3 that `o` asks for.  Columns: event_block_name
 * (when o->block_column), event_name, raw, p10..max + units, op_types,
 * delegate_debug_identifier, stack_traces, module_hierarchy,
 * is_delegated_op, delegate_backend_name, debug_data, start_time (the
 * display ones only when o->for_display), then the metadata columns.
 *
 * Metadata (o->include_delegate_debug_data): per event, o->metadata's
 * fields for delegated events when it is set, else the raw metadata: one
 * column "delegate_debug_metadata" holding the list's str() -- Python bytes
 * reprs, `[b'{"op":"conv2d"}', '']` ('' for a run without any), as the
 * reference's flatc-decoded bytes show.  Columns are the union of the
 * fields in first-seen order, per block and then over blocks; a cell an
 * event lacks is NaN; dtypes follow pandas 1.5 (pd.DataFrame of Series per
 * block, then pd.concat): an integer column with a missing cell or next to
 * floats becomes float (3 -> 3.0), booleans with missing cells stay
 * objects.  When `map` is not NULL it receives each row's block and event
 * (free map->block and map->event).  Returns NULL with `err` set
 * (ET_ERR_NOMEM, or what o->metadata set) on failure. */
et_frame *et_report_rows(const et_inspector *insp, const et_report_opts *o,
                         et_report_rowmap *map, et_error *err);

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
