/*
 * lua_host.c - etinspect as a Lua 5.4 host.
 *
 *   etinspect SCRIPT.lua [ARGS...]     run a report script; `arg` as in lua(1):
 *                                      arg[0] the script, arg[1..] its arguments,
 *                                      and ... holds them too
 *   etinspect -e 'CODE' [...]          run CODE (may be repeated)
 *   etinspect -l MODULE [...]          require MODULE into the global MODULE
 *   etinspect -i [...]                 then open the REPL
 *
 * `require "etinspect"` works with no path setup: the module is compiled in.
 * An error in a script prints its traceback on stderr and exits 1.
 */
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "repl.h"

int luaopen_etinspect(lua_State *L);

static int msgh(lua_State *L)
{
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
    /* require "etinspect" resolves to the compiled-in module */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_etinspect);
    lua_setfield(L, -2, "etinspect");
    lua_pop(L, 2);
    return L;
}

static int report(lua_State *L, int rc)
{
    if (rc != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        fprintf(stderr, "etinspect: %s\n", m ? m : "(error object is not a string)");
        lua_pop(L, 1);
    }
    return rc;
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

static int run_script(lua_State *L, const char *path, int argc, char **argv, int first_arg)
{
    int rc = luaL_loadfile(L, strcmp(path, "-") == 0 ? NULL : path);
    if (rc != LUA_OK)
        return report(L, rc);
    for (int i = first_arg; i < argc; i++)
        lua_pushstring(L, argv[i]);
    return report(L, et_host_pcall(L, argc - first_arg, 0));
}

int et_lua_host_main(int argc, char **argv)
{
    lua_State *L = et_host_new_state();
    if (!L) {
        fprintf(stderr, "etinspect: cannot create a Lua state (out of memory)\n");
        return 1;
    }
    int interactive = 0, i, status = 0;
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
                int rc = luaL_loadbuffer(L, v, strlen(v), "=(command line)");
                status = report(L, rc == LUA_OK ? et_host_pcall(L, 0, 0) : rc);
            } else {
                lua_getglobal(L, "require");
                lua_pushstring(L, v);
                status = report(L, et_host_pcall(L, 1, 1));
                if (status == LUA_OK)
                    lua_setglobal(L, v);
            }
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else {
            break;
        }
    }
    if (status == 0 && i < argc) {
        make_arg(L, argc, argv, i);
        status = run_script(L, argv[i], argc, argv, i + 1);
    } else if (status == 0) {
        make_arg(L, argc, argv, 0);
    }
    if (status == 0 && (interactive || argc == 1))
        status = et_repl_run(L);
    lua_close(L);
    return status == 0 ? 0 : 1;
}
