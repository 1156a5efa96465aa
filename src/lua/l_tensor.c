/*
 * l_tensor.c - Tensor: a typed view of tensor bytes (tensor.h) in Lua.
 *
 *   t.dtype          NumPy dtype name ("float32", "int64", "bool", "bfloat16",
 *                    ...), or the ScalarType name when NumPy has none
 *                    ("QINT8", "FLOAT8E4M3FN", "QUINT4X2"), or "scalar_type_N"
 *   t.scalar_type    the ScalarType name ("FLOAT", ...), or its integer code
 *                    when the code is undefined
 *   t.shape          sequence of sizes ({} for a 0-dim tensor)
 *   t.strides        sequence of strides, in elements
 *   t.ndim           number of dimensions
 *   t.numel, #t      number of elements
 *   t.nbytes         numel * element size (bytes; 0 when unreadable)
 *   t.itemsize       bytes per element (0 when the type cannot be read)
 *   t.readable       whether the values can be read (false without a
 *                    debug buffer, for sub-byte and unknown types)
 *   t.is_contiguous  whether the strides are those of a row-major tensor
 *   t.error          nil, or why the values cannot be read although the shape
 *                    is known (e.g. its bytes run past the debug buffer); reading
 *                    values then raises this message
 *   t[i]             element i (1-based flat index in logical row-major
 *                    order), nil outside 1..numel: integer for integer
 *                    types (a float for UINT64 values above 2^63-1),
 *                    boolean for BOOL, number for floating types
 *   t:at(i, j, ...)  element at 1-based coordinates (one per dimension; an
 *                    error when out of range)
 *   t:tolist()       nested tables of the elements (a 0-dim tensor: the
 *                    element itself)
 *   t:bytes()        the elements' bytes in logical row-major order,
 *                    contiguous (a string of nbytes bytes)
 *   t:min(), t:max() smallest / largest element (NaN when any is NaN; nil for
 *                    an empty tensor); integers for integer and bool types
 *   t:sum()          sum (integer for integer types while it fits in int64)
 *   t:mean(), t:std() mean and population standard deviation (NaN when empty)
 *   t:nan_count(), t:inf_count()  number of NaN / +-Inf elements
 *   t:stats()        all of them in one table {count, min, max, sum, mean,
 *                    std, nan_count, inf_count}
 *   tostring(t)      a short NumPy-like repr:
 *                    tensor([[0.5, 0.75, 1.0], [1.25, 1.5, 1.75]], dtype=float32)
 *
 * Reading values (t[i], at, tolist, bytes, statistics) of a tensor without
 * bytes raises "<what>: no debug buffer: ..."; of a sub-byte or unknown
 * type "<what>: scalar type QUINT4X2 cannot be read".  Views never copy
 * the buffer they look at.
 *
 *   etinspect.Tensor.new{dtype=, shape=, values= | bytes=, strides=}
 *   etinspect.Tensor.is_tensor(v)
 */
#include "l_tensor.h"

#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/etdump.h"
#include "base/pyfmt.h"

typedef struct lua_tensor {
    et_lua_obj obj;           /* obj.owner: the owner of the bytes, or NULL */
    et_tensor t;
    lua_insp_box *box;        /* the anchor is (or belongs to) an Inspector */
    const void *const *alive; /* another owner: *alive NULL once closed */
    char what[200];
} lua_tensor;

/* ---- pushing and checking ----------------------------------------------- */

void et_lua_push_tensor_ex(lua_State *L, const et_tensor *t, int anchor, const char *what,
                           const void *const *alive)
{
    if (anchor)
        anchor = lua_absindex(L, anchor);
    lua_tensor *lt = lua_newuserdatauv(L, sizeof *lt, 2);
    memset(lt, 0, sizeof *lt);
    lt->obj.magic = ET_LUA_OBJ_MAGIC;
    lt->t = *t;
    lt->alive = alive;
    snprintf(lt->what, sizeof lt->what, "%s", what && *what ? what : "tensor");
    luaL_setmetatable(L, ET_MT_TENSOR);
    if (!anchor)
        return;
    int anchored = 0;
    /* the owner of the bytes: pinned while the tensor's C code runs */
    lt->obj.owner = et_lua_owner_of(L, anchor);
    lua_insp_box *box = luaL_testudata(L, anchor, ET_MT_INSPECTOR);
    if (box) {
        lt->box = box;
    } else {
        static const char *const kids[] = {ET_MT_EVENT, ET_MT_BLOCK, ET_MT_PERFDATA};
        for (int k = 0; k < 3 && !lt->box; k++) {
            lua_child *c = luaL_testudata(L, anchor, kids[k]);
            if (c) {
                lt->box = c->box;
                lua_getiuservalue(L, anchor, 1); /* anchor its Inspector instead */
                lua_setiuservalue(L, -2, 1);
                anchored = 1;
            }
        }
        lua_tensor *parent = lt->box ? NULL : luaL_testudata(L, anchor, ET_MT_TENSOR);
        if (parent) { /* a view of a view: share the parent's owner */
            lt->box = parent->box;
            if (!lt->alive)
                lt->alive = parent->alive;
        }
    }
    if (!anchored) {
        lua_pushvalue(L, anchor);
        lua_setiuservalue(L, -2, 1);
    }
}

