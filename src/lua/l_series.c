/*
 * l_series.c - Series: a column of a Frame as a C-backed vector; see
 * l_series.h and docs/lua-api.md "Series".
 *
 *   s[i], #s, ipairs(s), s.name, s.dtype ("float64", "int64", "bool",
 *   "object"), s.n (= #s)
 *   s + x, s - x, s * x, s / x, s // x, s % x, s ^ x, -s   (x: a number, a
 *       Series of the same length, or a sequence of #s numbers)
 *   s:gt(x), s:ge(x), s:lt(x), s:le(x), s:eq(x), s:ne(x) -> mask
 *   m1 & m2, m1 | m2, ~m, m1 ~ m2 (xor)                   masks
 *   s:isin(values), s:isna(), s:notna() (isnull, notnull),
 *   s:between(lo, hi [, inclusive = "both"]), s:abs(), s:fillna(v),
 *   s:any(), s:all(), s:tolist()
 *
 * A mask is a Series of booleans.  Lua turns the results of <, <=, >, >=
 * and == into one boolean, so `s > 0.1` raises, naming s:gt(0.1).  Errors
 * name the column: "Series 'event_name' holds text (object), not numbers".
 * Every operation runs in C over the whole column (vecops.h): no Lua call
 * per row.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "l_series.h"
#include "table/column.h"
#include "table/vecops.h"

#define MT_SERIES "etinspect.Series"
#define LUA_METHODS "etinspect.Series.methods" /* registry: the Lua library's methods */

typedef struct {
    et_column *col;
} lseries;

/* ---------------------------------------------------------------- basics */

static lseries *test_s(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, MT_SERIES);
}

static lseries *check_s(lua_State *L, int idx)
{
    lseries *s = test_s(L, idx);
    if (!s || !s->col)
        luaL_typeerror(L, idx, "Series");
    return s;
}

et_column *et_lua_test_series(lua_State *L, int idx)
{
    lseries *s = test_s(L, idx);
    return s ? s->col : NULL;
}

void et_lua_push_series(lua_State *L, et_column *col, int name_idx, int store_idx)
{
    name_idx = name_idx ? lua_absindex(L, name_idx) : 0;
    store_idx = store_idx ? lua_absindex(L, store_idx) : 0;
    lseries *s = lua_newuserdatauv(L, sizeof *s, 2);
    s->col = NULL;
    luaL_setmetatable(L, MT_SERIES);
    et_col_retain(col);
    s->col = col;
    if (name_idx && lua_type(L, name_idx) == LUA_TSTRING) {
        lua_pushvalue(L, name_idx);
        lua_setiuservalue(L, -2, 1);
    }
    if (store_idx) {
        lua_pushvalue(L, store_idx);
        lua_setiuservalue(L, -2, 2);
    }
}

static int s_gc(lua_State *L)
{
    lseries *s = lua_touserdata(L, 1);
    et_col_release(s->col);
    s->col = NULL;
    return 0;
}

/* The name of the Series at idx for messages: "Series 'p50'" or "Series". */
static const char *label(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (lua_getiuservalue(L, idx, 1) == LUA_TSTRING) {
        const char *r = lua_pushfstring(L, "Series '%s'", lua_tostring(L, -1));
        lua_replace(L, -2);
        return r;
    }
    lua_pop(L, 1);
    lua_pushliteral(L, "Series");
    return lua_tostring(L, -1);
}

static bool has_missing(const et_column *c);

/* pandas' dtype of the column: ints with a missing cell are float64 there,
 * booleans with one object. */
static const char *dtype_of(const et_column *c)
{
    switch (c->kind) {
    case ET_COL_F64: return "float64";
    case ET_COL_I64: return has_missing(c) ? "float64" : "int64";
    case ET_COL_BOOL: return has_missing(c) ? "object" : "bool";
    default: return "object";
    }
}

/* What a column holds, for messages: "text", "lists", "mixed values". */
static const char *holds(const et_column *c)
{
    switch (c->kind) {
    case ET_COL_F64: return "float64 values";
    case ET_COL_I64: return "int64 values";
    case ET_COL_BOOL: return "booleans";
    case ET_COL_STR: return "text";
    case ET_COL_LIST: return "lists";
    default: return "mixed values";
    }
}

/* Raise "Series:NAME: too many arguments (it takes 0, got N)" unless the
 * method got only self. */
static void no_args(lua_State *L, const char *name)
{
    if (lua_gettop(L) > 1)
        luaL_error(L, "Series:%s: too many arguments (it takes 0, got %d)", name, lua_gettop(L) - 1);
}

static void *xmalloc(lua_State *L, size_t n, size_t size)
{
    void **keep = et_lua_push_cbuffer(L, 0); /* freed with it: no leak on an error */
    if (size && n > SIZE_MAX / size)
        luaL_error(L, "out of memory");
    *keep = malloc(n * size > 0 ? n * size : 1);
    if (!*keep)
        luaL_error(L, "out of memory");
    return *keep;
}

static et_column *new_col(lua_State *L, et_col_kind kind, size_t n, bool valid, et_strpool *pool)
{
    et_column *c = et_col_new(kind, n, valid, pool);
    if (!c)
        luaL_error(L, "out of memory");
    return c;
}

/* Push a Series of a new column (its reference passes to the Series); name
 * from the stack (0: none). */
static void push_new(lua_State *L, et_column *c, int name_idx, int store_idx)
{
    name_idx = name_idx ? lua_absindex(L, name_idx) : 0;
    store_idx = store_idx ? lua_absindex(L, store_idx) : 0;
    /* the column must not leak if pushing raises: hold it in a box first */
    lseries *s = lua_newuserdatauv(L, sizeof *s, 2);
    s->col = c;
    luaL_setmetatable(L, MT_SERIES);
    if (name_idx && lua_type(L, name_idx) == LUA_TSTRING) {
        lua_pushvalue(L, name_idx);
        lua_setiuservalue(L, -2, 1);
    }
    if (store_idx) {
        lua_pushvalue(L, store_idx);
        lua_setiuservalue(L, -2, 2);
    }
}

/* Push cell i (0-based) of the Series at idx (et_lua_push_col_value; an
 * object cell from the Series' store, user value 2). */
static void push_cell(lua_State *L, int idx, const et_column *c, size_t i)
{
    if (et_lua_push_col_value(L, c, i))
        return;
    if (lua_getiuservalue(L, idx, 2) == LUA_TTABLE) {
        lua_geti(L, -1, et_col_i64(c, i));
        lua_replace(L, -2);
    } else {
        lua_pop(L, 1);
        lua_pushnil(L);
    }
}

