/* pqrows.c - see pqrows.h. */
#include "output/pqrows.h"

#include <string.h>

#include "base/timescale.h"
#include "base/version.h"
#include "output/sqlexport.h"

static void set_str(value *v, const char *p, size_t n)
{
    v->null = p == NULL;
    v->v.s.p = p;
    v->v.s.n = n;
}

static void set_cstr(value *v, const char *s)
{
    set_str(v, s, s ? strlen(s) : 0);
}

static void set_i64(value *v, int64_t x)
{
    v->null = false;
    v->v.i = x;
}

static void set_null(value *v)
{
    v->null = true;
}

/* See pqrows.h. */
bool pq_common(cursor *c, int col, value *v)
{
    if (col == 0)
        set_cstr(v, c->dump);
    else if (col == 1)
        set_cstr(v, c->dump_id);
    else
        return false;
    return true;
}

/* dumps */

/* A column: name, kind, NULL allowed; TICKS_COL: start ticks, which
 * differ on nearly every row (PLAIN from the start, colspec.plain). */
#define COL(name, k, optional) {name, k, optional, false}
#define TICKS_COL(name) {name, K_U64, true, true}

static const colspec dumps_cols[] = {
    COL("dump", K_STR, false),          COL("dump_id", K_STR, false),
    COL("format", K_STR, false),        COL("etdump_path", K_STR, false),
    COL("etrecord_path", K_STR, true),  COL("etrecord_method", K_STR, true),
    COL("source_time_scale", K_STR, false), COL("target_time_scale", K_STR, false),
    COL("num_blocks", K_I64, false),    COL("num_events", K_I64, false),
    COL("num_samples", K_I64, false),   COL("num_allocations", K_I64, false),
    COL("warnings", K_STR, false),      COL("etinspect_version", K_STR, false),
    COL("exported_at", K_STR, false),   COL("etdump_realpath", K_STR, true),
};

static bool dumps_next(cursor *c)
{
    bool first = !c->started;
    c->started = true;
    return first;
}

static void dumps_get(cursor *c, int col, value *v)
{
    const et_inspector *insp = c->insp;
    if (pq_common(c, col, v))
        return;
    switch (col) {
    case 2: set_cstr(v, insp->legacy ? "legacy" : "etdump"); break;
    case 3: set_cstr(v, insp->etdump_label ? insp->etdump_label : ""); break;
    case 4: set_cstr(v, insp->etrecord ? insp->etrecord->label : NULL); break;
    case 5: set_cstr(v, insp->etrecord_method); break;
    case 6: set_cstr(v, et_time_scale_name(insp->source_time_scale)); break;
    case 7: set_cstr(v, et_time_scale_name(insp->target_time_scale)); break;
    case 8: set_i64(v, (int64_t)insp->n_blocks); break;
    case 9: set_i64(v, (int64_t)c->n_events); break;
    case 10: set_i64(v, (int64_t)c->n_samples); break;
    case 11: set_i64(v, (int64_t)c->n_allocs); break;
    case 12: set_str(v, c->warnings.p ? c->warnings.p : "", c->warnings.n); break;
    case 13: set_cstr(v, ETINSPECT_VERSION); break;
    case 14: set_cstr(v, c->exported_at); break;
    default: set_cstr(v, c->realpath_); break;
    }
}

/* blocks */

static const colspec blocks_cols[] = {
    COL("dump", K_STR, false),       COL("dump_id", K_STR, false),   COL("block_index", K_I64, false),
    COL("name", K_STR, false),       COL("num_runs", K_I64, false),  COL("num_events", K_I64, false),
    COL("bundled_input_index", K_I64, false), COL("etrecord_method", K_STR, true),
};

static bool blocks_next(cursor *c)
{
    if (c->started)
        c->b++;
    c->started = true;
    return c->b < c->insp->n_blocks;
}

