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
 * added to (a version 1 database is migrated), in place and in one
 * transaction (et_sqlite_begin); nothing else is ever written.
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
#include "base/strbuf.h"
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

/* An export in progress: one write transaction on the database, in
 * place. */
typedef struct et_sqlite et_sqlite;

/* Seconds an export waits for another writer to finish (the busy
 * timeout) unless ETINSPECT_SQLITE_TIMEOUT gives another number (seconds,
 * 0 to 86400, fractions allowed). */
#define ET_SQL_BUSY_TIMEOUT 10.0

/* Start an export into the SQLite database at `path`.  `inputs` is NULL
 * or a NULL-terminated list of paths that must not be the database (the
 * files being read; each added inspector's ETDump and ETRecord are
 * checked too).
 *
 * The database is written in place, never copied or replaced: it is
 * opened defensively (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema off, cell
 * size checks on every page read) and the export is one transaction,
 * BEGIN IMMEDIATE here to COMMIT in et_sqlite_commit.  Another writer
 * holding the database is waited for up to the busy timeout (above), and
 * holds off in turn until the export ends: writers serialise, and what
 * another one committed is kept.  Before anything is written, inside the
 * transaction: the file must be an SQLite database marked as etinspect's
 * (application_id; an empty one becomes one) of a schema version this
 * etinspect writes (1 is migrated), PRAGMA quick_check of its schema
 * table and of the tables dumps and blocks (whose size follows the number
 * of dumps, not of samples) must say ok, and every object in it (table,
 * index, view, trigger) must be one etinspect created, as it created it
 * (SQLite's sqlite_stat tables of ANALYZE are accepted too).  A new
 * database (`path` absent, or an empty file) is created in place, in the
 * same transaction; 64 KiB pages.  On any failure the transaction is
 * rolled back (the database is as it was, SQLite removes its journal) and
 * a file this export created is removed.  A `path` that is a symbolic
 * link updates its target.
 *
 * Returns 0 with *out set, or -1 with `err` set; every message starts
 * with the path:
 *   ET_ERR_USAGE  an empty path; `path` is an input; a bad
 *                 ETINSPECT_SQLITE_TIMEOUT;
 *   ET_ERR_IO     "PATH: not an etinspect database (...); refusing to
 *                 write into it"; "PATH: the database is damaged (...)";
 *                 "PATH: the database has a TYPE 'NAME' that etinspect did
 *                 not create ..." or "PATH: its TYPE 'NAME' is not as
 *                 etinspect created it ..."; "PATH: the database is locked
 *                 by another process ..." (busy timeout); a newer schema
 *                 version; not a regular file, not writable, its directory
 *                 not writable (SQLite's journal goes there); cannot
 *                 create; SQLite's I/O errors; interrupted by a signal
 *                 (et_sqlite_interrupt);
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
 *                 into samples: database or disk is full"); a damaged
 *                 page; interrupted by a signal ("PATH: insert into
 *                 samples: interrupted");
 *   ET_ERR_VALUE  other SQLite errors while writing ("PATH: insert into
 *                 samples: <SQLite's message>"; every insert is INSERT OR
 *                 ROLLBACK: the transaction is then rolled back already);
 *   ET_ERR_NOMEM  out of memory. */
int et_sqlite_add(et_sqlite *s, const et_inspector *insp, const et_sqlite_dump_options *o,
                  et_error *err);

/* Commit the transaction (SQLite syncs the database: synchronous =
 * FULL); frees `s` whatever the outcome (on failure the transaction is
 * rolled back and the database left as it was).  Returns 0, or -1 with
 * `err` set (ET_ERR_IO: "PATH: commit: ...", a lock held by a reader past
 * the busy timeout, interrupted). */
int et_sqlite_commit(et_sqlite *s, et_error *err);

/* Give up: roll back, remove the file if this export created it, free `s`
 * (NULL accepted). */
void et_sqlite_abort(et_sqlite *s);

/* For the etinspect program's handler of SIGINT, SIGTERM, ...
 * (src/host/signals.c); async-signal-safe.  While an export is in
 * progress: records `sig`, stops the running SQLite statement
 * (sqlite3_interrupt) and returns 1; the handler then returns instead of
 * dying, the export fails ("interrupted"), rolls back, removes a file it
 * created, closes the database and calls die(sig), which must end the
 * process.  Returns 0 (the caller dies at once) when no export is in
 * progress or a signal is already pending (a second signal). */
int et_sqlite_interrupt(int sig, void (*die)(int));

/* One inspector into the database at `path`: et_sqlite_begin (inputs:
 * its ETDump and ETRecord), et_sqlite_add, et_sqlite_commit.  Returns 0,
 * or -1 with `err` set as they do. */
int et_sqlite_export(const et_inspector *insp, const char *path,
                     const et_sqlite_dump_options *o, et_error *err);

/* Cells of the export, shared with the Parquet export (parquet.h), each
 * appended to (or, for the last three, written into a reset) `sb`:
 *  - et_sql_json_str: `n` bytes as a JSON string (quote, backslash and
 *    control characters escaped; other bytes as they are);
 *  - et_sql_node_type: events.node_type (top_ops.lua's node type:
 *    "delegate:NAME", OP of native_call_OP.overload); false for none
 *    (NULL), `sb` then empty;
 *  - et_sql_op_types: events.op_types, the JSON list of the operators of
 *    the event's linked graph nodes (call only with an ETRecord);
 *  - et_sql_debug_handles: events.debug_handles, an integer or a JSON
 *    list (call only when ev->has_debug_handles).
 * Out of memory marks `sb` failed (strbuf.h). */
void et_sql_json_str(et_strbuf *sb, const char *s, size_t n);
bool et_sql_node_type(const et_event *ev, et_strbuf *sb);
void et_sql_op_types(et_strbuf *sb, const et_inspector *insp, const et_block *blk,
                     const et_event *ev);
void et_sql_debug_handles(et_strbuf *sb, const et_event *ev);

#endif