/* ---------------------------------------------------------------- from Lua values */

/* A column of the n values at idx[1..n] (a sequence, nil holes allowed):
 * numbers (int64 when every one is an integer, else float64), booleans,
 * strings (a new pool), or else objects (a store: the values themselves).
 * Pushes the Series. */
static void series_from_values(lua_State *L, int idx, lua_Integer n, int name_idx)
{
    idx = lua_absindex(L, idx);
    name_idx = name_idx ? lua_absindex(L, name_idx) : 0;
    if (n < 0)
        luaL_error(L, "a Series of %I values", n);
    size_t N = (size_t)n;
    int nums = 0, ints = 0, bools = 0, strs = 0, nans = 0, other = 0, absent = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        int t = lua_geti(L, idx, i);
        if (t == LUA_TNIL)
            absent++;
        else if (t == LUA_TNUMBER) {
            if (lua_isinteger(L, -1))
                ints++;
            else if (lua_tonumber(L, -1) != lua_tonumber(L, -1))
                nans++;
            nums++;
        } else if (t == LUA_TBOOLEAN)
            bools++;
        else if (t == LUA_TSTRING)
            strs++;
        else
            other++;
        lua_pop(L, 1);
    }
    et_col_kind kind;
    if (other || (nums && (bools || strs)) || (bools && strs))
        kind = ET_COL_OBJ;
    else if (strs)
        kind = nums > nans ? ET_COL_OBJ : ET_COL_STR;
    else if (bools)
        kind = nums > nans ? ET_COL_OBJ : ET_COL_BOOL;
    else
        kind = (nums && ints == nums) ? ET_COL_I64 : ET_COL_F64;
    if (kind == ET_COL_OBJ) { /* the values are the store; handle i is value i */
        lua_createtable(L, (int)(N < INT32_MAX ? N : 0), 0);
        int store = lua_gettop(L);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, idx, i);
            lua_rawseti(L, store, i);
        }
        et_column *c = new_col(L, ET_COL_OBJ, N, absent > 0, NULL);
        int64_t *h = et_col_mut_data(c);
        uint8_t *v = et_col_mut_valid(c);
        for (size_t i = 0; i < N; i++) {
            h[i] = (int64_t)i + 1;
            if (v) {
                lua_rawgeti(L, store, (lua_Integer)i + 1);
                v[i] = lua_isnil(L, -1) ? ET_ABSENT : ET_VALID;
                lua_pop(L, 1);
            }
        }
        push_new(L, c, name_idx, store);
        lua_replace(L, store);
        return;
    }
    et_strpool *pool = NULL;
    if (kind == ET_COL_STR && !(pool = et_strpool_new()))
        luaL_error(L, "out of memory");
    et_column *c = et_col_new(kind, N, absent > 0 || (nans > 0 && kind != ET_COL_F64 && kind != ET_COL_I64), pool);
    et_strpool_release(pool);
    if (!c)
        luaL_error(L, "out of memory");
    push_new(L, c, name_idx, 0); /* owns c from here */
    void *d = et_col_mut_data(c);
    uint8_t *v = et_col_mut_valid(c);
    for (size_t i = 0; i < N; i++) {
        int t = lua_geti(L, idx, (lua_Integer)i + 1);
        if (t == LUA_TNIL) {
            if (v)
                v[i] = ET_ABSENT;
            if (kind == ET_COL_F64)
                ((double *)d)[i] = NAN;
        } else if (t == LUA_TNUMBER && kind != ET_COL_F64 && kind != ET_COL_I64) {
            v[i] = ET_NAN; /* a NaN among text or booleans */
        } else {
            switch (kind) {
            case ET_COL_F64: ((double *)d)[i] = lua_tonumber(L, -1); break;
            case ET_COL_I64: ((int64_t *)d)[i] = lua_tointeger(L, -1); break;
            case ET_COL_BOOL: ((uint8_t *)d)[i] = (uint8_t)lua_toboolean(L, -1); break;
            case ET_COL_STR: {
                size_t len;
                const char *p = lua_tolstring(L, -1, &len);
                if (et_strpool_intern(c->pool, p, len, &((uint32_t *)d)[i]) != 0)
                    luaL_error(L, "out of memory");
                break;
            }
            default: break;
            }
        }
        lua_pop(L, 1);
    }
}

/* ---------------------------------------------------------------- operands */

/* A numeric operand: a Series (n elements, step 1) or a scalar (step 0),
 * as int64 (when exact: an int64 or bool column with no missing cell, an
 * integer or boolean) or float64. */
typedef struct {
    bool isint;
    const int64_t *i;
    const double *d;
    size_t step;
    int64_t si; /* a scalar's storage */
    double sd;
} numop;

static bool is_numeric_kind(et_col_kind k)
{
    return k == ET_COL_F64 || k == ET_COL_I64 || k == ET_COL_BOOL;
}

static bool has_missing(const et_column *c)
{
    if (!c->valid)
        return false;
    for (size_t i = 0; i < c->n; i++)
        if (c->valid[i] != ET_VALID)
            return true;
    return false;
}

/* Fill *op from a column (its cells as numbers); raises for text. */
static void col_numop(lua_State *L, int idx, const et_column *c, numop *op, const char *what)
{
    if (!is_numeric_kind(c->kind)) {
        label(L, idx);
        luaL_error(L, "%s: %s holds %s, not numbers", what, lua_tostring(L, -1), holds(c));
    }
    size_t n = c->n;
    op->step = 1;
    if (c->kind != ET_COL_F64 && !has_missing(c)) {
        op->isint = true;
        if (c->kind == ET_COL_I64 && c->stride == sizeof(int64_t)) {
            op->i = c->data;
            return;
        }
        int64_t *b = xmalloc(L, n, sizeof *b);
        for (size_t k = 0; k < n; k++)
            b[k] = c->kind == ET_COL_I64 ? et_col_i64(c, k) : (int64_t)et_col_bool(c, k);
        op->i = b; /* its box stays on the stack until the operation returns */
        return;
    }
    op->isint = false;
    if (c->kind == ET_COL_F64 && !c->valid && c->stride == sizeof(double)) {
        op->d = c->data;
        return;
    }
    double *b = xmalloc(L, n, sizeof *b);
    for (size_t k = 0; k < n; k++) {
        if (c->valid && c->valid[k] != ET_VALID)
            b[k] = NAN;
        else if (c->kind == ET_COL_F64)
            b[k] = et_col_f64(c, k);
        else if (c->kind == ET_COL_I64)
            b[k] = (double)et_col_i64(c, k);
        else
            b[k] = et_col_bool(c, k);
    }
    op->d = b;
}