static lua_tensor *check_lt(lua_State *L, int arg)
{
    lua_tensor *lt = luaL_checkudata(L, arg, ET_MT_TENSOR);
    if (lt->box && !lt->box->insp)
        luaL_error(L, "Tensor used after its inspector was closed");
    if ((lt->alive && !*lt->alive) || (lt->obj.owner && lt->obj.owner->closed))
        luaL_error(L, "Tensor used after its owner was closed");
    return lt;
}

const struct et_tensor *et_lua_check_tensor(lua_State *L, int arg)
{
    return &check_lt(L, arg)->t;
}

void et_lua_tensor_set_error(lua_State *L, int idx, const char *msg)
{
    idx = lua_absindex(L, idx);
    luaL_checkudata(L, idx, ET_MT_TENSOR);
    lua_pushstring(L, msg);
    lua_setiuservalue(L, idx, 2);
}

/* Push the error set by et_lua_tensor_set_error (nil when none). */
static int push_error(lua_State *L, int idx)
{
    if (lua_getiuservalue(L, idx, 2) == LUA_TSTRING)
        return 1;
    lua_pop(L, 1);
    lua_pushnil(L);
    return 0;
}

/* Raise unless the values of the Tensor at stack index `idx` can be read.
 * The message carries no source position: it names the tensor itself. */
static void need_readable_at(lua_State *L, int idx, const lua_tensor *lt)
{
    char buf[96];
    if (push_error(L, idx))
        lua_error(L);
    lua_pop(L, 1);
    const char *why = et_tensor_unreadable(&lt->t, buf, sizeof buf);
    if (!why)
        return;
    if (strcmp(why, "no debug buffer") == 0) {
        char lbl[24];
        lua_pushfstring(L, "%s: no debug buffer: the values of this %s tensor cannot be read "
                           "(open the Inspector with debug_buffer_path)",
                        lt->what, et_scalar_type_label(lt->t.scalar_type, lbl));
    } else {
        lua_pushfstring(L, "%s: %s", lt->what, why);
    }
    lua_error(L);
}

/* need_readable_at for the Tensor that is argument 1. */
static void need_readable(lua_State *L, const lua_tensor *lt)
{
    need_readable_at(L, 1, lt);
}

/* ---- elements ----------------------------------------------------------- */

/* Push element `flat` (< numel) of a readable tensor. */
static void push_elem(lua_State *L, const et_tensor *t, uint64_t flat)
{
    switch (et_scalar_type_kind(t->scalar_type)) {
    case ET_ELEM_FLOAT: {
        double v = 0;
        et_tensor_get_f64(t, flat, &v);
        lua_pushnumber(L, v);
        return;
    }
    case ET_ELEM_BOOL: {
        int64_t v = 0;
        et_tensor_get_i64(t, flat, &v);
        lua_pushboolean(L, v != 0);
        return;
    }
    default: {
        int64_t v = 0;
        et_tensor_get_i64(t, flat, &v);
        if (t->scalar_type == ET_ST_UINT64 && v < 0)
            lua_pushnumber(L, (double)(uint64_t)v);
        else
            lua_pushinteger(L, v);
    }
    }
}

/* Push element k of a decoded buffer (doubles for floating types, int64s
 * otherwise). */
static void push_decoded(lua_State *L, int st, const void *buf, uint64_t k)
{
    switch (et_scalar_type_kind(st)) {
    case ET_ELEM_FLOAT:
        lua_pushnumber(L, ((const double *)buf)[k]);
        return;
    case ET_ELEM_BOOL:
        lua_pushboolean(L, ((const int64_t *)buf)[k] != 0);
        return;
    default: {
        int64_t v = ((const int64_t *)buf)[k];
        if (st == ET_ST_UINT64 && v < 0)
            lua_pushnumber(L, (double)(uint64_t)v);
        else
            lua_pushinteger(L, v);
    }
    }
}

