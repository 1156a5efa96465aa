/*
 * l_table.c - Table: the Frame's column store, typed C columns
 * (src/core/table/column.h) behind lua/etinspect/frame.lua.
 *
 * A Table is N rows of M columns (no names: frame.lua keeps them).  It is
 * immutable; every verb makes a new Table, sharing the columns it keeps.
 * A Table may hold a row selection over its columns (ET_NO_ROW: a NaN
 * cell): sort, take and a join's sides select rows without copying a
 * column, and a column is gathered the first time it is read (so
 * `sort(...):head(5)` copies 5 cells a column).  Lua values are made only
 * when asked: a cell, a row, a column.
 *
 * Cells that no C kind holds (tables, functions, columns that mix kinds:
 * ET_COL_OBJ) are kept in a Lua table, the column's object store, anchored
 * in the registry for as long as a column refers to it (the store's owner
 * releases the reference; columns of one store share it through take).
 *
 * The Lua library reaches it through _core (private):
 *   _core.tab_from_rows(names, rows) -> Table        rows keyed by name
 *   _core.tab_from_columns(cols, n) -> Table          cols: sequences of n
 *   _core.tab_compose{T1, j1, T2, j2, ...} -> Table   columns picked (equal rows)
 *   _core.tab_concat({T1, T2, ...} [, by_values]) -> Table | nil   rows one after the other
 *   T:nrows(), T:ncols(), T:kind(j) -> "f64"|"i64"|"bool"|"str"|"list"|"obj"
 *   T:cell(i, j), T:column(j) -> sequence (nil holes), T:row(i, names),
 *   T:rows(names [, first, last]) -> sequence of row tables
 *   T:take(idx), T:mask(flags), T:slice(first, count), T:pick(js)
 *   T:sort(js, descs, na_first) -> Table | nil (a key with no C order)
 *   T:group(js, dropna, sort, nil_apart) -> GroupIndex | nil
 *   T:join(ljs, R, rjs, how) -> L', R', K' | nil   (K': coalesced keys)
 *   T:describe(j, qs) -> sequence of numbers
 *   T:numeric(j) -> any present, all numbers?; T:any_present(j)
 *   G:count(), G:keys(T, js) -> Table, G:sizes() -> Table,
 *   G:agg(T, j, what, q) -> Table | nil, "unsupported" | false, row,
 *   G:rows(g) -> sequence of 1-based rows
 * Rows and columns are 1-based in Lua, 0-based here.  Errors: "out of
 * memory", and argument errors from luaL_check*.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "l_series.h"
#include "table/table.h"
#include "table/samples.h"

#define MT_TABLE "etinspect.Table"
#define MT_GROUPS "etinspect.GroupIndex"

typedef struct {
    size_t nrows, ncols;
    et_column **base; /* ncols columns: of nrows rows, or of base_n rows under sel */
    size_t *sel;      /* NULL, or nrows rows of the base columns (ET_NO_ROW: NaN) */
    et_column **mat;  /* under sel: the gathered columns, made when read */
} ltable;

/* A NaN as Lua's 0/0 makes it (the sign bit set on x86-64). */
static double lua_nan(void)
{
    volatile double z = 0.0;
    return z / z;
}

static ltable *check_t(lua_State *L, int i)
{
    return luaL_checkudata(L, i, MT_TABLE);
}

static ltable *new_t(lua_State *L, size_t ncols, size_t nrows)
{
    ltable *t = lua_newuserdatauv(L, sizeof *t, 0);
    memset(t, 0, sizeof *t);
    luaL_setmetatable(L, MT_TABLE);
    t->base = calloc(ncols ? ncols : 1, sizeof *t->base);
    if (!t->base)
        luaL_error(L, "out of memory");
    t->ncols = ncols;
    t->nrows = nrows;
    return t;
}

static int t_gc(lua_State *L)
{
    ltable *t = lua_touserdata(L, 1);
    for (size_t j = 0; t->base && j < t->ncols; j++) {
        et_col_release(t->base[j]);
        if (t->mat)
            et_col_release(t->mat[j]);
    }
    free(t->base);
    free(t->mat);
    free(t->sel);
    t->base = t->mat = NULL;
    t->sel = NULL;
    t->ncols = t->nrows = 0;
    return 0;
}

/* Column j as rows 0..nrows-1 (gathered under a selection, once). */
static et_column *col_of(lua_State *L, ltable *t, size_t j)
{
    if (!t->sel)
        return t->base[j];
    if (!t->mat && !(t->mat = calloc(t->ncols, sizeof *t->mat)))
        luaL_error(L, "out of memory");
    if (!t->mat[j] && !(t->mat[j] = et_col_gather(t->base[j], t->sel, t->nrows)))
        luaL_error(L, "out of memory");
    return t->mat[j];
}

static size_t check_col(lua_State *L, ltable *t, int arg)
{
    lua_Integer j = luaL_checkinteger(L, arg);
    luaL_argcheck(L, j >= 1 && (lua_Unsigned)j <= t->ncols, arg, "column out of range");
    return (size_t)j - 1;
}

/* ---------------------------------------------------------------- objects */

typedef struct {
    lua_State *L; /* the main thread */
    int ref;      /* registry reference of the store table */
} objstore;