/* Convert an int64 operand to float64 (a new buffer). */
static void to_double(lua_State *L, numop *op, size_t n)
{
    if (!op->isint)
        return;
    op->isint = false;
    if (op->step == 0) {
        op->sd = (double)op->si;
        op->d = &op->sd;
        return;
    }
    double *b = xmalloc(L, n, sizeof *b);
    for (size_t k = 0; k < n; k++)
        b[k] = (double)op->i[k];
    op->d = b;
}

/* The Series at idx, or a sequence there made one (pushed; its stack slot
 * replaces nothing: the caller's stack grows by one). n: the length the
 * other operand gives (a sequence must have it). */
static lseries *operand_series(lua_State *L, int idx, size_t n, int *made)
{
    lseries *s = test_s(L, idx);
    *made = 0;
    if (s)
        return s;
    if (lua_type(L, idx) == LUA_TTABLE && !lua_getmetatable(L, idx)) {
        lua_Integer len = luaL_len(L, idx);
        if ((size_t)len != n)
            luaL_error(L, "a sequence of %I values for a Series of %I", len, (lua_Integer)n);
        series_from_values(L, idx, len, 0);
        *made = lua_gettop(L);
        return test_s(L, -1);
    }
    return NULL;
}

/* Fill *op from the value at idx (a Series, a sequence, a number, a
 * boolean) for an operation on n elements. */
static void get_numop(lua_State *L, int idx, size_t n, numop *op, const char *what)
{
    idx = lua_absindex(L, idx);
    memset(op, 0, sizeof *op);
    int made;
    lseries *s = operand_series(L, idx, n, &made);
    if (s) {
        if (!s->col)
            luaL_error(L, "%s: a Series used after it was freed", what);
        if (s->col->n != n) {
            label(L, idx);
            luaL_error(L, "%s: %s has %I values, the other operand %I", what, lua_tostring(L, -1),
                       (lua_Integer)s->col->n, (lua_Integer)n);
        }
        col_numop(L, made ? made : idx, s->col, op, what);
        return;
    }
    op->step = 0;
    if (lua_isinteger(L, idx)) {
        op->isint = true;
        op->si = lua_tointeger(L, idx);
        op->i = &op->si;
    } else if (lua_type(L, idx) == LUA_TNUMBER) {
        op->sd = lua_tonumber(L, idx);
        op->d = &op->sd;
    } else if (lua_type(L, idx) == LUA_TBOOLEAN) {
        op->isint = true;
        op->si = lua_toboolean(L, idx);
        op->i = &op->si;
    } else {
        luaL_error(L, "%s: a Series and a %s (a number, a Series or a sequence of numbers expected)", what,
                   luaL_typename(L, idx));
    }
}

/* The length and name slot of a binary operation's Series operand: the
 * first of 1 and 2 that is a Series. */
static int series_arg(lua_State *L)
{
    return test_s(L, 1) ? 1 : 2;
}

/* The name of a result of Series a and b (either may be a scalar): a's or
 * b's when only one is a Series or both have the same name; pushed (nil
 * for none). */
static int result_name(lua_State *L)
{
    int sa = test_s(L, 1) != NULL, sb = test_s(L, 2) != NULL;
    if (sa && !sb) {
        lua_getiuservalue(L, 1, 1);
    } else if (sb && !sa) {
        lua_getiuservalue(L, 2, 1);
    } else {
        lua_getiuservalue(L, 1, 1);
        lua_getiuservalue(L, 2, 1);
        if (!lua_rawequal(L, -1, -2)) {
            lua_pop(L, 2);
            lua_pushnil(L);
        } else {
            lua_pop(L, 1);
        }
    }
    return lua_gettop(L);
}

/* ---------------------------------------------------------------- arithmetic */

/* An object Series at idx whose present cells are all numbers (integers
 * and floats together: Frame.new keeps each value's math.type, so such a
 * column is an object column) is replaced there by a float64 copy with its
 * name, the column pandas makes of such values; any other value stays. */
