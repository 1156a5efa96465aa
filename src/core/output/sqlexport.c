/* sqlexport.c - inspectors as an SQLite database; see sqlexport.h and
 * docs/sqlite-schema.md. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "output/sqlexport.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/link.h"
#include "files/outfile.h"
#include "base/strbuf.h"
#include "base/timescale.h"
#include "base/version.h"

/* ------------------------------------------------------------------ */
/* The schema (docs/sqlite-schema.md documents every column).  IF NOT
 * EXISTS: the same statements run on a new database and on a copy of an
 * existing one of the same schema version (or one just migrated). */

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS dumps(\n"
    "  dump TEXT NOT NULL PRIMARY KEY,\n"
    "  format TEXT NOT NULL,\n"
    "  etdump_path TEXT NOT NULL,\n"
    "  etrecord_path TEXT,\n"
    "  etrecord_method TEXT,\n"
    "  source_time_scale TEXT NOT NULL,\n"
    "  target_time_scale TEXT NOT NULL,\n"
    "  num_blocks INTEGER NOT NULL,\n"
    "  num_events INTEGER NOT NULL,\n"
    "  num_samples INTEGER NOT NULL,\n"
    "  num_allocations INTEGER NOT NULL,\n"
    "  warnings TEXT NOT NULL,\n"
    "  etinspect_version TEXT NOT NULL,\n"
    "  exported_at TEXT NOT NULL,\n"
    "  etdump_realpath TEXT\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS blocks(\n"
    "  dump TEXT NOT NULL REFERENCES dumps(dump) ON DELETE CASCADE,\n"
    "  block_index INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  num_runs INTEGER NOT NULL,\n"
    "  num_events INTEGER NOT NULL,\n"
    "  bundled_input_index INTEGER NOT NULL,\n"
    "  etrecord_method TEXT,\n"
    "  PRIMARY KEY (dump, block_index)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS events(\n"
    "  dump TEXT NOT NULL,\n"
    "  block_index INTEGER NOT NULL,\n"
    "  event_index INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  node_type TEXT,\n"
    "  instruction_id INTEGER NOT NULL,\n"
    "  delegate_debug_identifier,\n"
    "  is_delegated_op INTEGER NOT NULL,\n"
    "  delegate_backend_name TEXT,\n"
    "  debug_handles TEXT,\n"
    "  op_types TEXT,\n"
    "  num_outputs INTEGER NOT NULL,\n"
    "  num_samples INTEGER NOT NULL,\n"
    "  p10 REAL, p50 REAL, p90 REAL, avg REAL, min REAL, max REAL, total REAL,\n"
    "  first_sample INTEGER,\n"
    "  PRIMARY KEY (dump, block_index, event_index),\n"
    "  FOREIGN KEY (dump, block_index) REFERENCES blocks(dump, block_index)\n"
    "    ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n"
    /* the samples of an event: rows first_sample .. first_sample +
     * num_samples - 1, in run order; appended in rowid order, the fastest
     * way into a b-tree (no key comparisons, no index) */
    "CREATE TABLE IF NOT EXISTS sample_data(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_data_index INTEGER NOT NULL,\n"
    "  duration REAL,\n"
    "  start_time INTEGER\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS allocations(\n"
    "  dump TEXT NOT NULL,\n"
    "  block_index INTEGER NOT NULL,\n"
    "  run INTEGER NOT NULL,\n"
    "  seq INTEGER NOT NULL,\n"
    "  run_data_index INTEGER NOT NULL,\n"
    "  allocator_id INTEGER NOT NULL,\n"
    "  allocator TEXT,\n"
    "  allocation_size INTEGER NOT NULL,\n"
    "  PRIMARY KEY (dump, block_index, run, seq),\n"
    "  FOREIGN KEY (dump, block_index) REFERENCES blocks(dump, block_index)\n"
    "    ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX IF NOT EXISTS events_by_name ON events(dump, name);\n"
    "CREATE INDEX IF NOT EXISTS events_by_node_type ON events(dump, node_type);\n"
    /* an event's samples go with it, however it is deleted (ON DELETE
     * CASCADE from its block or dump too) */
    "CREATE TRIGGER IF NOT EXISTS events_delete_samples AFTER DELETE ON events\n"
    "WHEN old.first_sample IS NOT NULL BEGIN\n"
    "  DELETE FROM sample_data\n"
    "  WHERE id BETWEEN old.first_sample AND old.first_sample + old.num_samples - 1;\n"
    "END;\n"
    "CREATE VIEW IF NOT EXISTS samples AS\n"
    "SELECT e.dump AS dump, e.block_index AS block_index, e.event_index AS event_index,\n"
    "       CAST(s.id - e.first_sample AS INTEGER) AS run, s.run_data_index AS run_data_index,\n"
    "       s.duration AS duration, s.start_time AS start_time\n"
    "FROM events AS e JOIN sample_data AS s\n"
    "  ON s.id BETWEEN e.first_sample AND e.first_sample + e.num_samples - 1;\n"
    /* the HTML report's "time per run of each block" (html.lua): node types
     * (top_ops.lua's) of the events with perf data, per block other than
     * "Default"; time_per_run is the sum of the events' means, i.e. the
     * mean over the block's runs of the time a run spends in the type */
    "CREATE VIEW IF NOT EXISTS top_operators AS\n"
    "WITH t AS (\n"
    "  SELECT e.dump AS dump, e.block_index AS block_index, b.name AS block_name,\n"
    "         b.num_runs AS runs, e.node_type AS node_type, count(*) AS events,\n"
    "         sum(e.avg) AS time_per_run, sum(e.total) AS total\n"
    "  FROM events AS e JOIN blocks AS b ON b.dump = e.dump AND b.block_index = e.block_index\n"
    "  WHERE e.node_type IS NOT NULL AND e.num_samples > 0 AND b.name <> 'Default'\n"
    "  GROUP BY e.dump, e.block_index, e.node_type\n"
    "), r AS (\n"
    "  SELECT t.*, sum(time_per_run) OVER (PARTITION BY dump, block_index) AS grand,\n"
    "         sum(time_per_run) OVER (PARTITION BY dump, block_index\n"
    "           ORDER BY time_per_run DESC, node_type ROWS UNBOUNDED PRECEDING) AS cum,\n"
    "         row_number() OVER (PARTITION BY dump, block_index\n"
    "           ORDER BY time_per_run DESC, node_type) AS rank\n"
    "  FROM t\n"
    ")\n"
    "SELECT dump, block_index, block_name, runs, CAST(rank AS INTEGER) AS rank, node_type,\n"
    "       CAST(events AS INTEGER) AS events, CAST(time_per_run AS REAL) AS time_per_run,\n"
    "       CAST(CASE WHEN grand > 0 THEN 100.0 * time_per_run / grand ELSE 0.0 END AS REAL)\n"
    "         AS pct,\n"
    "       CAST(CASE WHEN grand > 0 THEN 100.0 * cum / grand ELSE 0.0 END AS REAL) AS cdf_pct,\n"
    "       CAST(total AS REAL) AS total\n"
    "FROM r;\n";

/* The views as etinspect wrote them before their computed columns were
 * CAST (schema version 2 all the same): such a database is accepted, and
 * its views are made again as schema_sql's, in the export's transaction
 * (docs/sqlite-schema.md, "Declared types"). */
static const char views_uncast_sql[] =
    "DROP VIEW samples;\n"
    "DROP VIEW top_operators;\n"
    "CREATE VIEW samples AS\n"
    "SELECT e.dump AS dump, e.block_index AS block_index, e.event_index AS event_index,\n"
    "       s.id - e.first_sample AS run, s.run_data_index AS run_data_index,\n"
    "       s.duration AS duration, s.start_time AS start_time\n"
    "FROM events AS e JOIN sample_data AS s\n"
    "  ON s.id BETWEEN e.first_sample AND e.first_sample + e.num_samples - 1;\n"
    "CREATE VIEW top_operators AS\n"
    "WITH t AS (\n"
    "  SELECT e.dump AS dump, e.block_index AS block_index, b.name AS block_name,\n"
    "         b.num_runs AS runs, e.node_type AS node_type, count(*) AS events,\n"
    "         sum(e.avg) AS time_per_run, sum(e.total) AS total\n"
    "  FROM events AS e JOIN blocks AS b ON b.dump = e.dump AND b.block_index = e.block_index\n"
    "  WHERE e.node_type IS NOT NULL AND e.num_samples > 0 AND b.name <> 'Default'\n"
    "  GROUP BY e.dump, e.block_index, e.node_type\n"
    "), r AS (\n"
    "  SELECT t.*, sum(time_per_run) OVER (PARTITION BY dump, block_index) AS grand,\n"
    "         sum(time_per_run) OVER (PARTITION BY dump, block_index\n"
    "           ORDER BY time_per_run DESC, node_type ROWS UNBOUNDED PRECEDING) AS cum,\n"
    "         row_number() OVER (PARTITION BY dump, block_index\n"
    "           ORDER BY time_per_run DESC, node_type) AS rank\n"
    "  FROM t\n"
    ")\n"
    "SELECT dump, block_index, block_name, runs, rank, node_type, events, time_per_run,\n"
    "       CASE WHEN grand > 0 THEN 100.0 * time_per_run / grand ELSE 0.0 END AS pct,\n"
    "       CASE WHEN grand > 0 THEN 100.0 * cum / grand ELSE 0.0 END AS cdf_pct,\n"
    "       total\n"
    "FROM r;\n";

/* Schema 1 -> 2: samples(dump, block_index, event_index, run, ...) WITHOUT
 * ROWID becomes sample_data rows in the same order, each event pointing at
 * its first; the dumps' canonical paths are not known (NULL); the views
 * are made again by schema_sql. */
static const char migrate_v1_sql[] =
    "ALTER TABLE dumps ADD COLUMN etdump_realpath TEXT;\n"
    "ALTER TABLE events ADD COLUMN first_sample INTEGER;\n"
    "CREATE TABLE sample_data(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_data_index INTEGER NOT NULL,\n"
    "  duration REAL,\n"
    "  start_time INTEGER\n"
    ");\n"
    "INSERT INTO sample_data(run_data_index, duration, start_time)\n"
    "  SELECT run_data_index, duration, start_time FROM samples\n"
    "  ORDER BY dump, block_index, event_index, run;\n"
    "CREATE TEMP TABLE et_first AS\n"
    "  SELECT dump, block_index, event_index, count(*) AS n,\n"
    "         sum(count(*)) OVER (ORDER BY dump, block_index, event_index\n"
    "                             ROWS UNBOUNDED PRECEDING) - count(*) + 1 AS first\n"
    "  FROM samples GROUP BY dump, block_index, event_index;\n"
    "UPDATE events SET first_sample = f.first, num_samples = f.n FROM temp.et_first AS f\n"
    "  WHERE f.dump = events.dump AND f.block_index = events.block_index\n"
    "    AND f.event_index = events.event_index;\n"
    "DROP TABLE temp.et_first;\n"
    "DROP TABLE samples;\n"
    "DROP VIEW IF EXISTS top_operators;\n";

/* ------------------------------------------------------------------ */
/* Errors */

/* The signal that interrupted the exports in progress (0: none), set by
 * et_sqlite_interrupt: every statement fails from then on. */
static volatile sig_atomic_t pending_signal;

/* What one et_sqlite_add works with. */
typedef struct exporter {
    const et_inspector *insp;
    const char *path; /* as given: every message starts with it */
    const char *dump;
    sqlite3 *db;
    et_error *err;
    et_strbuf sb;
} exporter;

/* The et_error kind of an SQLite result code. */
static et_error_kind kind_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_NOMEM:
        return ET_ERR_NOMEM;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return ET_ERR_IO;
    default:
        return ET_ERR_VALUE;
    }
}