static void objstore_release(void *ctx)
{
    objstore *s = ctx;
    luaL_unref(s->L, LUA_REGISTRYINDEX, s->ref);
    free(s);
}

/* A new owner over the table at the top (popped). */
static et_col_owner *objstore_new(lua_State *L)
{
    objstore *s = malloc(sizeof *s);
    if (!s)
        luaL_error(L, "out of memory");
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    s->L = lua_tothread(L, -1);
    lua_pop(L, 1);
    s->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    et_col_owner *o = et_col_owner_new(objstore_release, s);
    if (!o) {
        objstore_release(s);
        luaL_error(L, "out of memory");
    }
    return o;
}

/* ---------------------------------------------------------------- cells */

static void push_elem(lua_State *L, const et_column *c, et_list_elem elem, const void *p,
                      uint64_t k)
{
    switch (elem) {
    case ET_LIST_F64:
    case ET_LIST_DURATIONS: lua_pushnumber(L, ((const double *)p)[k]); break;
    case ET_LIST_I64: lua_pushinteger(L, (lua_Integer)((const int64_t *)p)[k]); break;
    case ET_LIST_U64:
    case ET_LIST_START_TICKS: lua_pushinteger(L, (lua_Integer)((const uint64_t *)p)[k]); break;
    case ET_LIST_I32: lua_pushinteger(L, ((const int32_t *)p)[k]); break;
    default: {
        size_t len;
        const char *s = et_strpool_get(c->pool, ((const uint32_t *)p)[k], &len);
        lua_pushlstring(L, s, len);
    }
    }
}

