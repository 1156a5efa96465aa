/*
 * l_module.c - luaopen_etinspect: the `etinspect` module.
 *
 *   local etinspect = require "etinspect"
 *   etinspect.Inspector{...}        see l_inspector.c
 *   etinspect.TimeScale             {NS="ns", US="us", MS="ms", S="s", CYCLES="cycles"}
 *   etinspect.version               "0.1.0"
 *   etinspect.on_warning(fn)        route warnings to fn(message) (nil: stderr)
 *   etinspect.Tensor                {new = Tensor.new{dtype=, shape=, values=|bytes=},
 *                                   is_tensor = fn} (l_tensor.c)
 *   etinspect.Frame, etinspect.parsers, etinspect.converters
 *                                   from the Lua library (lua/etinspect/)
 *
 * The Lua library is compiled in (scripts/embed-lua.c): its modules are
 * put in package.preload, so `require "etinspect"` works in the etinspect
 * host and in a stock lua5.4 loading etinspect.so, with no path setup.
 */
#include <string.h>

#include "binding.h"
#include "l_series.h"
#include "l_hooks.h"
#include "l_pyobj.h"
#include "l_frame.h"
#include "l_limits.h"
#include "l_tensor.h"
#include "base/version.h"

/* The Lua library, from scripts/embed-lua.c: each module's bytecode and
 * its source. */
extern const struct et_lua_source {
    const char *name;
    const unsigned char *code, *src;
    size_t code_len, src_len;
} et_lua_embedded[];

static int on_warning(lua_State *L)
{
    if (!lua_isnoneornil(L, 1) && lua_type(L, 1) != LUA_TFUNCTION)
        return luaL_error(L, "etinspect.on_warning: bad argument #1 (function or nil expected, got "
                             "%s)",
                          luaL_typename(L, 1));
    lua_settop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "etinspect.on_warning");
    return 0;
}

/* package.preload loader: upvalue 1 is the index into et_lua_embedded.
 * Loads the module's bytecode (made at build time by the Lua this links:
 * no parsing at start-up), or its source when the bytecode does not load
 * (etinspect.so in a Lua whose number types differ). */
static int load_embedded(lua_State *L)
{
    const struct et_lua_source *s = &et_lua_embedded[lua_tointeger(L, lua_upvalueindex(1))];
    char chunk[128];
    snprintf(chunk, sizeof chunk, "=[etinspect] %s", s->name);
    if (luaL_loadbufferx(L, (const char *)s->code, s->code_len, chunk, "b") != LUA_OK) {
        lua_pop(L, 1);
        if (luaL_loadbufferx(L, (const char *)s->src, s->src_len, chunk, "t") != LUA_OK)
            return lua_error(L);
    }
    lua_pushstring(L, s->name);
    lua_call(L, 1, 1);
    return 1;
}

int luaopen_etinspect(lua_State *L)
{
    et_lua_capture_stdlib(L); /* before any script can replace require or io */
    et_lua_register_inspector(L);
    et_lua_register_block(L);
    et_lua_register_event(L);
    et_lua_register_perfdata(L);
    et_lua_register_runs(L);
    et_lua_register_etrecord(L);
    et_lua_register_graph(L);
    et_lua_register_tensor(L);
    et_lua_register_pyobj(L);
    et_lua_register_export(L);
    et_lua_register_modelexplorer(L);
    et_lua_register_bundled(L);
    et_lua_register_program(L);
    et_lua_register_columns(L);
    et_lua_register_rawframe(L);

    lua_newtable(L);
    int M = lua_gettop(L);
    lua_pushcfunction(L, et_lua_inspector_new);
    lua_setfield(L, M, "Inspector");
    lua_pushcfunction(L, et_lua_parse_etrecord);
    lua_setfield(L, M, "parse_etrecord");
    lua_pushcfunction(L, et_lua_parse_program);
    lua_setfield(L, M, "parse_program");
    et_lua_push_tensor_class(L);
    lua_setfield(L, M, "Tensor");
    lua_pushcfunction(L, on_warning);
    lua_setfield(L, M, "on_warning");
    lua_pushcfunction(L, et_lua_limits);
    lua_setfield(L, M, "limits");
    lua_pushliteral(L, ETINSPECT_VERSION);
    lua_setfield(L, M, "version");
    static const char *const ts[][2] = {
        {"NS", "ns"}, {"US", "us"}, {"MS", "ms"}, {"S", "s"}, {"CYCLES", "cycles"}};
    lua_createtable(L, 0, 5);
    for (int i = 0; i < 5; i++) {
        lua_pushstring(L, ts[i][1]);
        lua_setfield(L, -2, ts[i][0]);
    }
    lua_setfield(L, M, "TimeScale");
    et_lua_open_core(L); /* private helpers for the Lua library */
    et_lua_open_numeric(L);
    et_lua_open_hooks(L);  /* _core.warn */
    et_lua_open_html(L);
    et_lua_open_outfile(L);
    et_lua_open_export(L);
    et_lua_open_sql(L); /* _core.sql_query */
    et_lua_open_table(L); /* _core.tab_*: the Frame's columns */
    et_lua_open_object(L); /* _core.is_view */
    et_lua_open_pyobj(L);  /* _core.tuple */
    et_lua_open_series(L); /* _core.series: Series, the columns' vectors */
    lua_setfield(L, M, "_core");

    /* the embedded library: package.preload, then the modules that extend
     * the types; etinspect is registered as loaded first so they can
     * require it */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    for (int i = 0; et_lua_embedded[i].name; i++) {
        lua_pushinteger(L, i);
        lua_pushcclosure(L, load_embedded, 1);
        lua_setfield(L, -2, et_lua_embedded[i].name);
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "loaded");
    lua_pushvalue(L, M);
    lua_setfield(L, -2, "etinspect");
    lua_pop(L, 2);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect.init");
    lua_call(L, 1, 0);
    lua_settop(L, M);
    return 1;
}