static int t_at(lua_State *L)
{
    lua_tensor *lt = check_lt(L, 1);
    const et_tensor *t = &lt->t;
    int nargs = lua_gettop(L) - 1;
    if ((uint32_t)nargs != t->ndim)
        return luaL_error(L, "%s: at() needs %d indices (one per dimension), got %d", lt->what,
                          (int)t->ndim, nargs);
    uint64_t flat = 0;
    for (uint32_t d = 0; d < t->ndim; d++) {
        lua_Integer i = luaL_checkinteger(L, (int)d + 2);
        if (i < 1 || i > t->sizes[d])
            return luaL_error(L, "%s: index %d of dimension %d is out of range 1..%d", lt->what,
                              (int)i, (int)d + 1, (int)t->sizes[d]);
        flat = flat * (uint64_t)t->sizes[d] + (uint64_t)(i - 1);
    }
    need_readable(L, lt);
    push_elem(L, t, flat);
    return 1;
}

/* Most elements tolist() converts, and bytes t:bytes() returns (a hostile
 * shape with zero strides can claim far more elements than its bytes). */
#define MAX_LIST_ELEMS ((uint64_t)1 << 28)
#define MAX_BYTES ((uint64_t)1 << 32)

/* Bytes of a decoded copy of every element; raises when too large. */
static size_t decoded_size(lua_State *L, const lua_tensor *lt)
{
    if (lt->t.numel > MAX_LIST_ELEMS || lt->t.numel > (uint64_t)(SIZE_MAX / 16))
        luaL_error(L, "%s: %f elements are too many to convert (at most %I)", lt->what,
                   (double)lt->t.numel, (lua_Integer)MAX_LIST_ELEMS);
    return (size_t)lt->t.numel * 8;
}

/* Decode every element into a new userdata buffer (pushed); returns it. */
static void *decode_all(lua_State *L, const lua_tensor *lt)
{
    size_t n = decoded_size(L, lt);
    void *buf = lua_newuserdatauv(L, n ? n : 1, 0);
    if (et_scalar_type_kind(lt->t.scalar_type) == ET_ELEM_FLOAT)
        et_tensor_read_f64(&lt->t, 0, lt->t.numel, buf);
    else
        et_tensor_read_i64(&lt->t, 0, lt->t.numel, buf);
    return buf;
}

