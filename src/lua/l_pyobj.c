/* l_pyobj.c - ordered dicts and tuples, and walking keys in a given
 * order (et_lua_pairs_in_order); see l_pyobj.h. */
#include "l_pyobj.h"

#include <lauxlib.h>

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

/* __pairs(dict) -> iterator, dict, nil: the keys in insertion order. */
static int dict_pairs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_getmetatable(L, 1) || lua_getfield(L, -1, "__order") != LUA_TTABLE)
        return luaL_error(L, "not an ordered dict");
    return et_lua_pairs_in_order(L, 1, -1);
}

void et_lua_new_dict(lua_State *L)
{
    lua_newtable(L);
    lua_createtable(L, 0, 4);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "__pydict");
    lua_newtable(L);
    lua_setfield(L, -2, "__order");
    lua_pushcfunction(L, dict_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushliteral(L, "dict");
    lua_setfield(L, -2, "__name");
    lua_setmetatable(L, -2);
}

void et_lua_dict_set(lua_State *L, int idx, const char *key, size_t n)
{
    idx = lua_absindex(L, idx);
    lua_pushlstring(L, key, n);
    lua_pushvalue(L, -2);
    lua_rawset(L, idx); /* dict[key] = value */
    lua_pop(L, 1);
    lua_getmetatable(L, idx);
    lua_getfield(L, -1, "__order");
    lua_pushlstring(L, key, n);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 2);
}

void et_lua_push_tuple(lua_State *L, int n)
{
    lua_createtable(L, n, 0);
    lua_insert(L, -n - 1);
    for (int i = n; i >= 1; i--)
        lua_rawseti(L, -i - 1, i);
    luaL_setmetatable(L, ET_MT_TUPLE);
}

/* _core.tuple(t) -> t: the table t made a tuple (its metatable set to the
 * shared "etinspect.tuple"), so the Lua library makes tuples without
 * reaching into the registry.  Raises for anything but a table. */
static int core_tuple(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    luaL_setmetatable(L, ET_MT_TUPLE);
    return 1;
}

void et_lua_open_pyobj(lua_State *L)
{
    lua_pushcfunction(L, core_tuple);
    lua_setfield(L, -2, "tuple");
}

void et_lua_register_pyobj(lua_State *L)
{
    luaL_newmetatable(L, ET_MT_TUPLE);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "__pytuple");
    lua_pushliteral(L, "tuple");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}
