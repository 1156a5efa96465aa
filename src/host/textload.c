/*
 * textload.c - the host loads Lua source only, never binary chunks.
 *
 * Lua does not check a binary chunk (precompiled bytecode) before running
 * it: a damaged or crafted one reads and writes outside the VM's memory
 * and crashes the process (the Lua 5.4 manual, section 4.7 "load").  A
 * script must not be able to crash etinspect, so every way the host
 * offers to load code takes text only:
 *
 *   load(chunk [, chunkname [, mode [, env]]])   mode nil, "t" or "bt": text
 *   loadfile([filename [, mode [, env]]])        only; "b" is refused
 *   dofile([filename])
 *   require(name)                                the Lua file searcher
 *                                                (package.searchers[2])
 *
 * plus the host's own chunks (scripts, -e, the REPL), which it loads with
 * mode "t" itself.  A binary chunk gets Lua's own error, "attempt to load
 * a binary chunk (mode is 't')", as a result of load/loadfile (nil,
 * message) or raised by dofile/require.  The library compiled into
 * etinspect is loaded by luaopen_etinspect (l_module.c) and is not
 * affected.  etinspect.so in a stock lua5.4 leaves that interpreter's
 * loaders alone: there the user chose the interpreter's rules.
 */
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <string.h>

/* The mode at argument `arg`, checked: nil, or a string that allows text.
 * Returns "t"; raises for a mode without 't' ("b") or a non-string. */
static const char *text_mode(lua_State *L, int arg, const char *fn)
{
    if (lua_isnoneornil(L, arg))
        return "t";
    const char *mode = luaL_checkstring(L, arg);
    if (!strchr(mode, 't'))
        luaL_error(L, "bad argument #%d to '%s' (mode '%s': etinspect loads text chunks only; binary "
                      "chunks are not verified and could crash it)",
                   arg, fn, mode);
    return "t";
}

/* After a load: the chunk (with `env` as its first upvalue when given)
 * or fail and the message, as load and loadfile return them. */
static int load_result(lua_State *L, int status, int env)
{
    if (status != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}

#define READER_SLOT 5 /* load's stack slot keeping the last piece alive */

/* lua_Reader for load(function): the pieces the function returns. */
static const char *piece_reader(lua_State *L, void *ud, size_t *size)
{
    (void)ud;
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(L, -1))
        luaL_error(L, "reader function must return a string");
    lua_replace(L, READER_SLOT);
    return lua_tolstring(L, READER_SLOT, size);
}

/* load(chunk [, chunkname [, mode [, env]]]): the standard load, text only. */
static int text_load(lua_State *L)
{
    size_t n;
    const char *s = lua_tolstring(L, 1, &n);
    text_mode(L, 3, "load");
    int env = !lua_isnone(L, 4) ? 4 : 0;
    int status;
    if (s) {
        const char *name = luaL_optstring(L, 2, s);
        status = luaL_loadbufferx(L, s, n, name, "t");
    } else {
        const char *name = luaL_optstring(L, 2, "=(load)");
        luaL_checktype(L, 1, LUA_TFUNCTION);
        lua_settop(L, READER_SLOT);
        status = lua_load(L, piece_reader, NULL, name, "t");
    }
    return load_result(L, status, env);
}

/* loadfile([filename [, mode [, env]]]): the standard loadfile, text only. */
static int text_loadfile(lua_State *L)
{
    const char *fname = luaL_optstring(L, 1, NULL);
    text_mode(L, 2, "loadfile");
    int env = !lua_isnone(L, 3) ? 3 : 0;
    return load_result(L, luaL_loadfilex(L, fname, "t"), env);
}

static int dofile_cont(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L) - 1;
}

/* dofile([filename]): as the standard one (errors propagate, the chunk
 * may yield), loading text only. */
static int text_dofile(lua_State *L)
{
    const char *fname = luaL_optstring(L, 1, NULL);
    lua_settop(L, 1);
    if (luaL_loadfilex(L, fname, "t") != LUA_OK)
        return lua_error(L);
    lua_callk(L, 0, LUA_MULTRET, 0, dofile_cont);
    return dofile_cont(L, 0, 0);
}

/* package.searchers[2]: a Lua module found on package.path, loaded as
 * text.  Upvalues: 1 the package table, 2 package.searchpath, both as
 * they were when the host started.  Returns the loader and the file name,
 * or searchpath's message saying where it looked, as the standard
 * searcher does. */
static int text_searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, lua_upvalueindex(1), "path");
    if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "'package.path' must be a string");
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_call(L, 2, 2);
    if (lua_type(L, -2) != LUA_TSTRING)
        return 1; /* not found: the list of files tried */
    const char *file = lua_tostring(L, -2);
    if (luaL_loadfilex(L, file, "t") != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file,
                          lua_tostring(L, -1));
    lua_pushstring(L, file);
    return 2;
}

void et_host_text_only(lua_State *L)
{
    lua_pushcfunction(L, text_load);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, text_loadfile);
    lua_setglobal(L, "loadfile");
    lua_pushcfunction(L, text_dofile);
    lua_setglobal(L, "dofile");
    lua_getglobal(L, "package");
    if (lua_getfield(L, -1, "searchers") == LUA_TTABLE) {
        lua_pushvalue(L, -2);
        lua_getfield(L, -1, "searchpath");
        lua_pushcclosure(L, text_searcher, 2);
        lua_rawseti(L, -2, 2);
    }
    lua_pop(L, 2);
}
