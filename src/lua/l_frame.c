/* l_frame.c - Lua frames rendered by the C writers; see l_frame.h. */
#include "l_frame.h"
#include "binding.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "output/frame.h"
#include "l_json.h"
#include "base/pyfmt.h"
#include "output/rows.h"
#include "base/stats.h"
#include "table/column.h"
#include "table/samples.h"

static int core_repr(lua_State *L)
{
    char b[ET_PYFMT_BUFSZ];
    size_t n = et_pyfmt_repr(luaL_checknumber(L, 1), b);
    lua_pushlstring(L, b, n);
    return 1;
}

static int core_g(lua_State *L)
{
    char b[ET_PYFMT_BUFSZ];
    size_t n = et_pyfmt_g(luaL_checknumber(L, 1), b);
    lua_pushlstring(L, b, n);
    return 1;
}

#define MT_REPORT_ROWS "etinspect.ReportRows"

/* What a _core.report_rows call owns while it converts (freed by __gc or
 * at the end, whichever comes first). */
typedef struct {
    et_frame *f;
    et_report_rowmap map;
    char op[64]; /* the operation its owner is pinned as (opts.op) */
} rows_box;

static void rows_free(rows_box *b)
{
    et_frame_free(b->f);
    free(b->map.block);
    free(b->map.event);
    b->f = NULL;
    b->map = (et_report_rowmap){0};
}

static int rows_gc(lua_State *L)
{
    rows_free(luaL_checkudata(L, 1, MT_REPORT_ROWS));
    return 0;
}

static rows_box *push_holder(lua_State *L)
{
    return et_lua_push_holder(L, sizeof(rows_box), MT_REPORT_ROWS, rows_gc);
}

/* Push a holder (a ReportRows userdata: freed by the collector whatever
 * happens) for a frame built from Lua values. */
static rows_box *push_holder(lua_State *L);

/* Build an et_frame from (columns, rows) at stack 2 and 3 into a holder
 * pushed on the stack (so that no error leaks it); NULL when out of
 * memory.  Lengths are read raw (no __len runs); a row that is not a
 * table raises; column names are strings (a number is converted, other
 * values are ""). */
