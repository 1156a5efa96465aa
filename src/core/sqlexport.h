/*
 * sqlexport.h - an inspector exported to an SQLite database (libsqlite3),
 * for SQL queries, joins of several dumps and BI tools.  Schema
 * (docs/sqlite-schema.md):
 *
 *   dumps(dump TEXT PRIMARY KEY, etdump_path, source_time_scale,
 *         target_time_scale, etrecord_path, created)
 *   blocks(dump, block_index, name, num_runs, bundled_input_index,
 *          etrecord_method)
 *   events(dump, block_index, event_index, name, instruction_id,
 *          delegate_debug_identifier, is_delegated_op, delegate_backend_name,
 *          op_types (JSON text), debug_handles (JSON text), num_samples,
 *          p10, p50, p90, avg, min, max, total)        -- target time unit
 *   samples(dump, block_index, event_index, run, run_data_index,
 *           duration, start_time)                       -- one per run
 *   allocations(dump, block_index, run, seq, allocator_id, allocator,
 *           allocation_size)
 * plus indexes on (dump, block_index, event_index) and views
 * top_operators(dump, name, events, total).
 *
 * Each row carries `dump`, a name for the file (default: its base name),
 * so several dumps live in one database.
 */
#ifndef ET_SQLEXPORT_H
#define ET_SQLEXPORT_H

#include <stdbool.h>

#include "error.h"
#include "model.h"

/* Export `insp` into the SQLite database at `path`, under the dump name
 * `dump` (NULL: the base name of the ETDump's path).  The database is
 * written to a temporary file beside `path` and renamed over it, so a
 * failure leaves the original untouched; when `path` exists and is an
 * etinspect database, its rows are kept (the temporary file starts as a
 * copy) and the dump is added, replacing the rows of a dump of the same
 * name.  Returns 0, or -1 with `err` set: ET_ERR_IO (cannot create or
 * rename, "PATH: not an etinspect database: ..."), ET_ERR_VALUE (sqlite
 * errors, with sqlite's message), ET_ERR_NOMEM. */
int et_sqlite_export(const et_inspector *insp, const char *path, const char *dump,
                     et_error *err);

#endif
