/*
 * l_values.h - debug values (ETDump Value tables) as Lua tables.
 *
 * Until tensors are decoded (debug-data issue), a value is described, not
 * read: {kind="int", value=123}, {kind="bool", value=true},
 * {kind="float", value=2.5}, {kind="tensor", scalar_type="FLOAT",
 * dtype="float32", shape={2,3}, strides={3,1}, offset=0},
 * {kind="tensor_list", items={...}}, or nil for Null and String values.
 */
#ifndef ET_L_VALUES_H
#define ET_L_VALUES_H

#include <lua.h>

#include "etdump.h"

/* Push the description of the Value table at `pos`. */
void et_lua_push_raw_value(lua_State *L, const et_etdump *d, uint32_t pos);

#endif