/* "PATH: WHAT: sqlite's message" for the last error of `db`. */
static int db_fail(et_error *err, sqlite3 *db, const char *path, const char *what)
{
    int rc = db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM;
    return et_fail(err, kind_of(rc), "%s: %s: %s", path, what,
                   db ? sqlite3_errmsg(db) : "out of memory");
}

static int x_fail(exporter *x, const char *what)
{
    return db_fail(x->err, x->db, x->path, what);
}

/* ------------------------------------------------------------------ */
/* Small helpers */


/* a + b in a new string, or NULL out of memory */
static char *concat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *p = malloc(na + nb + 1);
    if (p) {
        memcpy(p, a, na);
        memcpy(p + na, b, nb + 1);
    }
    return p;
}

/* Open `file` with `flags`.  A relative name starting with "file:" gets
 * "./" so that SQLite never takes a path for a URI. */
static int open_db(const char *file, int flags, sqlite3 **db)
{
    char *alt = NULL;
    if (strncmp(file, "file:", 5) == 0)
        alt = concat("./", file);
    int rc = sqlite3_open_v2(alt ? alt : file, db, flags, NULL);
    free(alt);
    return rc;
}

static int prepare(exporter *x, const char *sql, sqlite3_stmt **st, const char *what)
{
    if (sqlite3_prepare_v2(x->db, sql, -1, st, NULL) != SQLITE_OK)
        return x_fail(x, what);
    return 0;
}

/* Run an INSERT or DELETE and reset it (bindings are kept). */
static int step(exporter *x, sqlite3_stmt *st, const char *what)
{
    if (pending_signal)
        return et_fail(x->err, ET_ERR_IO, "%s: %s: interrupted", x->path, what);
    if (sqlite3_step(st) != SQLITE_DONE) {
        x_fail(x, what);
        sqlite3_reset(st);
        return -1;
    }
    sqlite3_reset(st);
    return 0;
}

static void bind_str(sqlite3_stmt *st, int i, et_str s)
{
    if (s.p)
        sqlite3_bind_text(st, i, s.p, (int)s.n, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static void bind_cstr(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* An unsigned 64-bit value: INTEGER when it fits, else REAL. */
static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        sqlite3_bind_int64(st, i, (sqlite3_int64)v);
    else
        sqlite3_bind_double(st, i, (double)v);
}

/* A JSON string: quote, backslash and control characters escaped; other
 * bytes as they are. */
static void json_str(et_strbuf *sb, const char *s, size_t n)
{
    et_sb_addc(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            et_sb_addc(sb, '\\');
            et_sb_addc(sb, (char)c);
        } else if (c < 0x20) {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", c);
            et_sb_adds(sb, u);
        } else {
            et_sb_addc(sb, (char)c);
        }
    }
    et_sb_addc(sb, '"');
}

/* The node type of an event, as lua/etinspect/scripts/top_ops.lua defines
 * it: "delegate:NAME" for a delegated event; for "native_call_OP" (OP not
 * empty), OP without a last ".overload" (a dot followed only by [A-Za-z0-9_]
 * up to the end); none for any other event.  Returns false for none, else
 * the type is in sb. */
static bool node_type(const et_event *ev, et_strbuf *sb)
{
    et_str name = et_event_name(ev);
    et_sb_reset(sb);
    if (ev->is_delegated_op) {
        et_sb_adds(sb, "delegate:");
        et_sb_add(sb, name.p, name.n);
        return true;
    }
    static const char prefix[] = "native_call_";
    size_t np = sizeof prefix - 1;
    if (name.n <= np || memcmp(name.p, prefix, np) != 0)
        return false;
    const char *op = name.p + np;
    size_t n = name.n - np, end = n;
    while (end > 0) {
        char c = op[end - 1];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            break;
        end--;
    }
    if (end < n && end > 0 && op[end - 1] == '.')
        n = end - 1;
    et_sb_add(sb, op, n);
    return true;
}

/* ------------------------------------------------------------------ */
/* Rows */

static int insert_dump(exporter *x, const char *realpath_)
{
    const et_inspector *insp = x->insp;
    uint64_t n_events = 0, n_samples = 0, n_allocs = 0;
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        n_events += blk->n_events;
        for (size_t e = 0; e < blk->n_events; e++)
            if (blk->events[e].has_perf_data)
                n_samples += blk->events[e].perf_data.n;
        if (blk->allocation_count)
            for (size_t r = 0; r < blk->n_runs; r++)
                n_allocs += blk->allocation_count[r];
    }
    et_strbuf *sb = &x->sb;
    et_sb_reset(sb);
    et_sb_addc(sb, '[');
    for (size_t i = 0; i < insp->warnings.n; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        json_str(sb, insp->warnings.items[i], strlen(insp->warnings.items[i]));
    }
    et_sb_addc(sb, ']');
    if (sb->failed)
        return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
    sqlite3_stmt *st;
    if (prepare(x,
                "INSERT OR ROLLBACK INTO dumps VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                "?13, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?14)",
                &st, "insert into dumps") != 0)
        return -1;
    sqlite3_bind_text(st, 1, x->dump, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, insp->legacy ? "legacy" : "etdump", -1, SQLITE_STATIC);
    bind_cstr(st, 3, insp->etdump_label);
    bind_cstr(st, 4, insp->etrecord ? insp->etrecord->label : NULL);
    bind_cstr(st, 5, insp->etrecord_method);
    bind_cstr(st, 6, et_time_scale_name(insp->source_time_scale));
    bind_cstr(st, 7, et_time_scale_name(insp->target_time_scale));
    sqlite3_bind_int64(st, 8, (sqlite3_int64)insp->n_blocks);
    sqlite3_bind_int64(st, 9, (sqlite3_int64)n_events);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)n_samples);
    sqlite3_bind_int64(st, 11, (sqlite3_int64)n_allocs);
    sqlite3_bind_text(st, 12, sb->p, (int)sb->n, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 13, ETINSPECT_VERSION, -1, SQLITE_STATIC);
    bind_cstr(st, 14, realpath_);
    int rc = step(x, st, "insert into dumps");
    sqlite3_finalize(st);
    return rc;
}

