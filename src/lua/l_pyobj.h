/*
 * l_pyobj.h - Python dicts and tuples as Lua tables, for the fields the
 * reference exposes as dicts (Event.stack_traces, Event.module_hierarchy,
 * nn_module_stack) and tuples (an nn_module_stack entry's (path, type)).
 *
 * A dict is a plain table with its own metatable holding
 *   __pydict = true     (pyrepr renders {...}, even when empty)
 *   __order  = {k1, k2, ...}   keys in insertion order (Python dicts keep it)
 *   __pairs             iterates in that order; a key whose value is nil
 *                       (Python's None) is still visited, with nil
 *   __name  = "dict"
 * so t[k] reads a value, pairs(t) walks it in order, and pyrepr/JSON
 * writers render None values.  A tuple is a sequence with the shared
 * metatable "etinspect.tuple" (__pytuple = true, __name = "tuple").
 */
#ifndef ET_L_PYOBJ_H
#define ET_L_PYOBJ_H

#include <lua.h>
#include <stddef.h>

/* Metatable name of tuples. */
#define ET_MT_TUPLE "etinspect.tuple"

/* Register the tuple metatable (once, by luaopen_etinspect). */
void et_lua_register_pyobj(lua_State *L);

/* Put the Lua library's tuple maker in the _core table on top of the
 * stack: _core.tuple(t) -> t, t's metatable set to the tuple metatable
 * (raises for anything but a table). */
void et_lua_open_pyobj(lua_State *L);

/* Push a new, empty ordered dict. */
void et_lua_new_dict(lua_State *L);

/* dict[key] = the value on top of the stack (popped; nil: None), with
 * `key` (n bytes) appended to the dict's order.  The dict is at index
 * `idx`; the caller sets each key once. */
void et_lua_dict_set(lua_State *L, int idx, const char *key, size_t n);

/* Pop the `n` values on top of the stack into a new tuple and push it. */
void et_lua_push_tuple(lua_State *L, int n);

/* The generic-for triple (iterator, self, nil) walking the keys of the
 * sequence at index `keys` in order, with self[key] (metamethods
 * honoured) as values; for __pairs (an ordered dict's, a record's getters
 * sorted, a JSON object's).  Returns 3. */
int et_lua_pairs_in_order(lua_State *L, int self, int keys);

#endif
