/*
 * lua_host.c - etinspect as a Lua 5.4 host: the steps of lua_host.h, which
 * main.c runs in the order lua(1) does (the Lua options, then the script,
 * then the REPL).
 *
 *   etinspect SCRIPT.lua [ARGS...]     run a script; `arg` as in lua(1):
 *                                      arg[0] the script, arg[1..] its arguments,
 *                                      and ... holds them too
 *   etinspect - [ARGS...]              the script is read from standard input
 *   etinspect -e 'CODE' [...]          run CODE (may be repeated)
 *   etinspect -l MODULE [...]          require MODULE into the global MODULE
 *   etinspect NAME [ARGS...]           run a bundled report script (top_ops, ...)
 *   etinspect --list-scripts           list the bundled scripts
 *   etinspect --help SCRIPT            a script's description and arguments
 *
 * What the argument naming what to run is: a bundled script's name first
 * (a file of that name does not shadow it), then an input file by its
 * content (ETDump, ETRecord, ... : main.c hands it to the command line),
 * then a Lua script when it ends in ".lua" or is a path with a '/';
 * anything else is an error with a suggestion (etinspect.scripts.resolve).
 *
 * Every chunk sees the global `etinspect` (the module), as in the REPL;
 * `require "etinspect"` works with no path setup: the module is compiled in.
 * A script declaring its arguments ({description=, args=, run=}) gets them
 * parsed (etinspect.scripts).  A usage error of a script prints its message
 * (exit 2), an input error its message (exit 1), any other error its
 * traceback (exit 1).  A declared script's `run` may return its exit
 * status, an integer in 0..125 (diff's regression gate returns 3); any
 * other value is 0.
 */
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

/* Protected: print the error object at 1 as report() says; the status
 * into the int at 2 (light userdata).  Protected because reading the
 * fields of a table, or converting a number, may allocate. */
static int report_p(lua_State *L)
{
    int *status = lua_touserdata(L, 2);
    lua_settop(L, 1);
    if (lua_type(L, 1) == LUA_TTABLE) {
        if (lua_getfield(L, 1, "usage_text") == LUA_TSTRING)
            fprintf(stderr, "%s\n", lua_tostring(L, -1));
        if (lua_getfield(L, 1, "usage") == LUA_TSTRING) {
            fprintf(stderr, "etinspect: %s\n", lua_tostring(L, -1));
            *status = 2;
        } else if (lua_getfield(L, 1, "input") == LUA_TSTRING) {
            fprintf(stderr, "etinspect: error: %s\n", lua_tostring(L, -1));
        } else {
            fprintf(stderr, "etinspect: (error object is a table value)\n");
        }
        return 0;
    }
    const char *m = lua_tostring(L, 1);
    if (m && strcmp(m, "not enough memory") == 0) /* raised again by Lua code (msgh) */
        fputs("etinspect: error: out of memory\n", stderr);
    else
        fprintf(stderr, "etinspect: %s\n", m ? m : "(error object is not a string)");
    return 0;
}

/* Report the error on top of the stack (if rc says there is one) and pop
 * it; returns the exit status: 0, 2 for a usage error, else 1.  Out of
 * memory (LUA_ERRMEM, also while reporting) is "error: out of memory". */
static int report(lua_State *L, int rc)
{
    if (rc == LUA_OK)
        return 0;
    int status = 1;
    if (rc != LUA_ERRMEM) {
        lua_pushcfunction(L, report_p); /* light: pushed without allocating */
        lua_insert(L, -2);
        lua_pushlightuserdata(L, &status);
        rc = lua_pcall(L, 2, 0, 0);
    }
    if (rc != LUA_OK) { /* the memory error's object */
        fputs("etinspect: error: out of memory\n", stderr);
        status = 1;
        lua_pop(L, 1);
    }
    return status;
}

/* What the global `arg` is made of. */
typedef struct {
    int argc;
    char **argv;
    int script;
} arg_list;

