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

/* lua_pcall with a traceback message handler. */
int et_host_pcall(lua_State *L, int nargs, int nres);

#endif
