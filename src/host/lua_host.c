/*
 * lua_host.c - etinspect as a Lua 5.4 host.
 *
 *   etinspect SCRIPT.lua [ARGS...]     run a script; `arg` as in lua(1):
 *                                      arg[0] the script, arg[1..] its arguments,
 *                                      and ... holds them too
 *   etinspect - [ARGS...]              the script is read from standard input
 *   etinspect -e 'CODE' [...]          run CODE (may be repeated)
 *   etinspect -l MODULE [...]          require MODULE into the global MODULE
 *   etinspect -i [...]                 then open the REPL
 *   etinspect NAME [ARGS...]           run a bundled report script (top_ops, ...)
 *   etinspect --list-scripts           list the bundled scripts
 *   etinspect --help SCRIPT            a script's description and arguments
 *
 * What the first argument is: a bundled script's name first (a file of that
 * name does not shadow it), then an input file by its content (ETDump,
 * ETRecord, ... : handed to the command line, cli.c), then a Lua script
 * when it ends in ".lua" or is a path with a '/'; anything else is an error
 * with a suggestion (etinspect.scripts.resolve).
 *
 * Every chunk sees the global `etinspect` (the module), as in the REPL;
 * `require "etinspect"` works with no path setup: the module is compiled in.
 * A script declaring its arguments ({description=, args=, run=}) gets them
 * parsed (etinspect.scripts).  A usage error of a script prints its message
 * (exit 2), an input error its message (exit 1), any other error its
 * traceback (exit 1).
 */
#include "lua_host.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "inputs.h"
#include "repl.h"

int luaopen_etinspect(lua_State *L);

/* Message handler: a traceback for errors, except the usage and input
 * errors of etinspect.scripts (tables with a `usage` or `input` field),
 * which are kept as they are. */
static int msgh(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_pushliteral(L, "usage");
        int u = lua_rawget(L, 1) == LUA_TSTRING;
        lua_pushliteral(L, "input");
        int in = lua_rawget(L, 1) == LUA_TSTRING;
        lua_pop(L, 2);
        if (u || in) {
            lua_settop(L, 1);
            return 1;
        }
    }
    const char *m = lua_tostring(L, 1);
    if (!m) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        m = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, m, 1);
    return 1;
}

int et_host_pcall(lua_State *L, int nargs, int nres)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msgh);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    return rc;
}

lua_State *et_host_new_state(void)
{
    lua_State *L = luaL_newstate();
    if (!L)
        return NULL;
    luaL_openlibs(L);
    et_host_safe_loaders(L);
    et_host_safe_debug(L);
    /* require "etinspect" resolves to the compiled-in module */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_etinspect);
    lua_setfield(L, -2, "etinspect");
    lua_pop(L, 2);
    return L;
}

int et_host_input_kind(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    errno = 0;
    et_input_kind k = et_input_kind_of(path);
    lua_pushstring(L, et_input_kind_name(k));
    if (k != ET_INPUT_MISSING)
        return 1;
    lua_pushstring(L, strerror(errno ? errno : ENOENT));
    return 2;
}

int et_host_assign_inputs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    if (n < 0 || n > 64)
        return luaL_error(L, "expected 1 to 64 files, got %d", (int)n);
    const char *files[64];
    for (lua_Integer i = 0; i < n; i++) {
        /* a string of the table stays anchored there */
        if (lua_rawgeti(L, 1, i + 1) != LUA_TSTRING)
            return luaL_error(L, "file %d: expected a string, got %s", (int)i + 1,
                              luaL_typename(L, -1));
        files[i] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    et_inputs in = {0};
    char msg[1024];
    if (et_inputs_assign(files, (int)n, &in, msg, sizeof msg) != 0)
        return luaL_error(L, "%s", msg);
    lua_createtable(L, 0, 5);
    const char *const keys[] = {"etdump_path", "profile_results_path", "etrecord",
                                "bundled_program_path", "debug_buffer_path"};
    const char *const vals[] = {in.etdump, in.profile_results, in.etrecord, in.bundled_program,
                                in.debug_buffer};
    for (int k = 0; k < 5; k++) {
        if (vals[k]) {
            lua_pushstring(L, vals[k]);
            lua_setfield(L, -2, keys[k]);
        }
    }
    return 1;
}

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

