/* l_frame.c - Lua frames rendered by the C writers; see l_frame.h. */
#include "l_frame.h"
#include "binding.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/frame.h"
#include "l_json.h"
#include "base/pyfmt.h"
#include "output/rows.h"
#include "base/stats.h"

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
    if (rc != 0)
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
 *            "Inspector is busy" error, e.g. "Inspector:to_dataframe"}
 * Returns the rendered text when opts.render is given; else columns (a
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
        if (rc != 0) {
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
    return 5;
}

void et_lua_open_core(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"repr", core_repr},   {"g", core_g}, {"render", core_render},
        {"json_decode", et_lua_json_decode},
        {"report_rows", core_report_rows}, {"agg", core_agg}, {NULL, NULL}};
    luaL_newlib(L, fns);
    et_lua_open_contract(L);
}
