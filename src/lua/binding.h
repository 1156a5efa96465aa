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
 *   l_etrecord.c   ETRecord      owns an et_etrecord (etinspect.parse_etrecord)
 *   l_graph.c      Graph, Node   a program of an ETRecord and its nodes
 *   l_pyobj.c      ordered dicts and tuples (Python's dict and tuple)
 *   l_export.c     Inspector:write_trace, Inspector:to_sqlite,
 *                  EventBlock:memory_summary
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
#define ET_MT_ETRECORD "etinspect.ETRecord"
#define ET_MT_GRAPH "etinspect.Graph"
#define ET_MT_NODE "etinspect.Node"

/* The ETRecord's userdata payload.  An Inspector linked to it holds it in
 * its user value and counts itself in `users`; the record cannot be closed
 * while an open Inspector points into it. */
typedef struct lua_etr_box {
    et_etrecord *r; /* NULL once closed */
    int users;      /* open Inspectors linked to it */
} lua_etr_box;

/* A Graph's payload (user value 1: its ETRecord userdata). */
typedef struct lua_graph_box {
    lua_etr_box *rec;
    const et_graph *g;  /* owned by the record */
    char name[200];     /* what it was asked as, e.g. "aten_dialect_output/forward" */
} lua_graph_box;

/* The Inspector's userdata payload. */
typedef struct lua_insp_box {
    et_inspector *insp; /* NULL once closed */
    int parser_ref;     /* delegate metadata parser (registry ref) or LUA_NOREF */
    char parser_name[64];
    lua_etr_box *etrecord; /* the linked ETRecord's box, or NULL */
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
void et_lua_register_etrecord(lua_State *L);
void et_lua_register_graph(lua_State *L);
/* Add the export methods to the Inspector and EventBlock types (after
 * their registration). */
void et_lua_register_export(lua_State *L);
/* Add EventBlock.reference_output and Inspector.bundled_program
 * (l_bundled.c; after the Inspector and EventBlock registrations). */
void et_lua_register_bundled(lua_State *L);

/* Tensors (l_tensor.c): push a Tensor userdata viewing `t` (copied into
 * the userdata); the value at `anchor` (an Inspector, a BundledProgram ...
 * whatever owns the bytes) is kept alive by it. */
#define ET_MT_TENSOR "etinspect.Tensor"
struct et_tensor;
void et_lua_push_tensor(lua_State *L, const struct et_tensor *t, int anchor);

/* Check that argument `arg` is a Tensor whose owner is still open; returns
 * its view. */
const struct et_tensor *et_lua_check_tensor(lua_State *L, int arg);

/* etinspect.parse_etrecord(path) -> ETRecord (l_etrecord.c). */
int et_lua_parse_etrecord(lua_State *L);

/* Check that argument `arg` is an open ETRecord; returns its box. */
lua_etr_box *et_lua_check_etrecord(lua_State *L, int arg);

/* Push a Graph for program `p` of the ETRecord userdata at `rec_idx`
 * (parsing it on first use; a Lua error when it cannot be parsed); `name`
 * is what it is called. */
void et_lua_push_graph(lua_State *L, int rec_idx, const et_etr_program *p, const char *name);

/* Push a Node: node `i` of the Graph userdata at `graph_idx`. */
void et_lua_push_node(lua_State *L, int graph_idx, size_t i);

/* Push a node's nn_module_stack as an ordered dict key -> (path, type), or
 * nil when it has none (l_graph.c). */
void et_lua_push_module_stack(lua_State *L, const et_graph_node *nd);

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

/* The generic-for triple (iterator, self, nil) walking the keys of the
 * sequence at index `keys` in order, with self[key] (metamethods
 * honoured) as values; for __pairs.  Returns 3. */
int et_lua_pairs_in_order(lua_State *L, int self, int keys);

/* The __index body et_lua_set_index installs: looks the key up in the
 * methods table at upvalue 1 of the running closure, then calls the getter
 * at upvalue 2; "<__name> has no field or method 'k'" for other strings,
 * nil for other keys.  A type with its own __index closure over the same
 * two tables (Tensor: integer keys are elements) calls it for the rest. */
int et_lua_record_index(lua_State *L);

/* __pairs for record-like userdata: iterates the getter names (sorted) and
 * their values. */
int et_lua_record_pairs(lua_State *L);

/* One accepted option of an options table: its name and the types it
 * takes, '|'-separated words: Lua type names ("boolean", "string",
 * "number", "table", "function"), "integer" (an integral number),
 * "callable", "file" (an io file or a value with a write method), "any",
 * or a userdata type by its metatable name ("Frame", "ETRecord"). */
typedef struct et_lua_opt {
    const char *name;
    const char *types; /* NULL: any */
} et_lua_opt;

/* The options contract (l_contract.c; docs/lua-api.md "Contracts"): the
 * value at `arg` must be nil or a table whose keys are all names in
 * `spec` (terminated by {NULL, NULL}) with values of their types.  Raises
 *   "<where>: bad argument #<argn> (options table expected, got <type>)"
 *   "<where>: unknown option '<k>' (accepted: a, b, c)"
 *   "<where>: option '<k>' must be a boolean, got string"
 *   "<where>: options must be named (got a positional value at [1])"
 * `where` names the call as users write it ("Inspector:to_dataframe");
 * `argn` is the argument's position as users count it (self excluded).
 * Keys are read raw; no user code runs. */
void et_lua_check_options(lua_State *L, int arg, const char *where, const et_lua_opt *spec,
                          int argn);

/* Add _core.check_options(where, opts, spec [, argn]) -> opts to the
 * table on top (the same rule for the Lua library; spec = {key = "types"}). */
void et_lua_open_contract(lua_State *L);

#endif