/* Build the global `arg` (arg[0] = argv[script], negative indices before). */
static void make_arg(lua_State *L, int argc, char **argv, int script)
{
    lua_createtable(L, argc - script - 1, script + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    lua_setglobal(L, "arg");
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

/* What argv[i] is (etinspect.scripts.resolve): pushes the answer and
 * returns 0, or reports the error and returns its exit status. */
static int resolve(lua_State *L, const char *target)
{
    push_scripts_fn(L, "resolve");
    lua_pushstring(L, target);
    lua_pushcfunction(L, et_host_input_kind);
    return report(L, et_host_pcall(L, 2, 1));
}

int et_lua_host_main(int argc, char **argv)
{
    lua_State *L = et_host_new_state();
    if (!L) {
        fprintf(stderr, "etinspect: cannot create a Lua state (out of memory)\n");
        return 1;
    }
    int interactive = 0, i, status;
    lua_pushcfunction(L, set_module_global);
    status = report(L, et_host_pcall(L, 0, 0));
    int rows, cols;
    if (status == 0 && isatty(STDOUT_FILENO) && et_repl_terminal_size(&rows, &cols)) {
        lua_pushcfunction(L, set_terminal_width);
        lua_pushinteger(L, cols);
        status = report(L, et_host_pcall(L, 1, 0));
    }
    if (status == 0 && argc >= 2 && strcmp(argv[1], "--list-scripts") == 0) {
        status = scripts_main(L, "list", "", "", 0, argv, 0);
        lua_close(L);
        return status;
    }
    if (status == 0 && argc == 3 && strcmp(argv[1], "--help") == 0) {
        status = resolve(L, argv[2]);
        if (status == 0) {
            const char *how = lua_tostring(L, -1);
            if (how && strcmp(how, "data") == 0) {
                fprintf(stderr, "etinspect: --help %s: not a report script (etinspect --help "
                                "shows the program's options)\n", argv[2]);
                status = 2;
            } else {
                status = scripts_main(L, "help", argv[2], how ? how : "", 0, argv, 0);
            }
        }
        lua_close(L);
        return status;
    }
    for (i = 1; i < argc && status == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-i") == 0) {
            interactive = 1;
        } else if (strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "etinspect: '%s' needs an argument\n", a);
                lua_close(L);
                return 2;
            }
            const char *v = argv[++i];
            if (a[1] == 'e') {
                int rc = luaL_loadbufferx(L, v, strlen(v), "=(command line)", "t");
                status = report(L, rc == LUA_OK ? et_host_pcall(L, 0, 0) : rc);
            } else {
                lua_getglobal(L, "require");
                lua_pushstring(L, v);
                status = report(L, et_host_pcall(L, 1, 1));
                if (status == 0)
                    lua_setglobal(L, v);
            }
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "etinspect: unknown option '%s' here (Lua options: -e CODE, "
                            "-l MODULE, -i; etinspect --help)\n", a);
            lua_close(L);
            return 2;
        } else {
            break;
        }
    }
    if (status == 0 && i < argc) {
        status = resolve(L, argv[i]);
        const char *how = status == 0 ? lua_tostring(L, -1) : NULL;
        if (how && strcmp(how, "data") == 0) {
            lua_close(L);
            if (i != 1) {
                fprintf(stderr, "etinspect: %s: an input file after Lua options; open it from "
                                "Lua (etinspect.Inspector{...}, or .open in the REPL)\n", argv[i]);
                return 2;
            }
            return et_cli_main(argc, argv);
        }
        if (how) {
            make_arg(L, argc, argv, i);
            status = scripts_main(L, "run", argv[i], how, argc, argv, i + 1);
        }
    } else if (status == 0) {
        make_arg(L, argc, argv, 0);
    }
    if (status == 0 && (interactive || argc == 1))
        status = et_repl_run(L);
    lua_close(L);
    return status;
}
