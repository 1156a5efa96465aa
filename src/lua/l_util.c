/* l_util.c - helpers shared by the binding's types; see binding.h. */
#include <string.h>

#include "binding.h"

void et_lua_push_str(lua_State *L, et_str s)
{
    if (s.p)
        lua_pushlstring(L, s.p, s.n);
    else
        lua_pushnil(L);
}

et_inspector *et_lua_insp(lua_State *L, lua_insp_box *box)
{
    if (!box->insp)
        et_lua_closed_error(L, NULL, &box->own);
    return box->insp;
}

void et_lua_push_child(lua_State *L, int insp_idx, const char *mt, size_t block, size_t event)
{
    insp_idx = lua_absindex(L, insp_idx);
    lua_insp_box *box = luaL_checkudata(L, insp_idx, ET_MT_INSPECTOR);
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
