/*
 * fromrun.h - the raw-event columns: one row per raw Event of every
 * RunData of an inspector's ETDump (spec §2.3-§2.4, §3.1), decoded in C
 * into the Frame engine's typed columns (table/column.h), for
 * insp:raw_frame() (docs/lua-api.md, "Raw events as a Frame").  No call
 * out of C per event; the strings (event names, delegate string
 * identifiers, the kind names) are interned once each into one string pool
 * shared by the string columns.  The columns own their storage: they do
 * not refer to the dump or the model once built.
 *
 * Columns, in this order (row i = event i of its run, runs in file order;
 * "absent" is a cell of the column's validity mask set to 0, Lua's nil):
 *   run             I64  1-based RunData index (run.index)
 *   block           I64  1-based EventBlock index of the block the run was
 *                        merged into (spec §3.5); absent when no block
 *                        holds the run (a run without events)
 *   name            STR  the event's name as written; absent when it has
 *                        none (allocation and empty events, delegated
 *                        events named by their identifier)
 *   kind            STR  "profile", "debug", "allocation" or "empty"
 *   start_time      I64  raw ticks; profile events only, else absent
 *   end_time        I64  raw ticks; profile events only, else absent
 *   duration        F64  in the inspector's target time scale, as the model
 *                        converts it (spec §3.7-§3.8: the 32-bit wrap-around
 *                        corrected, a delegated event's timestamps converted
 *                        then subtracted) with the default conversion (a
 *                        delegate time-scale converter ran while the model
 *                        was built and is not called again); NaN for every
 *                        event but a profile event
 *   instruction_id  I64  as written (-1: unset by the writer); profile and
 *                        debug events, else absent
 *   chain_index     I64  ProfileEvent's int32 or DebugEvent's uint64 as
 *                        int64 (past INT64_MAX it wraps, as run:events()
 *                        gives it); profile and debug events, else absent
 *   delegate_debug_id_int  I64  absent when -1 or not a profile/debug event
 *   delegate_debug_id_str  STR  absent when the event has none
 */
#ifndef ET_TABLE_FROMRUN_H
#define ET_TABLE_FROMRUN_H

#include <stddef.h>

#include "base/error.h"
#include "table/column.h"

struct et_inspector; /* model/model.h */

enum {
    ET_RAW_RUN = 0,
    ET_RAW_BLOCK,
    ET_RAW_NAME,
    ET_RAW_KIND,
    ET_RAW_START,
    ET_RAW_END,
    ET_RAW_DURATION,
    ET_RAW_INSTRUCTION,
    ET_RAW_CHAIN,
    ET_RAW_DID_INT,
    ET_RAW_DID_STR,
    ET_RAW_NCOLS
};

/* The columns' names, in the order above ("run", "block", "name", "kind",
 * "start_time", "end_time", "duration", "instruction_id", "chain_index",
 * "delegate_debug_id_int", "delegate_debug_id_str"). */
extern const char *const et_raw_column_names[ET_RAW_NCOLS];

typedef struct et_rawtable {
    size_t n;                          /* rows */
    et_column *cols[ET_RAW_NCOLS];     /* one reference each, the caller's */
    et_strpool *pool;                  /* the string columns' pool (one reference) */
} et_rawtable;

/* Fill `t` from `insp`, whose event blocks must be built (the block column
 * reads blk->runs: et_inspector_ready_blocks, which leaves the samples and
 * statistics pending, suffices) and whose ETDump's runs are verified (an
 * opened inspector's are).  Columns of 4 MiB and more live in mappings of
 * their own (huge pages), owned by the columns (et_col_borrow).  A legacy profiler dump has no raw runs: zero
 * rows.  Returns 0, or -1 with `err` set (ET_ERR_NOMEM; `t` is then
 * empty).  Free with et_rawtable_free (or take the references). */
int et_rawtable_build(const struct et_inspector *insp, et_rawtable *t, et_error *err);

/* Release the columns and pool still held by `t` (NULL entries are
 * skipped) and empty it; a zeroed table is accepted. */
void et_rawtable_free(et_rawtable *t);

#endif
