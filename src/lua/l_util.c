/* l_util.c - helpers shared by the binding's types; see binding.h. */
#include <string.h>

#include "binding.h"
#include "l_hooks.h"

void et_lua_push_str(lua_State *L, et_str s)
{
    if (s.p)
        lua_pushlstring(L, s.p, s.n);
    else
        lua_pushnil(L);
}

et_inspector *et_lua_insp_raw(lua_State *L, lua_insp_box *box)
{
    if (!box->insp)
        et_lua_closed_error(L, NULL, &box->own);
    return box->insp;
}

/* registry[INSPECTORS_KEY]: box (light userdata) -> its Inspector, weak
 * values.  A script can reach it (debug.getregistry()) and change it, so
 * what it gives is checked (push_inspector). */
#define INSPECTORS_KEY "etinspect.inspectors"

static void push_inspectors(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, INSPECTORS_KEY) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, INSPECTORS_KEY);
}

void et_lua_insp_register(lua_State *L, int ud)
{
    ud = lua_absindex(L, ud);
    lua_insp_box *box = luaL_checkudata(L, ud, ET_MT_INSPECTOR);
    push_inspectors(L);
    lua_pushvalue(L, ud);
    lua_rawsetp(L, -2, box);
    lua_pop(L, 1);
}

/* Push the Inspector of `box` and return true, or push nothing and return
 * false (not registered, or the entry is not it). */
static bool push_inspector(lua_State *L, lua_insp_box *box)
{
    push_inspectors(L);
    lua_rawgetp(L, -1, box);
    lua_remove(L, -2);
    if (luaL_testudata(L, -1, ET_MT_INSPECTOR) == box)
        return true;
    lua_pop(L, 1);
    return false;
}

void et_lua_insp_give_warnings(lua_State *L, lua_insp_box *box)
{
    if (!box->insp || box->warnings_given >= box->insp->n_warnings)
        return;
    bool have = push_inspector(L, box);
    int ud = lua_gettop(L);
    /* one at a time, counted before it is given: a handler that reads the
     * model again (et_lua_insp) gives the next ones, not these again */
    while (box->insp && box->warnings_given < box->insp->n_warnings) {
        const char *w = box->insp->warnings[box->warnings_given++];
        if (have)
            et_lua_insp_warn(L, ud, "%s", w);
        else
            et_lua_warn(L, "%s", w);
    }
    if (have)
        lua_pop(L, 1);
}

#define HOLD_KEY "etinspect.hold_warnings"

void et_lua_hold_warnings(lua_State *L, bool hold)
{
    lua_pushboolean(L, hold);
    lua_setfield(L, LUA_REGISTRYINDEX, HOLD_KEY);
}

static bool warnings_held(lua_State *L)
{
    bool held = lua_getfield(L, LUA_REGISTRYINDEX, HOLD_KEY) == LUA_TBOOLEAN && lua_toboolean(L, -1);
    lua_pop(L, 1);
    return held;
}

et_inspector *et_lua_insp(lua_State *L, lua_insp_box *box)
{
    et_inspector *insp = et_lua_insp_raw(L, box);
    if (insp->model_pending || insp->stats_pending) {
        et_error err;
        if (et_inspector_ready(insp, &err) != 0)
            luaL_error(L, "%s", err.msg);
    }
    if (box->warnings_given < insp->n_warnings && !warnings_held(L)) {
        et_lua_insp_give_warnings(L, box);
        insp = et_lua_insp_raw(L, box); /* a handler may have closed it */
    }
    return insp;
}

void et_lua_push_child(lua_State *L, int insp_idx, const char *mt, size_t block, size_t event)
{
    insp_idx = lua_absindex(L, insp_idx);
    lua_insp_box *box = luaL_checkudata(L, insp_idx, ET_MT_INSPECTOR);
    et_lua_insp(L, box); /* a view of the model: its statistics are there */
    lua_child *c = lua_newuserdatauv(L, sizeof *c, 2);
    c->obj.magic = ET_LUA_OBJ_MAGIC;
    c->obj.owner = &box->own;
    c->box = box;
    c->block = block;
    c->event = event;
    luaL_setmetatable(L, mt);
    lua_pushvalue(L, insp_idx);
    lua_setiuservalue(L, -2, 1); /* the child keeps its inspector alive */
}

lua_child *et_lua_check_child(lua_State *L, int arg, const char *mt)
{
    lua_child *c = luaL_checkudata(L, arg, mt);
    if (!c->box->insp)
        et_lua_closed_error(L, strchr(mt, '.') + 1, &c->box->own);
    return c;
}

void et_lua_push_parent(lua_State *L, int arg)
{
    lua_getiuservalue(L, arg, 1);
}

/* Iterator of et_lua_pairs_in_order: upvalue 1 the key list, 2 the
 * position; the value is self[key] (through __index for userdata). */
static int ordered_next(lua_State *L)
{
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2)) + 1;
    if (lua_rawgeti(L, lua_upvalueindex(1), i) == LUA_TNIL)
        return 0;
    lua_pushinteger(L, i);
    lua_replace(L, lua_upvalueindex(2));
    lua_pushvalue(L, -1);
    lua_gettable(L, 1);
    return 2;
}

int et_lua_pairs_in_order(lua_State *L, int self, int keys)
{
    self = lua_absindex(L, self);
    lua_pushvalue(L, keys);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, ordered_next, 2);
    lua_pushvalue(L, self);
    lua_pushnil(L);
    return 3;
}

const char **et_lua_check_strings(lua_State *L, int arg, const char *fn, const char *what,
                                  size_t *n)
{
    arg = lua_absindex(L, arg);
    if (lua_type(L, arg) != LUA_TTABLE)
        luaL_error(L, "%s: bad argument #%d (a sequence of %s expected, got %s)", fn, arg, what,
                   luaL_typename(L, arg));
    lua_Unsigned len = lua_rawlen(L, arg);
    if (len >= SIZE_MAX / sizeof(const char *))
        luaL_error(L, "%s: bad argument #%d (too many %s)", fn, arg, what);
    const char **v = lua_newuserdatauv(L, ((size_t)len + 1) * sizeof *v, 0);
    for (size_t i = 0; i < (size_t)len; i++) {
        if (lua_rawgeti(L, arg, (lua_Integer)i + 1) != LUA_TSTRING)
            luaL_error(L, "%s: %s[%d]: expected a string, got %s", fn, what, (int)i + 1,
                       luaL_typename(L, -1));
        v[i] = lua_tostring(L, -1); /* a raw string, anchored in the table */
        lua_pop(L, 1);
    }
    v[len] = NULL;
    *n = (size_t)len;
    return v;
}
