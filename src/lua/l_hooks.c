/* l_hooks.c - users' Lua functions called from the core; see l_hooks.h. */
#include "l_hooks.h"

#include <lauxlib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"
#include "base/shown.h"

#define ON_WARNING_KEY "etinspect.on_warning"

/* Give message `msg` (on top of the stack, popped) to the handler or
 * stderr. */
static void report(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, ON_WARNING_KEY) == LUA_TFUNCTION) {
        lua_pushvalue(L, -2);
        if (lua_pcall(L, 1, 0, 0) == LUA_OK) {
            lua_pop(L, 1);
            return;
        }
        /* the handler itself failed: fall back to stderr */
        const char *e = lua_tostring(L, -1);
        fprintf(stderr, "etinspect: warning: on_warning failed: %s\n", e ? e : "(not a string)");
    }
    lua_pop(L, 1);
    /* to the terminal, control characters escaped (base/shown.h); the
     * handler above and insp.warnings get the message as it is */
    size_t n;
    const char *m = lua_tolstring(L, -1, &n);
    fputs("etinspect: warning: ", stderr);
    et_fput_shown(stderr, m, n);
    fputc('\n', stderr);
    lua_pop(L, 1);
}

/* Report a warning: calls etinspect.on_warning(message) when the user set
 * one (protected: a failing handler falls back to stderr), else writes
 * "etinspect: warning: MESSAGE" to stderr. */
static void et_lua_warn(lua_State *L, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lua_pushstring(L, msg);
    report(L);
}

/* Append `msg` to the warnings of the Inspector userdata at `insp_idx`
 * (insp.warnings) unless it was given already; returns whether it was
 * new (true for anything but an Inspector: reported, not kept).  Raises
 * "out of memory". */
static bool keep_warning(lua_State *L, int insp_idx, const char *msg)
{
    lua_insp_box *box = luaL_testudata(L, insp_idx, ET_MT_INSPECTOR);
    if (!box)
        return true;
    int rc = et_warnings_add_once(&box->warnings, msg);
    if (rc < 0)
        luaL_error(L, "out of memory");
    return rc > 0;
}

void et_lua_insp_warn(lua_State *L, int insp_idx, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (keep_warning(L, insp_idx, msg)) {
        lua_pushstring(L, msg);
        report(L);
    }
}

void et_lua_insp_warnings_add(lua_State *L, int insp_idx, const char *msg)
{
    keep_warning(L, insp_idx, msg);
}

/* registry[INSPECTORS_KEY]: box (light userdata) -> its Inspector, weak
 * values.  A script can reach it (debug.getregistry()) and change it, so
 * what it gives is checked (push_inspector). */
#define INSPECTORS_KEY "etinspect.inspectors"

static void push_inspectors(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, INSPECTORS_KEY) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, INSPECTORS_KEY);
}

void et_lua_insp_register(lua_State *L, int ud)
{
    ud = lua_absindex(L, ud);
    lua_insp_box *box = luaL_checkudata(L, ud, ET_MT_INSPECTOR);
    push_inspectors(L);
    lua_pushvalue(L, ud);
    lua_rawsetp(L, -2, box);
    lua_pop(L, 1);
}

/* Push the Inspector of `box` and return true, or push nothing and return
 * false (not registered, or the entry is not it). */
static bool push_inspector(lua_State *L, lua_insp_box *box)
{
    push_inspectors(L);
    lua_rawgetp(L, -1, box);
    lua_remove(L, -2);
    if (luaL_testudata(L, -1, ET_MT_INSPECTOR) == box)
        return true;
    lua_pop(L, 1);
    return false;
}

#define HOLD_KEY "etinspect.hold_warnings"

/* Hold (hold = true) or release the warnings of models made from now on:
 * while held, et_lua_insp makes a model but et_lua_insp_give_warnings
 * gives its warnings only at the first call after the release, so no
 * handler runs and nothing is printed.  For the REPL's completion, which
 * reads fields while the user types (_core.hold_warnings,
 * lua/etinspect/repl.lua). */
static void et_lua_hold_warnings(lua_State *L, bool hold)
{
    lua_pushboolean(L, hold);
    lua_setfield(L, LUA_REGISTRYINDEX, HOLD_KEY);
}

