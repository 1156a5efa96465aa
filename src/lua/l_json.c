/*
 * l_json.c - JSON text to Lua values, with jansson (etinspect._core.json_decode).
 *
 *   _core.json_decode(text) -> value | nil, "line L column C: message"
 *
 * Objects become ordered dicts (l_pyobj.h's shape: metatable fields
 * __pydict, __order -- the keys in the text's order, as Python's
 * json.loads keeps them -- __pairs in that order, and __newindex appending
 * a new key to the order), so they print as Python prints the dict and an
 * empty object is {} rather than [].  Arrays become plain sequences; a
 * JSON null inside an array leaves a hole, and such an array gets a
 * metatable whose __len gives the JSON length.  Integers become Lua
 * integers, reals floats, true/false booleans, null nil.
 * Nesting deeper than 200 levels is refused rather than overflowing the
 * C stack.
 */
#include <jansson.h>
#include <lauxlib.h>

#include "binding.h"
#include "l_pyobj.h" /* et_lua_pairs_in_order */
#include "l_json.h"

/* __pairs(dict): its keys in the order of __order. */
static int jdict_pairs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_getmetatable(L, 1) || lua_getfield(L, -1, "__order") != LUA_TTABLE)
        return luaL_error(L, "not an ordered dict");
    return et_lua_pairs_in_order(L, 1, -1);
}

/* __newindex(dict, k, v): a new key goes to the end of the order. */
static int jdict_newindex(lua_State *L)
{
    lua_settop(L, 3);
    if (!lua_isnil(L, 3) && lua_getmetatable(L, 1) && lua_getfield(L, -1, "__order") == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1), i;
        for (i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            int same = lua_rawequal(L, -1, 2);
            lua_pop(L, 1);
            if (same)
                break;
        }
        if (i > n) {
            lua_pushvalue(L, 2);
            lua_rawseti(L, -2, n + 1);
        }
    }
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

/* __len of an array holding nulls: its JSON length (upvalue 1). */
static int jarray_len(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

static void push_json(lua_State *L, json_t *v, int depth)
{
    if (depth > 200)
        luaL_error(L, "JSON nested too deeply");
    luaL_checkstack(L, 8, "JSON nested too deeply");
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        size_t n = json_object_size(v), i = 0;
        lua_createtable(L, 0, (int)n);
        lua_createtable(L, 0, 6); /* its metatable */
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "__pydict");
        lua_pushliteral(L, "dict");
        lua_setfield(L, -2, "__name");
        lua_pushcfunction(L, jdict_pairs);
        lua_setfield(L, -2, "__pairs");
        lua_pushcfunction(L, jdict_newindex);
        lua_setfield(L, -2, "__newindex");
        lua_createtable(L, (int)n, 0);
        const char *k;
        size_t klen;
        json_t *x;
        /* stack: dict, metatable, order */
        json_object_keylen_foreach(v, k, klen, x) {
            lua_pushlstring(L, k, klen);
            lua_pushvalue(L, -1);
            lua_rawseti(L, -3, (lua_Integer)++i);
            push_json(L, x, depth + 1);
            lua_rawset(L, -5);
        }
        lua_setfield(L, -2, "__order");
        lua_setmetatable(L, -2);
        break;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        int holes = 0;
        lua_createtable(L, (int)n, 0);
        for (size_t i = 0; i < n; i++) {
            json_t *x = json_array_get(v, i);
            holes |= json_is_null(x);
            push_json(L, x, depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        if (holes) {
            lua_createtable(L, 0, 1);
            lua_pushinteger(L, (lua_Integer)n);
            lua_pushcclosure(L, jarray_len, 1);
            lua_setfield(L, -2, "__len");
            lua_setmetatable(L, -2);
        }
        break;
    }
    case JSON_STRING: lua_pushlstring(L, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: lua_pushinteger(L, (lua_Integer)json_integer_value(v)); break;
    case JSON_REAL: lua_pushnumber(L, json_real_value(v)); break;
    case JSON_TRUE: lua_pushboolean(L, 1); break;
    case JSON_FALSE: lua_pushboolean(L, 0); break;
    default: lua_pushnil(L);
    }
}

/* Protected part: argument 1 is a light userdata json_t*. */
static int push_protected(lua_State *L)
{
    push_json(L, lua_touserdata(L, 1), 0);
    return 1;
}

int et_lua_json_decode(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    json_error_t e;
    json_t *v = json_loadb(s, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (!v) {
        lua_pushnil(L);
        lua_pushfstring(L, "line %d column %d: %s", e.line, e.column, e.text);
        return 2;
    }
    /* build the Lua value protected, so the json_t is freed on any error */
    lua_pushcfunction(L, push_protected);
    lua_pushlightuserdata(L, v);
    int rc = lua_pcall(L, 1, 1, 0);
    json_decref(v);
    if (rc != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    return 1;
}
