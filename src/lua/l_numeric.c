/*
 * l_numeric.c - the numerical-debugging primitives of the Lua library
 * (lua/etinspect/numeric.lua), added to the private `_core` table:
 *
 *   _core.numeric_distance(name, a, b) -> number
 *        calculate_numeric_gap's built-in distance ("MSE", "L1", "SNR";
 *        strip + upper-case) between a and b (numeric.h
 *        et_numeric_distance): float64, the NaN rule of
 *        convert_to_float_tensor, broadcasting
 *   _core.numeric_metric(name, ref, val) -> number
 *        a compare_results metric ("snr", "mse", "cosine_similarity")
 *        of two Tensors: float32, rounded to 2 decimals (et_numeric_metric)
 *   _core.max_abs_diff(a, b) -> number
 *        largest |a - b| (float64, broadcasting; NaN when either has NaN)
 *   _core.npy_load(path) -> Tensor
 *        a .npy file, memory-mapped (npy.h); the Tensor keeps the mapping
 *        alive and is named after the path in messages
 *   _core.npy_parse(bytes [, name]) -> Tensor
 *        the same from a string of .npy bytes (copied)
 *   _core.mkdir(path)
 *        create a directory (mode 0777 less the umask) unless it exists;
 *        raises "PATH: exists and is not a directory", "PATH: <strerror>"
 *   _core.npy_descr(tensor) -> string | nil
 *        the little-endian .npy descr of the tensor's dtype ("<f4"), nil
 *        for dtypes NumPy cannot hold
 *
 * a and b are Tensors, numbers or booleans (a Python scalar of the
 * reference: a 0-dim float64 tensor); anything else raises "Cannot convert
 * value of type T to a tensor".  Errors of the core are raised as Lua
 * errors with its message (e.g. "Error computing MSE difference between
 * tensors: The size of tensor a (3) must match the size of tensor b (4)
 * at non-singleton dimension 0").
 */
#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binding.h"
#include "l_tensor.h"
#include "format/npy.h"
#include "model/numeric.h"

#define ET_MT_NPY "etinspect.NpyFile"

/* Raise `msg` as a Lua error without a position: these are the messages
 * of the core (and the reference's), not errors of the calling line. */
static int raise(lua_State *L, const char *msg)
{
    lua_pushstring(L, msg);
    return lua_error(L);
}

/* A Tensor argument `arg` whose view was refused when it was read (past
 * the end of its buffer, over the broadcast budget) raises its own
 * message (t.error), not "... cannot be read".  Runs Lua code (the field
 * read): call it for every argument before taking any view. */
static void check_readable(lua_State *L, int arg)
{
    if (!luaL_testudata(L, arg, ET_MT_TENSOR))
        return;
    if (lua_getfield(L, arg, "error") == LUA_TSTRING)
        lua_error(L);
    lua_pop(L, 1);
}

/* Argument `arg`, a Tensor (checked readable), as a view.  Runs no Lua
 * code and allocates nothing: views taken one after the other stay valid
 * (no finalizer can close their owners in between). */
static const et_tensor *tensor_arg(lua_State *L, int arg)
{
    return et_lua_check_tensor(L, arg);
}

/* Argument `arg` as a tensor view: a Tensor, or a number / boolean made a
 * 0-dim float64 tensor in `scratch` over `storage`. */
static const et_tensor *operand(lua_State *L, int arg, et_tensor *scratch, double *storage)
{
    switch (lua_type(L, arg)) {
    case LUA_TNUMBER:
        *storage = (double)lua_tonumber(L, arg);
        et_numeric_scalar(scratch, storage);
        return scratch;
    case LUA_TBOOLEAN:
        *storage = lua_toboolean(L, arg) ? 1.0 : 0.0;
        et_numeric_scalar(scratch, storage);
        return scratch;
    case LUA_TUSERDATA:
        if (luaL_testudata(L, arg, ET_MT_TENSOR))
            return tensor_arg(L, arg);
        break;
    default:
        break;
    }
    lua_pushfstring(L, "Cannot convert value of type %s to a tensor", luaL_typename(L, arg));
    lua_error(L);
    return NULL;
}

static int l_numeric_distance(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    int d = et_distance_from_name(name, len);
    if (d < 0)
        return luaL_error(L, "unknown distance '%s' (MSE, L1, SNR)", name);
    check_readable(L, 2);
    check_readable(L, 3);
    et_tensor sa, sb;
    double va, vb;
    const et_tensor *a = operand(L, 2, &sa, &va), *b = operand(L, 3, &sb, &vb);
    et_error err;
    double out;
    if (et_numeric_distance((et_distance)d, a, b, &out, &err) != 0)
        return raise(L, err.msg);
    lua_pushnumber(L, out);
    return 1;
}

