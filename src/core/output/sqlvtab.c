/* sqlvtab.c - SQLite virtual tables over inspectors in memory; see
 * sqlvtab.h and docs/sql.md.  The values are those sqlexport.c writes
 * for the same model (the helpers marked "as the export" follow its
 * rules). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "output/sqlvtab.h"

#include <limits.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/strbuf.h"
#include "base/timescale.h"
#include "base/version.h"
#include "output/sqlexport.h"
#include "model/link.h"

/* ------------------------------------------------------------------ */
/* The session */

typedef enum { T_DUMPS, T_BLOCKS, T_EVENTS, T_SAMPLE_DATA, T_SAMPLES, T_ALLOCATIONS, T_COUNT } tkind;

typedef struct dump_info {
    const et_inspector *insp;
    char *name, *warnings, *realpath_;
    uint64_t n_events, n_samples, n_allocs;
    int64_t sample_base; /* sample_data id of the dump's first sample */
} dump_info;

struct et_sql;
typedef struct module_aux {
    struct et_sql *s;
    tkind kind;
} module_aux;

struct et_sql {
    sqlite3 *db;
    dump_info *dumps;
    size_t n;
    et_sql_options o;
    long long steps; /* progress callbacks since the query began */
    int stopped;     /* the budget or the interrupt stopped it */
    int declaring;   /* a table's declaration is parsed (authorized) */
    module_aux aux[T_COUNT];
};

static const char *const table_names[T_COUNT] = {"dumps",       "blocks",  "events",
                                                  "sample_data", "samples", "allocations"};

/* Declared as the export declares them (types only: a virtual table has
 * no constraints). */
static const char *const table_decls[T_COUNT] = {
    "CREATE TABLE x(dump TEXT, format TEXT, etdump_path TEXT, etrecord_path TEXT, "
    "etrecord_method TEXT, source_time_scale TEXT, target_time_scale TEXT, num_blocks INTEGER, "
    "num_events INTEGER, num_samples INTEGER, num_allocations INTEGER, warnings TEXT, "
    "etinspect_version TEXT, exported_at TEXT, etdump_realpath TEXT)",
    "CREATE TABLE x(dump TEXT, block_index INTEGER, name TEXT, num_runs INTEGER, num_events "
    "INTEGER, bundled_input_index INTEGER, etrecord_method TEXT)",
    "CREATE TABLE x(dump TEXT, block_index INTEGER, event_index INTEGER, name TEXT, node_type "
    "TEXT, instruction_id INTEGER, delegate_debug_identifier, is_delegated_op INTEGER, "
    "delegate_backend_name TEXT, debug_handles TEXT, op_types TEXT, num_outputs INTEGER, "
    "num_samples INTEGER, p10 REAL, p50 REAL, p90 REAL, avg REAL, min REAL, max REAL, total "
    "REAL, first_sample INTEGER)",
    "CREATE TABLE x(id INTEGER, run_data_index INTEGER, duration REAL, start_time INTEGER)",
    "CREATE TABLE x(dump TEXT, block_index INTEGER, event_index INTEGER, run INTEGER, "
    "run_data_index INTEGER, duration REAL, start_time INTEGER)",
    "CREATE TABLE x(dump TEXT, block_index INTEGER, run INTEGER, seq INTEGER, run_data_index "
    "INTEGER, allocator_id INTEGER, allocator TEXT, allocation_size INTEGER)",
};

/* ------------------------------------------------------------------ */
/* Values, as the export writes them */