static et_frame *frame_from_lua(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    rows_box *h = push_holder(L);
    size_t ncols = (size_t)lua_rawlen(L, 2);
    lua_createtable(L, ncols > INT32_MAX ? 0 : (int)ncols, 0); /* the names, anchored */
    int anchor = lua_gettop(L);
    const char **names = lua_newuserdatauv(L, (ncols ? ncols : 1) * sizeof *names, 0);
    for (size_t c = 0; c < ncols; c++) {
        int t = lua_rawgeti(L, 2, (lua_Integer)c + 1);
        if (t != LUA_TSTRING && t != LUA_TNUMBER) {
            lua_pop(L, 1);
            lua_pushliteral(L, "");
        }
        lua_tostring(L, -1); /* a number: converted, and anchored below */
        lua_pushvalue(L, -1);
        lua_rawseti(L, anchor, (lua_Integer)c + 1);
        names[c] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    et_frame *f = h->f = et_frame_new(ncols, names);
    lua_pop(L, 1); /* names (the strings stay in the anchor) */
    if (!f)
        return NULL;
    lua_Integer nrows = (lua_Integer)lua_rawlen(L, 3);
    for (lua_Integer r = 1; r <= nrows; r++) {
        long row = et_frame_add_row(f);
        if (row < 0)
            return NULL;
        if (lua_rawgeti(L, 3, r) != LUA_TTABLE)
            luaL_error(L, "rows[%I]: a table expected, got %s", r, luaL_typename(L, -1));
        for (size_t c = 0; c < ncols; c++) {
            lua_rawgeti(L, -1, (lua_Integer)c + 1);
            size_t len;
            const char *s;
            switch (lua_type(L, -1)) {
            case LUA_TBOOLEAN: et_frame_set_bool(f, (size_t)row, c, lua_toboolean(L, -1)); break;
            case LUA_TNUMBER:
                if (lua_isinteger(L, -1))
                    et_frame_set_int(f, (size_t)row, c, lua_tointeger(L, -1));
                else
                    et_frame_set_float(f, (size_t)row, c, lua_tonumber(L, -1));
                break;
            case LUA_TSTRING:
                s = lua_tolstring(L, -1, &len);
                if (et_frame_set_text(f, (size_t)row, c, s, len) != 0)
                    return NULL;
                break;
            default: break; /* nil and anything else: missing */
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1); /* the anchor; the holder stays */
    return f;
}

/* _core.render(fmt, columns, rows [, view]): the C writers ("grid":
 * tabulate's fancy_grid, "tsv": pandas' to_csv) over positional rows of
 * scalar cells.  view (grid only, for truncated displays): {labels =
 * sequence of integers (the index column), ellipsis = k (row k, 1-based,
 * shown as "...")}; (tsv only) {index = false}: no index field (pandas'
 * to_csv(sep="\t", index=False)). */
static int core_render(lua_State *L)
{
    static const char *const fmts[] = {"grid", "tsv", NULL};
    int fmt = luaL_checkoption(L, 1, NULL, fmts);
    lua_settop(L, 4);
    et_frame *f = frame_from_lua(L); /* its holder at 5 frees it on any exit */
    if (!f)
        return luaL_error(L, "out of memory");
    bool index = true;
    if (lua_istable(L, 4)) {
        index = et_lua_opt_get(L, 4, "index") != LUA_TBOOLEAN || lua_toboolean(L, -1);
        lua_pop(L, 1);
        size_t nr = et_frame_nrows(f);
        long ell = -1;
        int rc = 0;
        void **keep = et_lua_push_cbuffer(L, 0);
        int64_t *labels = NULL;
        if (et_lua_opt_get(L, 4, "labels") == LUA_TTABLE && nr) {
            *keep = labels = malloc(nr * sizeof *labels);
            if (!labels)
                rc = -1;
            for (size_t r = 0; labels && r < nr; r++) {
                lua_rawgeti(L, -1, (lua_Integer)r + 1);
                labels[r] = (int64_t)lua_tointeger(L, -1);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        if (et_lua_opt_get(L, 4, "ellipsis") == LUA_TNUMBER)
            ell = (long)lua_tointeger(L, -1) - 1;
        lua_pop(L, 1);
        if (rc == 0)
            rc = et_frame_set_view(f, labels, ell);
        if (rc != 0)
            return luaL_error(L, "out of memory");
    }
    void **keep = et_lua_push_cbuffer(L, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int rc = -1;
    if (mem) {
        rc = fmt == 0 ? et_frame_write_grid(f, mem) : et_frame_write_tsv_index(f, mem, index);
        if (fclose(mem) != 0)
            rc = -1;
    }
    *keep = buf;
    /* a failed final realloc in fclose leaves buf NULL, len stale, rc 0 */
    if (rc != 0 || !buf)
        return luaL_error(L, "out of memory while rendering a frame");
    lua_pushlstring(L, buf, len);
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* _core.agg(values, what [, q]) -> number: a statistic of the numbers of
 * the sequence `values` (no nil, no NaN; #values may be 0), as pandas 1.5
 * computes it (without bottleneck).  A Series' methods (nanops):
 *   "sum"       numpy's pairwise sum
 *   "mean"      pairwise sum / n
 *   "var","std" ddof = 1: pairwise sum of (mean - x)^2 / (n - 1), std its root
 *   "median"    the middle value, or the mean of the two middle ones
 *   "quantile"  numpy.percentile's linear method at q*100 (q in [0, 1])
 * A GroupBy's kernels (pandas/_libs/groupby.pyx):
 *   "gsum"      Kahan-compensated sum
 *   "gmean"     that sum / n
 *   "gvar","gstd"  Welford's running mean and squared deviations, ddof = 1
 *   "gquantile" x[i] + (x[i+1] - x[i]) * frac at i + frac = q * (n - 1)
 * NaN where pandas gives NaN (no values; var/std of fewer than 2).
 * Raises on a non-number. */
static int core_agg(lua_State *L)
{
    static const char *const whats[] = {"sum",  "mean", "var", "std",  "median",    "quantile",
                                        "gsum", "gmean", "gvar", "gstd", "gquantile", NULL};
    enum { SUM, MEAN, VAR, STD, MEDIAN, QUANTILE, GSUM, GMEAN, GVAR, GSTD, GQUANTILE };
    luaL_checktype(L, 1, LUA_TTABLE);
    int what = luaL_checkoption(L, 2, NULL, whats);
    double q = (what == QUANTILE || what == GQUANTILE) ? luaL_checknumber(L, 3) : 0;
    if (!(q >= 0 && q <= 1))
        return luaL_error(L, "quantile: q must be between 0 and 1, got %f", q);
    size_t n = (size_t)lua_rawlen(L, 1);
    double *x = lua_newuserdatauv(L, (n ? n : 1) * sizeof *x, 0); /* freed by the GC */
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (lua_Integer)i + 1);
        int isnum;
        x[i] = lua_tonumberx(L, -1, &isnum);
        if (!isnum)
            return luaL_error(L, "value %d is not a number", (int)i + 1);
        lua_pop(L, 1);
    }
    double r = NAN;
    switch (what) {
    case SUM: r = et_numpy_sum(x, n); break;
    case GSUM:
    case GMEAN: {
        double sum = 0, comp = 0;
        for (size_t i = 0; i < n; i++) {
            double y = x[i] - comp, t = sum + y;
            comp = t - sum - y;
            sum = t;
        }
        r = what == GSUM ? sum : n ? sum / (double)n : NAN;
        break;
    }
    case MEAN:
        if (n)
            r = et_numpy_sum(x, n) / (double)n;
        break;
    case VAR:
    case STD:
        if (n >= 2) {
            double avg = et_numpy_sum(x, n) / (double)n;
            double *sq = lua_newuserdatauv(L, n * sizeof *sq, 0);
            for (size_t i = 0; i < n; i++)
                sq[i] = (avg - x[i]) * (avg - x[i]);
            r = et_numpy_sum(sq, n) / (double)(n - 1);
            if (what == STD)
                r = sqrt(r);
        }
        break;
    case GVAR:
    case GSTD:
        if (n >= 2) {
            double mean = 0, ssqdm = 0;
            for (size_t i = 0; i < n; i++) {
                double old = mean;
                mean += (x[i] - old) / (double)(i + 1);
                ssqdm += (x[i] - mean) * (x[i] - old);
            }
            r = ssqdm / (double)(n - 1);
            if (what == GSTD)
                r = sqrt(r);
        }
        break;
    default: /* MEDIAN, QUANTILE, GQUANTILE */
        if (!n)
            break;
        qsort(x, n, sizeof *x, cmp_double);
        if (what == MEDIAN) {
            r = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
        } else if (what == QUANTILE) {
            r = et_percentile_sorted(x, n, q * 100);
        } else {
            double qi = q * (double)(n - 1);
            size_t i = (size_t)qi;
            double frac = fmod(qi, 1.0);
            r = (frac == 0.0 || i + 1 >= n) ? x[i] : x[i] + (x[i + 1] - x[i]) * frac;
        }
        break;
    }
    lua_pushnumber(L, r);
    return 1;
}

/* ---- the rows of spec §6.1-§6.3 (rows.h), for lua/etinspect/report.lua ---- */

/* The metadata callback's context: the Lua function at `fn` is called as
 * fn(block, event) (1-based) and returns nil (use the raw metadata) or
 * keys, cells: two sequences, cells already scalars (string, integer,
 * float, boolean; pyrepr.cell of tables). */
typedef struct {
    lua_State *L;
    int fn;
} md_ctx;

static int md_value(lua_State *L, int idx, et_md_value *v)
{
    *v = (et_md_value){0};
    switch (lua_type(L, idx)) {
    case LUA_TSTRING:
        v->kind = ET_CELL_TEXT;
        v->text = lua_tolstring(L, idx, &v->len);
        return 0;
    case LUA_TBOOLEAN:
        v->kind = ET_CELL_BOOL;
        v->b = lua_toboolean(L, idx);
        return 0;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            v->kind = ET_CELL_INT;
            v->i = lua_tointeger(L, idx);
        } else {
            v->kind = ET_CELL_FLOAT;
            v->d = lua_tonumber(L, idx);
        }
        return 0;
    case LUA_TNIL: return 0; /* NONE: left out */
    default: return -1;
    }
}

static int md_callback(void *ctx, size_t block, size_t event, et_md_fields *out, et_error *err)
{
    md_ctx *c = ctx;
    lua_State *L = c->L;
    if (!lua_checkstack(L, 8)) {
        et_fail(err, ET_ERR_NOMEM, "out of memory (Lua stack)");
        return -1;
    }
    int top = lua_gettop(L);
    lua_pushvalue(L, c->fn);
    lua_pushinteger(L, (lua_Integer)block + 1);
    lua_pushinteger(L, (lua_Integer)event + 1);
    if (lua_pcall(L, 2, 2, 0) != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        et_fail(err, ET_ERR_VALUE, "%s", m ? m : "error in the delegate metadata");
        lua_settop(L, top);
        return -1;
    }
    /* the owner is pinned (core_report_rows): the function cannot have
     * closed it.  Below, nothing raises (no conversion, no allocation by
     * Lua): keys and texts must be strings already */
    int rc = 1;
    if (lua_istable(L, top + 1) && lua_istable(L, top + 2)) {
        rc = 0;
        lua_Integer n = (lua_Integer)lua_rawlen(L, top + 1);
        for (lua_Integer i = 1; i <= n && rc == 0; i++) {
            lua_rawgeti(L, top + 1, i);
            lua_rawgeti(L, top + 2, i);
            size_t klen;
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &klen) : NULL;
            et_md_value v;
            if (!k || md_value(L, -1, &v) != 0) {
                et_fail(err, ET_ERR_VALUE, "delegate metadata field %d: bad key or value", (int)i);
                rc = -1;
            } else if (et_md_add(out, k, klen, &v) != 0) {
                et_fail(err, ET_ERR_NOMEM, "out of memory");
                rc = -1;
            }
            lua_pop(L, 2);
        }
    }
    lua_settop(L, top);
    return rc;
}

static void push_cell(lua_State *L, const et_frame *f, size_t r, size_t c)
{
    size_t len;
    const char *s;
    switch (et_frame_kind(f, r, c)) {
    case ET_CELL_TEXT:
        s = et_frame_get_text(f, r, c, &len);
        lua_pushlstring(L, s, len);
        break;
    case ET_CELL_INT: lua_pushinteger(L, et_frame_get_int(f, r, c)); break;
    case ET_CELL_FLOAT: lua_pushnumber(L, et_frame_get_float(f, r, c)); break;
    case ET_CELL_BOOL: lua_pushboolean(L, et_frame_get_bool(f, r, c)); break;
    default: lua_pushnil(L); break;
    }
}


/* ---- to_dataframe as C columns (opts.frame) ---- */

static const char *const STAT_NAMES[] = {"p10", "p50", "p90", "avg", "min", "max"};

/* Is column `name` one of the statistics with the units suffix `units`? */
static bool is_stat(const char *name, const char *units)
{
    for (size_t k = 0; k < sizeof STAT_NAMES / sizeof *STAT_NAMES; k++) {
        size_t n = strlen(STAT_NAMES[k]);
        if (strncmp(name, STAT_NAMES[k], n) == 0 && strcmp(name + n, units) == 0)
            return true;
    }
    return false;
}

/* Column c of `f` as a C column of the kind Frame.new would give its cells
 * (numbers F64 or I64, booleans, text in `pool`; nil absent; `nan_none`: a
 * None cell is NaN).  NULL when the cells mix kinds (the caller keeps them
 * as Lua values); raises on exhausted memory. */
static et_column *scalar_column(lua_State *L, const et_frame *f, size_t c, et_strpool *pool,
                                bool nan_none)
{
    size_t nr = et_frame_nrows(f);
    int kinds = 0; /* 1 float, 2 int, 4 bool, 8 text */
    bool any_nil = false, any_nan = false;
    for (size_t r = 0; r < nr; r++) {
        switch (et_frame_kind(f, r, c)) {
        case ET_CELL_TEXT: kinds |= 8; break;
        case ET_CELL_INT: kinds |= 2; break;
        case ET_CELL_BOOL: kinds |= 4; break;
        case ET_CELL_FLOAT: {
            double d = et_frame_get_float(f, r, c);
            if (d != d)
                any_nan = true;
            else
                kinds |= 1;
            break;
        }
        default:
            if (nan_none)
                any_nan = true;
            else
                any_nil = true;
        }
    }
    et_col_kind kind;
    switch (kinds) {
    case 0:
    case 1: kind = ET_COL_F64; break;
    case 2: kind = ET_COL_I64; break;
    case 4: kind = ET_COL_BOOL; break;
    case 8: kind = ET_COL_STR; break;
    default: return NULL;
    }
    bool with_valid = any_nil || (any_nan && kind != ET_COL_F64);
    et_column *col = et_col_new(kind, nr, with_valid, kind == ET_COL_STR ? pool : NULL);
    if (!col)
        luaL_error(L, "out of memory");
    void *d = et_col_mut_data(col);
    uint8_t *v = et_col_mut_valid(col);
    for (size_t r = 0; r < nr; r++) {
        et_cell_kind k = et_frame_kind(f, r, c);
        if (k == ET_CELL_NONE || (k == ET_CELL_FLOAT && kind != ET_COL_F64)) {
            bool nan = k != ET_CELL_NONE || nan_none;
            if (kind == ET_COL_F64 && nan)
                ((double *)d)[r] = NAN;
            else
                v[r] = nan ? ET_NAN : ET_ABSENT;
            continue;
        }
        switch (kind) {
        case ET_COL_F64: ((double *)d)[r] = k == ET_CELL_FLOAT ? et_frame_get_float(f, r, c) : NAN; break;
        case ET_COL_I64: ((int64_t *)d)[r] = et_frame_get_int(f, r, c); break;
        case ET_COL_BOOL: ((uint8_t *)d)[r] = et_frame_get_bool(f, r, c); break;
        default: {
            size_t len;
            const char *s = et_frame_get_text(f, r, c, &len);
            if (et_strpool_intern(pool, s, len, &((uint32_t *)d)[r]) != 0) {
                et_col_release(col);
                luaL_error(L, "out of memory");
            }
        }
        }
    }
    return col;
}

#define MT_COLSET "etinspect.ColumnSet"

/* Columns being made, released whatever happens (a holder). */
typedef struct {
    size_t n;
    et_column **cols;
    et_strpool *pool;
    et_col_owner *owner;
} colset;

static void colset_gc_box(colset *cs)
{
    et_strpool_release(cs->pool);
    et_col_owner_release(cs->owner);
    cs->pool = NULL;
    cs->owner = NULL;
    for (size_t c = 0; cs->cols && c < cs->n; c++)
        et_col_release(cs->cols[c]);
    free(cs->cols);
    cs->cols = NULL;
    cs->n = 0;
}

static int colset_gc(lua_State *L)
{
    colset_gc_box(luaL_checkudata(L, 1, MT_COLSET));
    return 0;
}

/* Push what core_report_rows returns for opts.frame: the Table of the
 * columns (l_table.c) and `lua`, {[j] = sequence of the cells} for the
 * columns whose cells are left to Lua (op_types, whose text cells the
 * library replaces by the events' lists; the metadata columns; a column
 * whose cells mix kinds); stack_traces, module_hierarchy and debug_data
 * are all-nil columns here, filled by the library from the events. */
static void push_frame_columns(lua_State *L, lua_insp_box *box, const et_frame *f,
                               const et_report_rowmap *m, const char *units, bool nan_stats)
{
    size_t nc = et_frame_ncols(f), nr = et_frame_nrows(f);
    colset *cs = et_lua_push_holder(L, sizeof *cs, MT_COLSET, colset_gc);
    int holder = lua_gettop(L);
    if (!(cs->cols = calloc(nc ? nc : 1, sizeof *cs->cols)) || !(cs->pool = et_strpool_new()))
        luaL_error(L, "out of memory");
    cs->n = nc;
    et_column **cols = cs->cols;
    et_strpool *pool = cs->pool;
    /* the model, kept by our reference until the call ends (a finalizer
     * run by an allocation below may close the Inspector) */
    cs->owner = et_lua_insp_model(L, box);
    et_col_owner_retain(cs->owner);
    et_inspector *insp = cs->owner->ctx;
    lua_newtable(L); /* lua */
    int lua = lua_gettop(L);
    int ok = 1;
    for (size_t c = 0; c < nc && ok; c++) {
        const char *name = et_frame_colname(f, c);
        bool md = c >= nc - m->n_md_columns;
        bool samples = !md && (strcmp(name, "raw") == 0 || strcmp(name, "start_time") == 0);
        bool filled = !md && (strcmp(name, "stack_traces") == 0 ||
                              strcmp(name, "module_hierarchy") == 0 ||
                              strcmp(name, "debug_data") == 0);
        if (samples) {
            /* views naming the rows' events (table/samples.h), whose
             * samples the model may give back (_core.drop_samples) */
            et_error err;
            if (!(cols[c] = et_sample_column(insp, cs->owner, m->block, m->event, m->n,
                                             name[1] == 'a', &err)))
                luaL_error(L, "%s", err.msg); /* the holder releases the others */
            continue;
        }
        bool ops = !md && strcmp(name, "op_types") == 0;
        if (filled || ops) {
            /* every row's event without linked nodes (or debug data): the
             * cells are empty lists (op_types, debug_data: views of no
             * elements) or empty dicts (lua[c] = false: one for all) */
            /* op_types from a program (no ETRecord; proglink.h) are the
             * events' own lists, filled as linked ones are */
            bool dd = name[0] == 'd', plain = !(ops && insp->program && !insp->etrecord);
            for (size_t r = 0; r < nr && plain; r++) {
                const et_event *ev = &insp->blocks[m->block[r]].events[m->event[r]];
                plain = dd ? !ev->has_debug_data : ev->node_count == 0;
            }
            if (plain && (dd || ops)) {
                cols[c] = et_col_new(ET_COL_LIST, nr, false, NULL);
                if (!cols[c])
                    ok = 0;
                else
                    cols[c]->elem = ET_LIST_I64; /* spans of length 0 */
                continue;
            }
            if (plain || filled) {
                if (plain) {
                    lua_pushboolean(L, 0);
                    lua_rawseti(L, lua, (lua_Integer)c + 1);
                }
                cols[c] = et_col_new(ET_COL_F64, nr, true, NULL);
                if (!cols[c])
                    ok = 0;
                else
                    memset(et_col_mut_valid(cols[c]), ET_ABSENT, nr);
                continue;
            }
        }
        if (!md && !ops) {
            cols[c] = scalar_column(L, f, c, pool, nan_stats && is_stat(name, units));
            if (cols[c])
                continue;
        }
        /* the cells as Lua values; a placeholder column */
        lua_createtable(L, nr < 1u << 24 ? (int)nr : 0, 0);
        for (size_t r = 0; r < nr; r++) {
            push_cell(L, f, r, c);
            lua_rawseti(L, -2, (lua_Integer)r + 1);
        }
        lua_rawseti(L, lua, (lua_Integer)c + 1);
        cols[c] = et_col_new(ET_COL_F64, nr, true, NULL);
        if (!cols[c])
            ok = 0;
    }
    if (!ok)
        luaL_error(L, "out of memory");
    et_lua_push_table(L, cols, nc, nr);
    colset_gc_box(cs);
    lua_insert(L, lua); /* Table, lua */
    lua_remove(L, holder);
}

/* _core.report_rows(target, opts) (rows.h et_report_rows), the
 * target's owner pinned while the rows are built (as opts.op, default
 * "_core.report_rows": the metadata function cannot close it):
 *   target  an Inspector (every block, concatenated), an EventBlock or an
 *           Event (its row, without the event_block_name column)
 *   opts    {units = string (" (ms)", ""; default: the target time scale),
 *            display = boolean, metadata = boolean (include_delegate_debug_data),
 *            parsed = function(block, event) -> nil | keys, cells,
 *            render = "tsv" | "grid",
 *            values = boolean: leave the list-valued cells (raw, stack_traces,
 *            module_hierarchy, debug_data, start_time) nil for the caller,
 *            op = string: what the running operation is called in the
 *            "Inspector is busy" error, e.g. "Inspector:to_dataframe",
 *            frame = boolean: columns rather than rows (below),
 *            nan_stats = boolean: with frame, a missing statistic is NaN}
 * Returns the rendered text when opts.render is given; with opts.frame
 * (and opts.values), columns, a Table of C columns (l_table.c: raw and
 * start_time list views naming the rows' events, whose samples are read
 * when a cell is (table/samples.h), keeping the model alive:
 * et_lua_insp_model; the other cells as Frame.new would type them)
 * and {[j] = sequence of cells} for the columns left to the caller
 * (op_types, the metadata columns, a column of mixed kinds: placeholders
 * in the Table), then blocks, events and the metadata count as below;
 * stack_traces, module_hierarchy and debug_data are nil columns there.
 * When no row's event has linked nodes, op_types is a list column of
 * empty lists and stack_traces and module_hierarchy are marked
 * lua[j] = false (every cell an empty dict); when none has debug data,
 * debug_data is a list column of empty lists.
 * Else columns (a
 * sequence of names), rows (sequence of tables keyed by column name:
 * strings, integers, floats -- NaN for a missing metadata cell --,
 * booleans; nil for None), blocks and events (per row, 1-based indices)
 * and the number of metadata columns (the last ones).  Raises the
 * metadata function's error, "out of memory ...". */
static int core_report_rows(lua_State *L)
{
    et_report_opts o = {.block = -1, .event = -1, .block_column = true};
    lua_insp_box *box = luaL_testudata(L, 1, ET_MT_INSPECTOR);
    const char *type = NULL; /* the target's type in "... used after ..." */
    if (box) {
        et_lua_insp(L, box);
    } else if (luaL_testudata(L, 1, ET_MT_BLOCK)) {
        lua_child *c = et_lua_check_child(L, 1, ET_MT_BLOCK);
        type = "EventBlock";
        box = c->box;
        o.block = (long)c->block;
    } else {
        lua_child *c = et_lua_check_child(L, 1, ET_MT_EVENT);
        type = "Event";
        box = c->box;
        o.block = (long)c->block;
        o.event = (long)c->event;
        o.block_column = false;
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    /* options read raw: no user code runs before the pin (the target is
     * anchored at 1; its inspector is read again once pinned) */
    if (et_lua_opt_get(L, 2, "units") == LUA_TSTRING) {
        size_t n;
        o.units = lua_tolstring(L, -1, &n); /* anchored on the stack */
        if (n > 40)
            return luaL_error(L, "units suffix too long (%d bytes; at most 40)", (int)n);
    }
    et_lua_opt_get(L, 2, "display");
    o.for_display = lua_toboolean(L, -1);
    et_lua_opt_get(L, 2, "metadata");
    o.include_delegate_debug_data = lua_toboolean(L, -1);
    et_lua_opt_get(L, 2, "values");
    o.no_list_text = lua_toboolean(L, -1);
    md_ctx mc = {L, 0};
    if (et_lua_opt_get(L, 2, "parsed") == LUA_TFUNCTION) {
        mc.fn = lua_gettop(L);
        o.metadata = md_callback;
        o.ctx = &mc;
    }
    et_lua_opt_get(L, 2, "frame");
    bool as_frame = lua_toboolean(L, -1);
    et_lua_opt_get(L, 2, "nan_stats");
    bool nan_stats = lua_toboolean(L, -1);
    int render = -1;
    if (et_lua_opt_get(L, 2, "render") == LUA_TSTRING)
        render = strcmp(lua_tostring(L, -1), "grid") == 0 ? 0 : 1;
    rows_box *b = push_holder(L);
    snprintf(b->op, sizeof b->op, "%s",
             et_lua_opt_get(L, 2, "op") == LUA_TSTRING ? lua_tostring(L, -1)
                                                       : "_core.report_rows");
    lua_pop(L, 1);
    /* the allocations above may have run a user's finalizer: the
     * inspector is read now, and pinned while the rows are built (the
     * metadata function runs in protected calls; nothing else raises) */
    if (!box->insp)
        return et_lua_closed_error(L, type, &box->own);
    et_error err;
    et_lua_pin(&box->own, b->op);
    b->f = et_report_rows(box->insp, &o, render < 0 ? &b->map : NULL, &err);
    et_lua_unpin(L, &box->own);
    if (!b->f)
        return luaL_error(L, "%s", err.msg);
    const et_frame *f = b->f;
    if (render >= 0) {
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        int rc = -1;
        if (mem) {
            rc = render == 0 ? et_frame_write_grid(f, mem) : et_frame_write_tsv(f, mem);
            if (fclose(mem) != 0)
                rc = -1;
        }
        if (rc != 0 || !buf) { /* !buf: fclose's final realloc failed */
            free(buf);
            return luaL_error(L, "out of memory while rendering a frame");
        }
        lua_pushlstring(L, buf, len);
        free(buf);
        rows_free(b);
        return 1;
    }
    size_t nc = et_frame_ncols(f), nr = et_frame_nrows(f);
    lua_createtable(L, (int)nc, 0);
    int cols = lua_gettop(L);
    for (size_t c = 0; c < nc; c++) {
        lua_pushstring(L, et_frame_colname(f, c));
        lua_rawseti(L, cols, (lua_Integer)c + 1);
    }
    if (as_frame) {
        push_frame_columns(L, box, f, &b->map, o.units ? o.units : "", nan_stats);
    } else {
    lua_createtable(L, (int)nr, 0);
    int rows = lua_gettop(L);
    for (size_t r = 0; r < nr; r++) {
        lua_createtable(L, 0, (int)nc);
        for (size_t c = 0; c < nc; c++) {
            lua_rawgeti(L, cols, (lua_Integer)c + 1);
            push_cell(L, f, r, c);
            lua_rawset(L, -3);
        }
        lua_rawseti(L, rows, (lua_Integer)r + 1);
    }
    }
    lua_createtable(L, (int)nr, 0);
    lua_createtable(L, (int)nr, 0);
    for (size_t r = 0; r < nr; r++) {
        lua_pushinteger(L, (lua_Integer)b->map.block[r] + 1);
        lua_rawseti(L, -3, (lua_Integer)r + 1);
        lua_pushinteger(L, (lua_Integer)b->map.event[r] + 1);
        lua_rawseti(L, -2, (lua_Integer)r + 1);
    }
    lua_pushinteger(L, (lua_Integer)b->map.n_md_columns);
    rows_free(b); /* now rather than at the next collection */
    return as_frame ? 6 : 5;
}

/* _core.drop_pages(insp): give back the resident pages of the
 * Inspector's mapped ETDump (a read-only private mapping of a regular
 * file: what is read again faults in from the page cache), for
 * open_many's dumps, which are many and each read once at open and once
 * when the model is built; nothing for a closed Inspector, one given
 * its dump as bytes, or one whose dump was read into memory (past the
 * mapping budget: et_map_drop_pages).  Runs no Lua code. */
static int core_drop_pages(lua_State *L)
{
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    if (box->insp)
        et_map_drop_pages(&box->insp->etdump_file);
    return 0;
}

/* _core.drop_samples(insp) -> boolean: give back the memory of the
 * Inspector's samples (every event's perf_data.raw and start_time; model.h
 * et_inspector_drop_samples), for open_many's dumps, whose frames rarely
 * read them: whoever reads them next (an Event, a PerfData, a raw or
 * start_time cell of a frame, an export) has them built again from the
 * dump, the same values bit for bit.  Only for an Inspector opened from a
 * path (its dump stays mapped or read while the model lives; bytes given
 * as a string live only as long as the Inspector's userdata), whose model
 * is complete and not in use (pinned: an operation is reading it); false,
 * nothing done, otherwise (closed, a converter, a legacy dump, ...).  Runs
 * no Lua code. */
static int core_drop_samples(lua_State *L)
{
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    lua_pushboolean(L, box->insp && box->insp->etdump_file.data && box->own.pins == 0 &&
                           et_inspector_drop_samples(box->insp));
    return 1;
}

void et_lua_open_core(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"repr", core_repr},   {"g", core_g}, {"render", core_render},
        {"json_decode", et_lua_json_decode},
        {"report_rows", core_report_rows}, {"agg", core_agg},
        {"drop_pages", core_drop_pages}, {"drop_samples", core_drop_samples},
        {NULL, NULL}};
    luaL_newlib(L, fns);
    et_lua_open_contract(L);
}