/* See binding.h: a cell as a Lua value, but for the stores' object cells. */
bool et_lua_push_col_value(lua_State *L, const et_column *c, size_t i)
{
    if (c->valid && c->valid[i] != ET_VALID) {
        if (c->valid[i] == ET_NAN)
            lua_pushnumber(L, lua_nan());
        else
            lua_pushnil(L);
        return true;
    }
    switch (c->kind) {
    case ET_COL_F64: lua_pushnumber(L, et_col_f64(c, i)); break;
    case ET_COL_I64: lua_pushinteger(L, et_col_i64(c, i)); break;
    case ET_COL_BOOL: lua_pushboolean(L, et_col_bool(c, i)); break;
    case ET_COL_STR: {
        size_t len;
        const char *s = et_strpool_get(c->pool, et_col_str(c, i), &len);
        lua_pushlstring(L, s, len);
        break;
    }
    case ET_COL_LIST: {
        et_list_span sp = et_col_list(c, i);
        lua_createtable(L, sp.len < 1u << 24 ? (int)sp.len : 0, 0);
        /* an event's samples are found now, after the allocation (which
         * may run a finalizer), and built again if the model gave them
         * back; no Lua code runs from here to the last element */
        et_error err;
        if (et_col_is_samples(c) && et_sample_span(c, i, &sp, &err) != 0) {
            luaL_error(L, "%s", err.msg);
            return true;
        }
        for (uint64_t k = 0; k < sp.len; k++) {
            push_elem(L, c, c->elem, sp.ptr, k);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        break;
    }
    case ET_COL_OBJ: return false;
    }
    return true;
}

static void push_cell(lua_State *L, const et_column *c, size_t i)
{
    if (et_lua_push_col_value(L, c, i))
        return;
    objstore *s = c->owner ? c->owner->ctx : NULL; /* an object cell: the Table's store */
    if (!s) {
        lua_pushnil(L);
        return;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref);
    lua_rawgeti(L, -1, (lua_Integer)et_col_i64(c, i));
    lua_remove(L, -2);
}

/* ---------------------------------------------------------------- from Lua */

enum { K_NONE = 0, K_F = 1, K_I = 2, K_B = 4, K_S = 8, K_O = 16 };

/* The value at the top as a kind bit (K_NONE: nil), *nan for a NaN. */
static int kind_of(lua_State *L, bool *nan)
{
    *nan = false;
    switch (lua_type(L, -1)) {
    case LUA_TNIL: return K_NONE;
    case LUA_TBOOLEAN: return K_B;
    case LUA_TSTRING: return K_S;
    case LUA_TNUMBER:
        if (lua_isinteger(L, -1))
            return K_I;
        {
            double d = lua_tonumber(L, -1);
            *nan = d != d;
        }
        return K_F;
    default: return K_O;
    }
}

/* Push cell r (0-based) of the source: rows[r + 1][name] (src_rows) or
 * col[r + 1]. */
typedef struct {
    int tab;      /* stack index: rows, or the column sequence */
    int name;     /* stack index of the name (rows), 0 for a column */
} source;

static void push_src(lua_State *L, const source *s, size_t r)
{
    if (s->name) {
        if (lua_rawgeti(L, s->tab, (lua_Integer)r + 1) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_pushnil(L);
            return;
        }
        lua_pushvalue(L, s->name);
        lua_gettable(L, -2);
        lua_remove(L, -2);
    } else {
        lua_geti(L, s->tab, (lua_Integer)r + 1);
    }
}

/* A column of the n cells of `s`, with the pool `pool` for text. */
static void column_from(lua_State *L, const source *s, size_t n, et_strpool *pool, et_column **slot)
{
    et_column *sc = s->name ? NULL : et_lua_test_series(L, s->tab);
    if (sc && sc->n == n && sc->kind != ET_COL_OBJ) { /* a Series (l_series.h): its column, shared */
        et_col_retain(sc);
        *slot = sc;
        return;
    }
    int kinds = 0;
    bool any_nil = false, any_nan = false;
    for (size_t r = 0; r < n; r++) {
        push_src(L, s, r);
        bool nan;
        int k = kind_of(L, &nan);
        lua_pop(L, 1);
        if (k == K_NONE)
            any_nil = true;
        else if (nan)
            any_nan = true;
        else
            kinds |= k;
    }
    et_col_kind kind = ET_COL_F64;
    bool obj = false;
    switch (kinds) {
    case 0:
    case K_F: kind = ET_COL_F64; break;
    case K_I: kind = ET_COL_I64; break;
    case K_B: kind = ET_COL_BOOL; break;
    case K_S: kind = ET_COL_STR; break;
    default: kind = ET_COL_OBJ, obj = true;
    }
    bool nan_in_data = kind == ET_COL_F64; /* else ET_NAN: missing for the verbs */
    bool with_valid = any_nil || (any_nan && !nan_in_data);
    et_column *c = et_col_new(kind, n, with_valid, kind == ET_COL_STR ? pool : NULL);
    if (!c)
        luaL_error(L, "out of memory");
    *slot = c; /* freed with the Table on an error below */
    int store = 0;
    if (obj) {
        lua_createtable(L, (int)(n < 1u << 24 ? n : 0), 0);
        store = lua_gettop(L);
    }
    void *d = et_col_mut_data(c);
    uint8_t *v = et_col_mut_valid(c);
    lua_Integer nobj = 0;
    for (size_t r = 0; r < n; r++) {
        push_src(L, s, r);
        bool nan;
        int k = kind_of(L, &nan);
        if (k == K_NONE) {
            v[r] = ET_ABSENT;
        } else if (nan && kind != ET_COL_F64) {
            v[r] = ET_NAN;
        } else if (obj) {
            lua_pushvalue(L, -1);
            lua_rawseti(L, store, ++nobj);
            ((int64_t *)d)[r] = nobj;
        } else {
            switch (kind) {
            case ET_COL_F64: ((double *)d)[r] = lua_tonumber(L, -1); break;
            case ET_COL_I64: ((int64_t *)d)[r] = lua_tointeger(L, -1); break;
            case ET_COL_BOOL: ((uint8_t *)d)[r] = (uint8_t)lua_toboolean(L, -1); break;
            default: {
                size_t len;
                const char *str = lua_tolstring(L, -1, &len);
                if (et_strpool_intern(pool, str, len, &((uint32_t *)d)[r]) != 0)
                    luaL_error(L, "out of memory");
            }
            }
        }
        lua_pop(L, 1);
    }
    if (obj) {
        lua_pushvalue(L, store);
        et_col_owner *o = objstore_new(L); /* pops the copy */
        c->owner = o;                      /* the column's reference */
        lua_pop(L, 1);
    }
}

/* _core.tab_from_rows(names, rows) -> Table */
static int tab_from_rows(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t nc = (size_t)lua_rawlen(L, 1), n = (size_t)lua_rawlen(L, 2);
    et_strpool *pool = et_strpool_new();
    if (!pool)
        return luaL_error(L, "out of memory");
    /* the pool is referenced by its columns; ours is dropped below, also
     * on an error (a to-be-closed box) */
    et_strpool **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = pool;
    luaL_setmetatable(L, "etinspect.PoolBox");
    lua_toclose(L, -1);
    ltable *t = new_t(L, nc, n);
    for (size_t j = 0; j < nc; j++) {
        lua_rawgeti(L, 1, (lua_Integer)j + 1);
        source s = {2, lua_gettop(L)};
        column_from(L, &s, n, pool, &t->base[j]);
        lua_pop(L, 1);
    }
    return 1;
}

/* _core.tab_from_columns(cols, n) -> Table: cols a sequence of sequences */
static int tab_from_columns(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 0, 2, "negative row count");
    size_t nc = (size_t)lua_rawlen(L, 1);
    et_strpool *pool = et_strpool_new();
    if (!pool)
        return luaL_error(L, "out of memory");
    et_strpool **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = pool;
    luaL_setmetatable(L, "etinspect.PoolBox");
    lua_toclose(L, -1);
    ltable *t = new_t(L, nc, (size_t)n);
    for (size_t j = 0; j < nc; j++) {
        lua_rawgeti(L, 1, (lua_Integer)j + 1);
        source s = {lua_gettop(L), 0};
        column_from(L, &s, (size_t)n, pool, &t->base[j]);
        lua_pop(L, 1);
    }
    return 1;
}

static int poolbox_close(lua_State *L)
{
    et_strpool **box = lua_touserdata(L, 1);
    et_strpool_release(*box);
    *box = NULL;
    return 0;
}

/* _core.tab_compose({T1, j1, T2, j2, ...} [, nrows]) -> Table (the tables'
 * rows equal; nrows for no column at all) */