static void result_text(sqlite3_context *ctx, const char *p, size_t n)
{
    if (!p)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_text64(ctx, p, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static void result_cstr(sqlite3_context *ctx, const char *p)
{
    result_text(ctx, p, p ? strlen(p) : 0);
}

static void result_sb(sqlite3_context *ctx, et_strbuf *sb)
{
    if (sb->failed)
        sqlite3_result_error_nomem(ctx);
    else
        result_text(ctx, sb->p ? sb->p : "", sb->n);
}

/* An unsigned 64-bit value: INTEGER when it fits, else REAL. */
static void result_u64(sqlite3_context *ctx, uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        sqlite3_result_int64(ctx, (sqlite3_int64)v);
    else
        sqlite3_result_double(ctx, (double)v);
}

/* ------------------------------------------------------------------ */
/* Cursors: a position (dump, block, event or run, run or seq) moved to
 * the next row of the table */

typedef struct cursor {
    sqlite3_vtab_cursor base;
    tkind kind;
    et_sql *s;
    size_t d, b, e, r, k;
    int64_t rowid;
    int64_t next_sample; /* events: sample_data id of the event's first sample */
    et_strbuf sb;
} cursor;

typedef struct vtab {
    sqlite3_vtab base;
    module_aux *aux;
} vtab;

static bool has_samples(const et_event *ev)
{
    return ev->has_perf_data && ev->perf_data.n > 0;
}

/* Is the position a row of the table?  (Positions past an axis's end are
 * carried by settle.) */
static void settle(cursor *c)
{
    et_sql *s = c->s;
    for (;;) {
        if (c->d >= s->n)
            return;
        const et_inspector *insp = s->dumps[c->d].insp;
        if (c->kind == T_DUMPS)
            return;
        if (c->b >= insp->n_blocks) {
            c->d++;
            c->b = c->e = c->r = c->k = 0;
            continue;
        }
        const et_block *blk = &insp->blocks[c->b];
        if (c->kind == T_BLOCKS)
            return;
        if (c->kind == T_ALLOCATIONS) {
            if (!blk->allocation_count || !blk->allocation_first || c->r >= blk->n_runs) {
                c->b++;
                c->r = c->k = 0;
                continue;
            }
            if (c->k >= blk->allocation_count[c->r]) {
                c->r++;
                c->k = 0;
                continue;
            }
            return;
        }
        if (c->e >= blk->n_events) {
            c->b++;
            c->e = c->r = 0;
            continue;
        }
        if (c->kind == T_EVENTS)
            return;
        const et_event *ev = &blk->events[c->e];
        if (!has_samples(ev) || c->r >= ev->perf_data.n) {
            c->e++;
            c->r = 0;
            continue;
        }
        return;
    }
}

static void advance(cursor *c)
{
    switch (c->kind) {
    case T_DUMPS: c->d++; break;
    case T_BLOCKS: c->b++; break;
    case T_EVENTS: {
        const et_event *ev = &c->s->dumps[c->d].insp->blocks[c->b].events[c->e];
        if (has_samples(ev))
            c->next_sample += (int64_t)ev->perf_data.n;
        c->e++;
        size_t d = c->d;
        settle(c);
        if (c->d != d && c->d < c->s->n)
            c->next_sample = c->s->dumps[c->d].sample_base;
        c->rowid++;
        return;
    }
    case T_SAMPLE_DATA:
    case T_SAMPLES: c->r++; break;
    case T_ALLOCATIONS: c->k++; break;
    default: break;
    }
    c->rowid++;
    settle(c);
}

static int x_connect(sqlite3 *db, void *paux, int argc, const char *const *argv,
                     sqlite3_vtab **out, char **errmsg)
{
    (void)argc;
    (void)argv;
    (void)errmsg;
    module_aux *aux = paux;
    aux->s->declaring = 1;
    int rc = sqlite3_declare_vtab(db, table_decls[aux->kind]);
    aux->s->declaring = 0;
    if (rc != SQLITE_OK)
        return rc;
    vtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->aux = aux;
    *out = &v->base;
    return SQLITE_OK;
}

static int x_disconnect(sqlite3_vtab *v)
{
    sqlite3_free(v);
    return SQLITE_OK;
}

static int x_best_index(sqlite3_vtab *tab, sqlite3_index_info *info)
{
    const vtab *v = (const vtab *)tab;
    const et_sql *s = v->aux->s;
    double rows = 1;
    for (size_t d = 0; d < s->n; d++) {
        const dump_info *di = &s->dumps[d];
        switch (v->aux->kind) {
        case T_DUMPS: rows += 1; break;
        case T_BLOCKS: rows += (double)di->insp->n_blocks; break;
        case T_EVENTS: rows += (double)di->n_events; break;
        case T_ALLOCATIONS: rows += (double)di->n_allocs; break;
        default: rows += (double)di->n_samples; break;
        }
    }
    info->estimatedRows = (sqlite3_int64)rows;
    info->estimatedCost = rows;
    return SQLITE_OK;
}

static int x_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **out)
{
    vtab *v = (vtab *)tab;
    cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->kind = v->aux->kind;
    c->s = v->aux->s;
    *out = &c->base;
    return SQLITE_OK;
}

static int x_close(sqlite3_vtab_cursor *cur)
{
    cursor *c = (cursor *)cur;
    et_sb_free(&c->sb);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int x_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                    sqlite3_value **argv)
{
    (void)idx;
    (void)idx_str;
    (void)argc;
    (void)argv;
    cursor *c = (cursor *)cur;
    c->d = c->b = c->e = c->r = c->k = 0;
    c->rowid = 1;
    settle(c);
    c->next_sample = c->d < c->s->n ? c->s->dumps[c->d].sample_base : 1;
    return SQLITE_OK;
}

static int x_next(sqlite3_vtab_cursor *cur)
{
    advance((cursor *)cur);
    return SQLITE_OK;
}

static int x_eof(sqlite3_vtab_cursor *cur)
{
    const cursor *c = (const cursor *)cur;
    return c->d >= c->s->n;
}

static int x_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    const cursor *c = (const cursor *)cur;
    *rowid = c->rowid;
    return SQLITE_OK;
}