static void build_list(lua_State *L, const et_tensor *t, const void *buf, uint32_t d,
                       uint64_t *k)
{
    lua_Integer n = (lua_Integer)t->sizes[d];
    lua_createtable(L, n > 1000000 ? 1000000 : (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        if (d + 1 == t->ndim)
            push_decoded(L, t->scalar_type, buf, (*k)++);
        else
            build_list(L, t, buf, d + 1, k);
        lua_rawseti(L, -2, i);
    }
}

static int t_tolist(lua_State *L)
{
    lua_tensor *lt = check_lt(L, 1);
    need_readable(L, lt);
    void *buf = decode_all(L, lt);
    if (lt->t.ndim == 0) {
        push_decoded(L, lt->t.scalar_type, buf, 0);
        return 1;
    }
    uint64_t k = 0;
    build_list(L, &lt->t, buf, 0, &k);
    return 1;
}

static int t_bytes(lua_State *L)
{
    lua_tensor *lt = check_lt(L, 1);
    need_readable(L, lt);
    uint64_t es = (uint64_t)lt->t.elem_size;
    if (lt->t.numel > MAX_BYTES / es || lt->t.numel > (uint64_t)(SIZE_MAX / 2) / es)
        return luaL_error(L, "%s: %f elements are too many for a string (at most %I bytes)",
                          lt->what, (double)lt->t.numel, (lua_Integer)MAX_BYTES);
    size_t n = (size_t)(lt->t.numel * es);
    luaL_Buffer b;
    uint8_t *p = (uint8_t *)luaL_buffinitsize(L, &b, n);
    et_tensor_copy_bytes(&lt->t, p);
    luaL_pushresultsize(&b, n);
    return 1;
}

/* ---- statistics --------------------------------------------------------- */

static void stats_of(lua_State *L, lua_tensor *lt, et_tensor_stats *s)
{
    need_readable(L, lt);
    et_tensor_stats_compute(&lt->t, s);
}

static void push_ival(lua_State *L, const et_tensor_stats *s, int64_t v)
{
    if (s->is_unsigned && v < 0)
        lua_pushnumber(L, (double)(uint64_t)v);
    else
        lua_pushinteger(L, v);
}

/* t:min() / t:max(): nil for no elements, a boolean for bool tensors, an
 * integer for integer types, else a number. */
static int min_or_max(lua_State *L, bool want_max)
{
    et_tensor_stats s;
    lua_tensor *lt = check_lt(L, 1);
    stats_of(L, lt, &s);
    int64_t iv = want_max ? s.imax : s.imin;
    if (s.count == 0)
        lua_pushnil(L);
    else if (s.is_int && lt->t.scalar_type == ET_ST_BOOL)
        lua_pushboolean(L, iv != 0);
    else if (s.is_int)
        push_ival(L, &s, iv);
    else
        lua_pushnumber(L, want_max ? s.max : s.min);
    return 1;
}

static int t_min(lua_State *L)
{
    return min_or_max(L, false);
}

static int t_max(lua_State *L)
{
    return min_or_max(L, true);
}

static void push_sum(lua_State *L, const et_tensor_stats *s)
{
    if (s->is_int && s->isum_exact)
        lua_pushinteger(L, s->isum);
    else
        lua_pushnumber(L, s->sum);
}

static int t_sum(lua_State *L)
{
    et_tensor_stats s;
    stats_of(L, check_lt(L, 1), &s);
    push_sum(L, &s);
    return 1;
}

static int t_mean(lua_State *L)
{
    et_tensor_stats s;
    stats_of(L, check_lt(L, 1), &s);
    lua_pushnumber(L, s.mean);
    return 1;
}

static int t_std(lua_State *L)
{
    et_tensor_stats s;
    stats_of(L, check_lt(L, 1), &s);
    lua_pushnumber(L, s.std);
    return 1;
}

static int t_nan_count(lua_State *L)
{
    et_tensor_stats s;
    stats_of(L, check_lt(L, 1), &s);
    lua_pushinteger(L, (lua_Integer)s.nan_count);
    return 1;
}

static int t_inf_count(lua_State *L)
{
    et_tensor_stats s;
    stats_of(L, check_lt(L, 1), &s);
    lua_pushinteger(L, (lua_Integer)s.inf_count);
    return 1;
}

static int t_stats(lua_State *L)
{
    et_tensor_stats s;
    lua_tensor *lt = check_lt(L, 1);
    stats_of(L, lt, &s);
    bool is_bool = lt->t.scalar_type == ET_ST_BOOL;
    lua_createtable(L, 0, 8);
    if (s.count == 0) {
        lua_pushnil(L);
        lua_pushnil(L);
    } else if (s.is_int && is_bool) {
        lua_pushboolean(L, s.imin != 0);
        lua_pushboolean(L, s.imax != 0);
    } else if (s.is_int) {
        push_ival(L, &s, s.imin);
        push_ival(L, &s, s.imax);
    } else {
        lua_pushnumber(L, s.min);
        lua_pushnumber(L, s.max);
    }
    lua_setfield(L, -3, "max");
    lua_setfield(L, -2, "min");
    push_sum(L, &s);
    lua_setfield(L, -2, "sum");
    lua_pushnumber(L, s.mean);
    lua_setfield(L, -2, "mean");
    lua_pushnumber(L, s.std);
    lua_setfield(L, -2, "std");
    lua_pushinteger(L, (lua_Integer)s.nan_count);
    lua_setfield(L, -2, "nan_count");
    lua_pushinteger(L, (lua_Integer)s.inf_count);
    lua_setfield(L, -2, "inf_count");
    lua_pushinteger(L, (lua_Integer)s.count);
    lua_setfield(L, -2, "count");
    return 1;
}

/* ---- getters ------------------------------------------------------------ */

static int t_dtype(lua_State *L)
{
    char buf[24];
    lua_pushstring(L, et_scalar_type_label(check_lt(L, 1)->t.scalar_type, buf));
    return 1;
}

static int t_scalar_type(lua_State *L)
{
    int st = check_lt(L, 1)->t.scalar_type;
    const char *n = et_scalar_type_name(st);
    if (n)
        lua_pushstring(L, n);
    else
        lua_pushinteger(L, st);
    return 1;
}

static void push_dims(lua_State *L, const et_tensor *t, const int64_t *v)
{
    lua_createtable(L, (int)t->ndim, 0);
    for (uint32_t d = 0; d < t->ndim; d++) {
        lua_pushinteger(L, v[d]);
        lua_rawseti(L, -2, (lua_Integer)d + 1);
    }
}

static int t_shape(lua_State *L)
{
    const et_tensor *t = &check_lt(L, 1)->t;
    push_dims(L, t, t->sizes);
    return 1;
}

static int t_strides(lua_State *L)
{
    const et_tensor *t = &check_lt(L, 1)->t;
    push_dims(L, t, t->strides);
    return 1;
}

static int t_ndim(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_lt(L, 1)->t.ndim);
    return 1;
}

