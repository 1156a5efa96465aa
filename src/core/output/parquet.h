/*
 * parquet.h - inspectors exported as an Apache Parquet dataset: the tables
 * of the SQLite export (sqlexport.h, docs/sqlite-schema.md) as one
 * directory per table, one file per dump in each, for DuckDB, Spark,
 * BigQuery, Trino, pandas ... (docs/fleet.md has the layout and queries).
 *
 *   DIR/dumps/part-ID.parquet        one row: the dump
 *   DIR/blocks/part-ID.parquet       its event blocks
 *   DIR/events/part-ID.parquet       their events, with statistics
 *   DIR/samples/part-ID.parquet      one row per run of every event with
 *                                    perf data
 *   DIR/allocations/part-ID.parquet  its allocation events
 *
 * ID (also the column `dump_id` of every row) is the dump's content hash:
 * 32 hexadecimal digits of XXH3-128 (libxxhash) over the ETDump's bytes
 * (a legacy profiler dump, which the model does not keep: over its
 * events' names and durations).  Many processes on many machines may
 * write shards of one dataset into shared storage without collisions;
 * exporting the same dump again replaces its own five files and no
 * others; two identical dumps are one dump (the later export's name).
 *
 * Columns are those of the SQLite schema, typed (docs/fleet.md,
 * "Types"): INT64, DOUBLE, BYTE_ARRAY annotated STRING (UTF8), BOOLEAN
 * (events.is_delegated_op), INT64 annotated unsigned 64-bit (ticks and
 * allocation sizes); OPTIONAL where the schema allows NULL, REQUIRED
 * elsewhere.  Strings are UTF-8 as STRING requires: a byte that does not
 * start or continue a valid UTF-8 sequence (a hostile event name) is
 * written as U+FFFD.  events.delegate_debug_identifier is a string (an integer
 * identifier as its decimal text); events.first_sample and the view
 * top_operators are not written (samples is a table).
 *
 * The files follow the Apache Parquet format specification
 * (apache/parquet-format): a flat schema, one row group per file, data
 * pages v1 of up to ET_PQ_PAGE_ROWS rows, RLE_DICTIONARY (a PLAIN
 * dictionary page, then RLE/bit-packed indices) for strings and for
 * numbers whose values repeat (at most half as many distinct values as
 * rows: indices, runs, durations), PLAIN for the other numbers (start
 * ticks, statistics) and for booleans, RLE definition levels for OPTIONAL
 * columns, ZSTD compression (libzstd), column statistics (null count, min
 * and max), the FileMetaData and PageHeaders in Thrift's compact protocol
 * (thrift.h).  The rows come from pqrows.h.  A dump's columns, of every
 * table, are encoded side by side on up to et_threads() threads (the same
 * bytes whatever the number).
 *
 * Each file is written through outfile.h (a temporary file beside it,
 * synced, renamed): a reader sees a dump's old file or its new one, never
 * a part.  The files of up to 8 dumps are committed together
 * (et_outfile_commit_all: synced, then renamed, then their directories
 * synced), each dump's `dumps` file renamed after its other four, so a
 * query that starts from `dumps` sees only dumps whose five files are
 * complete.  Memory follows one dump (its largest column), not the number
 * of dumps.
 */
#ifndef ET_PARQUET_H
#define ET_PARQUET_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "model/model.h"

/* Rows per data page. */
#define ET_PQ_PAGE_ROWS 65536

/* The tables, in the order a dump's files are written (`dumps` last);
 * NULL-terminated. */
extern const char *const et_parquet_tables[];

/* A dataset being written (a directory and the encoder's buffers, reused
 * from dump to dump). */
typedef struct et_parquet et_parquet;

/* Start writing the dataset at directory `dir`, made (mode 0777 & ~umask)
 * when absent, with its table directories.  `inputs` is NULL or a
 * NULL-terminated list of paths that no file written may be (besides the
 * inputs in use, outfile.h; stat()ed here, once: each path must live as
 * long as `*out`, for the message that names it).  Returns 0 with *out set, or -1 with `err`
 * set: ET_ERR_USAGE (an empty path), ET_ERR_IO ("DIR: not a directory",
 * "DIR: cannot create the directory: REASON", the same for DIR/TABLE),
 * ET_ERR_NOMEM. */