static int insert_blocks(exporter *x)
{
    sqlite3_stmt *st;
    if (prepare(x, "INSERT OR ROLLBACK INTO blocks VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st,
                "insert into blocks") != 0)
        return -1;
    sqlite3_bind_text(st, 1, x->dump, -1, SQLITE_STATIC);
    int rc = 0;
    for (size_t b = 0; b < x->insp->n_blocks && rc == 0; b++) {
        const et_block *blk = &x->insp->blocks[b];
        sqlite3_bind_int64(st, 2, (sqlite3_int64)b);
        if (blk->name.p)
            bind_str(st, 3, blk->name);
        else
            sqlite3_bind_text(st, 3, "", 0, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)blk->n_runs);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)blk->n_events);
        sqlite3_bind_int64(st, 6, blk->bundled_input_index);
        bind_cstr(st, 7, blk->method);
        rc = step(x, st, "insert into blocks");
    }
    sqlite3_finalize(st);
    return rc;
}

/* events.op_types: NULL without an ETRecord, else the JSON list of the op
 * of every attached node that has one (duplicates kept, in link order). */
static void op_types_json(et_strbuf *sb, const et_inspector *insp, const et_block *blk,
                          const et_event *ev)
{
    et_sb_addc(sb, '[');
    bool any = false;
    for (uint32_t k = 0; blk->graph && k < ev->node_count; k++) {
        uint32_t bits;
        const et_graph_node *nd = et_link_node(insp, blk, ev, k, &bits);
        if (!(bits & ET_LINK_NODE_OP))
            continue;
        if (any)
            et_sb_adds(sb, ", ");
        json_str(sb, nd->op, strlen(nd->op));
        any = true;
    }
    et_sb_addc(sb, ']');
}

/* events.debug_handles: NULL (none), an integer, or a JSON list. */
static void debug_handles_json(et_strbuf *sb, const et_event *ev)
{
    if (!ev->debug_handles_is_list) {
        et_sb_add_i64(sb, ev->n_debug_handles ? ev->debug_handles[0] : 0);
        return;
    }
    et_sb_addc(sb, '[');
    for (uint32_t k = 0; k < ev->n_debug_handles; k++) {
        if (k)
            et_sb_adds(sb, ", ");
        et_sb_add_i64(sb, ev->debug_handles[k]);
    }
    et_sb_addc(sb, ']');
}

