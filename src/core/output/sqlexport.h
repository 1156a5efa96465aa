/*
 * sqlexport.h - inspectors exported to an SQLite database (libsqlite3),
 * for SQL queries, joins of many dumps and BI tools.
 *
 * Schema version 2 (docs/sqlite-schema.md has every column, its unit and
 * example queries).  Times are in the dump's target time scale
 * (dumps.target_time_scale); ticks are raw; sizes in bytes.  Every row
 * carries `dump`, the name the dump was exported under, so many dumps live
 * in one database:
 *
 *   dumps(dump PK, format, etdump_path, etrecord_path, etrecord_method,
 *         source_time_scale, target_time_scale, num_blocks, num_events,
 *         num_samples, num_allocations, warnings (JSON list),
 *         etinspect_version, exported_at, etdump_realpath)
 *   blocks(dump, block_index, name, num_runs, num_events,
 *          bundled_input_index, etrecord_method)     PK (dump, block_index)
 *   events(dump, block_index, event_index, name, node_type, instruction_id,
 *          delegate_debug_identifier, is_delegated_op, delegate_backend_name,
 *          debug_handles (JSON), op_types (JSON list), num_outputs,
 *          num_samples, p10, p50, p90, avg, min, max, total, first_sample)
 *                                        PK (dump, block_index, event_index)
 *   sample_data(id INTEGER PRIMARY KEY, run_data_index, duration,
 *               start_time): the samples of an event are the rows
 *               first_sample .. first_sample + num_samples - 1, run order
 *   view samples(dump, block_index, event_index, run, run_data_index,
 *                duration, start_time): one row per run of an event with
 *                perf data (events joined to their sample_data rows)
 *   allocations(dump, block_index, run, seq, run_data_index, allocator_id,
 *               allocator, allocation_size)  PK (dump, block_index, run, seq)
 *   view top_operators(dump, block_index, block_name, runs, rank, node_type,
 *                      events, time_per_run, pct, cdf_pct, total): per
 *                      block, node types by time per run of the block
 *   indexes events_by_name (dump, name), events_by_node_type
 *           (dump, node_type); trigger events_delete_samples
 *
 * The database is marked with PRAGMA application_id = ET_SQL_APPLICATION_ID
 * and PRAGMA user_version = ET_SQL_SCHEMA_VERSION; only such a database is
 * added to (a version 1 database is migrated), nothing else is ever
 * overwritten.
 *
 * A dump's identity is its ETDump's canonical path (realpath(3),
 * dumps.etdump_realpath): exporting a file again replaces its own rows;
 * another file's dump is never replaced unless asked for by name
 * (et_sqlite_dump_options.replace).
 */
#ifndef ET_SQLEXPORT_H
#define ET_SQLEXPORT_H

#include <stdbool.h>

#include "base/error.h"
#include "model/model.h"

/* PRAGMA application_id of an etinspect database: "ETIN" (1163151694). */
#define ET_SQL_APPLICATION_ID 0x4554494e
/* PRAGMA user_version: the schema version written (databases of a higher
 * version are refused, not downgraded; version 1 is migrated). */
#define ET_SQL_SCHEMA_VERSION 2

/* How one dump is named in the database. */
typedef struct et_sqlite_dump_options {
    /* The dump's name (not empty).  When the database holds a dump of
     * that name from another file (another canonical path, or one not
     * known: a dump migrated from schema 1, bytes given in memory), the
     * export is refused unless `replace`; a dump of that name from the
     * same file is replaced. */
    const char *name;
    bool replace;
    /* With `name` NULL the name is chosen: the first of `preferred` (when
     * not NULL; e.g. the name a set of dumps gives it, dumpset.h), the
     * file name of the ETDump's path as given, then the last 2, 3, ...
     * components of its canonical path ("b/model.etdp") that is free or
     * held by the same file (whose rows are then replaced). */
    const char *preferred;
} et_sqlite_dump_options;

/* An export in progress: dumps added to a copy of the database, renamed
 * over it by et_sqlite_commit. */
typedef struct et_sqlite et_sqlite;

/* Start an export into the SQLite database at `path`.  `inputs` is NULL
 * or a NULL-terminated list of paths that must not be the database (the
 * files being read; each added inspector's ETDump and ETRecord are
 * checked too).
 *
 * Safety: the database is written to a temporary file beside `path`
 * ("PATH.XXXXXX"), synced and renamed over `path` by et_sqlite_commit, so
 * a failure (or a crash) leaves the original untouched and the temporary
 * file is removed.  When `path` exists it must be an etinspect database
 * (application_id above) or an empty file: its contents are copied into
 * the temporary file first (SQLite's backup API).  A `path` that is a
 * symbolic link updates its target.  Refused without writing anything: a
 * `path` that is an input in use (outfile.h: et_outfile_guard), not a
 * regular file, another kind of file or
 * database, a database of a newer schema version, or one with a rollback
 * journal or WAL file beside it (in use, or left by a crash: a stale
 * journal would be replayed onto the new file).  Other processes writing
 * to the database at the same time lose their changes (the file is
 * replaced, not updated in place).  A new database is written without a
 * journal and without syncs until the final one (safe: it is discarded on
 * any failure).
 *
 * Returns 0 with *out set, or -1 with `err` set; every message starts
 * with the path:
 *   ET_ERR_USAGE  an empty path; `path` is an input;
 *   ET_ERR_IO     cannot create or copy; "PATH: not an etinspect database
 *                 (...)"; not a regular file or not writable; a journal
 *                 beside it; a newer schema version; SQLite's I/O errors;
 *   ET_ERR_NOMEM  out of memory. */
int et_sqlite_begin(et_sqlite **out, const char *path, const char *const *inputs,
                    et_error *err);

/* Add the rows of `insp` under the name `o` gives (o NULL: all defaults),
 * in the export's one transaction, replacing the rows of the dump of that
 * name when it is the same file's (or `o->replace`).  After a failure the
 * export can only be aborted.  Returns 0, or -1 with `err` set:
 *   ET_ERR_USAGE  an empty name; the name is another file's dump and not
 *                 `replace` ("PATH: the database has a dump named 'N' from
 *                 another file (F); ..."); every default name taken; a
 *                 name added twice in this export; `path` is an input of
 *                 `insp`;
 *   ET_ERR_IO     SQLite's I/O errors, with its message ("PATH: insert
 *                 into samples: database or disk is full");
 *   ET_ERR_VALUE  other SQLite errors while writing ("PATH: insert into
 *                 samples: <a trigger's message>");
 *   ET_ERR_NOMEM  out of memory. */
int et_sqlite_add(et_sqlite *s, const et_inspector *insp, const et_sqlite_dump_options *o,
                  et_error *err);

/* Commit, sync and rename the database into place; frees `s` whatever the
 * outcome (on failure the temporary file is removed and the database left
 * as it was).  Returns 0, or -1 with `err` set (ET_ERR_IO: "PATH: cannot
 * rename the new database into place: ..."). */
int et_sqlite_commit(et_sqlite *s, et_error *err);

/* Give up: remove the temporary file, free `s` (NULL accepted). */
void et_sqlite_abort(et_sqlite *s);

/* One inspector into the database at `path`: et_sqlite_begin (inputs:
 * its ETDump and ETRecord), et_sqlite_add, et_sqlite_commit.  Returns 0,
 * or -1 with `err` set as they do. */
int et_sqlite_export(const et_inspector *insp, const char *path,
                     const et_sqlite_dump_options *o, et_error *err);

#endif
