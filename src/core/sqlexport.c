/* sqlexport.c - an inspector as an SQLite database; see sqlexport.h and
 * docs/sqlite-schema.md. */
#define _POSIX_C_SOURCE 200809L
#include "sqlexport.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "link.h"
#include "outfile.h"
#include "strbuf.h"
#include "timescale.h"
#include "version.h"

/* ------------------------------------------------------------------ */
/* The schema (docs/sqlite-schema.md documents every column).  IF NOT
 * EXISTS: the same statements run on a new database and on a copy of an
 * existing one of the same schema version. */

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
    "  exported_at TEXT NOT NULL\n"
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
    "  PRIMARY KEY (dump, block_index, event_index),\n"
    "  FOREIGN KEY (dump, block_index) REFERENCES blocks(dump, block_index)\n"
    "    ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS samples(\n"
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
    /* lua/etinspect/scripts/top_ops.lua's summary: node types of the
     * events with perf data outside "Default" blocks; avg is the sum of
     * the events' means (time per run) */
    "CREATE VIEW IF NOT EXISTS top_operators AS\n"
    "WITH t AS (\n"
    "  SELECT e.dump AS dump, e.node_type AS node_type, count(*) AS events,\n"
    "         sum(e.avg) AS avg, sum(e.total) AS total\n"
    "  FROM events AS e JOIN blocks AS b ON b.dump = e.dump AND b.block_index = e.block_index\n"
    "  WHERE e.node_type IS NOT NULL AND e.num_samples > 0 AND b.name <> 'Default'\n"
    "  GROUP BY e.dump, e.node_type\n"
    "), r AS (\n"
    "  SELECT t.*, sum(avg) OVER (PARTITION BY dump) AS grand,\n"
    "         sum(avg) OVER (PARTITION BY dump ORDER BY avg DESC, node_type\n"
    "                        ROWS UNBOUNDED PRECEDING) AS cum,\n"
    "         row_number() OVER (PARTITION BY dump ORDER BY avg DESC, node_type) AS rank\n"
    "  FROM t\n"
    ")\n"
    "SELECT dump, rank, node_type, events, avg,\n"
    "       CASE WHEN grand > 0 THEN 100.0 * avg / grand ELSE 0.0 END AS avg_pct,\n"
    "       CASE WHEN grand > 0 THEN 100.0 * cum / grand ELSE 0.0 END AS cdf_pct,\n"
    "       total\n"
    "FROM r;\n";

/* ------------------------------------------------------------------ */
/* Errors */

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