static int t_numel(lua_State *L)
{
    uint64_t n = check_lt(L, 1)->t.numel;
    if (n > (uint64_t)INT64_MAX) /* an invalid view's shape: never negative */
        lua_pushnumber(L, (double)n);
    else
        lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

static int t_itemsize(lua_State *L)
{
    lua_pushinteger(L, check_lt(L, 1)->t.elem_size);
    return 1;
}

static int t_nbytes(lua_State *L)
{
    const et_tensor *t = &check_lt(L, 1)->t;
    uint64_t es = (uint64_t)t->elem_size;
    if (es && t->numel > (uint64_t)INT64_MAX / es) /* an invalid view's shape: never negative */
        lua_pushnumber(L, (double)t->numel * (double)es);
    else
        lua_pushinteger(L, (lua_Integer)(t->numel * es));
    return 1;
}

static int t_readable(lua_State *L)
{
    lua_tensor *lt = check_lt(L, 1);
    int bad = push_error(L, 1);
    lua_pushboolean(L, !bad && et_tensor_readable(&lt->t));
    return 1;
}

static int t_error(lua_State *L)
{
    check_lt(L, 1);
    push_error(L, 1);
    return 1;
}

static int t_is_contiguous(lua_State *L)
{
    lua_pushboolean(L, et_tensor_is_contiguous(&check_lt(L, 1)->t));
    return 1;
}

static int t_len(lua_State *L)
{
    return t_numel(L);
}

/* __index: integers are elements; strings methods (upvalue 1) or getters
 * (upvalue 2). */
static int t_index(lua_State *L)
{
    lua_tensor *lt = check_lt(L, 1);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer i;
        if (push_error(L, 1))
            return lua_error(L); /* an invalid tensor: every read raises */
        lua_pop(L, 1);
        if (!lua_isinteger(L, 2)) {
            double x = lua_tonumber(L, 2);
            if (x != floor(x) || !(x >= 1 && x <= (double)lt->t.numel)) {
                lua_pushnil(L);
                return 1;
            }
            i = (lua_Integer)x;
        } else {
            i = lua_tointeger(L, 2);
        }
        if (i < 1 || (uint64_t)i > lt->t.numel) {
            lua_pushnil(L);
            return 1;
        }
        need_readable(L, lt);
        push_elem(L, &lt->t, (uint64_t)i - 1);
        return 1;
    }
    return et_lua_record_index(L); /* same upvalues */
}

/* ---- tostring ----------------------------------------------------------- */

/* Shortest decimal text of `v` that reads back as the same element of
 * floating type `st`, in Python's float repr style. */
static void fmt_float(int st, double v, char *out)
{
    if (st == ET_ST_DOUBLE || !isfinite(v)) {
        et_pyfmt_repr(v, out);
        return;
    }
    uint8_t want[8], got[8];
    int es = et_scalar_type_size(st);
    et_tensor_encode_f64(st, v, want);
    char tmp[48];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, v);
        double y = strtod(tmp, NULL);
        et_tensor_encode_f64(st, y, got);
        if (memcmp(want, got, (size_t)es) == 0) {
            et_pyfmt_repr(y, out);
            return;
        }
    }
    et_pyfmt_repr(v, out);
}

static void add_elem(luaL_Buffer *b, const et_tensor *t, uint64_t flat)
{
    char buf[64];
    switch (et_scalar_type_kind(t->scalar_type)) {
    case ET_ELEM_FLOAT: {
        double v = 0;
        et_tensor_get_f64(t, flat, &v);
        fmt_float(t->scalar_type, v, buf);
        break;
    }
    case ET_ELEM_BOOL: {
        int64_t v = 0;
        et_tensor_get_i64(t, flat, &v);
        snprintf(buf, sizeof buf, "%s", v ? "True" : "False");
        break;
    }
    default: {
        int64_t v = 0;
        et_tensor_get_i64(t, flat, &v);
        if (t->scalar_type == ET_ST_UINT64)
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)(uint64_t)v);
        else
            snprintf(buf, sizeof buf, "%lld", (long long)v);
    }
    }
    luaL_addstring(b, buf);
}

#define EDGE 3       /* elements shown at each end of an elided dimension */
#define MAX_SHOWN 1000 /* elements shown in all; the rest elided */

/* Add the nested list of dimension d from flat base `base`; *shown counts
 * the elements written so far. */
static void add_nested(luaL_Buffer *b, const et_tensor *t, uint32_t d, uint64_t base,
                       uint64_t *shown)
{
    uint64_t n = (uint64_t)t->sizes[d];
    luaL_addchar(b, '[');
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            luaL_addstring(b, ", ");
        if (*shown >= MAX_SHOWN) {
            luaL_addstring(b, "...");
            break;
        }
        if (n > 2 * EDGE && i == EDGE) {
            luaL_addstring(b, "..., ");
            i = n - EDGE;
        }
        uint64_t flat = base * n + i;
        if (d + 1 == t->ndim) {
            add_elem(b, t, flat);
            ++*shown;
        } else {
            add_nested(b, t, d + 1, flat, shown);
        }
    }
    luaL_addchar(b, ']');
}