static int bind_event(exporter *x, sqlite3_stmt *st, const et_block *blk, const et_event *ev)
{
    et_strbuf *sb = &x->sb;
    sqlite3_bind_text(st, 4, et_event_name(ev).p ? et_event_name(ev).p : "",
                      (int)et_event_name(ev).n, SQLITE_STATIC);
    if (node_type(ev, sb)) {
        if (sb->failed)
            return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
        sqlite3_bind_text(st, 5, sb->p ? sb->p : "", (int)sb->n, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(st, 5);
    }
    sqlite3_bind_int64(st, 6, ev->instruction_id);
    if (ev->delegate_debug_identifier_kind == ET_DID_INT)
        sqlite3_bind_int64(st, 7, ev->delegate_debug_id_int);
    else if (ev->delegate_debug_identifier_kind == ET_DID_STR)
        bind_str(st, 7, ev->delegate_debug_id_str);
    else
        sqlite3_bind_null(st, 7);
    sqlite3_bind_int(st, 8, ev->is_delegated_op);
    bind_cstr(st, 9, ev->delegate_backend_name);
    if (ev->has_debug_handles) {
        et_sb_reset(sb);
        debug_handles_json(sb, ev);
        if (sb->failed)
            return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
        sqlite3_bind_text(st, 10, sb->p, (int)sb->n, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(st, 10);
    }
    if (x->insp->etrecord) {
        et_sb_reset(sb);
        op_types_json(sb, x->insp, blk, ev);
        if (sb->failed)
            return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
        sqlite3_bind_text(st, 11, sb->p, (int)sb->n, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(st, 11);
    }
    sqlite3_bind_int64(st, 12, ev->num_outputs);
    if (ev->has_perf_data) {
        const et_perf_data *pd = &ev->perf_data;
        double total = 0;
        for (size_t r = 0; r < pd->n; r++)
            total += pd->raw[r];
        sqlite3_bind_int64(st, 13, (sqlite3_int64)pd->n);
        const double v[7] = {pd->p10, pd->p50, pd->p90, pd->avg, pd->min, pd->max, total};
        for (int i = 0; i < 7; i++)
            sqlite3_bind_double(st, 14 + i, v[i]);
    } else {
        sqlite3_bind_int64(st, 13, 0);
        for (int i = 0; i < 7; i++)
            sqlite3_bind_null(st, 14 + i);
    }
    return 0;
}

/* Samples go into sample_data SAMPLE_BATCH rows per statement ("INSERT
 * ... VALUES (...), (...), ..."), their ids left to SQLite (the next
 * rowid: an append, no search, no key to compare); the rows after the
 * last full batch go one at a time. */
#define SAMPLE_BATCH 128
#define SAMPLE_COLS 3

typedef struct sample_writer {
    sqlite3_stmt *batch, *one;
    int n;           /* rows bound into `batch` */
    uint64_t queued; /* rows left that go through `batch` */
} sample_writer;

/* Bind one row at parameter `at` of `st`. */
static inline void bind_sample(sqlite3_stmt *st, int at, int64_t run_data_index,
                               double duration, const uint64_t *start)
{
    sqlite3_bind_int64(st, at, run_data_index);
    sqlite3_bind_double(st, at + 1, duration);
    if (start)
        bind_u64(st, at + 2, *start);
    else
        sqlite3_bind_null(st, at + 2);
}

/* Statements for `total` rows. */
static int prepare_samples(exporter *x, sample_writer *w, uint64_t total)
{
    et_strbuf sql = {0};
    et_sb_adds(&sql, "INSERT OR ROLLBACK INTO sample_data(run_data_index, duration, start_time) VALUES ");
    for (int i = 0; i < SAMPLE_BATCH; i++)
        et_sb_adds(&sql, i ? ", (?, ?, ?)" : "(?, ?, ?)");
    if (sql.failed) {
        et_sb_free(&sql);
        return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
    }
    int rc = prepare(x, sql.p, &w->batch, "insert into samples");
    et_sb_free(&sql);
    if (rc == 0)
        rc = prepare(x, "INSERT OR ROLLBACK INTO sample_data(run_data_index, duration, start_time) "
                        "VALUES (?, ?, ?)",
                     &w->one, "insert into samples");
    w->n = 0;
    w->queued = total - total % SAMPLE_BATCH;
    return rc;
}

/* The rows of one event, in run order. */
static int add_samples(exporter *x, sample_writer *w, const et_block *blk, const et_event *ev)
{
    const et_perf_data *pd = &ev->perf_data;
    for (size_t r = 0; r < pd->n; r++) {
        int64_t rdi = r < blk->n_runs ? blk->runs[r] : (int64_t)r;
        const uint64_t *start = ev->start_time ? &ev->start_time[r] : NULL;
        if (w->queued == 0) {
            bind_sample(w->one, 1, rdi, pd->raw[r], start);
            if (step(x, w->one, "insert into samples") != 0)
                return -1;
            continue;
        }
        bind_sample(w->batch, 1 + SAMPLE_COLS * w->n, rdi, pd->raw[r], start);
        w->queued--;
        if (++w->n == SAMPLE_BATCH) {
            w->n = 0;
            if (step(x, w->batch, "insert into samples") != 0)
                return -1;
        }
    }
    return 0;
}

static int insert_allocations(exporter *x)
{
    sqlite3_stmt *st;
    if (prepare(x, "INSERT OR ROLLBACK INTO allocations VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &st,
                "insert into allocations") != 0)
        return -1;
    sqlite3_bind_text(st, 1, x->dump, -1, SQLITE_STATIC);
    int rc = 0;
    for (size_t b = 0; b < x->insp->n_blocks && rc == 0; b++) {
        const et_block *blk = &x->insp->blocks[b];
        if (!blk->allocation_count || !blk->allocation_first)
            continue;
        sqlite3_bind_int64(st, 2, (sqlite3_int64)b);
        for (size_t r = 0; r < blk->n_runs && rc == 0; r++) {
            sqlite3_bind_int64(st, 3, (sqlite3_int64)r);
            sqlite3_bind_int64(st, 5, blk->runs[r]);
            for (uint32_t k = 0; k < blk->allocation_count[r] && rc == 0; k++) {
                const et_allocation *a = &blk->allocations[blk->allocation_first[r] + k];
                sqlite3_bind_int64(st, 4, k);
                sqlite3_bind_int64(st, 6, a->allocator_id);
                if (a->allocator_id >= 1 && (size_t)a->allocator_id <= blk->n_allocators &&
                    blk->allocators[a->allocator_id - 1].p)
                    bind_str(st, 7, blk->allocators[a->allocator_id - 1]);
                else
                    sqlite3_bind_null(st, 7);
                bind_u64(st, 8, a->allocation_size);
                rc = step(x, st, "insert into allocations");
            }
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* One integer from `sql` (with ?1 bound to `arg` when not NULL): 0 with
 * *v set (*is_null for NULL or no row), or -1 with the error set. */
static int query_int(exporter *x, const char *sql, const char *arg, int64_t *v, bool *is_null,
                     const char *what)
{
    sqlite3_stmt *st;
    if (prepare(x, sql, &st, what) != 0)
        return -1;
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *is_null = true;
    *v = 0;
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *is_null = false;
        *v = sqlite3_column_int64(st, 0);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        x_fail(x, what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

/* events and their samples, block by block, in key order; the samples of
 * all events take the sample_data ids from `base` on */
static int insert_events(exporter *x, int64_t base, uint64_t total)
{
    sqlite3_stmt *ev_st = NULL;
    sample_writer w = {0};
    int rc = prepare(x,
                     "INSERT OR ROLLBACK INTO events VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
                     "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
                     &ev_st, "insert into events");
    if (rc == 0)
        rc = prepare_samples(x, &w, total);
    if (rc == 0)
        sqlite3_bind_text(ev_st, 1, x->dump, -1, SQLITE_STATIC);
    int64_t next = base;
    for (size_t b = 0; b < x->insp->n_blocks && rc == 0; b++) {
        const et_block *blk = &x->insp->blocks[b];
        sqlite3_bind_int64(ev_st, 2, (sqlite3_int64)b);
        for (size_t e = 0; e < blk->n_events && rc == 0; e++) {
            const et_event *ev = &blk->events[e];
            sqlite3_bind_int64(ev_st, 3, (sqlite3_int64)e);
            rc = bind_event(x, ev_st, blk, ev);
            bool samples = ev->has_perf_data && ev->perf_data.n > 0;
            if (samples)
                sqlite3_bind_int64(ev_st, 21, next);
            else
                sqlite3_bind_null(ev_st, 21);
            if (rc == 0)
                rc = step(x, ev_st, "insert into events");
            if (rc == 0 && samples) {
                rc = add_samples(x, &w, blk, ev);
                next += (int64_t)ev->perf_data.n;
            }
        }
    }
    sqlite3_finalize(ev_st);
    sqlite3_finalize(w.batch);
    sqlite3_finalize(w.one);
    if (rc != 0 || total == 0)
        return rc;
    /* the rows took the ids the events point at */
    int64_t last;
    bool none;
    if (query_int(x, "SELECT max(id) FROM sample_data", NULL, &last, &none,
                  "insert into samples") != 0)
        return -1;
    if (none || last != base + (int64_t)total - 1)
        return et_fail(x->err, ET_ERR_VALUE,
                       "%s: insert into samples: the rows did not take ids %lld to %lld",
                       x->path, (long long)base, (long long)(base + (int64_t)total - 1));
    return 0;
}

/* Delete the rows of dump `name` from every table (samples through the
 * trigger events_delete_samples). */
static int delete_dump(exporter *x, const char *name)
{
    static const char *const sql[] = {
        "DELETE FROM allocations WHERE dump = ?1", "DELETE FROM events WHERE dump = ?1",
        "DELETE FROM blocks WHERE dump = ?1", "DELETE FROM dumps WHERE dump = ?1"};
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        sqlite3_stmt *st;
        if (prepare(x, sql[i], &st, "delete the dump's old rows") != 0)
            return -1;
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        int rc = step(x, st, "delete the dump's old rows");
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Who holds dump `name`: 0 none, 1 the file `realpath` (not NULL), 2
 * another (or an unknown) file, whose path (as given when it was
 * exported) goes into *other (malloc'd); -1 on error. */
static int holder(exporter *x, const char *name, const char *realpath_, char **other)
{
    sqlite3_stmt *st;
    *other = NULL;
    if (prepare(x, "SELECT etdump_realpath, etdump_path FROM dumps WHERE dump = ?1", &st,
                "look up the dump's name") != 0)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st), who = 0;
    if (rc == SQLITE_ROW) {
        const char *rp = (const char *)sqlite3_column_text(st, 0);
        const char *p = (const char *)sqlite3_column_text(st, 1);
        if (rp && realpath_ && strcmp(rp, realpath_) == 0) {
            who = 1;
        } else {
            who = 2;
            *other = strdup(p ? p : rp ? rp : "?"); /* as the user gave it */
            if (!*other)
                who = et_fail(x->err, ET_ERR_NOMEM, "out of memory");
        }
    } else if (rc != SQLITE_DONE) {
        who = x_fail(x, "look up the dump's name");
    }
    sqlite3_finalize(st);
    return who;
}

/* The file name of `path` (after its last '/'). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The tail of `path` of `k` components, or NULL when it has fewer. */
static const char *tail(const char *path, int k)
{
    const char *p = path + strlen(path);
    while (p > path) {
        p--;
        if (*p == '/' && --k == 0)
            return p + 1;
    }
    return NULL;
}

/* x->dump for `o` and the file `rp` (NULL: not known); *replace when its
 * rows replace a dump of that name. */
static int choose_name(exporter *x, const et_sqlite_dump_options *o, const char *rp,
                       char **chosen, bool *replace)
{
    *chosen = NULL;
    *replace = false;
    char *other = NULL;
    if (o->name) {
        if (!*o->name)
            return et_fail(x->err, ET_ERR_USAGE, "%s: the dump name is empty", x->path);
        int who = holder(x, o->name, rp, &other);
        if (who < 0)
            return -1;
        if (who == 2 && !o->replace) {
            et_fail(x->err, ET_ERR_USAGE,
                    "%s: the database has a dump named '%s' from another file (%s); choose "
                    "another name, or replace it (--sqlite_replace, {replace = true})",
                    x->path, o->name, other);
            free(other);
            return -1;
        }
        free(other);
        *replace = who != 0;
        *chosen = strdup(o->name);
        return *chosen ? 0 : et_fail(x->err, ET_ERR_NOMEM, "out of memory");
    }
    const char *label = x->insp->etdump_label ? x->insp->etdump_label : "";
    const char *first = o->preferred ? o->preferred : base_name(label);
    if (!*first)
        return et_fail(x->err, ET_ERR_USAGE, "%s: the dump name is empty", x->path);
    bool whole = false;
    for (int k = 1;; k++) {
        const char *cand = first;
        if (k > 1) {
            if (!rp || whole)
                break;
            cand = tail(rp, k);
            if (!cand) { /* the whole canonical path, its "/" included */
                cand = rp;
                whole = true;
            }
        }
        int who = holder(x, cand, rp, &other);
        free(other);
        if (who < 0)
            return -1;
        if (who != 2) {
            *replace = who == 1;
            *chosen = strdup(cand);
            return *chosen ? 0 : et_fail(x->err, ET_ERR_NOMEM, "out of memory");
        }
    }
    return et_fail(x->err, ET_ERR_USAGE,
                   "%s: every name for %s is taken by another file's dump; name it "
                   "(--sqlite_dump NAME, {dump = NAME})",
                   x->path, label);
}

/* ------------------------------------------------------------------ */
/* Signals: an export stops, rolls back, then the process dies */

#define ACTIVE_SLOTS 8

/* the databases of the exports in progress, for et_sqlite_interrupt */
static sqlite3 *_Atomic active[ACTIVE_SLOTS];
/* signal handlers inside et_sqlite_interrupt (a database is closed only
 * when none is) */
static atomic_int in_handler;
/* what ends the process once the exports a signal interrupted rolled
 * back (pending_signal: the signal) */
static void (*_Atomic die_fn)(int);

int et_sqlite_interrupt(int sig, void (*die)(int))
{
    if (pending_signal)
        return 0;
    atomic_fetch_add(&in_handler, 1);
    int any = 0;
    for (int i = 0; i < ACTIVE_SLOTS; i++)
        if (atomic_load(&active[i]))
            any = 1;
    if (any) {
        atomic_store(&die_fn, die);
        pending_signal = sig;
        for (int i = 0; i < ACTIVE_SLOTS; i++) {
            sqlite3 *db = atomic_load(&active[i]);
            if (db)
                sqlite3_interrupt(db);
        }
    }
    atomic_fetch_sub(&in_handler, 1);
    return any;
}

/* Register `db` as an export in progress: its slot, or -1 when all are
 * taken (a signal then kills the process at once; SQLite rolls the
 * transaction back at the next open). */
static int active_add(sqlite3 *db)
{
    for (int i = 0; i < ACTIVE_SLOTS; i++) {
        sqlite3 *expect = NULL;
        if (atomic_compare_exchange_strong(&active[i], &expect, db))
            return i;
    }
    return -1;
}

/* Forget slot `slot` (-1: none); on return no signal handler uses its
 * database. */
static void active_remove(int slot)
{
    if (slot < 0)
        return;
    atomic_store(&active[slot], NULL);
    while (atomic_load(&in_handler) > 0) /* a handler on another thread */
        ;
}

/* After an export ended: a signal that interrupted it ends the process
 * once no export is left in progress. */
static void deliver_pending(void)
{
    int sig = pending_signal;
    void (*die)(int) = atomic_load(&die_fn);
    if (!sig || !die)
        return;
    for (int i = 0; i < ACTIVE_SLOTS; i++)
        if (atomic_load(&active[i]))
            return;
    die(sig);
}

static int interrupted(et_error *err, const char *path)
{
    return et_fail(err, ET_ERR_IO, "%s: interrupted by signal %d; nothing was written", path,
                   (int)pending_signal);
}

/* ------------------------------------------------------------------ */
/* The schema an existing database may have */

/* Schema version 1's tables and indexes, as etinspect wrote them (before
 * sample_data): a version 1 database is checked against them before it is
 * migrated.  Its view top_operators, which the migration drops, may have
 * any definition. */
static const char schema_v1_sql[] =
    "CREATE TABLE dumps(\n"
    "  dump TEXT NOT NULL PRIMARY KEY,\n"
    "  format TEXT NOT NULL,\n"
    "  etdump_path TEXT NOT NULL,\n"
    "  etrecord_path TEXT,\n"
    "  etrecord_method TEXT,\n"
    "  source_time_scale TEXT NOT NULL,\n"
    "  target_time_scale TEXT NOT NULL,\n"
    "  num_blocks INTEGER NOT NULL,\n"
    "  num_events INTEGER NOT NULL,\n"
    "  num_samples INTEGER NOT NULL,\n"
    "  num_allocations INTEGER NOT NULL,\n"
    "  warnings TEXT NOT NULL,\n"
    "  etinspect_version TEXT NOT NULL,\n"
    "  exported_at TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE blocks(\n"
    "  dump TEXT NOT NULL REFERENCES dumps(dump) ON DELETE CASCADE,\n"
    "  block_index INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  num_runs INTEGER NOT NULL,\n"
    "  num_events INTEGER NOT NULL,\n"
    "  bundled_input_index INTEGER NOT NULL,\n"
    "  etrecord_method TEXT,\n"
    "  PRIMARY KEY (dump, block_index)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE events(\n"
    "  dump TEXT NOT NULL,\n"
    "  block_index INTEGER NOT NULL,\n"
    "  event_index INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  node_type TEXT,\n"
    "  instruction_id INTEGER NOT NULL,\n"
    "  delegate_debug_identifier,\n"
    "  is_delegated_op INTEGER NOT NULL,\n"
    "  delegate_backend_name TEXT,\n"
    "  debug_handles TEXT,\n"
    "  op_types TEXT,\n"
    "  num_outputs INTEGER NOT NULL,\n"
    "  num_samples INTEGER NOT NULL,\n"
    "  p10 REAL, p50 REAL, p90 REAL, avg REAL, min REAL, max REAL, total REAL,\n"
    "  PRIMARY KEY (dump, block_index, event_index),\n"
    "  FOREIGN KEY (dump, block_index) REFERENCES blocks(dump, block_index)\n"
    "    ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE samples(\n"
    "  dump TEXT NOT NULL,\n"
    "  block_index INTEGER NOT NULL,\n"
    "  event_index INTEGER NOT NULL,\n"
    "  run INTEGER NOT NULL,\n"
    "  run_data_index INTEGER NOT NULL,\n"
    "  duration REAL,\n"
    "  start_time INTEGER,\n"
    "  PRIMARY KEY (dump, block_index, event_index, run),\n"
    "  FOREIGN KEY (dump, block_index, event_index)\n"
    "    REFERENCES events(dump, block_index, event_index) ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE allocations(\n"
    "  dump TEXT NOT NULL,\n"
    "  block_index INTEGER NOT NULL,\n"
    "  run INTEGER NOT NULL,\n"
    "  seq INTEGER NOT NULL,\n"
    "  run_data_index INTEGER NOT NULL,\n"
    "  allocator_id INTEGER NOT NULL,\n"
    "  allocator TEXT,\n"
    "  allocation_size INTEGER NOT NULL,\n"
    "  PRIMARY KEY (dump, block_index, run, seq),\n"
    "  FOREIGN KEY (dump, block_index) REFERENCES blocks(dump, block_index)\n"
    "    ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX events_by_name ON events(dump, name);\n"
    "CREATE INDEX events_by_node_type ON events(dump, node_type);\n";

/* One object of a schema: a row of sqlite_master (sql NULL for an index
 * SQLite made for a constraint). */
typedef struct schema_obj {
    char *type, *name, *tbl, *sql;
} schema_obj;

typedef struct schema_set {
    schema_obj *v;
    size_t n;
    bool failed; /* out of memory */
} schema_set;

static void schema_free(schema_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->v[i].type);
        free(set->v[i].name);
        free(set->v[i].tbl);
        free(set->v[i].sql);
    }
    free(set->v);
    *set = (schema_set){0};
}

static char *dup_col(sqlite3_stmt *st, int i, bool *failed)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    if (!t)
        return NULL;
    char *p = strdup(t);
    if (!p)
        *failed = true;
    return p;
}

/* The objects of `db`'s main schema into *set.  Returns an SQLite result
 * code (SQLITE_NOMEM when out of memory). */
static int schema_read(sqlite3 *db, schema_set *set)
{
    *set = (schema_set){0};
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM main.sqlite_master",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !set->failed) {
        if (set->n == cap) {
            size_t c = cap ? 2 * cap : 16;
            schema_obj *v = realloc(set->v, c * sizeof *v);
            if (!v) {
                set->failed = true;
                break;
            }
            set->v = v;
            cap = c;
        }
        schema_obj *o = &set->v[set->n++];
        o->type = dup_col(st, 0, &set->failed);
        o->name = dup_col(st, 1, &set->failed);
        o->tbl = dup_col(st, 2, &set->failed);
        o->sql = dup_col(st, 3, &set->failed);
        if (!o->type || !o->name || !o->tbl)
            set->failed = true;
    }
    sqlite3_finalize(st);
    if (set->failed)
        return SQLITE_NOMEM;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The objects `sql` creates in an empty database (in memory). */
static int schema_of(const char *sql, schema_set *set)
{
    sqlite3 *mem = NULL;
    *set = (schema_set){0};
    int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(mem, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = schema_read(mem, set);
    sqlite3_close(mem);
    return rc;
}

static const schema_obj *schema_find(const schema_set *set, const char *name)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->v[i].name, name) == 0)
            return &set->v[i];
    return NULL;
}

static bool word_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c >= 0x80;
}

/* The next byte of `sql`'s text with its whitespace reduced to a space
 * where it separates two words, quoted text ('...', "...", `...`,
 * [...]) kept as it is; 0 at the end. */
typedef struct sql_reader {
    const unsigned char *p;
    int quote;     /* the closing quote while inside one, else 0 */
    int prev;      /* the last byte returned */
} sql_reader;

static int sql_next(sql_reader *r)
{
    int c = *r->p;
    if (!c)
        return 0;
    if (r->quote) {
        r->p++;
        if (c == r->quote)
            r->quote = 0;
        return r->prev = c;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r' ||
               *r->p == '\f' || *r->p == '\v')
            r->p++;
        if (*r->p && word_char(r->prev) && word_char(*r->p))
            return r->prev = ' ';
        return sql_next(r);
    }
    r->p++;
    if (c == '\'' || c == '"' || c == '`')
        r->quote = c;
    else if (c == '[')
        r->quote = ']';
    return r->prev = c;
}

/* Do two CREATE statements say the same, whitespace aside? */
static bool sql_same(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    sql_reader ra = {(const unsigned char *)a, 0, 0}, rb = {(const unsigned char *)b, 0, 0};
    for (;;) {
        int ca = sql_next(&ra), cb = sql_next(&rb);
        if (ca != cb)
            return false;
        if (!ca)
            return true;
    }
}

static bool obj_same(const schema_obj *a, const schema_obj *b)
{
    return strcmp(a->type, b->type) == 0 && strcmp(a->tbl, b->tbl) == 0 &&
           sql_same(a->sql, b->sql);
}

/* ------------------------------------------------------------------ */
/* Export sessions */

struct et_sqlite {
    char *path;       /* as given: every message starts with it */
    char *dest;       /* the file written (a link's target) */
    sqlite3 *db;
    int slot;         /* in active[], -1 for none */
    double timeout;   /* seconds to wait for another writer */
    struct timespec busy_since;
    bool created;     /* this export created dest (dev, ino) */
    dev_t dev;
    ino_t ino;
    bool fresh;       /* the database held nothing: the schema is created */
    bool vacuum;      /* auto_vacuum = INCREMENTAL: give back freed pages */
    bool committed;
    char **added;     /* the names added, in order */
    size_t n_added, cap_added;
};

/* SQLite's busy handler: wait for another connection's lock, in naps of
 * 1 to 20 ms, until s->timeout seconds passed or a signal is pending. */
static int on_busy(void *arg, int count)
{
    et_sqlite *s = arg;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (count == 0)
        s->busy_since = now;
    double waited = (double)(now.tv_sec - s->busy_since.tv_sec) +
                    (double)(now.tv_nsec - s->busy_since.tv_nsec) / 1e9;
    if (pending_signal || waited >= s->timeout)
        return 0;
    double nap = count < 5 ? 0.001 : count < 20 ? 0.005 : 0.02;
    if (nap > s->timeout - waited)
        nap = s->timeout - waited;
    struct timespec ts = {0, (long)(nap * 1e9)};
    nanosleep(&ts, NULL); /* a signal cuts it short */
    return 1;
}

/* ETINSPECT_SQLITE_TIMEOUT, or the default. */
static int busy_timeout(double *out, et_error *err)
{
    const char *v = getenv("ETINSPECT_SQLITE_TIMEOUT");
    *out = ET_SQL_BUSY_TIMEOUT;
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (*end || errno || !(d >= 0 && d <= 86400))
        return et_fail(err, ET_ERR_USAGE,
                       "ETINSPECT_SQLITE_TIMEOUT='%s' is not a number of seconds from 0 to "
                       "86400",
                       v);
    *out = d;
    return 0;
}

/* The error for the last failure of s->db while doing `what`: the
 * database refused (not one, damaged), locked past the busy timeout,
 * interrupted, or SQLite's message. */
static int session_fail(et_sqlite *s, et_error *err, const char *what)
{
    int rc = s->db ? sqlite3_extended_errcode(s->db) : SQLITE_NOMEM;
    const char *msg = s->db ? sqlite3_errmsg(s->db) : "out of memory";
    if (pending_signal)
        return interrupted(err, s->path);
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
        return et_fail(err, ET_ERR_IO, "%s: not an etinspect database (%s); refusing to write "
                                       "into it",
                       s->path, msg);
    case SQLITE_CORRUPT:
        return et_fail(err, ET_ERR_IO,
                       "%s: the database is damaged (%s); refusing to write into it", s->path,
                       msg);
    case SQLITE_BUSY:
        return et_fail(err, ET_ERR_IO,
                       "%s: %s: the database is locked by another process (waited %g s; "
                       "ETINSPECT_SQLITE_TIMEOUT sets how long)",
                       s->path, what, s->timeout);
    default:
        return db_fail(err, s->db, s->path, what);
    }
}

static int session_exec(et_sqlite *s, et_error *err, const char *sql, const char *what)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return session_fail(s, err, what);
    return 0;
}

