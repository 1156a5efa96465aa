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
        luaL_error(L, "inspector is closed");
    return box->insp;
}

void et_lua_push_child(lua_State *L, int insp_idx, const char *mt, size_t block, size_t event)
{
    insp_idx = lua_absindex(L, insp_idx);
    lua_insp_box *box = luaL_checkudata(L, insp_idx, ET_MT_INSPECTOR);
    lua_child *c = lua_newuserdatauv(L, sizeof *c, 1);
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
        luaL_error(L, "%s used after its inspector was closed", strchr(mt, '.') + 1);
    return c;
}

void et_lua_push_parent(lua_State *L, int arg)
{
    lua_getiuservalue(L, arg, 1);
}

int et_lua_record_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 1);
        return 1;
    }
    if (lua_type(L, 2) == LUA_TSTRING) {
        const char *tn = luaL_getmetafield(L, 1, "__name") == LUA_TSTRING ? lua_tostring(L, -1)
                                                                          : luaL_typename(L, 1);
        return luaL_error(L, "%s has no field or method '%s'", tn, lua_tostring(L, 2));
    }
    lua_pushnil(L);
    return 1;
}

void et_lua_set_index(lua_State *L, const luaL_Reg *methods, const luaL_Reg *getters)
{
    /* metatable on top */
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "__methods"); /* for completion and help */
    lua_newtable(L);
    luaL_setfuncs(L, getters, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "__getters");
    lua_pushcclosure(L, et_lua_record_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, et_lua_record_pairs);
    lua_setfield(L, -2, "__pairs");
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

static int sort_strings(lua_State *L)
{
    /* table.sort(list) with the default '<' */
    lua_getglobal(L, "table");
    if (lua_getfield(L, -1, "sort") == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 0);
    }
    return 0;
}

int et_lua_record_pairs(lua_State *L)
{
    if (!lua_getmetatable(L, 1) || lua_getfield(L, -1, "__getters") != LUA_TTABLE)
        return luaL_error(L, "not a record");
    lua_newtable(L);
    int keys = lua_gettop(L);
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, -3)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, keys, ++n);
    }
    lua_pushcfunction(L, sort_strings);
    lua_pushvalue(L, keys);
    lua_call(L, 1, 0);
    return et_lua_pairs_in_order(L, 1, keys);
}