static void obj_as_numbers(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lseries *s = test_s(L, idx);
    if (!s || !s->col || s->col->kind != ET_COL_OBJ)
        return;
    const et_column *c = s->col;
    size_t n = c->n;
    for (size_t i = 0; i < n; i++) {
        push_cell(L, idx, c, i);
        int t = lua_type(L, -1);
        lua_pop(L, 1);
        if (t != LUA_TNUMBER && t != LUA_TNIL)
            return;
    }
    lua_getiuservalue(L, idx, 1);
    et_column *o = new_col(L, ET_COL_F64, n, true, NULL);
    push_new(L, o, -1, 0); /* holds o from here */
    double *d = et_col_mut_data(o);
    uint8_t *v = et_col_mut_valid(o);
    for (size_t i = 0; i < n; i++) {
        push_cell(L, idx, c, i);
        v[i] = lua_isnil(L, -1) ? ET_ABSENT : ET_VALID;
        d[i] = lua_isnil(L, -1) ? NAN : (double)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_replace(L, idx);
    lua_pop(L, 1); /* the name */
}

static const char *const OPNAMES[] = {"+", "-", "*", "/", "//", "%", "^"};

static int arith(lua_State *L, et_vop op)
{
    lua_settop(L, 2);
    obj_as_numbers(L, 1);
    obj_as_numbers(L, 2);
    int si = series_arg(L);
    lseries *s = check_s(L, si);
    size_t n = s->col->n;
    int name = result_name(L);
    numop a, b;
    char what[32];
    snprintf(what, sizeof what, "Series %s", OPNAMES[op]);
    get_numop(L, 1, n, &a, what);
    get_numop(L, 2, n, &b, what);
    if (a.isint && b.isint && op != ET_VOP_DIV) {
        if ((op == ET_VOP_FLOORDIV || op == ET_VOP_MOD) && et_vec_i64_has_zero(b.i, b.step, n)) {
            et_column *c = new_col(L, ET_COL_F64, n, false, NULL);
            push_new(L, c, name, 0);
            et_vec_divmod_i64_f64(op, a.i, a.step, b.i, b.step, et_col_mut_data(c), n);
            return 1;
        }
        et_column *c = new_col(L, ET_COL_I64, n, false, NULL);
        push_new(L, c, name, 0);
        if (op == ET_VOP_POW) {
            size_t bad;
            if (et_vec_pow_i64(a.i, a.step, b.i, b.step, et_col_mut_data(c), n, &bad) != 0)
                return luaL_error(L, "Series ^: Integers to negative integer powers are not allowed "
                                     "(element %I; use a float exponent, as s ^ -1.0)",
                                  (lua_Integer)bad + 1);
        } else {
            et_vec_arith_i64(op, a.i, a.step, b.i, b.step, et_col_mut_data(c), n);
        }
        return 1;
    }
    to_double(L, &a, n);
    to_double(L, &b, n);
    et_column *c = new_col(L, ET_COL_F64, n, false, NULL);
    push_new(L, c, name, 0);
    et_vec_arith_f64(op, a.d, a.step, b.d, b.step, et_col_mut_data(c), n);
    return 1;
}

static int s_add(lua_State *L) { return arith(L, ET_VOP_ADD); }
static int s_sub(lua_State *L) { return arith(L, ET_VOP_SUB); }
static int s_mul(lua_State *L) { return arith(L, ET_VOP_MUL); }
static int s_div(lua_State *L) { return arith(L, ET_VOP_DIV); }
static int s_idiv(lua_State *L) { return arith(L, ET_VOP_FLOORDIV); }
static int s_mod(lua_State *L) { return arith(L, ET_VOP_MOD); }
static int s_pow(lua_State *L) { return arith(L, ET_VOP_POW); }

static int s_unm(lua_State *L)
{
    lseries *s = check_s(L, 1);
    size_t n = s->col->n;
    lua_settop(L, 1);
    numop a;
    col_numop(L, 1, s->col, &a, "Series unary -");
    lua_getiuservalue(L, 1, 1);
    int name = lua_gettop(L);
    et_column *c = new_col(L, a.isint ? ET_COL_I64 : ET_COL_F64, n, false, NULL);
    push_new(L, c, name, 0);
    if (a.isint)
        et_vec_neg_i64(a.i, et_col_mut_data(c), n);
    else
        et_vec_neg_f64(a.d, et_col_mut_data(c), n);
    return 1;
}

static int s_abs(lua_State *L)
{
    lseries *s = check_s(L, 1);
    no_args(L, "abs");
    size_t n = s->col->n;
    numop a;
    col_numop(L, 1, s->col, &a, "Series:abs");
    lua_getiuservalue(L, 1, 1);
    int name = lua_gettop(L);
    et_column *c = new_col(L, a.isint ? ET_COL_I64 : ET_COL_F64, n, false, NULL);
    push_new(L, c, name, 0);
    if (a.isint) {
        int64_t *o = et_col_mut_data(c);
        for (size_t k = 0; k < n; k++)
            o[k] = a.i[k] < 0 ? (int64_t)(0 - (uint64_t)a.i[k]) : a.i[k];
    } else {
        double *o = et_col_mut_data(c);
        for (size_t k = 0; k < n; k++)
            o[k] = fabs(a.d[k]);
    }
    return 1;
}

/* ---------------------------------------------------------------- comparisons */

static const char *const CMPNAMES[] = {"eq", "ne", "lt", "le", "gt", "ge"};

/* A new bool column of n cells, pushed as a Series named as `name`. */
static uint8_t *new_mask(lua_State *L, size_t n, int name)
{
    et_column *c = new_col(L, ET_COL_BOOL, n, false, NULL);
    push_new(L, c, name, 0);
    return et_col_mut_data(c);
}

/* Bytes a and b compared: memcmp, then length. */
static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int r = memcmp(a, b, an < bn ? an : bn);
    if (r)
        return r < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

static bool cell_missing(const et_column *c, size_t i)
{
    return et_col_missing(c, i);
}

/* A text Series (self at 1) compared with a string, a text Series, or
 * something else; pushes the mask. */
static void cmp_text(lua_State *L, et_vcmp op, const et_column *a, int name)
{
    size_t n = a->n;
    lseries *o = test_s(L, 2);
    if (lua_type(L, 2) == LUA_TSTRING) {
        size_t len;
        const char *x = lua_tolstring(L, 2, &len);
        uint32_t np = et_strpool_count(a->pool);
        uint8_t *lut = xmalloc(L, np ? np : 1, 1);
        for (uint32_t id = 0; id < np; id++) {
            size_t pl;
            const char *p = et_strpool_get(a->pool, id, &pl);
            int8_t ord = (int8_t)bytes_cmp(p, pl, x, len);
            et_vec_cmp_order(op, &ord, NULL, &lut[id], 1);
        }
        uint8_t *out = new_mask(L, n, name);
        for (size_t i = 0; i < n; i++)
            out[i] = cell_missing(a, i) ? op == ET_VCMP_NE : lut[et_col_str(a, i)];
        return;
    }
    if (o && o->col && o->col->kind == ET_COL_STR) {
        const et_column *b = o->col;
        if (b->n != n)
            luaL_error(L, "Series:%s: the Series have %I and %I values", CMPNAMES[op], (lua_Integer)n,
                       (lua_Integer)b->n);
        int8_t *ord = xmalloc(L, n, 1);
        uint8_t *miss = xmalloc(L, n, 1);
        for (size_t i = 0; i < n; i++) {
            miss[i] = cell_missing(a, i) || cell_missing(b, i);
            if (miss[i]) {
                ord[i] = 0;
                continue;
            }
            uint32_t x = et_col_str(a, i), y = et_col_str(b, i);
            if (a->pool == b->pool && x == y) {
                ord[i] = 0;
                continue;
            }
            size_t xl, yl;
            const char *xp = et_strpool_get(a->pool, x, &xl), *yp = et_strpool_get(b->pool, y, &yl);
            ord[i] = (int8_t)bytes_cmp(xp, xl, yp, yl);
        }
        et_vec_cmp_order(op, ord, miss, new_mask(L, n, name), n);
        return;
    }
    if (op == ET_VCMP_EQ || op == ET_VCMP_NE || lua_isnil(L, 2)) { /* text is never equal to a number */
        memset(new_mask(L, n, name), op == ET_VCMP_NE, n);
        return;
    }
    luaL_error(L, "Series:%s: '%s' not supported between text and %s", CMPNAMES[op],
               op == ET_VCMP_LT ? "<" : op == ET_VCMP_LE ? "<=" : op == ET_VCMP_GT ? ">" : ">=",
               o ? dtype_of(o->col) : luaL_typename(L, 2));
}

static void compare(lua_State *L, et_vcmp op)
{
    check_s(L, 1);
    lua_settop(L, 2);
    obj_as_numbers(L, 1);
    obj_as_numbers(L, 2);
    lseries *s = check_s(L, 1);
    const et_column *a = s->col;
    size_t n = a->n;
    lua_getiuservalue(L, 1, 1);
    int name = lua_gettop(L);
    lseries *o = test_s(L, 2);
    char what[32];
    snprintf(what, sizeof what, "Series:%s", CMPNAMES[op]);
    if (a->kind == ET_COL_STR) {
        cmp_text(L, op, a, name);
        return;
    }
    if (is_numeric_kind(a->kind) && (lua_type(L, 2) == LUA_TNUMBER || lua_type(L, 2) == LUA_TBOOLEAN ||
                                     (o && o->col && is_numeric_kind(o->col->kind)) ||
                                     (lua_type(L, 2) == LUA_TTABLE && !o))) {
        numop x, y;
        get_numop(L, 1, n, &x, what);
        get_numop(L, 2, n, &y, what);
        if (x.isint && y.isint) {
            uint8_t *out = new_mask(L, n, name);
            et_vec_cmp_i64(op, x.i, x.step, y.i, y.step, out, n);
            return;
        }
        to_double(L, &x, n);
        to_double(L, &y, n);
        uint8_t *out = new_mask(L, n, name);
        et_vec_cmp_f64(op, x.d, x.step, y.d, y.step, out, n);
        return;
    }
    if (is_numeric_kind(a->kind) && (lua_type(L, 2) == LUA_TSTRING || lua_isnil(L, 2) ||
                                     (o && o->col && o->col->kind == ET_COL_STR))) {
        if (op == ET_VCMP_EQ || op == ET_VCMP_NE || lua_isnil(L, 2)) {
            memset(new_mask(L, n, name), op == ET_VCMP_NE, n);
            return;
        }
        label(L, 1);
        luaL_error(L, "%s: %s holds numbers, compared with text", what, lua_tostring(L, -1));
    }
    /* objects and lists: equality of the Lua values, cell by cell */
    if (op != ET_VCMP_EQ && op != ET_VCMP_NE) {
        label(L, 1);
        luaL_error(L, "%s: %s holds %s, which have no order", what, lua_tostring(L, -1), holds(a));
    }
    if (o && o->col->n != n)
        luaL_error(L, "%s: the Series have %I and %I values", what, (lua_Integer)n, (lua_Integer)o->col->n);
    uint8_t *out = new_mask(L, n, name);
    for (size_t i = 0; i < n; i++) {
        push_cell(L, 1, a, i);
        if (o)
            push_cell(L, 2, o->col, i);
        else
            lua_pushvalue(L, 2);
        int eq = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        out[i] = (uint8_t)(op == ET_VCMP_EQ ? eq : !eq);
    }
}

static int cmp_method(lua_State *L, et_vcmp op)
{
    if (lua_gettop(L) > 2)
        return luaL_error(L, "Series:%s: too many arguments (one value expected)", CMPNAMES[op]);
    if (lua_gettop(L) < 2)
        return luaL_error(L, "Series:%s: bad argument #1 (a value to compare with expected)", CMPNAMES[op]);
    compare(L, op);
    return 1;
}

static int s_eq(lua_State *L) { return cmp_method(L, ET_VCMP_EQ); }
static int s_ne(lua_State *L) { return cmp_method(L, ET_VCMP_NE); }
static int s_lt(lua_State *L) { return cmp_method(L, ET_VCMP_LT); }
static int s_le(lua_State *L) { return cmp_method(L, ET_VCMP_LE); }
static int s_gt(lua_State *L) { return cmp_method(L, ET_VCMP_GT); }
static int s_ge(lua_State *L) { return cmp_method(L, ET_VCMP_GE); }

/* The relational metamethods cannot give a mask: Lua makes their result one
 * boolean.  They raise, naming the method to write instead. */
static int s_lt_meta(lua_State *L)
{
    return luaL_error(L, "a Series compared with < or >: Lua makes the result one boolean; write "
                         "s:lt(x) for pandas' s < x, s:gt(x) for s > x");
}
static int s_le_meta(lua_State *L)
{
    return luaL_error(L, "a Series compared with <= or >=: Lua makes the result one boolean; write "
                         "s:le(x) for pandas' s <= x, s:ge(x) for s >= x");
}
static int s_eq_meta(lua_State *L)
{
    return luaL_error(L, "two Series with ==: Lua makes the result of == one boolean; write a:eq(b) "
                         "for pandas' a == b (and rawequal(a, b) for identity)");
}

/* ---------------------------------------------------------------- masks */

/* The 0/1 bytes of a mask operand: a bool Series without missing cells, or
 * a boolean (step 0). */
static const uint8_t *mask_bytes(lua_State *L, int idx, size_t n, size_t *step, uint8_t *scalar,
                                 const char *what)
{
    lseries *s = test_s(L, idx);
    if (!s) {
        if (lua_type(L, idx) != LUA_TBOOLEAN)
            luaL_error(L, "%s: a mask (a Series of booleans) and a %s", what, luaL_typename(L, idx));
        *scalar = (uint8_t)lua_toboolean(L, idx);
        *step = 0;
        return scalar;
    }
    const et_column *c = s->col;
    if (c->kind != ET_COL_BOOL) {
        label(L, idx);
        luaL_error(L, "%s: %s holds %s, not booleans (compare first: s:gt(x), s:eq(x), ...)", what,
                   lua_tostring(L, -1), holds(c));
    }
    if (c->n != n)
        luaL_error(L, "%s: the masks have %I and %I values", what, (lua_Integer)n, (lua_Integer)c->n);
    if (has_missing(c)) {
        label(L, idx);
        luaL_error(L, "%s: %s has missing values (fill them first: s:fillna(false))", what,
                   lua_tostring(L, -1));
    }
    *step = 1;
    if (c->stride == 1)
        return c->data;
    uint8_t *b = xmalloc(L, n, 1);
    for (size_t i = 0; i < n; i++)
        b[i] = et_col_bool(c, i);
    return b;
}

static int logic(lua_State *L, int which)
{
    static const char *const names[] = {"&", "|", "~"};
    lua_settop(L, 2);
    lseries *s = check_s(L, series_arg(L));
    size_t n = s->col->n;
    int name = result_name(L);
    size_t sa, sb;
    uint8_t ca, cb;
    char what[24];
    snprintf(what, sizeof what, "Series %s", names[which]);
    const uint8_t *a = mask_bytes(L, 1, n, &sa, &ca, what);
    const uint8_t *b = mask_bytes(L, 2, n, &sb, &cb, what);
    uint8_t *out = new_mask(L, n, name);
    if (which == 0)
        et_vec_and(a, sa, b, sb, out, n);
    else if (which == 1)
        et_vec_or(a, sa, b, sb, out, n);
    else
        et_vec_xor(a, sa, b, sb, out, n);
    return 1;
}

static int s_band(lua_State *L) { return logic(L, 0); }
static int s_bor(lua_State *L) { return logic(L, 1); }
static int s_bxor(lua_State *L) { return logic(L, 2); }

static int s_bnot(lua_State *L)
{
    lseries *s = check_s(L, 1);
    size_t n = s->col->n, st;
    uint8_t c;
    const uint8_t *a = mask_bytes(L, 1, n, &st, &c, "Series ~");
    lua_getiuservalue(L, 1, 1);
    uint8_t *out = new_mask(L, n, lua_gettop(L));
    et_vec_not(a, out, n);
    return 1;
}

/* s:isna(), s:notna() */
static int na(lua_State *L, bool want)
{
    lseries *s = check_s(L, 1);
    no_args(L, want ? "isna" : "notna");
    const et_column *c = s->col;
    lua_getiuservalue(L, 1, 1);
    uint8_t *out = new_mask(L, c->n, 2);
    for (size_t i = 0; i < c->n; i++)
        out[i] = (uint8_t)(et_col_missing(c, i) == want);
    return 1;
}
static int s_isna(lua_State *L) { return na(L, true); }
static int s_notna(lua_State *L) { return na(L, false); }

/* s:isin(values): values a sequence (or Series) */
static int s_isin(lua_State *L)
{
    lseries *s = check_s(L, 1);
    if (lua_gettop(L) != 2)
        return luaL_error(L, "Series:isin: one argument expected (a sequence of values), got %d",
                          lua_gettop(L) - 1);
    const et_column *c = s->col;
    size_t n = c->n;
    if (!test_s(L, 2) && lua_type(L, 2) != LUA_TTABLE)
        return luaL_error(L, "Series:isin: bad argument #1 (a sequence of values expected, got %s)",
                          luaL_typename(L, 2));
    lua_Integer k = luaL_len(L, 2);
    lua_getiuservalue(L, 1, 1);
    int name = lua_gettop(L);
    if (is_numeric_kind(c->kind)) {
        double *set = xmalloc(L, (size_t)(k > 0 ? k : 1), sizeof *set);
        size_t m = 0;
        bool want_true = false, want_false = false;
        for (lua_Integer i = 1; i <= k; i++) {
            int t = lua_geti(L, 2, i);
            if (t == LUA_TNUMBER)
                set[m++] = lua_tonumber(L, -1);
            else if (t == LUA_TBOOLEAN && lua_toboolean(L, -1))
                want_true = true;
            else if (t == LUA_TBOOLEAN)
                want_false = true;
            lua_pop(L, 1);
        }
        if (c->kind == ET_COL_BOOL) { /* booleans match booleans (and 1, 0) */
            for (size_t j = 0; j < m; j++) {
                if (set[j] == 1)
                    want_true = true;
                if (set[j] == 0)
                    want_false = true;
            }
            uint8_t *out = new_mask(L, n, name);
            for (size_t i = 0; i < n; i++)
                out[i] = !et_col_missing(c, i) && (et_col_bool(c, i) ? want_true : want_false);
            return 1;
        }
        et_vec_sort_set(set, m);
        numop a;
        col_numop(L, 1, c, &a, "Series:isin");
        to_double(L, &a, n);
        uint8_t *out = new_mask(L, n, name);
        et_vec_isin_f64(a.d, set, m, out, n);
        return 1;
    }
    if (c->kind == ET_COL_STR) {
        uint32_t np = et_strpool_count(c->pool);
        uint8_t *lut = xmalloc(L, np ? np : 1, 1);
        memset(lut, 0, np ? np : 1);
        bool nan = false;
        for (lua_Integer i = 1; i <= k; i++) {
            int t = lua_geti(L, 2, i);
            uint32_t id;
            if (t == LUA_TSTRING) {
                size_t len;
                const char *p = lua_tolstring(L, -1, &len);
                if (et_strpool_find(c->pool, p, len, &id) == 0)
                    lut[id] = 1;
            } else if (t == LUA_TNUMBER && lua_tonumber(L, -1) != lua_tonumber(L, -1)) {
                nan = true;
            }
            lua_pop(L, 1);
        }
        uint8_t *out = new_mask(L, n, name);
        for (size_t i = 0; i < n; i++)
            out[i] = cell_missing(c, i) ? (uint8_t)nan : lut[et_col_str(c, i)];
        return 1;
    }
    uint8_t *out = new_mask(L, n, name);
    for (size_t i = 0; i < n; i++) {
        push_cell(L, 1, c, i);
        out[i] = 0;
        for (lua_Integer j = 1; j <= k && !out[i]; j++) {
            lua_geti(L, 2, j);
            out[i] = (uint8_t)lua_rawequal(L, -1, -2);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return 1;
}

/* s:between(lo, hi [, inclusive]) */
static int s_between(lua_State *L)
{
    static const char *const incl[] = {"both", "neither", "left", "right", NULL};
    check_s(L, 1);
    if (lua_gettop(L) > 4)
        return luaL_error(L, "Series:between: too many arguments (lo, hi [, inclusive] expected)");
    if (lua_isnoneornil(L, 2) || lua_isnoneornil(L, 3))
        return luaL_error(L, "Series:between: lo and hi expected");
    int mode = 0;
    if (!lua_isnoneornil(L, 4)) {
        const char *m = lua_tostring(L, 4);
        for (mode = 0; incl[mode] && !(m && lua_type(L, 4) == LUA_TSTRING && strcmp(m, incl[mode]) == 0); mode++)
            ;
        if (!incl[mode])
            return luaL_error(L, "Series:between: inclusive must be 'both', 'neither', 'left' or 'right', got %s",
                              lua_type(L, 4) == LUA_TSTRING ? m : luaL_typename(L, 4));
    }
    lua_settop(L, 3);
    /* lower: s >= lo (or >); upper: s <= hi (or <) */
    lua_pushcfunction(L, mode == 0 || mode == 2 ? s_ge : s_gt);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    lua_pushcfunction(L, mode == 0 || mode == 3 ? s_le : s_lt);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 3);
    lua_call(L, 2, 1);
    lua_pushcfunction(L, s_band);
    lua_insert(L, -3);
    lua_call(L, 2, 1);
    return 1;
}

/* s:fillna(v): missing cells become v (a number for numbers, a string for
 * text, a boolean for booleans). */
static int s_fillna(lua_State *L)
{
    lseries *s = check_s(L, 1);
    if (lua_gettop(L) != 2)
        return luaL_error(L, "Series:fillna: one value expected, got %d arguments", lua_gettop(L) - 1);
    const et_column *c = s->col;
    size_t n = c->n;
    lua_getiuservalue(L, 1, 1);
    int name = lua_gettop(L);
    int t = lua_type(L, 2);
    if ((c->kind == ET_COL_F64 || c->kind == ET_COL_I64) && t == LUA_TNUMBER) {
        bool asint = c->kind == ET_COL_I64 && lua_isinteger(L, 2) && !has_missing(c); /* pandas: float64 */
        et_column *o = new_col(L, asint ? ET_COL_I64 : ET_COL_F64, n, false, NULL);
        push_new(L, o, name, 0);
        void *d = et_col_mut_data(o);
        for (size_t i = 0; i < n; i++) {
            bool m = et_col_missing(c, i);
            if (asint)
                ((int64_t *)d)[i] = m ? lua_tointeger(L, 2) : et_col_i64(c, i);
            else
                ((double *)d)[i] = m ? lua_tonumber(L, 2)
                                     : (c->kind == ET_COL_F64 ? et_col_f64(c, i) : (double)et_col_i64(c, i));
        }
        return 1;
    }
    if ((c->kind == ET_COL_BOOL && t == LUA_TBOOLEAN) || (c->kind == ET_COL_STR && t == LUA_TSTRING)) {
        et_column *o = new_col(L, c->kind, n, false, c->pool);
        push_new(L, o, name, 0);
        uint32_t fill = 0;
        if (t == LUA_TSTRING) {
            size_t len;
            const char *p = lua_tolstring(L, 2, &len);
            if (et_strpool_intern(c->pool, p, len, &fill) != 0)
                return luaL_error(L, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
            bool m = et_col_missing(c, i);
            if (t == LUA_TBOOLEAN)
                ((uint8_t *)et_col_mut_data(o))[i] = m ? (uint8_t)lua_toboolean(L, 2) : et_col_bool(c, i);
            else
                ((uint32_t *)et_col_mut_data(o))[i] = m ? fill : et_col_str(c, i);
        }
        return 1;
    }
    label(L, 1);
    return luaL_error(L, "Series:fillna: %s holds %s; a %s cannot fill it", lua_tostring(L, -1),
                      holds(c), luaL_typename(L, 2));
}

/* s:any(), s:all(): of a mask (missing cells skipped), or of numbers (nonzero). */
static int anyall(lua_State *L, bool all)
{
    lseries *s = check_s(L, 1);
    no_args(L, all ? "all" : "any");
    const et_column *c = s->col;
    if (!is_numeric_kind(c->kind)) {
        label(L, 1);
        return luaL_error(L, "Series:%s: %s holds %s, not booleans", all ? "all" : "any",
                          lua_tostring(L, -1), holds(c));
    }
    for (size_t i = 0; i < c->n; i++) {
        if (et_col_missing(c, i))
            continue;
        bool v = c->kind == ET_COL_BOOL ? et_col_bool(c, i)
                 : c->kind == ET_COL_I64 ? et_col_i64(c, i) != 0
                                         : et_col_f64(c, i) != 0;
        if (v != all) {
            lua_pushboolean(L, !all);
            return 1;
        }
    }
    lua_pushboolean(L, all);
    return 1;
}
static int s_any(lua_State *L) { return anyall(L, false); }
static int s_all(lua_State *L) { return anyall(L, true); }

static int s_tolist(lua_State *L)
{
    lseries *s = check_s(L, 1);
    no_args(L, "tolist");
    const et_column *c = s->col;
    lua_createtable(L, c->n < INT32_MAX ? (int)c->n : 0, 0);
    for (size_t i = 0; i < c->n; i++) {
        push_cell(L, 1, c, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* ---------------------------------------------------------------- metamethods */

static const luaL_Reg METHODS[] = {
    {"eq", s_eq},         {"ne", s_ne},       {"lt", s_lt},         {"le", s_le},
    {"gt", s_gt},         {"ge", s_ge},       {"isin", s_isin},     {"isna", s_isna},
    {"isnull", s_isna},   {"notna", s_notna}, {"notnull", s_notna}, {"between", s_between},
    {"abs", s_abs},       {"fillna", s_fillna}, {"any", s_any},     {"all", s_all},
    {"tolist", s_tolist}, {NULL, NULL}};

/* s[i] (1-based), s.name, s.dtype, s.n, methods (C, then the Lua library's) */
static int s_index(lua_State *L)
{
    lseries *s = check_s(L, 1);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer i;
        if (!lua_isinteger(L, 2)) {
            lua_Number x = lua_tonumber(L, 2);
            if (x != floor(x) || !(x >= 1 && x <= (lua_Number)s->col->n))
                return 0;
            i = (lua_Integer)x;
        } else {
            i = lua_tointeger(L, 2);
        }
        if (i < 1 || (lua_Unsigned)i > s->col->n)
            return 0;
        push_cell(L, 1, s->col, (size_t)i - 1);
        return 1;
    }
    if (lua_type(L, 2) != LUA_TSTRING)
        return 0;
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "name") == 0) {
        lua_getiuservalue(L, 1, 1);
        return 1;
    }
    if (strcmp(k, "dtype") == 0) {
        lua_pushstring(L, dtype_of(s->col));
        return 1;
    }
    if (strcmp(k, "n") == 0) {
        lua_pushinteger(L, (lua_Integer)s->col->n);
        return 1;
    }
    if (lua_getfield(L, lua_upvalueindex(1), k) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, LUA_METHODS) == LUA_TTABLE && lua_getfield(L, -1, k) != LUA_TNIL)
        return 1;
    lua_settop(L, 2);
    label(L, 1);
    return luaL_error(L, "%s has no field or method '%s'", lua_tostring(L, -1), k);
}

static int s_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_s(L, 1)->col->n);
    return 1;
}