static int session_int(et_sqlite *s, et_error *err, const char *sql, int64_t *v)
{
    exporter x = {.path = s->path, .db = s->db, .err = err};
    bool none;
    if (query_int(&x, sql, NULL, v, &none, "read the database") != 0)
        return session_fail(s, err, "read the database");
    return 0;
}

/* PRAGMA quick_check(`table`): 0 when it says ok. */
static int quick_check(et_sqlite *s, et_error *err, const char *table)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA quick_check(%s)", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return session_fail(s, err, "check the database");
    int rc = sqlite3_step(st), ret = 0;
    if (rc == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        static const char banner[] = "*** in database main ***\n";
        if (r && strncmp(r, banner, sizeof banner - 1) == 0)
            r += sizeof banner - 1;
        if (!r || strcmp(r, "ok") != 0)
            ret = et_fail(err, ET_ERR_IO,
                          "%s: the database is damaged (quick_check of %s: %.*s); refusing to "
                          "write into it",
                          s->path, table, r ? (int)strcspn(r, "\n") : 1, r ? r : "?");
    } else if (rc != SQLITE_DONE) {
        ret = session_fail(s, err, "check the database");
    }
    sqlite3_finalize(st);
    return ret;
}

/* Every object of the database must be one etinspect created, as it
 * created it: schema_sql's in a new database, or in one migrated from
 * version 1 (some ALTERed tables); schema_v1_sql's in a version 1
 * database.  Missing objects are created later (IF NOT EXISTS).  Sets
 * *has_tables when dumps and blocks exist (quick_check). */