static int tab_compose(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t m = (size_t)lua_rawlen(L, 1) / 2;
    size_t nrows = (size_t)luaL_optinteger(L, 2, 0);
    for (size_t k = 0; k < m; k++) {
        lua_rawgeti(L, 1, (lua_Integer)(2 * k + 1));
        ltable *s = check_t(L, -1);
        if (k == 0)
            nrows = s->nrows;
        else if (s->nrows != nrows)
            return luaL_error(L, "tab_compose: tables of %d and %d rows", (int)nrows, (int)s->nrows);
        lua_pop(L, 1);
    }
    ltable *t = new_t(L, m, nrows);
    for (size_t k = 0; k < m; k++) {
        lua_rawgeti(L, 1, (lua_Integer)(2 * k + 1));
        ltable *s = check_t(L, -1);
        lua_rawgeti(L, 1, (lua_Integer)(2 * k + 2));
        size_t j = check_col(L, s, -1);
        et_column *c = col_of(L, s, j);
        et_col_retain(c);
        t->base[k] = c;
        lua_pop(L, 2);
    }
    return 1;
}

/* The owner of a column over the list elements of several columns: it
 * holds a reference on each of their owners. */
typedef struct {
    size_t n;
    et_col_owner **owners;
} owner_set;

static void owner_set_release(void *ctx)
{
    owner_set *os = ctx;
    for (size_t k = 0; k < os->n; k++)
        et_col_owner_release(os->owners[k]);
    free(os->owners);
    free(os);
}

/* The cells of the LIST columns cols[0..k) one after the other, as views
 * of the same elements (kept alive by their owners, all of them held by
 * the new column's); NULL when they are not all lists of one element kind
 * (and pool).  Raises on exhausted memory. */
static et_column *concat_lists(lua_State *L, et_column *const *cols, size_t k)
{
    size_t n = 0;
    bool holes = false;
    for (size_t j = 0; j < k; j++) {
        if (cols[j]->kind != ET_COL_LIST || cols[j]->elem != cols[0]->elem ||
            cols[j]->pool != cols[0]->pool)
            return NULL;
        n += cols[j]->n;
        holes |= cols[j]->valid != NULL;
    }
    owner_set *os = calloc(1, sizeof *os);
    et_col_owner *own = NULL;
    if (os && k && !(os->owners = calloc(k, sizeof *os->owners))) {
        free(os);
        os = NULL;
    }
    if (os && !(own = et_col_owner_new(owner_set_release, os))) {
        free(os->owners);
        free(os);
        os = NULL;
    }
    et_column *o = own ? et_col_new(ET_COL_LIST, n, holes, cols[0]->pool) : NULL;
    if (!o) {
        et_col_owner_release(own);
        luaL_error(L, "out of memory");
    }
    o->elem = cols[0]->elem;
    o->owner = own; /* the column's reference */
    et_list_span *sp = et_col_mut_data(o);
    uint8_t *v = et_col_mut_valid(o);
    size_t at = 0;
    for (size_t j = 0; j < k; j++) {
        const et_column *c = cols[j];
        if (c->owner) {
            et_col_owner_retain(c->owner);
            os->owners[os->n++] = c->owner;
        }
        for (size_t i = 0; i < c->n; i++, at++) {
            if (v)
                v[at] = c->valid ? c->valid[i] : ET_VALID;
            sp[at] = et_col_list(c, i);
        }
    }
    return o;
}

/* _core.tab_concat({T1, T2, ...} [, by_values]) -> Table | nil: the rows of
 * each in turn (equal column counts; nil when a column's kinds differ
 * between them, unless by_values: then that column is made over the
 * cells' Lua values, as Frame.new makes one).  List columns of one
 * element kind stay views of the same elements. */
static int tab_concat(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    bool by_values = lua_toboolean(L, 2);
    size_t m = (size_t)lua_rawlen(L, 1), nrows = 0, ncols = 0;
    ltable **ts = lua_newuserdatauv(L, (m ? m : 1) * sizeof *ts, 0);
    for (size_t k = 0; k < m; k++) {
        lua_rawgeti(L, 1, (lua_Integer)k + 1);
        ts[k] = check_t(L, -1);
        lua_pop(L, 1); /* the sequence keeps it */
        if (k == 0)
            ncols = ts[k]->ncols;
        else if (ts[k]->ncols != ncols)
            return luaL_error(L, "tab_concat: tables of %d and %d columns", (int)ncols, (int)ts[k]->ncols);
        nrows += ts[k]->nrows;
    }
    et_column **parts = lua_newuserdatauv(L, (m ? m : 1) * sizeof *parts, 0);
    ltable *o = new_t(L, ncols, nrows);
    int out = lua_gettop(L);
    et_strpool *pool = NULL; /* for the columns made over Lua values */
    for (size_t j = 0; j < ncols; j++) {
        for (size_t k = 0; k < m; k++)
            parts[k] = col_of(L, ts[k], j);
        if ((o->base[j] = et_col_concat(parts, m)) || (o->base[j] = concat_lists(L, parts, m)))
            continue;
        if (!by_values) {
            lua_pushnil(L);
            return 1;
        }
        /* kinds that differ, or objects: the cells as Lua values, typed
         * as Frame.new types them */
        if (!pool) {
            if (!(pool = et_strpool_new()))
                return luaL_error(L, "out of memory");
            et_strpool **box = lua_newuserdatauv(L, sizeof *box, 0);
            *box = pool;
            luaL_setmetatable(L, "etinspect.PoolBox");
            lua_toclose(L, -1);
        }
        lua_createtable(L, nrows < 1u << 24 ? (int)nrows : 0, 0);
        lua_Integer at = 0;
        for (size_t k = 0; k < m; k++)
            for (size_t i = 0; i < parts[k]->n; i++) {
                push_cell(L, parts[k], i);
                lua_rawseti(L, -2, ++at);
            }
        source src = {lua_gettop(L), 0};
        column_from(L, &src, nrows, pool, &o->base[j]);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, out);
    return 1;
}

