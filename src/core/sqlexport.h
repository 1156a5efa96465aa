/*
 * sqlexport.h - an inspector exported to an SQLite database (libsqlite3),
 * for SQL queries, joins of several dumps and BI tools.
 *
 * Schema version 1 (docs/sqlite-schema.md has every column, its unit and
 * example queries).  Times are in the dump's target time scale
 * (dumps.target_time_scale); ticks are raw; sizes in bytes.  Every row
 * carries `dump`, the name the dump was exported under, so several dumps
 * live in one database:
 *
 *   dumps(dump PK, format, etdump_path, etrecord_path, etrecord_method,
 *         source_time_scale, target_time_scale, num_blocks, num_events,
 *         num_samples, num_allocations, warnings (JSON list),
 *         etinspect_version, exported_at)
 *   blocks(dump, block_index, name, num_runs, num_events,
 *          bundled_input_index, etrecord_method)     PK (dump, block_index)
 *   events(dump, block_index, event_index, name, node_type, instruction_id,
 *          delegate_debug_identifier, is_delegated_op, delegate_backend_name,
 *          debug_handles (JSON), op_types (JSON list), num_outputs,
 *          num_samples, p10, p50, p90, avg, min, max, total)
 *                                        PK (dump, block_index, event_index)
 *   samples(dump, block_index, event_index, run, run_data_index, duration,
 *           start_time)       PK (dump, block_index, event_index, run);
 *                             one row per run of an event with perf data
 *   allocations(dump, block_index, run, seq, run_data_index, allocator_id,
 *               allocator, allocation_size)  PK (dump, block_index, run, seq)
 *   view top_operators(dump, rank, node_type, events, avg, avg_pct, cdf_pct,
 *                      total): scripts/top_ops.lua's summary by node type
 *   indexes events_by_name (dump, name), events_by_node_type
 *           (dump, node_type)
 *
 * The database is marked with PRAGMA application_id = ET_SQL_APPLICATION_ID
 * and PRAGMA user_version = ET_SQL_SCHEMA_VERSION; only such a database is
 * added to, nothing else is ever overwritten.
 */
#ifndef ET_SQLEXPORT_H
#define ET_SQLEXPORT_H

#include <stdbool.h>

#include "error.h"
#include "model.h"

/* PRAGMA application_id of an etinspect database: "ETIN" (1163151694). */
#define ET_SQL_APPLICATION_ID 0x4554494e
/* PRAGMA user_version: the schema version written (databases of a higher
 * version are refused, not downgraded). */
#define ET_SQL_SCHEMA_VERSION 1

/* Export `insp` into the SQLite database at `path`, under the dump name
 * `dump` (NULL: the base name of the ETDump's path; must not be empty).
 *
 * Safety: the database is written to a temporary file beside `path`
 * ("PATH.XXXXXX"), synced and renamed over `path`, so a failure (or a
 * crash) leaves the original untouched and the temporary file is removed.
 * When `path` exists it must be an etinspect database (application_id
 * above) or an empty file: its contents are copied into the temporary
 * file first (SQLite's backup API), the rows of a dump of the same name
 * are deleted and the dump's rows added, in one transaction.  A `path`
 * that is a symbolic link updates its target.  Refused without writing
 * anything: a `path` that is an input in use (outfile.h: et_outfile_guard),
 * not a regular file, another kind of file or database, a database of a
 * newer schema version, or one with a rollback journal or WAL file beside
 * it (in use, or left by a crash: a stale journal would be replayed onto
 * the new file).  Other processes writing to the database at the same
 * time lose their changes (the file is replaced, not updated in place).
 *
 * Returns 0, or -1 with `err` set; every message starts with the path:
 *   ET_ERR_USAGE  an empty dump name; `path` is an input;
 *   ET_ERR_IO     cannot create, copy, sync or rename; "PATH: not an
 *                 etinspect database (...)"; not a regular file or not
 *                 writable; a journal beside it; a newer schema version;
 *                 SQLite's I/O errors, with its message ("PATH: insert into
 *                 samples: database or disk is full");
 *   ET_ERR_VALUE  other SQLite errors while writing, with its message
 *                 ("PATH: insert into samples: <a trigger's message>");
 *   ET_ERR_NOMEM  out of memory. */
int et_sqlite_export(const et_inspector *insp, const char *path, const char *dump,
                     et_error *err);

#endif
