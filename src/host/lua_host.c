/*
 * lua_host.c - etinspect as a Lua 5.4 host.
 *
 *   etinspect SCRIPT.lua [ARGS...]     run a report script; `arg` as in lua(1):
 *                                      arg[0] the script, arg[1..] its arguments,
 *                                      and ... holds them too
 *   etinspect -e 'CODE' [...]          run CODE (may be repeated)
 *   etinspect -l MODULE [...]          require MODULE into the global MODULE
 *   etinspect -i [...]                 then open the REPL
 *   etinspect NAME [ARGS...]           run a bundled report script (top_ops, ...)
 *   etinspect --list-scripts           list the bundled scripts
 *   etinspect --help SCRIPT            a script's description and arguments
 *
 * A script file may declare itself by returning a table
 * {description=, usage=, args=, run=function(args)}; run is then called
 * with the script's arguments.
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

/* Lua side of script handling: (mode, target, args...) where mode is
 * "run", "help" or "list"; target a file path or a bundled script name. */
static const char scripts_lua[] =
    "local mode, target = ...\n"
    "local args = table.pack(select(3, ...))\n"
    "require('etinspect')\n"
    "local index = require('etinspect.scripts')\n"
    "local function load_script(t)\n"
    "  local f = io.open(t, 'r')\n"
    "  if f then\n"
    "    f:close()\n"
    "    local chunk = assert(loadfile(t))\n"
    "    if mode == 'help' then return chunk() end\n"
    "    return nil, chunk\n"
    "  end\n"
    "  for _, n in ipairs(index.names) do\n"
    "    if n == t then return (require('etinspect.scripts.' .. n)) end\n"
    "  end\n"
    "  error(string.format(\"'%s' is neither a file nor a bundled script (etinspect --list-scripts)\", t), 0)\n"
    "end\n"
    "if mode == 'list' then\n"
    "  for _, n in ipairs(index.names) do\n"
    "    local s = require('etinspect.scripts.' .. n)\n"
    "    io.write(string.format('%-16s %s\\n', n, s.description))\n"
    "  end\n"
    "  return\n"
    "end\n"
    "local S, chunk = load_script(target)\n"
    "if mode == 'help' then\n"
    "  if type(S) ~= 'table' or not S.description then\n"
    "    io.write(target, ': no description (a script declares one by returning {description=..., run=...})\\n')\n"
    "    return\n"
    "  end\n"
    "  io.write(S.description, '\\n\\nusage: etinspect ', S.usage or target, '\\n')\n"
    "  local rows = {}\n"
    "  for _, a in ipairs(S.args or {}) do rows[#rows + 1] = a end\n"
    "  local ok, common = pcall(require, 'etinspect.scripts.common')\n"
    "  if ok and not chunk and index then for _, a in ipairs(common.COMMON_OPTIONS) do rows[#rows + 1] = a end end\n"
    "  if #rows > 0 then io.write('\\narguments:\\n') end\n"
    "  for _, a in ipairs(rows) do io.write(string.format('  %-24s %s\\n', a[1], a[2])) end\n"
    "  return\n"
    "end\n"
    "if chunk then\n"
    "  local r = chunk(table.unpack(args, 1, args.n))\n"
    "  if type(r) == 'table' and type(r.run) == 'function' then r.run({table.unpack(args, 1, args.n)}) end\n"
    "  return\n"
    "end\n"
    "local ok, err = pcall(S.run, {table.unpack(args, 1, args.n)})\n"
    "if not ok then\n"
    "  if type(err) == 'table' and err.usage then io.stderr:write('etinspect: ', err.usage, '\\n'); os.exit(2) end\n"
    "  if type(err) == 'table' and err.input then io.stderr:write('etinspect: error: ', err.input, '\\n'); os.exit(1) end\n"
    "  error(err, 0)\n"
    "end\n";

static int scripts(lua_State *L, const char *mode, const char *target, int argc, char **argv,
                   int first_arg)
{
    int rc = luaL_loadbuffer(L, scripts_lua, sizeof scripts_lua - 1, "=[scripts]");
    if (rc != LUA_OK)
        return report(L, rc);
    lua_pushstring(L, mode);
    if (target)
        lua_pushstring(L, target);
    else
        lua_pushnil(L);
    for (int i = first_arg; i < argc; i++)
        lua_pushstring(L, argv[i]);
    return report(L, et_host_pcall(L, 2 + (argc > first_arg ? argc - first_arg : 0), 0));
}

static int run_script(lua_State *L, const char *path, int argc, char **argv, int first_arg)
{
    return scripts(L, "run", path, argc, argv, first_arg);
}

int et_lua_host_main(int argc, char **argv)
{
    lua_State *L = et_host_new_state();
    if (!L) {
        fprintf(stderr, "etinspect: cannot create a Lua state (out of memory)\n");
        return 1;
    }
    int interactive = 0, i, status = 0;
    if (argc >= 2 && strcmp(argv[1], "--list-scripts") == 0) {
        status = scripts(L, "list", NULL, 0, argv, 0);
        lua_close(L);
        return status == 0 ? 0 : 1;
    }
    if (argc == 3 && strcmp(argv[1], "--help") == 0) {
        status = scripts(L, "help", argv[2], 0, argv, 0);
        lua_close(L);
        return status == 0 ? 0 : 2;
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