static void blocks_get(cursor *c, int col, value *v)
{
    const et_block *blk = &c->insp->blocks[c->b];
    if (pq_common(c, col, v))
        return;
    switch (col) {
    case 2: set_i64(v, (int64_t)c->b); break;
    case 3: set_str(v, blk->name.p ? blk->name.p : "", blk->name.p ? blk->name.n : 0); break;
    case 4: set_i64(v, (int64_t)blk->n_runs); break;
    case 5: set_i64(v, (int64_t)blk->n_events); break;
    case 6: set_i64(v, blk->bundled_input_index); break;
    default: set_cstr(v, blk->method); break;
    }
}

/* events */

static const colspec events_cols[] = {
    COL("dump", K_STR, false),          COL("dump_id", K_STR, false),
    COL("block_index", K_I64, false),   COL("event_index", K_I64, false),
    COL("name", K_STR, false),          COL("node_type", K_STR, true),
    COL("instruction_id", K_I64, false), COL("delegate_debug_identifier", K_STR, true),
    COL("is_delegated_op", K_BOOL, false), COL("delegate_backend_name", K_STR, true),
    COL("debug_handles", K_STR, true),  COL("op_types", K_STR, true),
    COL("num_outputs", K_I64, false),   COL("num_samples", K_I64, false),
    COL("p10", K_F64, true),            COL("p50", K_F64, true),
    COL("p90", K_F64, true),            COL("avg", K_F64, true),
    COL("min", K_F64, true),            COL("max", K_F64, true),
    COL("total", K_F64, true),
};

static bool events_next(cursor *c)
{
    const et_inspector *insp = c->insp;
    if (c->started)
        c->e++;
    c->started = true;
    while (c->b < insp->n_blocks && c->e >= insp->blocks[c->b].n_events) {
        c->b++;
        c->e = 0;
    }
    return c->b < insp->n_blocks;
}

static void events_get(cursor *c, int col, value *v)
{
    const et_block *blk = &c->insp->blocks[c->b];
    const et_event *ev = &blk->events[c->e];
    const et_perf_data *pd = &ev->perf_data;
    et_str name = et_event_name(ev);
    if (pq_common(c, col, v))
        return;
    if (col >= 14 && col <= 20) {
        if (!ev->has_perf_data) {
            set_null(v);
            return;
        }
        v->null = false;
        switch (col) {
        case 14: v->v.d = pd->p10; break;
        case 15: v->v.d = pd->p50; break;
        case 16: v->v.d = pd->p90; break;
        case 17: v->v.d = pd->avg; break;
        case 18: v->v.d = pd->min; break;
        case 19: v->v.d = pd->max; break;
        default:
            v->v.d = 0;
            for (size_t r = 0; r < pd->n; r++)
                v->v.d += pd->raw[r];
        }
        return;
    }
    switch (col) {
    case 2: set_i64(v, (int64_t)c->b); break;
    case 3: set_i64(v, (int64_t)c->e); break;
    case 4: set_str(v, name.p ? name.p : "", name.p ? name.n : 0); break;
    case 5:
        if (et_sql_node_type(ev, &c->sb))
            set_str(v, c->sb.p ? c->sb.p : "", c->sb.n);
        else
            set_null(v);
        break;
    case 6: set_i64(v, ev->instruction_id); break;
    case 7:
        if (ev->delegate_debug_identifier_kind == ET_DID_INT) {
            et_sb_reset(&c->sb);
            et_sb_add_i64(&c->sb, ev->delegate_debug_id_int);
            set_str(v, c->sb.p ? c->sb.p : "", c->sb.n);
        } else if (ev->delegate_debug_identifier_kind == ET_DID_STR) {
            set_str(v, ev->delegate_debug_id_str.p ? ev->delegate_debug_id_str.p : "",
                    ev->delegate_debug_id_str.p ? ev->delegate_debug_id_str.n : 0);
        } else {
            set_null(v);
        }
        break;
    case 8: v->null = false; v->v.b = ev->is_delegated_op; break;
    case 9: set_cstr(v, ev->delegate_backend_name); break;
    case 10:
        if (ev->has_debug_handles) {
            et_sql_debug_handles(&c->sb, ev);
            set_str(v, c->sb.p ? c->sb.p : "", c->sb.n);
        } else {
            set_null(v);
        }
        break;
    case 11:
        if (c->insp->etrecord) {
            et_sql_op_types(&c->sb, c->insp, blk, ev);
            set_str(v, c->sb.p ? c->sb.p : "", c->sb.n);
        } else {
            set_null(v);
        }
        break;
    case 12: set_i64(v, ev->num_outputs); break;
    default: set_i64(v, ev->has_perf_data ? (int64_t)pd->n : 0); break;
    }
}