static int check_schema(et_sqlite *s, et_error *err, int64_t version, bool *has_tables,
                        bool *uncast)
{
    schema_set have = {0}, want[3] = {{0}, {0}, {0}};
    size_t n_want = 0;
    int ret = 0;
    int rc = schema_read(s->db, &have);
    if (rc != SQLITE_OK) {
        schema_free(&have);
        return rc == SQLITE_NOMEM && have.failed ? et_fail(err, ET_ERR_NOMEM, "out of memory")
                                                 : session_fail(s, err, "read the schema");
    }
    if (version == 1) {
        rc = schema_of(schema_v1_sql, &want[n_want++]);
    } else {
        rc = schema_of(schema_sql, &want[n_want++]);
        if (rc == SQLITE_OK) {
            et_strbuf sb = {0};
            et_sb_adds(&sb, schema_v1_sql);
            et_sb_adds(&sb, migrate_v1_sql);
            et_sb_adds(&sb, schema_sql);
            rc = sb.failed ? SQLITE_NOMEM : schema_of(sb.p, &want[n_want++]);
            et_sb_free(&sb);
        }
        if (rc == SQLITE_OK) { /* the views before CAST (the last set) */
            et_strbuf sb = {0};
            et_sb_adds(&sb, schema_sql);
            et_sb_adds(&sb, views_uncast_sql);
            rc = sb.failed ? SQLITE_NOMEM : schema_of(sb.p, &want[n_want++]);
            et_sb_free(&sb);
        }
    }
    if (rc != SQLITE_OK)
        ret = rc == SQLITE_NOMEM ? et_fail(err, ET_ERR_NOMEM, "out of memory")
                                 : et_fail(err, ET_ERR_VALUE, "%s: etinspect's schema: %s",
                                           s->path, sqlite3_errstr(rc));
    int tables = 0;
    for (size_t i = 0; i < have.n && ret == 0; i++) {
        const schema_obj *o = &have.v[i];
        if (strcmp(o->type, "table") == 0 &&
            (strcmp(o->name, "sqlite_stat1") == 0 || strcmp(o->name, "sqlite_stat4") == 0))
            continue; /* ANALYZE's statistics */
        if (version == 1 && strcmp(o->type, "view") == 0 &&
            strcmp(o->name, "top_operators") == 0)
            continue; /* dropped by the migration */
        bool known = false, same = false;
        for (size_t k = 0; k < n_want && !same; k++) {
            const schema_obj *w = schema_find(&want[k], o->name);
            known = known || w;
            same = w && obj_same(o, w);
            if (same && k == 2 && strcmp(o->type, "view") == 0)
                *uncast = true; /* made again by check_database */
        }
        if (!known)
            ret = et_fail(err, ET_ERR_IO,
                          "%s: the database has %s %s '%s' that etinspect did not create; "
                          "refusing to write into it (keep your own tables, views and triggers "
                          "in another database)",
                          s->path, o->type[0] == 'i' ? "an" : "a", o->type, o->name);
        else if (!same)
            ret = et_fail(err, ET_ERR_IO,
                          "%s: its %s '%s' is not as etinspect created it (changed since); "
                          "refusing to write into it",
                          s->path, o->type, o->name);
        if (strcmp(o->type, "table") == 0 &&
            (strcmp(o->name, "dumps") == 0 || strcmp(o->name, "blocks") == 0))
            tables++;
    }
    *has_tables = tables == 2;
    schema_free(&have);
    for (size_t k = 0; k < n_want; k++)
        schema_free(&want[k]);
    return ret;
}