static bool warnings_held(lua_State *L)
{
    bool held = lua_getfield(L, LUA_REGISTRYINDEX, HOLD_KEY) == LUA_TBOOLEAN && lua_toboolean(L, -1);
    lua_pop(L, 1);
    return held;
}

void et_lua_insp_give_warnings(lua_State *L, lua_insp_box *box)
{
    if (!box->insp || box->warnings_given >= box->insp->warnings.n || warnings_held(L))
        return;
    bool have = push_inspector(L, box);
    int ud = lua_gettop(L);
    /* one at a time, counted before it is given: a handler that reads the
     * model again (et_lua_insp) gives the next ones, not these again */
    while (box->insp && box->warnings_given < box->insp->warnings.n) {
        const char *w = box->insp->warnings.items[box->warnings_given++];
        if (have)
            et_lua_insp_warn(L, ud, "%s", w);
        else
            et_lua_warn(L, "%s", w);
    }
    if (have)
        lua_pop(L, 1);
}

/* _core.warn(message): et_lua_warn for the Lua library (etinspect.diff's
 * warnings go where the other warnings go). */
static int core_warn(lua_State *L)
{
    et_lua_warn(L, "%s", luaL_checkstring(L, 1));
    return 0;
}

/* _core.hold_warnings(hold): et_lua_hold_warnings for the REPL's
 * completion (lua/etinspect/repl.lua). */
static int core_hold_warnings(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TBOOLEAN);
    et_lua_hold_warnings(L, lua_toboolean(L, 1));
    return 0;
}

void et_lua_push_shown(lua_State *L, const char *s, size_t n)
{
    if (!et_shown_needed(s, n)) {
        lua_pushlstring(L, s, n);
        return;
    }
    et_strbuf sb = {0};
    et_sb_add_shown(&sb, s, n);
    if (sb.failed) {
        et_sb_free(&sb);
        luaL_error(L, "out of memory");
    }
    lua_pushlstring(L, sb.p, sb.n);
    et_sb_free(&sb);
}

/* _core.shown(s) -> s with control characters escaped (et_lua_push_shown),
 * for the Lua library's display forms (frame.lua's styles, the REPL). */
static int core_shown(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    et_lua_push_shown(L, s, n);
    return 1;
}

void et_lua_open_hooks(lua_State *L)
{
    lua_pushcfunction(L, core_shown);
    lua_setfield(L, -2, "shown");
    lua_pushcfunction(L, core_warn);
    lua_setfield(L, -2, "warn");
    lua_pushcfunction(L, core_hold_warnings);
    lua_setfield(L, -2, "hold_warnings");
}

static int msgh(lua_State *L)
{
    const char *m = lua_tostring(L, 1);
    if (!m)
        m = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, m, 1);
    return 1;
}

/* Push a traceback message handler for lua_pcall (returns its index). */
static int et_lua_push_msgh(lua_State *L)
{
    lua_pushcfunction(L, msgh);
    return lua_gettop(L);
}