/* Protected: the global `arg` from the arg_list at 1 (light userdata);
 * protected because an -e chunk may have given _G a __newindex. */
static int set_arg(lua_State *L)
{
    const arg_list *a = lua_touserdata(L, 1);
    lua_createtable(L, a->argc - a->script - 1, a->script + 1);
    for (int i = 0; i < a->argc; i++) {
        lua_pushstring(L, a->argv[i]);
        lua_rawseti(L, -2, i - a->script);
    }
    lua_setglobal(L, "arg");
    return 0;
}

int et_lua_host_set_arg(int argc, char **argv, int script)
{
    lua_State *L = et_host_lua(); /* made by et_lua_host_open */
    arg_list a = {argc, argv, script};
    lua_pushcfunction(L, set_arg);
    lua_pushlightuserdata(L, &a);
    return report(L, et_host_pcall(L, 1, 0));
}

/* Protected: etinspect = require "etinspect". */
static int set_module_global(lua_State *L)
{
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect");
    lua_call(L, 1, 1);
    lua_setglobal(L, "etinspect");
    return 0;
}

/* Protected: etinspect.set_option("display.width", cols) - a script or
 * -e code whose output is a terminal fits its frames to the terminal, as
 * the REPL does (and as pandas detects it); written to a file or a pipe,
 * the width stays unknown (80). */
static int set_terminal_width(lua_State *L)
{
    lua_Integer cols = lua_tointeger(L, 1);
    lua_getglobal(L, "etinspect");
    lua_getfield(L, -1, "set_option");
    lua_pushliteral(L, "display.width");
    lua_pushinteger(L, cols);
    lua_call(L, 2, 0);
    return 0;
}

/* A call of a function of etinspect.scripts: fn(strs..., argv[first..]). */
typedef struct {
    const char *fn;
    const char *strs[3];
    int nstrs;
    lua_CFunction cfn; /* pushed after strs when not NULL */
    const char *src;   /* pushed after them as a string when not NULL */
    size_t src_len;
    int argc;
    char **argv;
    int first;
} scripts_call;

/* Protected: require("etinspect.scripts")[c.fn](c's arguments), the
 * scripts_call at 1 (light userdata); leaves its results.  Everything is
 * pushed in here, where running out of memory is an error of the call. */
static int call_scripts(lua_State *L)
{
    const scripts_call *c = lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect.scripts");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, c->fn);
    lua_remove(L, 1);
    for (int i = 0; i < c->nstrs; i++)
        lua_pushstring(L, c->strs[i]);
    int n = c->nstrs;
    if (c->cfn) {
        lua_pushcfunction(L, c->cfn);
        n++;
    }
    if (c->src) {
        lua_pushlstring(L, c->src, c->src_len);
        n++;
    }
    for (int i = c->first; i < c->argc; i++, n++) {
        luaL_checkstack(L, 1, "too many arguments");
        lua_pushstring(L, c->argv[i]);
    }
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* Protected call of etinspect.scripts' c->fn with `nres` results. */
static int pcall_scripts(lua_State *L, const scripts_call *c, int nres)
{
    lua_pushcfunction(L, call_scripts);
    lua_pushlightuserdata(L, (void *)c);
    return et_host_pcall(L, 1, nres);
}

/* etinspect.scripts.main(mode, target, how, argv[first..]). */
static int scripts_main(lua_State *L, const char *mode, const char *target, const char *how,
                        int argc, char **argv, int first)
{
    scripts_call c = {"main", {mode, target, how}, 3, NULL, NULL, 0, argc, argv, first};
    return report(L, pcall_scripts(L, &c, 0));
}

int et_lua_host_open(void)
{
    lua_State *L = et_host_lua();
    if (!L) {
        fprintf(stderr, "etinspect: cannot create a Lua state (out of memory)\n");
        return ET_EXIT_INPUT;
    }
    lua_pushcfunction(L, set_module_global);
    return report(L, et_host_pcall(L, 0, 0));
}

int et_lua_host_fit_terminal(void)
{
    lua_State *L = et_host_lua();
    int rows, cols;
    if (!isatty(STDOUT_FILENO) || !et_host_terminal_size(&rows, &cols))
        return 0;
    lua_pushcfunction(L, set_terminal_width);
    lua_pushinteger(L, cols);
    return report(L, et_host_pcall(L, 1, 0));
}

#define HOW_KEY "etinspect.host.how" /* registry: the last answer of resolve */

/* Protected: etinspect.scripts.resolve, the scripts_call at 1; its answer
 * anchored in the registry at HOW_KEY and returned. */
static int anchor_how(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushcfunction(L, call_scripts);
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, HOW_KEY);
    return 1;
}