static void col_dumps(cursor *c, const dump_info *di, sqlite3_context *ctx, int col)
{
    const et_inspector *insp = di->insp;
    switch (col) {
    case 0: result_cstr(ctx, di->name); break;
    case 1: result_cstr(ctx, insp->legacy ? "legacy" : "etdump"); break;
    case 2: result_cstr(ctx, insp->etdump_label); break;
    case 3: result_cstr(ctx, insp->etrecord ? insp->etrecord->label : NULL); break;
    case 4: result_cstr(ctx, insp->etrecord_method); break;
    case 5: result_cstr(ctx, et_time_scale_name(insp->source_time_scale)); break;
    case 6: result_cstr(ctx, et_time_scale_name(insp->target_time_scale)); break;
    case 7: sqlite3_result_int64(ctx, (sqlite3_int64)insp->n_blocks); break;
    case 8: sqlite3_result_int64(ctx, (sqlite3_int64)di->n_events); break;
    case 9: sqlite3_result_int64(ctx, (sqlite3_int64)di->n_samples); break;
    case 10: sqlite3_result_int64(ctx, (sqlite3_int64)di->n_allocs); break;
    case 11: result_cstr(ctx, di->warnings); break;
    case 12: result_cstr(ctx, ETINSPECT_VERSION); break;
    case 13: {
        char when[32];
        time_t now = time(NULL);
        struct tm tm;
        if (gmtime_r(&now, &tm) && strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
            result_cstr(ctx, when);
        else
            sqlite3_result_null(ctx);
        break;
    }
    case 14: result_cstr(ctx, di->realpath_); break;
    default: sqlite3_result_null(ctx); break;
    }
    (void)c;
}

static void col_event(cursor *c, const dump_info *di, const et_block *blk, const et_event *ev,
                      sqlite3_context *ctx, int col)
{
    et_strbuf *sb = &c->sb;
    switch (col) {
    case 3: {
        et_str n = et_event_name(ev);
        result_text(ctx, n.p ? n.p : "", n.n);
        break;
    }
    case 4:
        if (et_sql_node_type(ev, sb))
            result_sb(ctx, sb);
        else
            sqlite3_result_null(ctx);
        break;
    case 5: sqlite3_result_int64(ctx, ev->instruction_id); break;
    case 6:
        if (ev->delegate_debug_identifier_kind == ET_DID_INT)
            sqlite3_result_int64(ctx, ev->delegate_debug_id_int);
        else if (ev->delegate_debug_identifier_kind == ET_DID_STR)
            result_text(ctx, ev->delegate_debug_id_str.p, ev->delegate_debug_id_str.n);
        else
            sqlite3_result_null(ctx);
        break;
    case 7: sqlite3_result_int(ctx, ev->is_delegated_op); break;
    case 8: result_cstr(ctx, ev->delegate_backend_name); break;
    case 9:
        if (!ev->has_debug_handles) {
            sqlite3_result_null(ctx);
            break;
        }
        et_sql_debug_handles(sb, ev);
        result_sb(ctx, sb);
        break;
    case 10: {
        if (!di->insp->etrecord) {
            sqlite3_result_null(ctx);
            break;
        }
        et_sql_op_types(sb, di->insp, blk, ev);
        result_sb(ctx, sb);
        break;
    }
    case 11: sqlite3_result_int64(ctx, ev->num_outputs); break;
    case 12: sqlite3_result_int64(ctx, ev->has_perf_data ? (sqlite3_int64)ev->perf_data.n : 0); break;
    case 13: case 14: case 15: case 16: case 17: case 18: case 19: {
        if (!ev->has_perf_data) {
            sqlite3_result_null(ctx);
            break;
        }
        const et_perf_data *pd = &ev->perf_data;
        double v;
        switch (col) {
        case 13: v = pd->p10; break;
        case 14: v = pd->p50; break;
        case 15: v = pd->p90; break;
        case 16: v = pd->avg; break;
        case 17: v = pd->min; break;
        case 18: v = pd->max; break;
        default:
            v = 0;
            for (size_t r = 0; r < pd->n; r++)
                v += pd->raw[r];
            break;
        }
        sqlite3_result_double(ctx, v);
        break;
    }
    case 20:
        if (has_samples(ev))
            sqlite3_result_int64(ctx, c->next_sample);
        else
            sqlite3_result_null(ctx);
        break;
    default: sqlite3_result_null(ctx); break;
    }
}

static int x_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    cursor *c = (cursor *)cur;
    const dump_info *di = &c->s->dumps[c->d];
    const et_inspector *insp = di->insp;
    if (c->kind == T_DUMPS) {
        col_dumps(c, di, ctx, col);
        return SQLITE_OK;
    }
    const et_block *blk = &insp->blocks[c->b];
    if (c->kind == T_BLOCKS) {
        switch (col) {
        case 0: result_cstr(ctx, di->name); break;
        case 1: sqlite3_result_int64(ctx, (sqlite3_int64)c->b); break;
        case 2: result_text(ctx, blk->name.p ? blk->name.p : "", blk->name.n); break;
        case 3: sqlite3_result_int64(ctx, (sqlite3_int64)blk->n_runs); break;
        case 4: sqlite3_result_int64(ctx, (sqlite3_int64)blk->n_events); break;
        case 5: sqlite3_result_int64(ctx, blk->bundled_input_index); break;
        default: result_cstr(ctx, blk->method); break;
        }
        return SQLITE_OK;
    }
    if (c->kind == T_ALLOCATIONS) {
        const et_allocation *a = &blk->allocations[blk->allocation_first[c->r] + c->k];
        switch (col) {
        case 0: result_cstr(ctx, di->name); break;
        case 1: sqlite3_result_int64(ctx, (sqlite3_int64)c->b); break;
        case 2: sqlite3_result_int64(ctx, (sqlite3_int64)c->r); break;
        case 3: sqlite3_result_int64(ctx, (sqlite3_int64)c->k); break;
        case 4: sqlite3_result_int64(ctx, blk->runs[c->r]); break;
        case 5: sqlite3_result_int64(ctx, a->allocator_id); break;
        case 6:
            if (a->allocator_id >= 1 && (size_t)a->allocator_id <= blk->n_allocators &&
                blk->allocators[a->allocator_id - 1].p)
                result_text(ctx, blk->allocators[a->allocator_id - 1].p,
                            blk->allocators[a->allocator_id - 1].n);
            else
                sqlite3_result_null(ctx);
            break;
        default: result_u64(ctx, a->allocation_size); break;
        }
        return SQLITE_OK;
    }
    const et_event *ev = &blk->events[c->e];
    if (c->kind == T_EVENTS) {
        switch (col) {
        case 0: result_cstr(ctx, di->name); break;
        case 1: sqlite3_result_int64(ctx, (sqlite3_int64)c->b); break;
        case 2: sqlite3_result_int64(ctx, (sqlite3_int64)c->e); break;
        default: col_event(c, di, blk, ev, ctx, col); break;
        }
        return SQLITE_OK;
    }
    /* sample_data and samples: the run c->r of the event */
    int64_t rdi = c->r < blk->n_runs ? blk->runs[c->r] : (int64_t)c->r;
    int at = c->kind == T_SAMPLES ? col - 3 : col;
    if (c->kind == T_SAMPLES && col < 4) {
        switch (col) {
        case 0: result_cstr(ctx, di->name); break;
        case 1: sqlite3_result_int64(ctx, (sqlite3_int64)c->b); break;
        case 2: sqlite3_result_int64(ctx, (sqlite3_int64)c->e); break;
        default: sqlite3_result_int64(ctx, (sqlite3_int64)c->r); break;
        }
        return SQLITE_OK;
    }
    switch (at) {
    case 0: sqlite3_result_int64(ctx, c->rowid); break; /* ids run on over the dumps, as rowids */
    case 1: sqlite3_result_int64(ctx, rdi); break;
    case 2: sqlite3_result_double(ctx, ev->perf_data.raw[c->r]); break;
    default:
        if (ev->start_time)
            result_u64(ctx, ev->start_time[c->r]);
        else
            sqlite3_result_null(ctx);
        break;
    }
    return SQLITE_OK;
}