const char *et_lua_describe_function(lua_State *L, int idx)
{
    lua_Debug ar;
    lua_pushvalue(L, idx);
    if (lua_type(L, -1) != LUA_TFUNCTION) { /* a callable table or userdata */
        lua_pop(L, 1);
        return lua_pushfstring(L, "callable %s", luaL_typename(L, idx));
    }
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
    insp_idx = lua_absindex(L, insp_idx);
    raw_idx = lua_absindex(L, raw_idx);
    lua_insp_box *box = lua_touserdata(L, insp_idx);
    int top = lua_gettop(L);
    /* top + 1: how to name the parser in warnings */
    if (box->parser_name[0]) {
        lua_pushstring(L, box->parser_name);
    } else {
        lua_rawgeti(L, LUA_REGISTRYINDEX, box->parser_ref);
        et_lua_describe_function(L, -1);
        lua_remove(L, -2);
    }
    const char *what = lua_tostring(L, top + 1);
    /* top + 2: the event's name, copied before any Lua code runs */
    et_lua_push_str(L, et_event_name(ev));
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
    const char *name = lua_tostring(L, top + 2);
    int h = et_lua_push_msgh(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, box->parser_ref);
    lua_pushvalue(L, raw_idx);
    lua_pushvalue(L, ev_idx);
    if (lua_pcall(L, 2, 1, h) != LUA_OK) {
        char line[512];
        first_line(lua_tostring(L, -1) ? lua_tostring(L, -1) : "?", line, sizeof line);
        et_lua_insp_warn(L, insp_idx,
                         "delegate metadata parser (%s) failed on event '%s' "
                         "(event_blocks[%zu].events[%zu]): %s; the raw metadata is kept",
                         what, name, block + 1, event + 1, line);
        lua_pop(L, 1);
        lua_pushvalue(L, raw_idx);
    } else if (!lua_istable(L, -1)) {
        et_lua_insp_warn(L, insp_idx,
                         "delegate metadata parser (%s) returned a %s for event '%s' "
                         "(event_blocks[%zu].events[%zu]), expected a table; the raw metadata "
                         "is kept",
                         what, luaL_typename(L, -1), name, block + 1, event + 1);
        lua_pop(L, 1);
        lua_pushvalue(L, raw_idx);
    }
    lua_replace(L, top + 1); /* the result replaces the description */
    lua_settop(L, top + 1);
}

/* One call of the converter, run protected by et_lua_time_converter. */
typedef struct conv_call {
    const et_lua_converter *c;
    const char *name;
    size_t name_len;
    uint64_t ticks;
    double out;
    int ok;
} conv_call;

/* Arguments: 1 the conv_call, 2 the converter, 3 the table of names warned
 * about, 4 the Inspector userdata. */
static int converter_body(lua_State *L)
{
    conv_call *a = lua_touserdata(L, 1);
    const char *why = NULL;
    int h = et_lua_push_msgh(L);
    lua_pushvalue(L, 2);
    lua_pushlstring(L, a->name, a->name_len);
    lua_pushinteger(L, (lua_Integer)a->ticks);
    char line[512];
    if (lua_pcall(L, 2, 1, h) != LUA_OK) {
        first_line(lua_tostring(L, -1) ? lua_tostring(L, -1) : "?", line, sizeof line);
        why = line;
    } else if (lua_type(L, -1) != LUA_TNUMBER) {
        snprintf(line, sizeof line, "returned a %s, expected a number", luaL_typename(L, -1));
        why = line;
    } else {
        a->out = lua_tonumber(L, -1);
        a->ok = 1;
        return 0;
    }
    lua_pushlstring(L, a->name, a->name_len);
    if (lua_rawget(L, 3) != LUA_TNIL) /* one warning per event name */
        return 0;
    lua_pushlstring(L, a->name, a->name_len);
    lua_pushboolean(L, 1);
    lua_rawset(L, 3);
    if (a->ok == 0 && strncmp(why, "returned a ", 11) == 0)
        et_lua_insp_warn(L, 4,
                         "delegate time-scale converter (%s) %s for delegated event '%.*s'; the "
                         "default conversion is used",
                         a->c->what, why, (int)a->name_len, a->name);
    else
        et_lua_insp_warn(L, 4,
                         "delegate time-scale converter (%s) failed on delegated event '%.*s': "
                         "%s; the default conversion is used",
                         a->c->what, (int)a->name_len, a->name, why);
    return 0;
}

int et_lua_time_converter(void *ud, const char *name, size_t name_len, uint64_t ticks,
                          double *out)
{
    et_lua_converter *c = ud;
    lua_State *L = c->L;
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 8))
        return -1;
    conv_call a = {c, name, name_len, ticks, 0.0, 0};
    /* nothing below allocates before the protected call */
    lua_pushcfunction(L, converter_body);
    lua_pushlightuserdata(L, &a);
    lua_pushvalue(L, c->fn_index);
    lua_pushvalue(L, c->warned_index);
    lua_pushvalue(L, c->insp_index);
    (void)lua_pcall(L, 4, 0, 0); /* only out of memory can fail it: the default then */
    lua_settop(L, top);
    if (!a.ok)
        return -1;
    *out = a.out;
    return 0;
}
