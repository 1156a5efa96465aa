/* l_hooks.c - users' Lua functions called from the core; see l_hooks.h. */
#include "l_hooks.h"

#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

#define ON_WARNING_KEY "etinspect.on_warning"

void et_lua_warn(lua_State *L, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (lua_getfield(L, LUA_REGISTRYINDEX, ON_WARNING_KEY) == LUA_TFUNCTION) {
        lua_pushstring(L, msg);
        if (lua_pcall(L, 1, 0, 0) == LUA_OK)
            return;
        /* the handler itself failed: fall back to stderr */
        fprintf(stderr, "etinspect: warning: on_warning failed: %s\n", lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    fprintf(stderr, "etinspect: warning: %s\n", msg);
}

/* _core.warn(message): et_lua_warn for the Lua library (etinspect.diff's
 * warnings go where the other warnings go). */
static int core_warn(lua_State *L)
{
    et_lua_warn(L, "%s", luaL_checkstring(L, 1));
    return 0;
}

void et_lua_open_hooks(lua_State *L)
{
    lua_pushcfunction(L, core_warn);
    lua_setfield(L, -2, "warn");
}

static int msgh(lua_State *L)
{
    const char *m = lua_tostring(L, 1);
    if (!m)
        m = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, m, 1);
    return 1;
}

int et_lua_push_msgh(lua_State *L)
{
    lua_pushcfunction(L, msgh);
    return lua_gettop(L);
}

const char *et_lua_describe_function(lua_State *L, int idx)
{
    lua_Debug ar;
    lua_pushvalue(L, idx);
    if (!lua_getinfo(L, ">S", &ar))
        return lua_pushliteral(L, "function");
    if (ar.what[0] == 'C')
        return lua_pushliteral(L, "C function");
    return lua_pushfstring(L, "function at %s:%d", ar.short_src, ar.linedefined);
}

/* The first line of a (traceback) message, for one-line warnings. */
static void first_line(const char *m, char *out, size_t cap)
{
    size_t n = strcspn(m, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, m, n);
    out[n] = '\0';
}

void et_lua_call_parser(lua_State *L, int insp_idx, int raw_idx, int ev_idx, const et_event *ev,
                        size_t block, size_t event)
{
    ev_idx = lua_absindex(L, ev_idx);
    lua_insp_box *box = lua_touserdata(L, insp_idx);
    int top = lua_gettop(L);
    raw_idx = lua_absindex(L, raw_idx);
    /* top + 1: how to name the parser in warnings */
    if (box->parser_name[0]) {
        lua_pushstring(L, box->parser_name);
    } else {
        lua_rawgeti(L, LUA_REGISTRYINDEX, box->parser_ref);
        et_lua_describe_function(L, -1);
        lua_remove(L, -2);
    }
    const char *what = lua_tostring(L, top + 1);
    int h = et_lua_push_msgh(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, box->parser_ref);
    lua_pushvalue(L, raw_idx);
    lua_pushvalue(L, ev_idx);
    et_str name = et_event_name(ev);
    if (lua_pcall(L, 2, 1, h) != LUA_OK) {
        char line[512];
        first_line(lua_tostring(L, -1) ? lua_tostring(L, -1) : "?", line, sizeof line);
        et_lua_warn(L, "delegate metadata parser (%s) failed on event '%.*s' (block %zu, event %zu): "
                       "%s; the raw metadata is kept",
                    what, (int)name.n, name.p, block, event, line);
        lua_pop(L, 1);
        lua_pushvalue(L, raw_idx);
    } else if (!lua_istable(L, -1)) {
        et_lua_warn(L, "delegate metadata parser (%s) returned a %s for event '%.*s' (block %zu, "
                       "event %zu), expected a table; the raw metadata is kept",
                    what, luaL_typename(L, -1), (int)name.n, name.p, block, event);
        lua_pop(L, 1);
        lua_pushvalue(L, raw_idx);
    }
    lua_replace(L, top + 1); /* the result replaces the description */
    lua_settop(L, top + 1);
    (void)insp_idx; /* the box is reached through it above */
}

int et_lua_time_converter(void *ud, const char *name, size_t name_len, uint64_t ticks,
                          double *out)
{
    et_lua_converter *c = ud;
    lua_State *L = c->L;
    int top = lua_gettop(L);
    int h = et_lua_push_msgh(L);
    lua_pushvalue(L, c->fn_index);
    lua_pushlstring(L, name, name_len);
    lua_pushinteger(L, (lua_Integer)ticks);
    int rc = -1;
    if (lua_pcall(L, 2, 1, h) != LUA_OK) {
        lua_pushlstring(L, name, name_len);
        if (lua_rawget(L, c->warned_index) == LUA_TNIL) {
            char line[512];
            first_line(lua_tostring(L, -2) ? lua_tostring(L, -2) : "?", line, sizeof line);
            et_lua_warn(L, "delegate time-scale converter (%s) failed on event '%.*s': %s; the "
                           "default conversion is used",
                        c->what, (int)name_len, name, line);
            lua_pushlstring(L, name, name_len);
            lua_pushboolean(L, 1);
            lua_rawset(L, c->warned_index);
        }
    } else if (lua_type(L, -1) != LUA_TNUMBER) {
        lua_pushlstring(L, name, name_len);
        if (lua_rawget(L, c->warned_index) == LUA_TNIL) {
            et_lua_warn(L, "delegate time-scale converter (%s) returned a %s for event '%.*s', "
                           "expected a number; the default conversion is used",
                        c->what, luaL_typename(L, -2), (int)name_len, name);
            lua_pushlstring(L, name, name_len);
            lua_pushboolean(L, 1);
            lua_rawset(L, c->warned_index);
        }
    } else {
        *out = lua_tonumber(L, -1);
        rc = 0;
    }
    lua_settop(L, top);
    return rc;
}