/* samples */

static const colspec samples_cols[] = {
    COL("dump", K_STR, false),         COL("dump_id", K_STR, false),
    COL("block_index", K_I64, false),  COL("event_index", K_I64, false),
    COL("run", K_I64, false),          COL("run_data_index", K_I64, false),
    COL("duration", K_F64, false),     TICKS_COL("start_time"),
};

static bool samples_next(cursor *c)
{
    const et_inspector *insp = c->insp;
    if (c->started)
        c->r++;
    c->started = true;
    for (;;) {
        if (c->b >= insp->n_blocks)
            return false;
        const et_block *blk = &insp->blocks[c->b];
        if (c->e >= blk->n_events) {
            c->b++;
            c->e = c->r = 0;
            continue;
        }
        const et_event *ev = &blk->events[c->e];
        if (ev->has_perf_data && c->r < ev->perf_data.n)
            return true;
        c->e++;
        c->r = 0;
    }
}

static size_t samples_fill64(cursor *c, int col, uint64_t *u, uint8_t *def, size_t max)
{
    const et_inspector *insp = c->insp;
    size_t k = 0;
    while (k < max && c->b < insp->n_blocks) {
        const et_block *blk = &insp->blocks[c->b];
        if (c->e >= blk->n_events) {
            c->b++;
            c->e = c->r = 0;
            continue;
        }
        const et_event *ev = &blk->events[c->e];
        size_t n = ev->has_perf_data ? ev->perf_data.n : 0;
        if (c->r >= n) {
            c->e++;
            c->r = 0;
            continue;
        }
        size_t m = n - c->r < max - k ? n - c->r : max - k;
        uint64_t *o = u + k;
        size_t r0 = c->r;
        bool present = col != 7 || ev->start_time;
        memset(def + k, present, m);
        switch (col) {
        case 2: for (size_t j = 0; j < m; j++) o[j] = c->b; break;
        case 3: for (size_t j = 0; j < m; j++) o[j] = c->e; break;
        case 4: for (size_t j = 0; j < m; j++) o[j] = r0 + j; break;
        case 5:
            for (size_t j = 0; j < m; j++)
                o[j] = r0 + j < blk->n_runs ? (uint64_t)(int64_t)blk->runs[r0 + j] : r0 + j;
            break;
        case 6: memcpy(o, ev->perf_data.raw + r0, m * sizeof *o); break;
        default:
            if (present)
                memcpy(o, ev->start_time + r0, m * sizeof *o);
            else
                memset(o, 0, m * sizeof *o);
        }
        c->r += m;
        k += m;
    }
    return k;
}

/* run_data_index is run on every row when each block's runs are the
 * dump's runs in order (a dump without gaps): the usual case. */
static int samples_same(const cursor *c, int col)
{
    if (col != 5)
        return -1;
    const et_inspector *insp = c->insp;
    for (size_t b = 0; b < insp->n_blocks; b++) {
        const et_block *blk = &insp->blocks[b];
        for (size_t r = 0; r < blk->n_runs; r++)
            if (blk->runs[r] != r)
                return -1;
    }
    return 4;
}