/* A Table over C columns (each retained): for the binding's builders
 * (insp:raw_frame, to_dataframe).  Pushes it. */
void et_lua_push_table(lua_State *L, et_column *const *cols, size_t ncols, size_t nrows)
{
    ltable *t = new_t(L, ncols, nrows);
    for (size_t j = 0; j < ncols; j++) {
        et_col_retain(cols[j]);
        t->base[j] = cols[j];
    }
}

/* ---------------------------------------------------------------- reads */

static int t_nrows(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_t(L, 1)->nrows);
    return 1;
}

static int t_ncols(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_t(L, 1)->ncols);
    return 1;
}

static int t_kind(lua_State *L)
{
    static const char *const names[] = {"f64", "i64", "bool", "str", "list", "obj"};
    ltable *t = check_t(L, 1);
    lua_pushstring(L, names[t->base[check_col(L, t, 2)]->kind]);
    return 1;
}

static size_t check_row(lua_State *L, ltable *t, int arg)
{
    lua_Integer i = luaL_checkinteger(L, arg);
    luaL_argcheck(L, i >= 1 && (lua_Unsigned)i <= t->nrows, arg, "row out of range");
    return (size_t)i - 1;
}

static int t_cell(lua_State *L)
{
    ltable *t = check_t(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    size_t j = check_col(L, t, 3);
    if (i < 1 || (lua_Unsigned)i > t->nrows) {
        lua_pushnil(L);
        return 1;
    }
    push_cell(L, col_of(L, t, j), (size_t)i - 1);
    return 1;
}

static int t_column(lua_State *L)
{
    ltable *t = check_t(L, 1);
    et_column *c = col_of(L, t, check_col(L, t, 2));
    lua_createtable(L, (int)(t->nrows < 1u << 26 ? t->nrows : 0), 0);
    for (size_t i = 0; i < t->nrows; i++) {
        push_cell(L, c, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* Row i as a table keyed by the names at `names` (nil cells left out). */
static void push_row(lua_State *L, ltable *t, int names, size_t i)
{
    lua_createtable(L, 0, (int)t->ncols);
    for (size_t j = 0; j < t->ncols; j++) {
        lua_rawgeti(L, names, (lua_Integer)j + 1);
        push_cell(L, col_of(L, t, j), i);
        lua_rawset(L, -3);
    }
}

static int t_row(lua_State *L)
{
    ltable *t = check_t(L, 1);
    size_t i = check_row(L, t, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    push_row(L, t, 3, i);
    return 1;
}

static int t_rows(lua_State *L)
{
    ltable *t = check_t(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer first = luaL_optinteger(L, 3, 1), last = luaL_optinteger(L, 4, (lua_Integer)t->nrows);
    if (first < 1)
        first = 1;
    if (last > (lua_Integer)t->nrows)
        last = (lua_Integer)t->nrows;
    for (size_t j = 0; j < t->ncols; j++)
        col_of(L, t, j);
    lua_createtable(L, last >= first ? (int)(last - first + 1) : 0, 0);
    for (lua_Integer i = first; i <= last; i++) {
        push_row(L, t, 2, (size_t)i - 1);
        lua_rawseti(L, -2, i - first + 1);
    }
    return 1;
}

/* T:numeric(j) -> numbers, any, nonnil: is column j of numbers (F64, I64)
 * with a present cell; has it a present (not missing) cell; a non-nil one */
static int t_numeric(lua_State *L)
{
    ltable *t = check_t(L, 1);
    et_column *c = col_of(L, t, check_col(L, t, 2));
    bool any = false, nonnil = false;
    for (size_t i = 0; i < c->n && !any; i++)
        any = !et_col_missing(c, i);
    for (size_t i = 0; i < c->n && !nonnil; i++)
        nonnil = !c->valid || c->valid[i] != ET_ABSENT;
    lua_pushboolean(L, (c->kind == ET_COL_F64 || c->kind == ET_COL_I64) && any);
    lua_pushboolean(L, any);
    lua_pushboolean(L, nonnil);
    return 3;
}

/* ---------------------------------------------------------------- selections */

/* A Table of the rows idx[0..k) (ET_NO_ROW: NaN cells) of t; takes idx. */
static ltable *push_selected(lua_State *L, ltable *t, size_t *idx, size_t k)
{
    ltable *o = lua_newuserdatauv(L, sizeof *o, 0);
    memset(o, 0, sizeof *o);
    luaL_setmetatable(L, MT_TABLE);
    o->sel = idx; /* owned from here on */
    o->base = calloc(t->ncols ? t->ncols : 1, sizeof *o->base);
    if (!o->base)
        luaL_error(L, "out of memory");
    o->ncols = t->ncols;
    o->nrows = k;
    if (t->sel) { /* compose the selections */
        for (size_t i = 0; i < k; i++)
            if (idx[i] != ET_NO_ROW)
                idx[i] = t->sel[idx[i]];
    }
    for (size_t j = 0; j < t->ncols; j++) {
        et_col_retain(t->base[j]);
        o->base[j] = t->base[j];
    }
    return o;
}

static size_t *alloc_idx(lua_State *L, size_t k)
{
    size_t *idx = malloc((k ? k : 1) * sizeof *idx);
    if (!idx)
        luaL_error(L, "out of memory");
    return idx;
}

/* T:series(j [, name]) -> Series over column j (l_series.h), no copy */
static int t_series(lua_State *L)
{
    ltable *t = check_t(L, 1);
    et_column *c = col_of(L, t, check_col(L, t, 2));
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TSTRING);
    lua_settop(L, 3);
    int store = 0;
    if (c->kind == ET_COL_OBJ && c->owner && c->owner->release == objstore_release) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, ((objstore *)c->owner->ctx)->ref);
        store = lua_gettop(L);
    }
    et_lua_push_series(L, c, lua_isnil(L, 3) ? 0 : 3, store);
    return 1;
}

static int t_take(lua_State *L)
{
    ltable *t = check_t(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t k = (size_t)lua_rawlen(L, 2);
    size_t *idx = alloc_idx(L, k);
    for (size_t i = 0; i < k; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        lua_Integer r = lua_tointeger(L, -1);
        lua_pop(L, 1);
        if (r < 1 || (lua_Unsigned)r > t->nrows) {
            free(idx);
            return luaL_error(L, "take: row %d out of range", (int)r);
        }
        idx[i] = (size_t)r - 1;
    }
    push_selected(L, t, idx, k);
    return 1;
}

/* T:mask(flags): the rows whose flags[i] is truthy (flags: a sequence of
 * nrows values). */
static int t_mask(lua_State *L)
{
    ltable *t = check_t(L, 1);
    if (et_lua_test_series(L, 2)) { /* a Series mask (l_series.h): T:mask(s, where) */
        const uint8_t *mb = et_lua_check_mask(L, 2, t->nrows, luaL_optstring(L, 3, "Frame:filter"));
        size_t *idx, k;
        if (et_mask_indices(mb, t->nrows, &idx, &k) != 0)
            return luaL_error(L, "out of memory");
        push_selected(L, t, idx, k);
        return 1;
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t k = 0;
    uint8_t *m = malloc(t->nrows ? t->nrows : 1);
    if (!m)
        return luaL_error(L, "out of memory");
    for (size_t i = 0; i < t->nrows; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        m[i] = (uint8_t)lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    size_t *idx;
    if (et_mask_indices(m, t->nrows, &idx, &k) != 0) {
        free(m);
        return luaL_error(L, "out of memory");
    }
    free(m);
    push_selected(L, t, idx, k);
    return 1;
}

static int t_slice(lua_State *L)
{
    ltable *t = check_t(L, 1);
    lua_Integer first = luaL_checkinteger(L, 2), count = luaL_checkinteger(L, 3);
    if (first < 1)
        first = 1;
    if (count < 0)
        count = 0;
    if ((lua_Unsigned)first - 1 > t->nrows)
        first = (lua_Integer)t->nrows + 1;
    if ((lua_Unsigned)count > t->nrows - ((size_t)first - 1))
        count = (lua_Integer)(t->nrows - ((size_t)first - 1));
    size_t f = (size_t)first - 1, k = (size_t)count;
    if (t->sel) {
        size_t *idx = alloc_idx(L, k);
        memcpy(idx, t->sel + f, k * sizeof *idx);
        ltable *o = new_t(L, t->ncols, k);
        o->sel = idx;
        for (size_t j = 0; j < t->ncols; j++) {
            et_col_retain(t->base[j]);
            o->base[j] = t->base[j];
        }
        return 1;
    }
    ltable *o = new_t(L, t->ncols, k);
    for (size_t j = 0; j < t->ncols; j++)
        if (!(o->base[j] = et_col_slice(t->base[j], f, k)))
            return luaL_error(L, "out of memory");
    return 1;
}

/* T:pick(js): the columns js (1-based), shared. */
static int t_pick(lua_State *L)
{
    ltable *t = check_t(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t m = (size_t)lua_rawlen(L, 2);
    ltable *o = new_t(L, m, t->nrows);
    if (t->sel) {
        o->sel = alloc_idx(L, t->nrows);
        memcpy(o->sel, t->sel, t->nrows * sizeof *o->sel);
    }
    for (size_t k = 0; k < m; k++) {
        lua_rawgeti(L, 2, (lua_Integer)k + 1);
        size_t j = check_col(L, t, -1);
        lua_pop(L, 1);
        et_col_retain(t->base[j]);
        o->base[k] = t->base[j];
    }
    return 1;
}

/* The columns at the sequence `arg` (1-based indices) into cols[]. */
static et_column **cols_arg(lua_State *L, ltable *t, int arg, size_t *nk)
{
    luaL_checktype(L, arg, LUA_TTABLE);
    size_t m = (size_t)lua_rawlen(L, arg);
    et_column **cols = lua_newuserdatauv(L, (m ? m : 1) * sizeof *cols, 0); /* collected */
    for (size_t k = 0; k < m; k++) {
        lua_rawgeti(L, arg, (lua_Integer)k + 1);
        cols[k] = col_of(L, t, check_col(L, t, -1));
        lua_pop(L, 1);
    }
    *nk = m;
    return cols;
}

/* T:sort(js, descs, na_first) -> Table, or nil when a key has no C order */
static int t_sort(lua_State *L)
{
    ltable *t = check_t(L, 1);
    size_t nk;
    et_column **keys = cols_arg(L, t, 2, &nk);
    luaL_checktype(L, 3, LUA_TTABLE);
    bool *desc = lua_newuserdatauv(L, nk ? nk : 1, 0);
    for (size_t k = 0; k < nk; k++) {
        lua_rawgeti(L, 3, (lua_Integer)k + 1);
        desc[k] = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    bool na_first = lua_toboolean(L, 4);
    size_t *idx = alloc_idx(L, t->nrows);
    for (size_t i = 0; i < t->nrows; i++)
        idx[i] = i;
    int rc = et_tab_sort(keys, desc, nk, na_first, idx, t->nrows);
    if (rc != ET_TAB_OK) {
        free(idx);
        if (rc == ET_TAB_UNSUPPORTED) {
            lua_pushnil(L);
            return 1;
        }
        return luaL_error(L, "out of memory");
    }
    push_selected(L, t, idx, t->nrows);
    return 1;
}

/* ---------------------------------------------------------------- groups */

static int g_gc(lua_State *L)
{
    et_groups_free(lua_touserdata(L, 1));
    return 0;
}

/* T:group(js, dropna, sort, nil_apart) -> GroupIndex | nil */
static int t_group(lua_State *L)
{
    ltable *t = check_t(L, 1);
    size_t nk;
    et_column **keys = cols_arg(L, t, 2, &nk);
    et_groups *g = lua_newuserdatauv(L, sizeof *g, 0);
    memset(g, 0, sizeof *g);
    luaL_setmetatable(L, MT_GROUPS);
    int rc = et_tab_group(keys, nk, t->nrows, lua_toboolean(L, 3), lua_toboolean(L, 4),
                          lua_toboolean(L, 5), g);
    if (rc == ET_TAB_UNSUPPORTED) {
        lua_pushnil(L);
        return 1;
    }
    if (rc != ET_TAB_OK)
        return luaL_error(L, "out of memory");
    return 1;
}

static et_groups *check_g(lua_State *L, int i)
{
    return luaL_checkudata(L, i, MT_GROUPS);
}

static int g_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_g(L, 1)->n);
    return 1;
}

/* G:keys(T, js) -> Table: the key columns at each group's first row */
static int g_keys(lua_State *L)
{
    et_groups *g = check_g(L, 1);
    ltable *t = check_t(L, 2);
    size_t nk;
    et_column **keys = cols_arg(L, t, 3, &nk);
    ltable *o = new_t(L, nk, g->n);
    for (size_t k = 0; k < nk; k++)
        if (!(o->base[k] = et_col_take(keys[k], g->first, g->n)))
            return luaL_error(L, "out of memory");
    return 1;
}

static int g_sizes(lua_State *L)
{
    et_groups *g = check_g(L, 1);
    ltable *o = new_t(L, 1, g->n);
    if (!(o->base[0] = et_col_new(ET_COL_I64, g->n, false, NULL)))
        return luaL_error(L, "out of memory");
    int64_t *d = et_col_mut_data(o->base[0]);
    for (size_t i = 0; i < g->n; i++)
        d[i] = (int64_t)(g->offsets[i + 1] - g->offsets[i]);
    return 1;
}

static int g_rows(lua_State *L)
{
    et_groups *g = check_g(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    luaL_argcheck(L, i >= 1 && (lua_Unsigned)i <= g->n, 2, "group out of range");
    size_t a = g->offsets[i - 1], b = g->offsets[i];
    lua_createtable(L, (int)(b - a), 0);
    for (size_t k = a; k < b; k++) {
        lua_pushinteger(L, (lua_Integer)g->rows[k] + 1);
        lua_rawseti(L, -2, (lua_Integer)(k - a) + 1);
    }
    return 1;
}

/* G:agg(T, j, what [, q]) -> Table | nil, "unsupported" | false, row */
static int g_agg(lua_State *L)
{
    static const char *const whats[] = {"count", "sum", "mean", "median", "std", "var",
                                        "quantile", "min", "max", "first", "last", NULL};
    et_groups *g = check_g(L, 1);
    ltable *t = check_t(L, 2);
    et_column *c = col_of(L, t, check_col(L, t, 3));
    int what = luaL_checkoption(L, 4, NULL, whats);
    double q = luaL_optnumber(L, 5, 0.5);
    et_column *out = NULL;
    size_t bad = 0;
    int rc = et_tab_agg(c, g, (et_agg)what, q, &out, &bad);
    if (rc == ET_TAB_UNSUPPORTED) {
        lua_pushnil(L);
        lua_pushliteral(L, "unsupported");
        return 2;
    }
    if (rc == ET_TAB_NOT_NUMBERS) {
        lua_pushboolean(L, 0);
        lua_pushinteger(L, (lua_Integer)bad + 1);
        return 2;
    }
    if (rc != ET_TAB_OK)
        return luaL_error(L, "out of memory");
    ltable *o = new_t(L, 1, g->n);
    o->base[0] = out;
    return 1;
}

/* ---------------------------------------------------------------- join */

/* T:join(ljs, R, rjs, how) -> L', R', K' (K' for how 2, 3) | nil */
static int t_join(lua_State *L)
{
    ltable *t = check_t(L, 1);
    size_t nk, nk2;
    et_column **lk = cols_arg(L, t, 2, &nk);
    ltable *r = check_t(L, 3);
    et_column **rk = cols_arg(L, r, 4, &nk2);
    lua_Integer how = luaL_checkinteger(L, 5);
    luaL_argcheck(L, nk == nk2 && how >= 0 && how <= 3, 5, "bad join");
    if (how >= 2)
        for (size_t k = 0; k < nk; k++)
            if (lk[k]->kind != rk[k]->kind) {
                lua_pushnil(L);
                return 1;
            }
    size_t *li, *ri, n;
    int rc = et_tab_join(lk, t->nrows, rk, r->nrows, nk, (int)how, &li, &ri, &n);
    if (rc == ET_TAB_UNSUPPORTED) {
        lua_pushnil(L);
        return 1;
    }
    if (rc != ET_TAB_OK)
        return luaL_error(L, "out of memory");
    /* li and ri are owned by the Tables made below; free them on an error */
    bool ident = n == t->nrows;
    for (size_t i = 0; ident && i < n; i++)
        ident = li[i] == i;
    et_column **kc = NULL;
    if (how >= 2) {
        kc = calloc(nk ? nk : 1, sizeof *kc);
        for (size_t k = 0; kc && k < nk; k++)
            if (!(kc[k] = et_col_coalesce(lk[k], li, rk[k], ri, n))) {
                for (size_t m = 0; m < k; m++)
                    et_col_release(kc[m]);
                free(kc);
                kc = NULL;
                break;
            }
        if (!kc) {
            free(li), free(ri);
            return luaL_error(L, "out of memory");
        }
    }
    if (ident) {
        free(li);
        lua_pushvalue(L, 1);
    } else {
        push_selected(L, t, li, n);
    }
    push_selected(L, r, ri, n);
    if (kc) {
        ltable *k = lua_newuserdatauv(L, sizeof *k, 0);
        memset(k, 0, sizeof *k);
        luaL_setmetatable(L, MT_TABLE);
        k->base = kc;
        k->ncols = nk;
        k->nrows = n;
        return 3;
    }
    return 2;
}

/* T:describe(j, qs) -> {count, mean, std, min, q..., max} */
static int t_describe(lua_State *L)
{
    ltable *t = check_t(L, 1);
    et_column *c = col_of(L, t, check_col(L, t, 2));
    luaL_checktype(L, 3, LUA_TTABLE);
    size_t nq = (size_t)lua_rawlen(L, 3);
    double *q = lua_newuserdatauv(L, (nq + 1) * sizeof *q, 0);
    double *out = lua_newuserdatauv(L, (nq + 5) * sizeof *out, 0);
    for (size_t k = 0; k < nq; k++) {
        lua_rawgeti(L, 3, (lua_Integer)k + 1);
        q[k] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    if (c->kind != ET_COL_F64 && c->kind != ET_COL_I64)
        return luaL_error(L, "describe: not a column of numbers");
    if (et_tab_describe(c, q, nq, out) != ET_TAB_OK)
        return luaL_error(L, "out of memory");
    lua_createtable(L, (int)nq + 5, 0);
    for (size_t k = 0; k < nq + 5; k++) {
        lua_pushnumber(L, out[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 1;
}

static int t_tostring(lua_State *L)
{
    ltable *t = check_t(L, 1);
    lua_pushfstring(L, "Table (%d rows, %d columns)", (int)t->nrows, (int)t->ncols);
    return 1;
}

static int t_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_t(L, 1)->nrows);
    return 1;
}

void et_lua_open_table(lua_State *L)
{
    static const luaL_Reg tmethods[] = {
        {"nrows", t_nrows},     {"ncols", t_ncols}, {"kind", t_kind},         {"cell", t_cell},
        {"column", t_column},   {"series", t_series},   {"row", t_row},     {"rows", t_rows},         {"numeric", t_numeric},
        {"take", t_take},       {"mask", t_mask},   {"slice", t_slice},       {"pick", t_pick},
        {"sort", t_sort},       {"group", t_group}, {"join", t_join},         {"describe", t_describe},
        {NULL, NULL}};
    static const luaL_Reg gmethods[] = {{"count", g_count}, {"keys", g_keys}, {"sizes", g_sizes},
                                        {"rows", g_rows},   {"agg", g_agg},   {NULL, NULL}};
    luaL_newmetatable(L, MT_TABLE);
    luaL_newlib(L, tmethods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, t_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, t_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, t_len);
    lua_setfield(L, -2, "__len");
    lua_pushliteral(L, "Table");
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    luaL_newmetatable(L, MT_GROUPS);
    luaL_newlib(L, gmethods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, g_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    luaL_newmetatable(L, "etinspect.PoolBox");
    lua_pushcfunction(L, poolbox_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, poolbox_close);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    /* into _core (at the top) */
    static const luaL_Reg fns[] = {{"tab_from_rows", tab_from_rows},
                                   {"tab_from_columns", tab_from_columns},
                                   {"tab_compose", tab_compose},
                                   {"tab_concat", tab_concat},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
