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

/* Make the state load Lua source only (safelib.c): load, loadfile,
 * dofile and require's file searcher refuse binary chunks, which Lua does
 * not verify and which can crash the process; a mode without 't' given to
 * load or loadfile raises an error naming it.  et_host_new_state calls it
 * after luaL_openlibs; the host loads its own chunks (scripts, -e, REPL
 * input) with mode "t". */
void et_host_safe_loaders(lua_State *L);

/* Replace the debug functions that would change the binding's internal
 * state (the registry, userdata metatables and user values, C functions'
 * upvalues and stack slots) by checked ones (safelib.c): the registry
 * reads through a read-only view, the rest raise an error naming
 * themselves.  et_host_new_state calls it before `etinspect` is opened, so
 * the Lua library's copy of the standard library (_core.std) is checked
 * too. */
void et_host_safe_debug(lua_State *L);

/* lua_pcall with a traceback message handler (the usage and input errors
 * of etinspect.scripts, tables, are passed on as they are). */
int et_host_pcall(lua_State *L, int nargs, int nres);

/* Lua: input_kind(path) -> kind [, why]: what the file is by its content
 * (inputs.h): "etdump", "profile_results", "etrecord", "bundled_program",
 * "text", "unknown", "directory", or "missing" and the system's reason. */
int et_host_input_kind(lua_State *L);

/* Lua: assign_inputs({path, ...}) -> {etdump_path=, profile_results_path=,
 * etrecord=, bundled_program_path=, debug_buffer_path=}: each file's role
 * by its content (et_inputs_assign; keys as etinspect.Inspector takes
 * them); raises the reason when a file cannot be read or two claim one
 * role. */
int et_host_assign_inputs(lua_State *L);

#endif