static void add_shape(luaL_Buffer *b, const et_tensor *t)
{
    char buf[32];
    luaL_addstring(b, "shape=[");
    for (uint32_t d = 0; d < t->ndim; d++) {
        snprintf(buf, sizeof buf, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
        luaL_addstring(b, buf);
    }
    luaL_addstring(b, "], ");
}

static int t_tostring(lua_State *L)
{
    lua_tensor *lt = luaL_checkudata(L, 1, ET_MT_TENSOR);
    if ((lt->box && !lt->box->insp) || (lt->alive && !*lt->alive) ||
        (lt->obj.owner && lt->obj.owner->closed)) {
        lua_pushstring(L, lt->box ? "Tensor (inspector closed)" : "Tensor (owner closed)");
        return 1;
    }
    const et_tensor *t = &lt->t;
    char lbl[24], why[96];
    int bad = push_error(L, 1);
    lua_pop(L, 1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "tensor(");
    const char *un = et_tensor_unreadable(t, why, sizeof why);
    if (bad) {
        luaL_addstring(&b, "<invalid>, ");
        add_shape(&b, t);
    } else if (un) {
        luaL_addstring(&b, strcmp(un, "no debug buffer") == 0 ? "<no debug buffer>"
                                                              : "<not readable>");
        luaL_addstring(&b, ", ");
        add_shape(&b, t);
    } else if (t->numel == 0) {
        luaL_addstring(&b, "[], ");
        add_shape(&b, t);
    } else if (t->ndim == 0) {
        add_elem(&b, t, 0);
        luaL_addstring(&b, ", ");
    } else {
        uint64_t shown = 0;
        add_nested(&b, t, 0, 0, &shown);
        luaL_addstring(&b, ", ");
    }
    luaL_addstring(&b, "dtype=");
    luaL_addstring(&b, et_scalar_type_label(t->scalar_type, lbl));
    luaL_addchar(&b, ')');
    luaL_pushresult(&b);
    return 1;
}

/* ---- Tensor.new --------------------------------------------------------- */

/* Read a sequence of non-negative integers (shape or strides) at `idx`. */
static uint32_t read_dims(lua_State *L, int idx, const char *field, int64_t *out)
{
    lua_Integer n = (lua_Integer)luaL_len(L, idx);
    if (n < 0 || n > ET_TENSOR_MAX_DIM)
        luaL_error(L, "Tensor.new: %s has %I entries (at most %d dimensions)", field, n,
                   ET_TENSOR_MAX_DIM);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, idx, i);
        int ok;
        lua_Integer v = lua_tointegerx(L, -1, &ok);
        if (!ok || v < 0)
            luaL_error(L, "Tensor.new: %s[%I] must be a non-negative integer", field, i);
        out[i - 1] = v;
        lua_pop(L, 1);
    }
    return (uint32_t)n;
}

/* Infer the shape of nested tables of values at `idx`. */
static uint32_t infer_shape(lua_State *L, int idx, int64_t *out)
{
    uint32_t nd = 0;
    lua_pushvalue(L, idx);
    while (lua_type(L, -1) == LUA_TTABLE) {
        if (nd == ET_TENSOR_MAX_DIM)
            luaL_error(L, "Tensor.new: values nest deeper than %d levels", ET_TENSOR_MAX_DIM);
        out[nd++] = (int64_t)luaL_len(L, -1);
        if (out[nd - 1] < 0)
            luaL_error(L, "Tensor.new: values have a negative length");
        if (out[nd - 1] == 0)
            break;
        lua_geti(L, -1, 1);
        lua_remove(L, -2);
    }
    lua_pop(L, 1);
    return nd;
}

/* Encode the value on top of the stack as element *k at `dst` (popped). */
static void encode_top(lua_State *L, const et_tensor *t, uint8_t *dst, uint64_t *k)
{
    int rc;
    uint8_t *p = dst + (*k)++ * (uint64_t)t->elem_size;
    switch (lua_type(L, -1)) {
    case LUA_TBOOLEAN:
        rc = et_tensor_encode_i64(t->scalar_type, lua_toboolean(L, -1), p);
        break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, -1))
            rc = et_tensor_encode_i64(t->scalar_type, lua_tointeger(L, -1), p);
        else
            rc = et_tensor_encode_f64(t->scalar_type, lua_tonumber(L, -1), p);
        break;
    default:
        rc = -2;
    }
    if (rc) {
        char lbl[24];
        const char *v = luaL_tolstring(L, -1, NULL);
        luaL_error(L, "Tensor.new: value %I (%s) %s %s", (lua_Integer)*k, v,
                   rc == -2 ? "is not a number or boolean for" : "does not fit",
                   et_scalar_type_label(t->scalar_type, lbl));
    }
    lua_pop(L, 1);
}

/* Encode the values at `idx` into `dst`: a flat sequence of numel values,
 * or (nested) sequences matching sizes[d..]. */