static const sqlite3_module model_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous-only: the table exists under the module's name */
    .xConnect = x_connect,
    .xBestIndex = x_best_index,
    .xDisconnect = x_disconnect,
    .xDestroy = x_disconnect,
    .xOpen = x_open,
    .xClose = x_close,
    .xFilter = x_filter,
    .xNext = x_next,
    .xEof = x_eof,
    .xColumn = x_column,
    .xRowid = x_rowid,
    /* no xUpdate: read-only */
};

/* ------------------------------------------------------------------ */
/* Guards */

/* The budget in progress-handler calls (one every 10,000 instructions). */
static long long budget_of(const et_sql *s)
{
    long long m = s->o.max_steps;
    return (m > 0 && m < ET_SQL_MAX_STEPS ? m : ET_SQL_MAX_STEPS) / 10000;
}

static int on_progress(void *arg)
{
    et_sql *s = arg;
    if (++s->steps > budget_of(s) || (s->o.interrupted && s->o.interrupted(s->o.arg))) {
        s->stopped = 1;
        return 1;
    }
    return 0;
}

/* Only reading: SELECT, reads of the tables, functions, recursive CTEs. */
static int authorize(void *arg, int action, const char *a, const char *b, const char *c,
                     const char *d)
{
    const et_sql *s = arg;
    if (s->declaring)
        return SQLITE_OK;
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    default:
        return SQLITE_DENY;
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static char *dup_str(const char *p)
{
    size_t n = strlen(p) + 1;
    char *q = malloc(n);
    if (q)
        memcpy(q, p, n);
    return q;
}

static int fill_dump(dump_info *di, const et_inspector *insp, const char *name, int64_t base)
{
    di->insp = insp;
    di->sample_base = base;
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        di->n_events += blk->n_events;
        for (size_t e = 0; e < blk->n_events; e++)
            if (blk->events[e].has_perf_data)
                di->n_samples += blk->events[e].perf_data.n;
        if (blk->allocation_count && blk->allocation_first)
            for (size_t r = 0; r < blk->n_runs; r++)
                di->n_allocs += blk->allocation_count[r];
    }
    const char *label = insp->etdump_label ? insp->etdump_label : "";
    di->name = dup_str(name ? name : base_name(label));
    et_strbuf sb = {0};
    et_sb_addc(&sb, '[');
    for (size_t i = 0; i < insp->warnings.n; i++) {
        if (i)
            et_sb_adds(&sb, ", ");
        et_sql_json_str(&sb, insp->warnings.items[i], strlen(insp->warnings.items[i]));
    }
    et_sb_addc(&sb, ']');
    if (sb.failed || !di->name) {
        et_sb_free(&sb);
        return -1;
    }
    di->warnings = sb.p;
    /* as the export: the canonical path of an ETDump read from a file */
    if (insp->etdump_label && strcmp(label, "<etdump_data>") != 0 &&
        strcmp(label, "<profile_results_data>") != 0) {
        errno = 0;
        di->realpath_ = realpath(label, NULL);
        if (!di->realpath_ && errno == ENOMEM) /* out of memory, not a file gone */
            return -1;
    }
    return 0;
}