/* Inside the transaction: is this a database we may write, and is it
 * sound?  Creates the schema in an empty one, migrates version 1. */
static int check_database(et_sqlite *s, et_error *err)
{
    int64_t app, version, n_objects;
    if (session_int(s, err, "PRAGMA application_id", &app) != 0 ||
        session_int(s, err, "PRAGMA user_version", &version) != 0 ||
        session_int(s, err, "SELECT count(*) FROM main.sqlite_master", &n_objects) != 0)
        return -1;
    exporter x = {.path = s->path, .db = s->db, .err = err};
    s->fresh = app == 0 && version == 0 && n_objects == 0;
    if (s->fresh) {
        char sql[128];
        snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 ET_SQL_APPLICATION_ID, ET_SQL_SCHEMA_VERSION);
        if (session_exec(s, err, sql, "create the database") != 0 ||
            session_exec(s, err, schema_sql, "create the schema") != 0)
            return -1;
        return 0;
    }
    if (app != ET_SQL_APPLICATION_ID)
        return et_fail(err, ET_ERR_IO,
                       "%s: not an etinspect database (an SQLite database with application_id "
                       "%lld, not %d); refusing to write into it",
                       s->path, (long long)app, ET_SQL_APPLICATION_ID);
    if (version < 1 || version > ET_SQL_SCHEMA_VERSION)
        return et_fail(err, ET_ERR_IO,
                       "%s: an etinspect database of schema version %lld; this etinspect "
                       "writes version %d",
                       s->path, (long long)version, ET_SQL_SCHEMA_VERSION);
    bool has_tables = false, uncast = false;
    if (quick_check(s, err, "sqlite_master") != 0 ||
        check_schema(s, err, version, &has_tables, &uncast) != 0)
        return -1;
    if (has_tables && (quick_check(s, err, "dumps") != 0 || quick_check(s, err, "blocks") != 0))
        return -1;
    int64_t av;
    bool none;
    if (query_int(&x, "PRAGMA auto_vacuum", NULL, &av, &none, "read the database") != 0)
        return -1;
    s->vacuum = av == 2;
    if (version == 1) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", ET_SQL_SCHEMA_VERSION);
        if (session_exec(s, err, migrate_v1_sql, "migrate the database from schema version 1") !=
                0 ||
            session_exec(s, err, sql, "migrate the database from schema version 1") != 0)
            return -1;
    }
    /* views of before CAST are made again as schema_sql's (below) */
    if (uncast && session_exec(s, err,
                               "DROP VIEW IF EXISTS samples; DROP VIEW IF EXISTS top_operators",
                               "give the views declared types") != 0)
        return -1;
    /* objects a user dropped (a view, an index) come back */
    return session_exec(s, err, schema_sql, "create the schema");
}

/* Is dest still the file s->db has open? */
static bool same_file(et_sqlite *s)
{
    int moved = 0;
    return sqlite3_file_control(s->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK &&
           !moved;
}

/* A file this export created and that still holds no database (no other
 * export wrote to it): removed, under a write lock (an export waiting on
 * it then finds it moved and starts over). */
static void remove_created(et_sqlite *s)
{
    struct stat st;
    if (stat(s->dest, &st) != 0 || st.st_dev != s->dev || st.st_ino != s->ino)
        return;
    if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return;
    sqlite3_stmt *st_ = NULL;
    bool empty = false;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT (SELECT count(*) FROM main.sqlite_master) = 0 AND "
                           "(SELECT application_id FROM pragma_application_id) = 0",
                           -1, &st_, NULL) == SQLITE_OK &&
        sqlite3_step(st_) == SQLITE_ROW)
        empty = sqlite3_column_int(st_, 0) == 1;
    sqlite3_finalize(st_);
    if (empty && same_file(s))
        unlink(s->dest);
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* End s's connection: roll back what was not committed (SQLite restores
 * the database and removes its journal), remove a file it created for
 * nothing, close. */
static void session_close(et_sqlite *s)
{
    if (!s->db)
        return;
    if (!s->committed) {
        if (!sqlite3_get_autocommit(s->db))
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        if (s->created)
            remove_created(s);
    }
    active_remove(s->slot);
    s->slot = -1;
    sqlite3_close_v2(s->db);
    s->db = NULL;
}

/* Free `s`; then a signal that interrupted it ends the process. */
static void session_free(et_sqlite *s)
{
    if (!s)
        return;
    session_close(s);
    for (size_t i = 0; i < s->n_added; i++)
        free(s->added[i]);
    free(s->added);
    free(s->path);
    free(s->dest);
    free(s);
    deliver_pending();
}

void et_sqlite_abort(et_sqlite *s)
{
    session_free(s);
}

/* One attempt at opening s->dest and starting the export's transaction:
 * 0, -1 with `err` set, or 1 when the file was created or moved by
 * another process meanwhile (start over). */