static int l_numeric_metric(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    int m = et_metric_from_name(name);
    if (m < 0)
        return luaL_error(L, "unknown metric '%s' (snr, mse, cosine_similarity)", name);
    check_readable(L, 2);
    check_readable(L, 3);
    const et_tensor *ref = tensor_arg(L, 2), *val = tensor_arg(L, 3);
    et_error err;
    double out;
    if (et_numeric_metric((et_metric)m, ref, val, &out, &err) != 0)
        return raise(L, err.msg);
    lua_pushnumber(L, out);
    return 1;
}

static int l_max_abs_diff(lua_State *L)
{
    check_readable(L, 1);
    check_readable(L, 2);
    et_tensor sa, sb;
    double va, vb;
    const et_tensor *a = operand(L, 1, &sa, &va), *b = operand(L, 2, &sb, &vb);
    et_error err;
    double out;
    if (et_numeric_max_abs_diff(a, b, &out, &err) != 0)
        return raise(L, err.msg);
    lua_pushnumber(L, out);
    return 1;
}

/* The owner of a parsed .npy: an et_npy (followed, for npy_parse, by a
 * copy of the bytes).  Released by the garbage collector once no Tensor
 * anchors it (its Tensors pin it while they run; one used after a
 * finalizer called by hand raises "Tensor used after its owner was
 * closed"). */
typedef struct npy_owner {
    et_lua_owner own;
    et_npy npy;
} npy_owner;

static void npy_release(lua_State *L, et_lua_owner *o)
{
    (void)L;
    et_npy_close(&((npy_owner *)o)->npy);
}

static const et_lua_owner_class npy_class = {"NpyFile", "owner", "NpyFile used after it was closed",
                                             "NpyFile is in use", npy_release, NULL};

static et_npy *new_owner(lua_State *L, size_t extra)
{
    npy_owner *n = lua_newuserdatauv(L, sizeof *n + extra, 0);
    memset(n, 0, sizeof *n);
    et_lua_owner_init(&n->own, &npy_class);
    luaL_setmetatable(L, ET_MT_NPY);
    return &n->npy;
}

static int l_npy_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    et_npy *n = new_owner(L, 0);
    et_error err;
    if (et_npy_open(n, path, &err) != 0)
        return raise(L, err.msg);
    et_lua_push_tensor_ex(L, &n->tensor, -1, path, NULL);
    return 1;
}

static int l_npy_parse(lua_State *L)
{
    size_t len;
    const char *bytes = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, ".npy data");
    et_npy *n = new_owner(L, len);
    uint8_t *copy = (uint8_t *)((npy_owner *)lua_touserdata(L, -1) + 1);
    if (len)
        memcpy(copy, bytes, len);
    et_error err;
    if (et_npy_parse(n, copy, len, &err) != 0) {
        lua_pushfstring(L, "%s: %s", name, err.msg);
        return lua_error(L);
    }
    et_lua_push_tensor_ex(L, &n->tensor, -1, name, NULL);
    return 1;
}

static int l_npy_descr(lua_State *L)
{
    const et_tensor *t = et_lua_check_tensor(L, 1);
    const char *d = et_npy_descr(t->scalar_type);
    if (d)
        lua_pushstring(L, d);
    else
        lua_pushnil(L);
    return 1;
}

static int l_mkdir(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct stat st;
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return lua_error(L);
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        lua_pushfstring(L, "%s: exists and is not a directory", path);
        return lua_error(L);
    }
    return 0;
}

void et_lua_open_numeric(lua_State *L)
{
    static const luaL_Reg fns[] = {{"numeric_distance", l_numeric_distance},
                                   {"numeric_metric", l_numeric_metric},
                                   {"max_abs_diff", l_max_abs_diff},
                                   {"npy_load", l_npy_load},
                                   {"npy_parse", l_npy_parse},
                                   {"npy_descr", l_npy_descr},
                                   {"mkdir", l_mkdir},
                                   {NULL, NULL}};
    luaL_checktype(L, -1, LUA_TTABLE);
    luaL_setfuncs(L, fns, 0);
    static const et_lua_type npy_type = {ET_MT_NPY, "NpyFile", NULL, NULL, NULL, NULL,
                                         NULL, NULL, &npy_class};
    et_lua_define_type(L, &npy_type);
}