static int s_newindex(lua_State *L)
{
    check_s(L, 1);
    label(L, 1);
    return luaL_error(L, "%s is read-only (frames are never changed in place: use frame:mutate{...})",
                      lua_tostring(L, -1));
}

/* "Series 'p50' (float64, 45 values): 0.02671, 0.030461, ..., nan" */
static int s_tostring(lua_State *L)
{
    lseries *s = check_s(L, 1);
    const et_column *c = s->col;
    luaL_Buffer b;
    label(L, 1);
    int lab = lua_gettop(L);
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "%s (%s, %I values)", lua_tostring(L, lab), dtype_of(c), (lua_Integer)c->n);
    luaL_addvalue(&b);
    size_t show = c->n <= 10 ? c->n : 10;
    for (size_t i = 0; i < show; i++) {
        luaL_addstring(&b, i ? ", " : ": ");
        if (i == 5 && c->n > 10) {
            luaL_addstring(&b, "..., ");
            i = c->n - 5;
            show = c->n;
        }
        push_cell(L, 1, c, i);
        if (lua_type(L, -1) == LUA_TSTRING) {
            lua_pushfstring(L, "'%s'", lua_tostring(L, -1));
            lua_replace(L, -2);
        } else if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) != lua_tonumber(L, -1)) {
            lua_pop(L, 1);
            lua_pushliteral(L, "nan");
        } else {
            luaL_tolstring(L, -1, NULL);
            lua_replace(L, -2);
        }
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return 1;
}

