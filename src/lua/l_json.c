/*
 * l_json.c - JSON text to Lua values, with jansson (etinspect._core.json_decode).
 *
 *   _core.json_decode(text) -> value | nil, "line L column C: message"
 *
 * Objects become tables with string keys, arrays sequences (a JSON null
 * inside an array leaves a hole; the array's length is in field `n`),
 * integers Lua integers, reals floats, true/false booleans, null nil.
 * Nesting deeper than 200 levels is refused rather than overflowing the
 * C stack.
 */
#include <jansson.h>
#include <lauxlib.h>

#include "l_json.h"

static void push_json(lua_State *L, json_t *v, int depth)
{
    if (depth > 200)
        luaL_error(L, "JSON nested too deeply");
    luaL_checkstack(L, 4, "JSON nested too deeply");
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        lua_createtable(L, 0, (int)json_object_size(v));
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            push_json(L, x, depth + 1);
            lua_setfield(L, -2, k);
        }
        break;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        lua_createtable(L, (int)n, 1);
        for (size_t i = 0; i < n; i++) {
            push_json(L, json_array_get(v, i), depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_pushinteger(L, (lua_Integer)n);
        lua_setfield(L, -2, "n");
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
