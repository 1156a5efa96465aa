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
 * traceback (exit 1).
 */
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

/* Report the error on top of the stack (if rc says there is one) and pop
 * it; returns the exit status: 0, 2 for a usage error, else 1. */
static int report(lua_State *L, int rc)
{
    if (rc == LUA_OK)
        return 0;
    int status = 1;
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushliteral(L, "usage_text");
        if (lua_rawget(L, -2) == LUA_TSTRING)
            fprintf(stderr, "%s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        lua_pushliteral(L, "usage");
        if (lua_rawget(L, -2) == LUA_TSTRING) {
            fprintf(stderr, "etinspect: %s\n", lua_tostring(L, -1));
            status = 2;
        } else {
            lua_pop(L, 1);
            lua_pushliteral(L, "input");
            if (lua_rawget(L, -2) == LUA_TSTRING)
                fprintf(stderr, "etinspect: error: %s\n", lua_tostring(L, -1));
            else
                fprintf(stderr, "etinspect: (error object is a table value)\n");
        }
        lua_pop(L, 2);
        return status;
    }
    const char *m = lua_tostring(L, -1);
    fprintf(stderr, "etinspect: %s\n", m ? m : "(error object is not a string)");
    lua_pop(L, 1);
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

/* Protected: require("etinspect.scripts")[fn](args...) with the arguments
 * on the stack; leaves its results. */
static int call_scripts(lua_State *L)
{
    const char *fn = lua_tostring(L, lua_upvalueindex(1));
    int n = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect.scripts");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, fn);
    lua_insert(L, 1);
    lua_pop(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* Push the protected caller of etinspect.scripts' function `fn`. */
static void push_scripts_fn(lua_State *L, const char *fn)
{
    lua_pushstring(L, fn);
    lua_pushcclosure(L, call_scripts, 1);
}

/* etinspect.scripts.main(mode, target, how, argv[first..]). */
static int scripts_main(lua_State *L, const char *mode, const char *target, const char *how,
                        int argc, char **argv, int first)
{
    push_scripts_fn(L, "main");
    lua_pushstring(L, mode);
    lua_pushstring(L, target);
    lua_pushstring(L, how);
    int n = 3;
    for (int i = first; i < argc; i++, n++) {
        luaL_checkstack(L, 1, "too many arguments");
        lua_pushstring(L, argv[i]);
    }
    return report(L, et_host_pcall(L, n, 0));
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

int et_lua_host_resolve(const char *target, const char **how)
{
    lua_State *L = et_host_lua();
    *how = NULL;
    push_scripts_fn(L, "resolve");
    lua_pushstring(L, target);
    lua_pushcfunction(L, et_host_input_kind);
    int status = report(L, et_host_pcall(L, 2, 1));
    if (status != 0)
        return status;
    /* the answer, anchored in the registry (a string stays where it is) */
    lua_setfield(L, LUA_REGISTRYINDEX, HOW_KEY);
    if (lua_getfield(L, LUA_REGISTRYINDEX, HOW_KEY) == LUA_TSTRING)
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

/* Protected: _G[name] = require(name), the name at 1 (-l); the globals
 * are read and written here, where an -e chunk's metamethods on _G may
 * raise. */
static int require_global(lua_State *L)
{
    lua_settop(L, 1);
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
    lua_pushstring(L, module);
    return report(L, et_host_pcall(L, 1, 0));
}

int et_lua_host_run_script(int argc, char **argv, int script, const char *how)
{
    return scripts_main(et_host_lua(), "run", argv[script], how, argc, argv, script + 1);
}
