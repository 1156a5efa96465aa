/*
 * lua_host.h - etinspect as a Lua host (see lua_host.c).
 */
#ifndef ET_LUA_HOST_H
#define ET_LUA_HOST_H

#include <lua.h>

/* Run the Lua side of the command line (scripts, -e, -l, -i, REPL) with
 * main()'s arguments; returns the exit code (0 ok, 1 a Lua error, 2 usage). */
int et_lua_host_main(int argc, char **argv);

/* A new state with the standard libraries and `etinspect` preloaded;
 * NULL when out of memory. */
lua_State *et_host_new_state(void);

/* lua_pcall with a traceback message handler (the usage and input errors
 * of etinspect.scripts, tables, are passed on as they are). */
int et_host_pcall(lua_State *L, int nargs, int nres);

/* Lua: input_kind(path) -> kind [, why]: what the file is by its content
 * (inputs.h): "etdump", "profile_results", "etrecord", "bundled_program",
 * "text", "unknown", "directory", or "missing" and the system's reason. */
int et_host_input_kind(lua_State *L);

#endif
