/*
 * fromrun.h - the raw-event table: one row per raw Event of every RunData
 * of an inspector's ETDump (spec §2.3-§2.4, §3.1), decoded in C into typed
 * column arrays, for insp:raw_frame() (docs/lua-api.md, "Raw events as a
 * Frame").  No per-event call out of C; the event names and delegate
 * string identifiers are interned once into one dictionary whose entries
 * point into the mapped dump (no copies: the table is valid while the
 * inspector is open).
 *
 * Columns (row i = event i of its run, runs in file order):
 *   run             1-based RunData index (run.index)
 *   block           1-based EventBlock index of the block the run was
 *                   merged into (spec §3.5); 0 when none holds it (a run
 *                   without events)
 *   name            dictionary id (0: absent; allocation events have none)
 *   kind            et_event_kind: 0 empty, 1 profile, 2 debug, 3 allocation
 *   start_time, end_time   raw ticks (valid for profile events only)
 *   duration        in the inspector's target time scale, as the model
 *                   converts it (spec §3.7-§3.8; the 32-bit wrap-around
 *                   corrected, delegated events converted then subtracted)
 *                   with the default conversion: a delegate time-scale
 *                   converter given to the Inspector is not called again
 *                   here (it ran while the model was built); NaN for every
 *                   event but a profile event
 *   instruction_id  as written (-1: unset by the writer); valid for profile
 *                   and debug events
 *   chain_index     ProfileEvent's int32 or DebugEvent's uint64 as int64
 *                   (a value past INT64_MAX wraps, as run:events() gives
 *                   it); valid for profile and debug events
 *   delegate_debug_id_int   valid when not -1 (profile and debug events)
 *   delegate_debug_id_str   dictionary id (0: absent or empty)
 * "Valid": the cell is missing otherwise (the valid_* byte arrays, 1 per
 * valid row).
 */
#ifndef ET_TABLE_FROMRUN_H
#define ET_TABLE_FROMRUN_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/model.h"

typedef struct et_rawtable {
    size_t n; /* rows */
    int64_t *run, *block;
    uint32_t *name;
    uint8_t *kind;
    int64_t *start_time, *end_time;
    double *duration;
    int64_t *instruction_id, *chain_index, *delegate_debug_id_int;
    uint32_t *delegate_debug_id_str;
    uint8_t *valid_ticks; /* start_time, end_time: profile events */
    uint8_t *valid_ids;   /* instruction_id, chain_index: profile and debug */
    uint8_t *valid_did;   /* delegate_debug_id_int */
    /* the dictionary: id k (1-based) is strings[k - 1], bytes in the dump */
    size_t n_strings;
    et_str *strings;
} et_rawtable;

/* The kind names, by et_event_kind: "empty", "profile", "debug",
 * "allocation". */
extern const char *const et_rawtable_kind_names[4];

/* Fill `t` from `insp`, whose model must be built (et_inspector_ready: the
 * block column reads blk->runs) and whose ETDump's runs are verified (an
 * opened inspector's are).  A legacy profiler dump has no raw runs: an
 * empty table.  Returns 0, or -1 with `err` set (ET_ERR_NOMEM; `t` is then
 * empty).  Free with et_rawtable_free. */
int et_rawtable_build(const et_inspector *insp, et_rawtable *t, et_error *err);

/* Free what et_rawtable_build allocated and empty `t`; an emptied or
 * zeroed table is accepted. */
void et_rawtable_free(et_rawtable *t);

#endif