static void encode_values(lua_State *L, int idx, const et_tensor *t, uint32_t d, uint8_t *dst,
                          uint64_t *k, bool flat)
{
    if (flat) {
        lua_Integer n = (lua_Integer)luaL_len(L, idx);
        if ((uint64_t)n != t->numel)
            luaL_error(L, "Tensor.new: %I values for a shape of %I elements", n,
                       (lua_Integer)t->numel);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, idx, i);
            encode_top(L, t, dst, k);
        }
        return;
    }
    if (lua_type(L, idx) != LUA_TTABLE || luaL_len(L, idx) != t->sizes[d])
        luaL_error(L, "Tensor.new: values do not match the shape (dimension %d)", (int)d + 1);
    for (lua_Integer i = 1; i <= t->sizes[d]; i++) {
        lua_geti(L, idx, i);
        if (d + 1 < t->ndim) {
            encode_values(L, lua_gettop(L), t, d + 1, dst, k, false);
            lua_pop(L, 1);
        } else {
            encode_top(L, t, dst, k);
        }
    }
}

/* Tensor.new{dtype=, shape=, values= | bytes=, strides=} -> Tensor.
 *   dtype    a NumPy dtype name ("float32", "int64", "bool", "float16",
 *            "bfloat16", "uint16" ...) or a ScalarType name ("FLOAT",
 *            "QINT8", "FLOAT8E4M3FN" ...); required
 *   shape    sequence of sizes; default: inferred from nested `values`, or
 *            {#values} for a flat sequence, or {#bytes / itemsize}
 *   values   the elements in row-major order: a flat sequence of numel
 *            values, nested sequences matching the shape, or a single
 *            value for shape {}; numbers (integers must fit the type and
 *            be integral), booleans for bool (or 0/1).  Floats are rounded
 *            to the type (nearest even).  The tensor owns a contiguous copy.
 *   bytes    instead of values: a string holding the elements in host
 *            byte order; the tensor views it (no copy), with `strides`
 *            (elements; default contiguous) and `offset` (bytes, default 0)
 *            checked against its length.
 * Errors (Lua errors "Tensor.new: ..."): unknown dtype, a sub-byte dtype
 * with values, shape/values mismatch, a value that does not fit, strides or
 * offset running past the bytes. */
static int tensor_new(lua_State *L)
{
    static const et_lua_opt spec[] = {{"bytes", "string"},   {"dtype", "string"},
                                      {"offset", "integer"}, {"shape", "table"},
                                      {"strides", "table"},  {"values", NULL},
                                      {NULL, NULL}};
    if (!lua_istable(L, 1))
        return luaL_error(L, "Tensor.new: bad argument #1 (options table expected, got %s)",
                          lua_isnone(L, 1) ? "no value" : luaL_typename(L, 1));
    lua_settop(L, 1);
    et_lua_check_options(L, 1, "Tensor.new", spec, 1);
    et_lua_opt_get(L, 1, "dtype");   /* 2 */
    et_lua_opt_get(L, 1, "shape");   /* 3 */
    et_lua_opt_get(L, 1, "values");  /* 4 */
    et_lua_opt_get(L, 1, "bytes");   /* 5 */
    et_lua_opt_get(L, 1, "strides"); /* 6 */
    et_lua_opt_get(L, 1, "offset");  /* 7 */
    const char *dtype = lua_tostring(L, 2);
    if (!dtype)
        return luaL_error(L, "Tensor.new: dtype (a string) is required");
    int st = et_scalar_type_from_name(dtype);
    if (st < 0)
        return luaL_error(L, "Tensor.new: unknown dtype '%s'", dtype);
    int es = et_scalar_type_size(st);
    bool readable = et_scalar_type_kind(st) != ET_ELEM_NONE;
    int64_t sizes[ET_TENSOR_MAX_DIM], strides[ET_TENSOR_MAX_DIM];
    uint32_t nd = 0;
    bool has_values = !lua_isnil(L, 4), has_bytes = !lua_isnil(L, 5);
    if (has_values == has_bytes)
        return luaL_error(L, "Tensor.new: give exactly one of values and bytes");
    if (!readable)
        return luaL_error(L, "Tensor.new: dtype '%s' cannot be read or written", dtype);
    et_error err;
    et_tensor t;
    if (has_bytes) {
        size_t len;
        const char *bytes = luaL_checklstring(L, 5, &len);
        if (lua_istable(L, 3)) {
            nd = read_dims(L, 3, "shape", sizes);
        } else {
            nd = 1;
            sizes[0] = (int64_t)(len / (size_t)es);
        }
        const int64_t *sp = NULL;
        if (lua_istable(L, 6)) {
            if (read_dims(L, 6, "strides", strides) != nd)
                return luaL_error(L, "Tensor.new: strides must have one entry per dimension");
            sp = strides;
        }
        lua_Integer off = luaL_optinteger(L, 7, 0);
        if (et_tensor_init_in(&t, st, nd, sizes, sp, (const uint8_t *)bytes, len, off,
                              "Tensor.new", "bytes", &err) != 0)
            return luaL_error(L, "%s", err.msg);
        et_lua_push_tensor_ex(L, &t, 5, "Tensor.new", NULL);
        return 1;
    }
    if (!lua_isnil(L, 6) || !lua_isnil(L, 7))
        return luaL_error(L, "Tensor.new: strides and offset go with bytes, not values");
    if (lua_istable(L, 3))
        nd = read_dims(L, 3, "shape", sizes);
    else if (lua_istable(L, 4))
        nd = infer_shape(L, 4, sizes);
    else
        nd = 0; /* a single value: a 0-dim tensor */
    bool flat = false;
    if (lua_istable(L, 4) && nd > 0) {
        lua_geti(L, 4, 1);
        flat = lua_type(L, -1) != LUA_TTABLE;
        lua_pop(L, 1);
    }
    if (et_tensor_init_in(&t, st, nd, sizes, NULL, NULL, 0, 0, "Tensor.new", "bytes", &err) != 0)
        return luaL_error(L, "%s", err.msg);
    if (t.numel > (uint64_t)1 << 40)
        return luaL_error(L, "Tensor.new: %f elements are too many", (double)t.numel);
    if (nd == 0 && lua_istable(L, 4)) { /* {x} for a scalar */
        if (luaL_len(L, 4) != 1)
            return luaL_error(L, "Tensor.new: a 0-dim tensor needs exactly one value");
        lua_geti(L, 4, 1);
        lua_replace(L, 4);
    }
    size_t nbytes = (size_t)(t.numel * (uint64_t)es);
    lua_tensor *lt = lua_newuserdatauv(L, sizeof *lt + nbytes, 2); /* 8 */
    memset(lt, 0, sizeof *lt);
    lt->obj.magic = ET_LUA_OBJ_MAGIC; /* owns its bytes: no owner */
    uint8_t *data = (uint8_t *)(lt + 1);
    uint64_t k = 0;
    if (nd == 0) {
        lua_pushvalue(L, 4);
        lua_createtable(L, 1, 0);
        lua_pushvalue(L, -2);
        lua_rawseti(L, -2, 1);
        encode_values(L, lua_gettop(L), &t, 0, data, &k, true);
        lua_pop(L, 2);
    } else {
        if (!lua_istable(L, 4))
            return luaL_error(L, "Tensor.new: values must be a sequence");
        encode_values(L, 4, &t, 0, data, &k, flat);
    }
    lt->t = t;
    lt->t.data = data;
    lt->t.span = nbytes;
    snprintf(lt->what, sizeof lt->what, "Tensor.new");
    luaL_setmetatable(L, ET_MT_TENSOR);
    return 1;
}

