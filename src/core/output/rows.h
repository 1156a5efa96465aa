/*
 * rows.h - the Inspector's tabular views of an inspector (spec §6.1-§6.3):
 * the rows of Inspector.to_dataframe(), the filtered frame that
 * print_data_tabular() and save_data_to_tsv() show, and the reprs of an
 * event's ETRecord linkage (op_types, stack_traces, module_hierarchy) in
 * them.
 */
#ifndef ET_ROWS_H
#define ET_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Write et_report_frame(insp, include_units, for_display) to `out` as
 * et_frame_write_tsv does (spec §6.4), byte for byte, without holding
 * every row at once: the rows are built and written a few thousand at a
 * time, whole blocks each (docs/performance.md, "Memory").  `drop_pages`:
 * after each part, give back the resident pages of the mapped ETDump that
 * its names were read from (et_map_drop_pages), for a one-shot caller (the
 * command line) - not for an inspector opened with keep_pages.  Returns 0,
 * or -1 with `err` set: ET_ERR_NOMEM, or ET_ERR_IO "write failed" when a
 * write or flush to `out` failed. */
int et_report_write_tsv(const et_inspector *insp, bool include_units, bool for_display,
                        bool drop_pages, FILE *out, et_error *err);

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

/* The operator graph's name of node `nd`, as the Inspector's linkage shows
 * it (the keys of stack_traces and module_hierarchy): its name and "_"
 * (spec §5.5), in a new NUL-terminated string (free it), or NULL out of
 * memory. */
char *et_report_node_key(const et_graph_node *nd);

#endif
