/*
 * l_contract.c - the one rule for option tables (docs/lua-api.md,
 * "Contracts"): every method of the binding and of the Lua library that
 * takes an options table checks it here, so the messages are the same
 * everywhere and nothing typed is silently ignored.
 *
 * From C:    et_lua_check_options(L, arg, "Inspector:to_dataframe", spec, 1)
 * From Lua:  _core.check_options("Inspector:to_dataframe", opts,
 *                                {include_units = "boolean", file = "file"}, 1)
 *
 * Also the other argument checks the types share: output sinks
 * (et_lua_check_sink) and sequences of strings (et_lua_check_strings).
 */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* An io file, or a table or userdata with a `write` method found without
 * running user code: a raw field, or a field of its metatable's __index
 * table (a userdata whose __index is a function is taken on trust). */
static int et_lua_is_sink(lua_State *L, int idx)
{
    if (luaL_testudata(L, idx, LUA_FILEHANDLE))
        return 1;
    int lt = lua_type(L, idx);
    if (lt != LUA_TTABLE && lt != LUA_TUSERDATA)
        return 0;
    int ok = 0;
    if (lt == LUA_TTABLE) {
        lua_pushliteral(L, "write");
        ok = lua_rawget(L, idx) == LUA_TFUNCTION;
        lua_pop(L, 1);
        if (ok)
            return 1;
    }
    int it = luaL_getmetafield(L, idx, "__index");
    if (it == LUA_TTABLE) {
        lua_pushliteral(L, "write");
        ok = lua_rawget(L, -2) == LUA_TFUNCTION;
        lua_pop(L, 2);
    } else if (it != LUA_TNIL) {
        ok = lt == LUA_TUSERDATA && it == LUA_TFUNCTION;
        lua_pop(L, 1);
    }
    return ok;
}

/* Does the value at `idx` have type `t` (one word of a spec, e.g.
 * "boolean", "integer", "file", "Frame")? */
static int has_type(lua_State *L, int idx, const char *t, size_t n)
{
#define IS(w) (n == sizeof(w) - 1 && memcmp(t, w, n) == 0)
    int lt = lua_type(L, idx);
    if (IS("any"))
        return 1;
    if (IS("integer")) {
        int isint = 0;
        if (lt == LUA_TNUMBER)
            (void)lua_tointegerx(L, idx, &isint); /* integral floats in range count */
        return isint;
    }
    if (IS("callable")) {
        if (lt == LUA_TFUNCTION)
            return 1;
        int c = luaL_getmetafield(L, idx, "__call") != LUA_TNIL;
        if (c)
            lua_pop(L, 1);
        return c;
    }
    if (IS("file"))
        return et_lua_is_sink(L, idx);
    for (int i = 0; i < LUA_NUMTYPES; i++) {
        const char *tn = lua_typename(L, i);
        if (strlen(tn) == n && memcmp(tn, t, n) == 0)
            return lt == i;
    }
    /* a userdata type by its metatable name: "Frame" matches "Frame" and
     * "etinspect.Frame" */
    int ok = 0;
    if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
        if (lua_type(L, -1) == LUA_TSTRING) {
            size_t ln;
            const char *nm = lua_tolstring(L, -1, &ln);
            const char *dot = strrchr(nm, '.');
            ok = (ln == n && memcmp(nm, t, n) == 0) ||
                 (dot && strlen(dot + 1) == n && memcmp(dot + 1, t, n) == 0);
        }
        lua_pop(L, 1);
    }
#undef IS
    return ok;
}

/* "a boolean", "an integer", "a string or a table" */
static void push_type_phrase(lua_State *L, const char *types)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *p = types;
    while (*p) {
        size_t n = strcspn(p, "|");
        if (p != types)
            luaL_addstring(&b, " or ");
        luaL_addstring(&b, strchr("aeiou", p[0]) ? "an " : "a ");
        luaL_addlstring(&b, p, n);
        p += n;
        if (*p == '|')
            p++;
    }
    luaL_pushresult(&b);
}

static int matches(lua_State *L, int idx, const char *types)
{
    const char *p = types;
    while (*p) {
        size_t n = strcspn(p, "|");
        if (has_type(L, idx, p, n))
            return 1;
        p += n;
        if (*p == '|')
            p++;
    }
    return 0;
}

/* The type name a user reads in a message: __name for typed userdata. */
static const char *value_type(lua_State *L, int idx)
{
    if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) {
        const char *s = lua_tostring(L, -1);
        lua_pop(L, 1); /* the name stays interned in the metatable */
        const char *dot = strrchr(s, '.');
        return dot ? dot + 1 : s;
    }
    return luaL_typename(L, idx);
}

static int spec_find(const et_lua_opt *spec, const char *k)
{
    for (int i = 0; spec[i].name; i++)
        if (strcmp(spec[i].name, k) == 0)
            return i;
    return -1;
}