static int exec(exporter *x, const char *sql, const char *what)
{
    if (sqlite3_exec(x->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return x_fail(x, what);
    return 0;
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

static int insert_dump(exporter *x)
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
    for (size_t i = 0; i < insp->n_warnings; i++) {
        if (i)
            et_sb_adds(sb, ", ");
        json_str(sb, insp->warnings[i], strlen(insp->warnings[i]));
    }
    et_sb_addc(sb, ']');
    if (sb->failed)
        return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
    sqlite3_stmt *st;
    if (prepare(x,
                "INSERT INTO dumps VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                "?13, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
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
    int rc = step(x, st, "insert into dumps");
    sqlite3_finalize(st);
    return rc;
}

static int insert_blocks(exporter *x)
{
    sqlite3_stmt *st;
    if (prepare(x, "INSERT INTO blocks VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st,
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

/* Samples are inserted SAMPLE_BATCH rows per statement ("INSERT ...
 * VALUES (...), (...), ..."): a third of the time of one row per
 * statement (1M samples: 0.6 s instead of 1.7 s); the rest of a batch goes
 * one row at a time. */
#define SAMPLE_BATCH 100
#define SAMPLE_COLS 6 /* per row, after ?1 (the dump) */

typedef struct sample_row {
    sqlite3_int64 block, event, run, run_data_index;
    double duration;
    bool has_start;
    uint64_t start_time;
} sample_row;

typedef struct sample_writer {
    sqlite3_stmt *batch, *one;
    int n;
    sample_row rows[SAMPLE_BATCH];
} sample_writer;

static void bind_sample(sqlite3_stmt *st, int at, const sample_row *r)
{
    sqlite3_bind_int64(st, at, r->block);
    sqlite3_bind_int64(st, at + 1, r->event);
    sqlite3_bind_int64(st, at + 2, r->run);
    sqlite3_bind_int64(st, at + 3, r->run_data_index);
    sqlite3_bind_double(st, at + 4, r->duration);
    if (r->has_start)
        bind_u64(st, at + 5, r->start_time);
    else
        sqlite3_bind_null(st, at + 5);
}

/* Write the rows held: a full batch with one statement, else one by one. */
static int flush_samples(exporter *x, sample_writer *w)
{
    int rc = 0;
    if (w->n == SAMPLE_BATCH) {
        for (int i = 0; i < w->n; i++)
            bind_sample(w->batch, 2 + SAMPLE_COLS * i, &w->rows[i]);
        rc = step(x, w->batch, "insert into samples");
    } else {
        for (int i = 0; i < w->n && rc == 0; i++) {
            bind_sample(w->one, 2, &w->rows[i]);
            rc = step(x, w->one, "insert into samples");
        }
    }
    w->n = 0;
    return rc;
}

static int prepare_samples(exporter *x, sample_writer *w)
{
    et_strbuf sql = {0};
    et_sb_adds(&sql, "INSERT INTO samples VALUES ");
    for (int i = 0; i < SAMPLE_BATCH; i++) {
        char row[96];
        int p = 2 + SAMPLE_COLS * i;
        snprintf(row, sizeof row, "%s(?1, ?%d, ?%d, ?%d, ?%d, ?%d, ?%d)", i ? ", " : "", p,
                 p + 1, p + 2, p + 3, p + 4, p + 5);
        et_sb_adds(&sql, row);
    }
    if (sql.failed) {
        et_sb_free(&sql);
        return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
    }
    int rc = prepare(x, sql.p, &w->batch, "insert into samples");
    et_sb_free(&sql);
    if (rc == 0)
        rc = prepare(x, "INSERT INTO samples VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &w->one,
                     "insert into samples");
    if (rc == 0) {
        sqlite3_bind_text(w->batch, 1, x->dump, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->one, 1, x->dump, -1, SQLITE_STATIC);
    }
    return rc;
}

/* events and samples, block by block, in key order */
static int insert_events(exporter *x)
{
    sqlite3_stmt *ev_st = NULL;
    sample_writer *w = calloc(1, sizeof *w);
    if (!w)
        return et_fail(x->err, ET_ERR_NOMEM, "out of memory");
    int rc = prepare(x,
                     "INSERT INTO events VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
                     "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
                     &ev_st, "insert into events");
    if (rc == 0)
        rc = prepare_samples(x, w);
    if (rc == 0)
        sqlite3_bind_text(ev_st, 1, x->dump, -1, SQLITE_STATIC);
    for (size_t b = 0; b < x->insp->n_blocks && rc == 0; b++) {
        const et_block *blk = &x->insp->blocks[b];
        sqlite3_bind_int64(ev_st, 2, (sqlite3_int64)b);
        for (size_t e = 0; e < blk->n_events && rc == 0; e++) {
            const et_event *ev = &blk->events[e];
            sqlite3_bind_int64(ev_st, 3, (sqlite3_int64)e);
            rc = bind_event(x, ev_st, blk, ev);
            if (rc == 0)
                rc = step(x, ev_st, "insert into events");
            if (rc != 0 || !ev->has_perf_data)
                continue;
            const et_perf_data *pd = &ev->perf_data;
            for (size_t r = 0; r < pd->n && rc == 0; r++) {
                sample_row *row = &w->rows[w->n++];
                row->block = (sqlite3_int64)b;
                row->event = (sqlite3_int64)e;
                row->run = (sqlite3_int64)r;
                row->run_data_index = r < blk->n_runs ? blk->runs[r] : (sqlite3_int64)r;
                row->duration = pd->raw[r];
                row->has_start = ev->start_time != NULL;
                row->start_time = ev->start_time ? ev->start_time[r] : 0;
                if (w->n == SAMPLE_BATCH)
                    rc = flush_samples(x, w);
            }
        }
    }
    if (rc == 0)
        rc = flush_samples(x, w);
    sqlite3_finalize(ev_st);
    sqlite3_finalize(w->batch);
    sqlite3_finalize(w->one);
    free(w);
    return rc;
}

static int insert_allocations(exporter *x)
{
    sqlite3_stmt *st;
    if (prepare(x, "INSERT INTO allocations VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &st,
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

/* Delete the dump's rows from every table. */
static int delete_dump(exporter *x)
{
    static const char *const sql[] = {
        "DELETE FROM samples WHERE dump = ?1",     "DELETE FROM allocations WHERE dump = ?1",
        "DELETE FROM events WHERE dump = ?1",      "DELETE FROM blocks WHERE dump = ?1",
        "DELETE FROM dumps WHERE dump = ?1"};
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        sqlite3_stmt *st;
        if (prepare(x, sql[i], &st, "delete the dump's old rows") != 0)
            return -1;
        sqlite3_bind_text(st, 1, x->dump, -1, SQLITE_STATIC);
        int rc = step(x, st, "delete the dump's old rows");
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Everything written into x->db, a new database or a copy of an existing
 * one (`fresh` false). */
static int write_db(exporter *x, bool fresh)
{
    /* the file is temporary and removed on failure: no journal, no syncs
     * (the caller syncs it before the rename) */
    if (exec(x, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
                "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768; "
                "PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF",
             "configure the connection") != 0)
        return -1;
    if (fresh) {
        char sql[160];
        snprintf(sql, sizeof sql,
                 "PRAGMA auto_vacuum = INCREMENTAL; PRAGMA application_id = %d; "
                 "PRAGMA user_version = %d",
                 ET_SQL_APPLICATION_ID, ET_SQL_SCHEMA_VERSION);
        if (exec(x, sql, "create the database") != 0)
            return -1;
    }
    if (exec(x, "BEGIN", "begin a transaction") != 0)
        return -1;
    if (exec(x, schema_sql, "create the schema") != 0 || delete_dump(x) != 0 ||
        insert_dump(x) != 0 || insert_blocks(x) != 0 || insert_events(x) != 0 ||
        insert_allocations(x) != 0) {
        sqlite3_exec(x->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (exec(x, "COMMIT", "commit") != 0)
        return -1;
    /* give back the pages of replaced rows */
    return exec(x, "PRAGMA incremental_vacuum", "vacuum");
}

/* ------------------------------------------------------------------ */
/* The file */

/* "file:PATH?immutable=1" with '%', '?' and '#' of PATH escaped, or NULL
 * out of memory. */
static char *file_uri(const char *file)
{
    et_strbuf sb = {0};
    et_sb_adds(&sb, file[0] == '/' ? "file://" : "file:");
    for (const char *c = file; *c; c++) {
        if (*c == '%' || *c == '?' || *c == '#') {
            char esc[4];
            snprintf(esc, sizeof esc, "%%%02X", (unsigned char)*c);
            et_sb_adds(&sb, esc);
        } else {
            et_sb_addc(&sb, *c);
        }
    }
    et_sb_adds(&sb, "?immutable=1");
    if (sb.failed) {
        et_sb_free(&sb);
        return NULL;
    }
    return sb.p;
}

/* Check that the existing, non-empty `file` is an etinspect database of a
 * schema this version can add to; leaves it open read-only in *src. */
static int open_existing(const char *file, const char *path, sqlite3 **src, et_error *err)
{
    *src = NULL;
    /* immutable: read the file as it is, creating no -wal or -shm beside
     * it (they would outlive the file this one replaces); the caller made
     * sure that no journal or WAL file holds part of its contents */
    char *uri = file_uri(file);
    if (!uri)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    int rc = sqlite3_open_v2(uri, src, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        db_fail(err, *src, path, "cannot open");
        sqlite3_close(*src);
        *src = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*src, 2000);
    sqlite3_stmt *st = NULL;
    long long app = 0, version = 0;
    rc = sqlite3_prepare_v2(*src, "PRAGMA application_id", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        app = sqlite3_column_int64(st, 0), rc = SQLITE_OK;
    sqlite3_finalize(st);
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(*src, "PRAGMA user_version", -1, &st, NULL);
        if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
            version = sqlite3_column_int64(st, 0), rc = SQLITE_OK;
        sqlite3_finalize(st);
    }
    int ret = 0;
    if (rc != SQLITE_OK) {
        int code = sqlite3_errcode(*src);
        if (code == SQLITE_NOTADB)
            ret = et_fail(err, ET_ERR_IO,
                          "%s: not an etinspect database (%s); refusing to replace it", path,
                          sqlite3_errmsg(*src));
        else
            ret = db_fail(err, *src, path, "cannot read");
    } else if (app != ET_SQL_APPLICATION_ID) {
        ret = et_fail(err, ET_ERR_IO,
                      "%s: not an etinspect database (an SQLite database with application_id "
                      "%lld, not %d); refusing to replace it",
                      path, app, ET_SQL_APPLICATION_ID);
    } else if (version != ET_SQL_SCHEMA_VERSION) {
        ret = et_fail(err, ET_ERR_IO,
                      "%s: an etinspect database of schema version %lld; this etinspect "
                      "writes version %d",
                      path, version, ET_SQL_SCHEMA_VERSION);
    }
    if (ret != 0) {
        sqlite3_close(*src);
        *src = NULL;
    }
    return ret;
}

/* Copy database `src` into `dst` (SQLite's backup API: a consistent
 * snapshot, whatever the source's journal mode). */
static int copy_db(sqlite3 *dst, sqlite3 *src, const char *path, et_error *err)
{
    sqlite3_backup *bk = sqlite3_backup_init(dst, "main", src, "main");
    if (!bk)
        return db_fail(err, dst, path, "cannot copy the existing database");
    int rc = sqlite3_backup_step(bk, -1);
    int frc = sqlite3_backup_finish(bk);
    if (rc != SQLITE_DONE || frc != SQLITE_OK)
        return db_fail(err, dst, path, "cannot copy the existing database");
    return 0;
}

/* fsync a file or directory; `must` false ignores failures (directories
 * some file systems cannot sync). */
static int sync_path(const char *p, bool dir)
{
    int fd = open(p, dir ? O_RDONLY : O_RDWR);
    if (fd < 0)
        return dir ? 0 : -1;
    int rc = fsync(fd);
    close(fd);
    return dir ? 0 : rc;
}

/* The directory part of `file` ("." for none), in a new string. */
static char *dir_of(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        return strdup(".");
    if (slash == file)
        return strdup("/");
    char *d = malloc((size_t)(slash - file) + 1);
    if (d) {
        memcpy(d, file, (size_t)(slash - file));
        d[slash - file] = '\0';
    }
    return d;
}

int et_sqlite_export(const et_inspector *insp, const char *path, const char *dump,
                     et_error *err)
{
    if (!path || !*path)
        return et_fail(err, ET_ERR_USAGE, "SQLite export: an empty database path");
    if (!dump) {
        const char *label = insp->etdump_label ? insp->etdump_label : "";
        const char *slash = strrchr(label, '/');
        dump = slash ? slash + 1 : label;
    }
    if (!*dump)
        return et_fail(err, ET_ERR_USAGE, "%s: the dump name is empty", path);

    /* a symbolic link: write its target */
    char *dest = NULL;
    if (et_resolve_links(path, &dest, err) != 0)
        return -1;
    char *journal = dest ? concat(dest, "-journal") : NULL;
    char *wal = dest ? concat(dest, "-wal") : NULL;
    char *tmp = dest ? concat(dest, ".XXXXXX") : NULL;
    char *dir = dest ? dir_of(dest) : NULL;
    sqlite3 *src = NULL;
    exporter x = {.insp = insp, .path = path, .dump = dump, .err = err};
    bool made_tmp = false;
    char *tmp_journal = NULL;
    int slot[2] = {-1, -1};
    int rc = -1;
    if (!dest || !journal || !wal || !tmp || !dir) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        goto out;
    }

    struct stat st;
    bool exists = stat(dest, &st) == 0;
    if (!exists && errno != ENOENT) {
        et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        et_fail(err, ET_ERR_IO, "%s: not a regular file", path);
        goto out;
    }
    if (exists && access(dest, W_OK) != 0) {
        et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (exists && et_outfile_guard(path, NULL, err) != 0) /* any input in use */
        goto out;
    const char *const beside[2] = {journal, wal};
    for (int i = 0; i < 2; i++) {
        struct stat js;
        if (lstat(beside[i], &js) == 0) {
            et_fail(err, ET_ERR_IO,
                    "%s: %s exists: the database is in use or was not closed cleanly "
                    "(open it with sqlite3 once to recover it)",
                    path, beside[i]);
            goto out;
        }
    }
    if (exists && st.st_size > 0 && open_existing(dest, path, &src, err) != 0)
        goto out;

    /* the temporary file, with the permissions of the file it replaces;
     * it and its journal are removed if a signal kills the process */
    tmp_journal = concat(tmp, "-journal");
    if (!tmp_journal) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        goto out;
    }
    slot[0] = et_temp_track(tmp);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        et_fail(err, ET_ERR_IO, "%s: cannot create a file beside it: %s", path, strerror(errno));
        goto out;
    }
    made_tmp = true;
    memcpy(tmp_journal, tmp, strlen(tmp)); /* the name mkstemp chose */
    slot[1] = et_temp_track(tmp_journal);
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~um));
    close(fd);

    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
#ifdef SQLITE_OPEN_NOFOLLOW
    flags |= SQLITE_OPEN_NOFOLLOW;
#endif
    if (open_db(tmp, flags, &x.db) != SQLITE_OK) {
        x_fail(&x, "cannot open the temporary database");
        goto out;
    }
    if (src) {
        if (copy_db(x.db, src, path, err) != 0)
            goto out;
        sqlite3_close(src);
        src = NULL;
    }
    if (write_db(&x, !exists || st.st_size == 0) != 0)
        goto out;
    if (sqlite3_close(x.db) != SQLITE_OK) {
        x_fail(&x, "cannot close the database");
        goto out;
    }
    x.db = NULL;
    if (sync_path(tmp, false) != 0) {
        et_fail(err, ET_ERR_IO, "%s: cannot sync the new database: %s", path, strerror(errno));
        goto out;
    }
    if (rename(tmp, dest) != 0) {
        et_fail(err, ET_ERR_IO, "%s: cannot rename the new database into place: %s", path,
                strerror(errno));
        goto out;
    }
    made_tmp = false;
    sync_path(dir, true);
    rc = 0;
out:
    if (x.db)
        sqlite3_close_v2(x.db);
    if (src)
        sqlite3_close(src);
    et_temp_untrack(slot[0]);
    et_temp_untrack(slot[1]);
    free(tmp_journal);
    if (made_tmp) {
        unlink(tmp);
        static const char *const side[] = {"-journal", "-wal", "-shm"};
        for (size_t i = 0; i < sizeof side / sizeof *side; i++) {
            char *j = concat(tmp, side[i]);
            if (j)
                unlink(j);
            free(j);
        }
    }
    et_sb_free(&x.sb);
    free(dest);
    free(journal);
    free(wal);
    free(tmp);
    free(dir);
    return rc;
}
