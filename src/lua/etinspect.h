/*
 * etinspect.h - the Lua binding's public C interface: what a host that
 * embeds the binding calls (the etinspect program's src/host/, the fuzz
 * targets).  Everything else of src/lua/ is the binding's own (binding.h
 * and the l_*.h headers) and is reached from Lua only.
 *
 * The binding depends on the core (src/core/) and Lua, never on a host: a
 * service of the host that the Lua library needs (what an input file is,
 * for example) is handed in as a Lua function by the host.
 */
#ifndef ET_LUA_ETINSPECT_H
#define ET_LUA_ETINSPECT_H

#include <lua.h>

/* The `etinspect` module (lua_CFunction, for package.preload or
 * luaL_requiref; also the entry point of etinspect.so for a stock lua5.4).
 * Registers the userdata types, captures the standard library the Lua
 * library uses (before any script can replace require or io) and returns
 * the module table, built by the embedded Lua library (lua/etinspect/).
 * Raises a Lua error when out of memory. */
int luaopen_etinspect(lua_State *L);

/* An inspector opened in C handed to Lua (the command line's --html_path
 * and --compare_results: one model for every output), as a lua_CFunction
 * for lua_pcall.  Arguments: 1 the et_inspector * (light userdata, from
 * et_inspector_open), 2 a table of the options it was opened with that an
 * Inspector reports and guards (etdump_path, profile_results_path,
 * debug_buffer_path, bundled_program_path, etrecord_method,
 * reference_graph_name; strings or nil; and delegate_metadata_parser, a
 * function, with delegate_metadata_parser_name, how warnings name it: the
 * command line's --delegate_metadata_parser), 3 a bool * (light userdata).
 * Loads the etinspect module (which registers the types) and returns an
 * Inspector userdata that owns the inspector from then on (closed with
 * it); *owned is set once it does - if the call fails before (out of
 * memory), the caller still owns it.  An ETRecord the inspector opened
 * itself becomes insp.etrecord, an ETRecord userdata owning it, made first
 * so that it is collected after the Inspector. */
int et_lua_adopt_inspector(lua_State *L);

#endif