static void samples_get(cursor *c, int col, value *v)
{
    const et_block *blk = &c->insp->blocks[c->b];
    const et_event *ev = &blk->events[c->e];
    if (pq_common(c, col, v))
        return;
    switch (col) {
    case 2: set_i64(v, (int64_t)c->b); break;
    case 3: set_i64(v, (int64_t)c->e); break;
    case 4: set_i64(v, (int64_t)c->r); break;
    case 5: set_i64(v, c->r < blk->n_runs ? (int64_t)blk->runs[c->r] : (int64_t)c->r); break;
    case 6: v->null = false; v->v.d = ev->perf_data.raw[c->r]; break;
    default:
        if (ev->start_time) {
            v->null = false;
            v->v.u = ev->start_time[c->r];
        } else {
            set_null(v);
        }
    }
}

/* allocations */

static const colspec allocations_cols[] = {
    COL("dump", K_STR, false),          COL("dump_id", K_STR, false),
    COL("block_index", K_I64, false),   COL("run", K_I64, false),
    COL("seq", K_I64, false),           COL("run_data_index", K_I64, false),
    COL("allocator_id", K_I64, false),  COL("allocator", K_STR, true),
    COL("allocation_size", K_U64, false),
};

static bool allocations_next(cursor *c)
{
    const et_inspector *insp = c->insp;
    if (c->started)
        c->k++;
    c->started = true;
    for (;;) {
        if (c->b >= insp->n_blocks)
            return false;
        const et_block *blk = &insp->blocks[c->b];
        if (!blk->allocation_count || !blk->allocation_first || c->r >= blk->n_runs) {
            c->b++;
            c->r = c->k = 0;
            continue;
        }
        if (c->k < blk->allocation_count[c->r])
            return true;
        c->r++;
        c->k = 0;
    }
}

static void allocations_get(cursor *c, int col, value *v)
{
    const et_block *blk = &c->insp->blocks[c->b];
    const et_allocation *a = &blk->allocations[blk->allocation_first[c->r] + c->k];
    if (pq_common(c, col, v))
        return;
    switch (col) {
    case 2: set_i64(v, (int64_t)c->b); break;
    case 3: set_i64(v, (int64_t)c->r); break;
    case 4: set_i64(v, (int64_t)c->k); break;
    case 5: set_i64(v, blk->runs[c->r]); break;
    case 6: set_i64(v, a->allocator_id); break;
    case 7:
        if (a->allocator_id >= 1 && (size_t)a->allocator_id <= blk->n_allocators &&
            blk->allocators[a->allocator_id - 1].p)
            set_str(v, blk->allocators[a->allocator_id - 1].p,
                    blk->allocators[a->allocator_id - 1].n);
        else
            set_null(v);
        break;
    default: v->null = false; v->v.u = a->allocation_size; break;
    }
}

#define FITS(cols) _Static_assert(sizeof cols / sizeof *cols <= PQ_MAX_COLS, #cols)
FITS(blocks_cols);
FITS(events_cols);
FITS(samples_cols);
FITS(allocations_cols);
FITS(dumps_cols);

/* in et_parquet_tables' order (parquet.c) */
const table pq_tables[PQ_N_TABLES] = {
    {"blocks", blocks_cols, (int)(sizeof blocks_cols / sizeof *blocks_cols), blocks_next,
     blocks_get, NULL, NULL},
    {"events", events_cols, (int)(sizeof events_cols / sizeof *events_cols), events_next,
     events_get, NULL, NULL},
    {"samples", samples_cols, (int)(sizeof samples_cols / sizeof *samples_cols), samples_next,
     samples_get, samples_fill64, samples_same},
    {"allocations", allocations_cols, (int)(sizeof allocations_cols / sizeof *allocations_cols),
     allocations_next, allocations_get, NULL, NULL},
    {"dumps", dumps_cols, (int)(sizeof dumps_cols / sizeof *dumps_cols), dumps_next, dumps_get,
     NULL, NULL},
};