int et_parquet_begin(et_parquet **out, const char *dir, const char *const *inputs,
                     et_error *err);

/* Write the files of `insp` (its model complete: et_inspector_ready),
 * its rows named `name` (the column `dump`; not empty), to replace that
 * dump's earlier files when committed: every 8 dumps, and at
 * et_parquet_commit.  Returns 0, or -1 with `err` set: ET_ERR_USAGE (an
 * empty name, a file that is an input: outfile.h), ET_ERR_IO ("PATH: write
 * failed: REASON" and outfile.h's errors), ET_ERR_VALUE ("PATH: column C:
 * N bytes is more than a Parquet page holds" past 2 GiB), ET_ERR_NOMEM.
 * A failure drops this dump's files (the others pending stay pending; a
 * failed commit of the batch: its files renamed before the failure stay,
 * each complete).  On success, the files of an identical dump pending in
 * the batch (the same ID: the same five paths, which these replace at the
 * commit's renames) are dropped at once, neither synced nor renamed. */
int et_parquet_add(et_parquet *p, const et_inspector *insp, const char *name, et_error *err);

/* et_parquet_add for a caller that is done with `insp` and goes on to
 * open the next dump: the dataset takes the inspector and writes its files
 * on a thread of its own (et_threads() > 1; else before returning) while
 * the caller builds the next models - the same files, in the same order,
 * as et_parquet_add.  Dumps are written in the order given; one may wait
 * in a queue while another is written (the caller blocks when the queue is
 * full), so that three models at most are in memory, the caller's own
 * included.  The dump is hashed here, on the caller's thread, and its
 * file's pages are then given back (the writer reads back only names).
 * The inspectors are freed on the caller's thread, by a later call of
 * et_parquet_give, et_parquet_commit or et_parquet_end.  A model not
 * complete (et_inspector_ready still to run, or its samples given back) is
 * written before returning, after the dumps given before it.  When a dump
 * fails, the dumps after it are not written: the next call returns its
 * error (`insp` is then freed unwritten), else 0; an error of the last
 * dumps comes from et_parquet_commit.  The errors are et_parquet_add's;
 * `name` is copied. */
int et_parquet_give(et_parquet *p, et_inspector *insp, const char *name, et_error *err);

/* The threads a caller of et_parquet_give builds its next model with
 * (et_inspector_options.threads): what et_threads() gives beyond the
 * writer's half (et_parquet_give's files are written on et_threads() / 2
 * threads), at least 1. */
unsigned et_parquet_build_threads(void);

/* Commit the files pending (et_outfile_commit_all): call it after the
 * last dump, and after a failure to keep the dumps written before it.
 * It first waits for a dump given (et_parquet_give) and returns its error
 * if it failed.
 * Returns 0, or -1 with `err` set (ET_ERR_IO "PATH: write failed:
 * REASON"). */
int et_parquet_commit(et_parquet *p, et_error *err);

/* Free `p` (NULL accepted), after waiting for a dump given
 * (et_parquet_give) and freeing its inspector; files still pending are
 * removed, not committed. */
void et_parquet_end(et_parquet *p);

/* One inspector: et_parquet_begin (inputs: its ETDump and ETRecord),
 * et_parquet_add, et_parquet_commit, et_parquet_end.  Returns 0, or -1 with `err` set as
 * they do. */
int et_parquet_export(const et_inspector *insp, const char *dir, const char *name,
                      et_error *err);

/* The content hash of `insp` as 32 lowercase hexadecimal digits and a NUL
 * into `out` (see above). */
void et_parquet_dump_id(const et_inspector *insp, char out[33]);

/* The RLE/bit-packed hybrid encoding (Parquet's Encodings.md, "RLE") of
 * `n` values of `bit_width` bits (1..32), appended to `sb`: runs of 8 or
 * more equal values as RLE runs, the rest bit-packed in groups of 8 (the
 * last group padded with zeros), at most 63 groups per bit-packed run.
 * No length prefix. */
void et_parquet_rle(et_strbuf *sb, const uint32_t *v, size_t n, int bit_width);

#endif