static int session_open(et_sqlite *s, const char *const *inputs, et_error *err)
{
    struct stat st;
    s->created = false;
    if (stat(s->dest, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return et_fail(err, ET_ERR_IO, "%s: not a regular file", s->path);
        if (access(s->dest, W_OK) != 0)
            return et_fail(err, ET_ERR_IO, "%s: %s", s->path, strerror(errno));
        if (et_outfile_guard(s->path, inputs, err) != 0) /* an input in use */
            return -1;
    } else if (errno != ENOENT) {
        return et_fail(err, ET_ERR_IO, "%s: %s", s->path, strerror(errno));
    } else {
        int fd = open(s->dest, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST)
            return 1;
        if (fd < 0)
            return et_fail(err, ET_ERR_IO, "%s: cannot create the database: %s", s->path,
                           strerror(errno));
        if (fstat(fd, &st) == 0) {
            s->created = true;
            s->dev = st.st_dev;
            s->ino = st.st_ino;
        }
        close(fd);
    }
    /* SQLite's rollback journal goes beside the database */
    {
        const char *slash = strrchr(s->dest, '/');
        char *dir = slash ? strdup(s->dest) : strdup(".");
        if (!dir)
            return et_fail(err, ET_ERR_NOMEM, "out of memory");
        if (slash)
            dir[slash == s->dest ? 1 : slash - s->dest] = '\0';
        int bad = access(dir, W_OK | X_OK) != 0;
        int e = errno;
        free(dir);
        if (bad)
            return et_fail(err, ET_ERR_IO,
                           "%s: cannot write in its directory (SQLite's journal goes beside "
                           "the database): %s",
                           s->path, strerror(e));
    }
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
#ifdef SQLITE_OPEN_NOFOLLOW
    flags |= SQLITE_OPEN_NOFOLLOW;
#endif
    if (open_db(s->dest, flags, &s->db) != SQLITE_OK)
        return session_fail(s, err, "cannot open");
    s->slot = active_add(s->db);
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_busy_handler(s->db, on_busy, s);
    if (sqlite3_db_readonly(s->db, "main") == 1)
        return et_fail(err, ET_ERR_IO, "%s: SQLite opened it read-only", s->path);
    /* page_size counts only for an empty database */
    if (session_exec(s, err,
                     "PRAGMA trusted_schema = OFF; PRAGMA cell_size_check = ON; "
                     "PRAGMA foreign_keys = OFF; PRAGMA synchronous = FULL; "
                     "PRAGMA temp_store = MEMORY; PRAGMA page_size = 65536",
                     "configure the connection") != 0)
        return -1;
    if (session_exec(s, err, "BEGIN IMMEDIATE", "begin a transaction") != 0)
        return -1;
    /* the page cache: 4 MiB, set once the page size is known (SQLite
     * counts a cache_size given in KiB as pages of the size of the moment:
     * set before page_size, it held the whole database of a many-dump
     * export, 2.6 MB a 100k-sample dump).  Dirty pages past it go to the
     * file (the journal keeps what they replace), so an export's memory
     * does not grow with what it writes; a larger cache was no faster. */
    if (session_exec(s, err, "PRAGMA cache_size = -4096", "configure the connection") != 0)
        return -1;
    if (!same_file(s)) /* removed or replaced since it was opened */
        return 1;
    return check_database(s, err);
}

int et_sqlite_begin(et_sqlite **out, const char *path, const char *const *inputs,
                    et_error *err)
{
    *out = NULL;
    if (!path || !*path)
        return et_fail(err, ET_ERR_USAGE, "SQLite export: an empty database path");
    et_sqlite *s = calloc(1, sizeof *s);
    if (!s)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    s->slot = -1;
    if (!(s->path = strdup(path))) {
        free(s);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    /* a symbolic link: write its target */
    int rc = busy_timeout(&s->timeout, err);
    if (rc == 0)
        rc = et_resolve_links(path, &s->dest, err);
    for (int attempt = 0; rc == 0; attempt++) {
        if (pending_signal) {
            rc = interrupted(err, path);
            break;
        }
        rc = session_open(s, inputs, err);
        if (rc != 1)
            break;
        session_close(s);
        rc = attempt < 8 ? 0 : et_fail(err, ET_ERR_IO,
                                       "%s: the file kept being created or replaced by another "
                                       "process while it was opened",
                                       path);
    }
    if (rc != 0) {
        session_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* Is `insp` read from a file (not from bytes in memory)? */
static bool from_file(const et_inspector *insp)
{
    const char *l = insp->etdump_label;
    return l && strcmp(l, "<etdump_data>") != 0 && strcmp(l, "<profile_results_data>") != 0;
}

int et_sqlite_add(et_sqlite *s, const et_inspector *insp, const et_sqlite_dump_options *o,
                  et_error *err)
{
    static const et_sqlite_dump_options defaults = {0};
    if (!o)
        o = &defaults;
    if (pending_signal)
        return interrupted(err, s->path);
    if (et_outfile_guard(s->path, NULL, err) != 0) /* inputs opened since begin */
        return -1;
    exporter x = {.insp = insp, .path = s->path, .db = s->db, .err = err};
    /* NULL: not a file, or one no longer there - but out of memory is an
     * error, not a dump without its path */
    errno = 0;
    char *rp = from_file(insp) ? realpath(insp->etdump_label, NULL) : NULL;
    if (from_file(insp) && !rp && errno == ENOMEM)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    char *name = NULL;
    bool replace = false;
    int rc = choose_name(&x, o, rp, &name, &replace);
    for (size_t i = 0; rc == 0 && i < s->n_added; i++)
        if (strcmp(s->added[i], name) == 0)
            rc = et_fail(err, ET_ERR_USAGE, "%s: dump '%s' is added twice by this export",
                         s->path, name);
    if (rc == 0 && s->n_added == s->cap_added) {
        size_t cap = s->cap_added ? 2 * s->cap_added : 8;
        char **a = realloc(s->added, cap * sizeof *a);
        if (!a)
            rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
        else
            s->added = a, s->cap_added = cap;
    }
    x.dump = name;
    if (rc == 0 && replace)
        rc = delete_dump(&x, name);
    uint64_t total = 0;
    for (size_t b = 0; b < insp->n_blocks; b++)
        for (size_t e = 0; e < insp->blocks[b].n_events; e++)
            if (insp->blocks[b].events[e].has_perf_data)
                total += insp->blocks[b].events[e].perf_data.n;
    int64_t base = 0;
    bool none;
    if (rc == 0)
        rc = query_int(&x, "SELECT max(id) FROM sample_data", NULL, &base, &none,
                       "insert into samples");
    if (rc == 0) {
        base = none ? 1 : base + 1;
        if (base < 1 || total > (uint64_t)(INT64_MAX - base))
            rc = et_fail(err, ET_ERR_VALUE,
                         "%s: insert into samples: sample_data has no ids left after %lld",
                         s->path, (long long)base - 1);
    }
    if (rc == 0)
        rc = insert_dump(&x, rp);
    if (rc == 0)
        rc = insert_blocks(&x);
    if (rc == 0)
        rc = insert_events(&x, base, total);
    if (rc == 0)
        rc = insert_allocations(&x);
    if (rc == 0) {
        s->added[s->n_added++] = name;
        name = NULL;
    }
    free(name);
    free(rp);
    et_sb_free(&x.sb);
    if (rc != 0 && pending_signal)
        rc = interrupted(err, s->path);
    return rc;
}

int et_sqlite_commit(et_sqlite *s, et_error *err)
{
    int rc = pending_signal ? interrupted(err, s->path) : 0;
    /* give back the pages of replaced rows, in the same transaction */
    if (rc == 0 && s->vacuum)
        rc = session_exec(s, err, "PRAGMA incremental_vacuum", "vacuum");
    if (rc == 0)
        rc = session_exec(s, err, "COMMIT", "commit");
    /* a new file's name is on disk already: SQLite syncs the directory
     * after creating the journal, which came after the file */
    if (rc == 0)
        s->committed = true;
    session_free(s);
    return rc;
}

int et_sqlite_export(const et_inspector *insp, const char *path,
                     const et_sqlite_dump_options *o, et_error *err)
{
    const char *inputs[3] = {insp->etdump_label, insp->etrecord ? insp->etrecord->label : NULL,
                             NULL};
    if (!from_file(insp))
        inputs[0] = inputs[1], inputs[1] = NULL;
    et_sqlite *s;
    if (et_sqlite_begin(&s, path, inputs, err) != 0)
        return -1;
    if (et_sqlite_add(s, insp, o, err) != 0) {
        et_sqlite_abort(s);
        return -1;
    }
    return et_sqlite_commit(s, err);
}

/* ------------------------------------------------------------------ */
/* Cells shared with the Parquet export (sqlexport.h) */

void et_sql_json_str(et_strbuf *sb, const char *s, size_t n)
{
    json_str(sb, s, n);
}

bool et_sql_node_type(const et_event *ev, et_strbuf *sb)
{
    return node_type(ev, sb);
}

void et_sql_op_types(et_strbuf *sb, const et_inspector *insp, const et_block *blk,
                     const et_event *ev)
{
    et_sb_reset(sb);
    op_types_json(sb, insp, blk, ev);
}

void et_sql_debug_handles(et_strbuf *sb, const et_event *ev)
{
    et_sb_reset(sb);
    debug_handles_json(sb, ev);
}