void et_sql_close(et_sql *s)
{
    if (!s)
        return;
    if (s->db)
        sqlite3_close_v2(s->db);
    for (size_t i = 0; i < s->n; i++) {
        free(s->dumps[i].name);
        free(s->dumps[i].warnings);
        free(s->dumps[i].realpath_);
    }
    free(s->dumps);
    free(s);
}

int et_sql_open(et_sql **out, const et_inspector *const *insps, const char *const *names,
                size_t n, const et_sql_options *o, et_error *err)
{
    *out = NULL;
    et_sql *s = calloc(1, sizeof *s);
    if (!s || !(s->dumps = calloc(n ? n : 1, sizeof *s->dumps))) {
        free(s);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    if (o)
        s->o = *o;
    int64_t base = 1;
    for (size_t i = 0; i < n; i++) {
        s->n = i + 1;
        if (fill_dump(&s->dumps[i], insps[i], names ? names[i] : NULL, base) != 0) {
            et_sql_close(s);
            return et_fail(err, ET_ERR_NOMEM, "out of memory");
        }
        base += (int64_t)s->dumps[i].n_samples;
    }
    int rc = sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
    for (int k = 0; k < T_COUNT && rc == SQLITE_OK; k++) {
        s->aux[k].s = s;
        s->aux[k].kind = (tkind)k;
        rc = sqlite3_create_module_v2(s->db, table_names[k], &model_module, &s->aux[k], NULL);
    }
    if (rc != SQLITE_OK) {
        int e = rc == SQLITE_NOMEM ? ET_ERR_NOMEM : ET_ERR_IO;
        et_fail(err, e, "SQL: cannot open an in-memory database: %s",
                s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        et_sql_close(s);
        return -1;
    }
    sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(s->db, SQLITE_LIMIT_SQL_LENGTH, 1000000);
    sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, 10000000);
    sqlite3_set_authorizer(s->db, authorize, s);
    sqlite3_progress_handler(s->db, 10000, on_progress, s);
    *out = s;
    return 0;
}

int et_sql_prepare(et_sql *s, const char *query, sqlite3_stmt **st, et_error *err)
{
    *st = NULL;
    const char *tail = NULL;
    s->steps = 0;
    s->stopped = 0;
    int rc = sqlite3_prepare_v2(s->db, query, -1, st, &tail);
    if (rc != SQLITE_OK) {
        if (rc == SQLITE_NOMEM)
            return et_fail(err, ET_ERR_NOMEM, "out of memory");
        return et_fail(err, ET_ERR_USAGE, "SQL: %s", s->stopped ? "interrupted" : sqlite3_errmsg(s->db));
    }
    if (!*st)
        return et_fail(err, ET_ERR_USAGE, "SQL: an empty query");
    for (; tail && *tail; tail++)
        if (*tail != ' ' && *tail != '\t' && *tail != '\n' && *tail != '\r' && *tail != ';') {
            sqlite3_finalize(*st);
            *st = NULL;
            return et_fail(err, ET_ERR_USAGE, "SQL: only one statement at a time");
        }
    if (!sqlite3_stmt_readonly(*st)) {
        sqlite3_finalize(*st);
        *st = NULL;
        return et_fail(err, ET_ERR_USAGE, "SQL: only queries run (the tables are read-only)");
    }
    return 0;
}

int et_sql_step(et_sql *s, sqlite3_stmt *st, et_error *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    if (rc == SQLITE_NOMEM)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    if (rc == SQLITE_INTERRUPT || s->stopped)
        return et_fail(err, ET_ERR_USAGE, "SQL: interrupted%s",
                       s->steps > budget_of(s) ? " (the query ran past its work budget)" : "");
    return et_fail(err, ET_ERR_USAGE, "SQL: %s", sqlite3_errmsg(s->db));
}