int et_lua_host_resolve(const char *target, const char **how)
{
    lua_State *L = et_host_lua();
    *how = NULL;
    scripts_call c = {"resolve", {target}, 1, et_host_input_kind, NULL, 0, 0, NULL, 0};
    lua_pushcfunction(L, anchor_how);
    lua_pushlightuserdata(L, &c);
    int status = report(L, et_host_pcall(L, 1, 1));
    if (status != 0)
        return status;
    /* the answer, anchored in the registry (a string stays where it is) */
    if (lua_type(L, -1) == LUA_TSTRING)
        *how = lua_tostring(L, -1);
    lua_pop(L, 1);
    return 0;
}

int et_lua_host_list_scripts(void)
{
    return scripts_main(et_host_lua(), "list", "", "", 0, NULL, 0);
}

int et_lua_host_script_help(const char *name, const char *how)
{
    if (how && strcmp(how, "data") == 0) {
        fprintf(stderr, "etinspect: --help %s: not a report script (etinspect --help "
                        "shows the program's options)\n", name);
        return ET_EXIT_USAGE;
    }
    return scripts_main(et_host_lua(), "help", name, how ? how : "", 0, NULL, 0);
}

int et_lua_host_run_code(const char *code)
{
    lua_State *L = et_host_lua();
    int rc = luaL_loadbufferx(L, code, strlen(code), "=(command line)", "t");
    return report(L, rc == LUA_OK ? et_host_pcall(L, 0, 0) : rc);
}

/* Protected: _G[name] = require(name), the name at 1 (-l; light
 * userdata, pushed in here where it may run out of memory); the globals
 * are read and written here, where an -e chunk's metamethods on _G may
 * raise. */
static int require_global(lua_State *L)
{
    const char *module = lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_pushstring(L, module);
    lua_getglobal(L, "require");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    lua_setglobal(L, lua_tostring(L, 1));
    return 0;
}

int et_lua_host_require(const char *module)
{
    lua_State *L = et_host_lua();
    lua_pushcfunction(L, require_global);
    lua_pushlightuserdata(L, (void *)module);
    return report(L, et_host_pcall(L, 1, 0));
}

int et_lua_host_run_script(int argc, char **argv, int script, const char *how)
{
    lua_State *L = et_host_lua();
    scripts_call c = {"main", {"run", argv[script], how}, 3, NULL, NULL, 0, argc, argv, script + 1};
    if (how && strcmp(how, "stdin") == 0) {
        /* the script's text, read (and told apart from a dump) by the host */
        const unsigned char *data;
        char msg[512];
        if (et_host_stdin_all(&data, &c.src_len, msg, sizeof msg) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", msg);
            return ET_EXIT_INPUT;
        }
        c.src = (const char *)data;
    }
    int status = report(L, pcall_scripts(L, &c, 1));
    if (status != 0)
        return status;
    /* a declared script's run may return its exit status (diff's gate: 3) */
    lua_Integer rc = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    return rc >= 0 && rc <= 125 ? (int)rc : 0;
}