static int tensor_is(lua_State *L)
{
    lua_pushboolean(L, luaL_testudata(L, 1, ET_MT_TENSOR) != NULL);
    return 1;
}

void et_lua_push_tensor_class(lua_State *L)
{
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, tensor_new);
    lua_setfield(L, -2, "new");
    lua_pushcfunction(L, tensor_is);
    lua_setfield(L, -2, "is_tensor");
}

void et_lua_register_tensor(lua_State *L)
{
    static const et_lua_method methods[] = {
        {"at", t_at, -1, 0},           {"tolist", t_tolist, 0, 0},
        {"bytes", t_bytes, 0, 0},      {"min", t_min, 0, 0},
        {"max", t_max, 0, 0},          {"sum", t_sum, 0, 0},
        {"mean", t_mean, 0, 0},        {"std", t_std, 0, 0},
        {"nan_count", t_nan_count, 0, 0}, {"inf_count", t_inf_count, 0, 0},
        {"stats", t_stats, 0, 0},      {NULL, NULL, 0, 0}};
    static const et_lua_getter getters[] = {
        {"dtype", t_dtype, 0, ET_LUA_LEAF},
        {"scalar_type", t_scalar_type, 0, ET_LUA_LEAF},
        {"shape", t_shape, 0, 0},
        {"strides", t_strides, 0, 0},
        {"ndim", t_ndim, 0, ET_LUA_LEAF},
        {"numel", t_numel, 0, ET_LUA_LEAF},
        {"itemsize", t_itemsize, 0, ET_LUA_LEAF},
        {"nbytes", t_nbytes, 0, ET_LUA_LEAF},
        {"readable", t_readable, 0, ET_LUA_LEAF},
        {"is_contiguous", t_is_contiguous, 0, ET_LUA_LEAF},
        {"error", t_error, 0, ET_LUA_LEAF},
        {NULL, NULL, 0, 0}};
    static const et_lua_type type = {ET_MT_TENSOR, "Tensor", methods, getters, t_len,
                                     t_tostring, t_index, NULL, NULL};
    et_lua_define_type(L, &type);
}