/* ---------------------------------------------------------------- _core */

/* _core.series(values, n [, name]) -> Series of the n values (a sequence
 * with nil holes, or a Series: returned as is) */
static int core_series(lua_State *L)
{
    if (test_s(L, 1)) {
        lua_settop(L, 1);
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = lua_isnoneornil(L, 2) ? luaL_len(L, 1) : luaL_checkinteger(L, 2);
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TSTRING);
    lua_settop(L, 3);
    series_from_values(L, 1, n, lua_isnil(L, 3) ? 0 : 3);
    return 1;
}

static int core_is_series(lua_State *L)
{
    lua_pushboolean(L, test_s(L, 1) != NULL);
    return 1;
}

/* _core.series_extend(methods): the Lua library's methods of every Series
 * (a table of functions; replaces the previous one) */
static int core_series_extend(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, LUA_METHODS);
    return 0;
}

/* _core.series_mask(s, n, where) -> sequence of the 1-based rows where the
 * mask s is true; raises unless s is a mask of n values without missing
 * cells, naming `where`. */
static int core_series_mask(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *where = luaL_checkstring(L, 3);
    lua_settop(L, 3);
    lseries *s = test_s(L, 1);
    if (!s)
        return luaL_error(L, "%s: a mask (a Series of booleans) expected, got %s", where, luaL_typename(L, 1));
    const et_column *c = s->col;
    if (c->kind != ET_COL_BOOL) {
        label(L, 1);
        return luaL_error(L, "%s: %s holds %s, not booleans (a mask comes from s:gt(x), s:eq(x), "
                             "s:isin{...}, ...)",
                          where, lua_tostring(L, -1), holds(c));
    }
    if ((lua_Integer)c->n != n)
        return luaL_error(L, "%s: the mask has %I values for %I rows", where, (lua_Integer)c->n, n);
    lua_createtable(L, 0, 0);
    lua_Integer k = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->valid && c->valid[i] != ET_VALID) {
            label(L, 1);
            return luaL_error(L, "%s: %s has a missing value at row %I (fill it: s:fillna(false))", where,
                              lua_tostring(L, -1), (lua_Integer)i + 1);
        }
        if (et_col_bool(c, i)) {
            lua_pushinteger(L, (lua_Integer)i + 1);
            lua_rawseti(L, 4, ++k);
        }
    }
    return 1;
}

