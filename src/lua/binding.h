/*
 * binding.h - shared pieces of the Lua binding (module `etinspect`).
 *
 * The binding exposes the C core's objects to Lua 5.4 as userdata, one
 * source file per type:
 *
 *   l_inspector.c  Inspector     owns an et_inspector
 *   l_block.c      EventBlock    a block of an Inspector
 *   l_event.c      Event         an event of a block
 *   l_perfdata.c   PerfData      the statistics of an event
 *   l_runs.c       Run, RawEvent raw RunData and events, C-closure iterators
 *   l_module.c     luaopen_etinspect: the module table, TimeScale, the
 *                  embedded Lua library (lua/)
 *
 * Lifetime: an Inspector userdata holds an `lua_insp_box` whose `insp` is
 * NULL once the inspector is closed (insp:close(), `<close>`, or __gc).
 * Every child userdata keeps its Inspector alive through its user value 1
 * and checks `box->insp` on every access, so using an object after its
 * inspector was closed raises "inspector is closed" instead of reading
 * freed memory.
 */
#ifndef ET_LUA_BINDING_H
#define ET_LUA_BINDING_H

#include <lauxlib.h>
#include <lua.h>

#include "model.h"

/* Metatable names (luaL_newmetatable / luaL_checkudata). */
#define ET_MT_INSPECTOR "etinspect.Inspector"
#define ET_MT_BLOCK "etinspect.EventBlock"
#define ET_MT_EVENT "etinspect.Event"
#define ET_MT_PERFDATA "etinspect.PerfData"
#define ET_MT_RUN "etinspect.Run"
#define ET_MT_RAWEVENT "etinspect.RawEvent"

/* The Inspector's userdata payload. */
typedef struct lua_insp_box {
    et_inspector *insp; /* NULL once closed */
    int parser_ref;     /* delegate metadata parser (registry ref) or LUA_NOREF */
    char parser_name[64];
} lua_insp_box;

/* A child's payload: its inspector, block index and (for events and perf
 * data) event index. */
typedef struct lua_child {
    lua_insp_box *box;
    size_t block;
    size_t event;
} lua_child;

/* Register each type's metatable (called once by luaopen_etinspect). */
void et_lua_register_inspector(lua_State *L);
void et_lua_register_block(lua_State *L);
void et_lua_register_event(lua_State *L);
void et_lua_register_perfdata(lua_State *L);
void et_lua_register_runs(lua_State *L);

/* Push a new child userdata of metatable `mt` for (block, event) of the
 * Inspector userdata at stack index `insp_idx`, anchoring it. */
void et_lua_push_child(lua_State *L, int insp_idx, const char *mt, size_t block, size_t event);

/* Check that argument `arg` is a child of type `mt` whose inspector is
 * open; returns it (raises "<Type> used after its inspector was closed"). */
lua_child *et_lua_check_child(lua_State *L, int arg, const char *mt);

/* The open inspector of a box, or a Lua error. */
et_inspector *et_lua_insp(lua_State *L, lua_insp_box *box);

/* Push a byte string of the dump (nil when absent). */
void et_lua_push_str(lua_State *L, et_str s);

/* Push the Inspector userdata that child argument `arg` belongs to. */
void et_lua_push_parent(lua_State *L, int arg);

/* Generic __index for record-like userdata: looks `key` up first in the
 * methods table at upvalue 1, then calls the getter function found in the
 * getters table at upvalue 2 (getter(self) -> value).  Used with
 * et_lua_set_index. */
void et_lua_set_index(lua_State *L, const luaL_Reg *methods, const luaL_Reg *getters);

/* __pairs for record-like userdata: iterates the getter names (sorted) and
 * their values. */
int et_lua_record_pairs(lua_State *L);

#endif
