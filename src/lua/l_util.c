/* l_util.c - helpers shared by the binding's types; see binding.h. */
#include <string.h>

#include "binding.h"
#include "l_hooks.h" /* the warnings a model made gives */

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

et_inspector *et_lua_insp(lua_State *L, lua_insp_box *box)
{
    et_inspector *insp = et_lua_insp_raw(L, box);
    if (et_inspector_model_pending(insp) || et_inspector_stats_pending(insp)) {
        et_error err;
        if (et_inspector_ready(insp, &err) != 0)
            luaL_error(L, "%s", err.msg);
    }
    if (box->warnings_given < insp->warnings.n) {
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