const uint8_t *et_lua_check_mask(lua_State *L, int idx, size_t n, const char *where)
{
    idx = lua_absindex(L, idx);
    lseries *s = test_s(L, idx);
    if (!s || !s->col)
        luaL_error(L, "%s: a mask (a Series of booleans) expected, got %s", where, luaL_typename(L, idx));
    const et_column *c = s->col;
    if (c->kind != ET_COL_BOOL) {
        label(L, idx);
        luaL_error(L, "%s: %s holds %s, not booleans (a mask comes from s:gt(x), s:eq(x), s:isin{...}, ...)",
                   where, lua_tostring(L, -1), holds(c));
    }
    if (c->n != n)
        luaL_error(L, "%s: the mask has %I values for %I rows", where, (lua_Integer)c->n, (lua_Integer)n);
    for (size_t i = 0; c->valid && i < n; i++)
        if (c->valid[i] != ET_VALID) {
            label(L, idx);
            luaL_error(L, "%s: %s has a missing value at row %I (fill it: s:fillna(false))", where,
                       lua_tostring(L, -1), (lua_Integer)i + 1);
        }
    if (c->stride == 1)
        return c->data;
    uint8_t *b = xmalloc(L, n, 1);
    for (size_t i = 0; i < n; i++)
        b[i] = et_col_bool(c, i);
    return b;
}

void et_lua_open_series(lua_State *L)
{
    static const luaL_Reg meta[] = {
        {"__gc", s_gc},         {"__len", s_len},       {"__newindex", s_newindex},
        {"__tostring", s_tostring}, {"__add", s_add},   {"__sub", s_sub},
        {"__mul", s_mul},       {"__div", s_div},       {"__idiv", s_idiv},
        {"__mod", s_mod},       {"__pow", s_pow},       {"__unm", s_unm},
        {"__band", s_band},     {"__bor", s_bor},       {"__bxor", s_bxor},
        {"__bnot", s_bnot},     {"__lt", s_lt_meta},    {"__le", s_le_meta},
        {"__eq", s_eq_meta},    {NULL, NULL}};
    static const luaL_Reg fns[] = {{"series", core_series},
                                   {"is_series", core_is_series},
                                   {"series_extend", core_series_extend},
                                   {"series_mask", core_series_mask},
                                   {NULL, NULL}};
    luaL_newmetatable(L, MT_SERIES);
    luaL_setfuncs(L, meta, 0);
    luaL_newlib(L, METHODS);
    lua_pushcclosure(L, s_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "Series");
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    luaL_setfuncs(L, fns, 0);
}