void et_lua_check_options(lua_State *L, int arg, const char *where, const et_lua_opt *spec,
                          int argn)
{
    arg = lua_absindex(L, arg);
    int t = lua_type(L, arg);
    if (t == LUA_TNIL || t == LUA_TNONE)
        return;
    if (t != LUA_TTABLE)
        luaL_error(L, "%s: bad argument #%d (options table expected, got %s)", where, argn,
                   value_type(L, arg));
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        int v = lua_gettop(L);
        if (lua_type(L, v - 1) != LUA_TSTRING) {
            if (lua_isinteger(L, v - 1))
                luaL_error(L, "%s: options must be named (got a positional value at [%d])", where,
                           (int)lua_tointeger(L, v - 1));
            luaL_error(L, "%s: option names must be strings (got a %s key)", where,
                       luaL_typename(L, v - 1));
        }
        const char *k = lua_tostring(L, v - 1);
        int i = spec_find(spec, k);
        if (i < 0) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (int j = 0; spec[j].name; j++) {
                if (j)
                    luaL_addstring(&b, ", ");
                luaL_addstring(&b, spec[j].name);
            }
            luaL_pushresult(&b);
            luaL_error(L, "%s: unknown option '%s' (accepted: %s)", where, k,
                       spec[0].name ? lua_tostring(L, -1) : "none");
        }
        if (spec[i].types && !matches(L, v, spec[i].types)) {
            push_type_phrase(L, spec[i].types);
            luaL_error(L, "%s: option '%s' must be %s, got %s", where, k, lua_tostring(L, -1),
                       value_type(L, v));
        }
        lua_pop(L, 1);
    }
}

void et_lua_check_sink(lua_State *L, int arg, const char *where, int argn, int optional)
{
    if (optional && lua_isnoneornil(L, arg))
        return;
    if (!et_lua_is_sink(L, arg))
        luaL_error(L, "%s: bad argument #%d (file expected, got %s)", where, argn,
                   lua_isnone(L, arg) ? "no value" : value_type(L, arg));
}

int et_lua_opt_get(lua_State *L, int idx, const char *key)
{
    if (lua_type(L, idx) != LUA_TTABLE) {
        lua_pushnil(L);
        return LUA_TNIL;
    }
    idx = lua_absindex(L, idx);
    lua_pushstring(L, key);
    return lua_rawget(L, idx);
}

static int cmp_opt(const void *a, const void *b)
{
    return strcmp(((const et_lua_opt *)a)->name, ((const et_lua_opt *)b)->name);
}

/* et_lua_check_options(L, 1, where = 2, spec = 3, argn = 4), run as a
 * protected call by core_check_options. */
static int check_protected(lua_State *L)
{
    et_lua_check_options(L, 1, lua_tostring(L, 2), lua_touserdata(L, 3), (int)lua_tointeger(L, 4));
    return 0;
}

/* _core.check_options(where, opts, spec [, argn]) -> opts
 * spec: {key = "boolean" | "string|table" | ...}; the accepted keys are
 * listed sorted in the message.  Raises as et_lua_check_options; the error
 * is reported at the caller's caller's level (the user's line that called
 * the library's method). */
static int core_check_options(lua_State *L)
{
    const char *where = luaL_checkstring(L, 1);
    luaL_checktype(L, 3, LUA_TTABLE);
    int argn = (int)luaL_optinteger(L, 4, 1);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        lua_pop(L, 1);
        n++;
    }
    et_lua_opt *spec = lua_newuserdatauv(L, (n + 1) * sizeof *spec, 0);
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, 3) && i < n) {
        /* key and value are strings anchored in the spec table (checked
         * before they are read: no conversion under lua_next) */
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
            return luaL_error(L, "check_options: spec must map option names to type strings");
        spec[i].name = lua_tostring(L, -2);
        spec[i].types = lua_tostring(L, -1);
        i++;
        lua_pop(L, 1);
    }
    spec[i].name = NULL;
    spec[i].types = NULL;
    qsort(spec, i, sizeof *spec, cmp_opt);
    lua_pushcfunction(L, check_protected);
    lua_pushvalue(L, 2);
    lua_pushstring(L, where);
    lua_pushlightuserdata(L, spec); /* anchored on the stack below */
    lua_pushinteger(L, argn);
    if (lua_pcall(L, 4, 0, 0) != LUA_OK) {
        luaL_where(L, 2); /* the line that called the method */
        lua_insert(L, -2);
        lua_concat(L, 2);
        return lua_error(L);
    }
    lua_settop(L, 2);
    return 1;
}

void et_lua_open_contract(lua_State *L)
{
    lua_pushcfunction(L, core_check_options);
    lua_setfield(L, -2, "check_options");
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
