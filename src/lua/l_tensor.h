/*
 * l_tensor.h - the Tensor userdata (l_tensor.c), beyond what binding.h
 * declares (et_lua_push_tensor_ex, et_lua_check_tensor, ET_MT_TENSOR).
 *
 * A Tensor is an et_tensor view (tensor.h) copied into a userdata whose
 * user value 1 anchors whatever owns the bytes: an Inspector (the mapped
 * debug buffer), a Lua string (Tensor.new{bytes=...}), the tensor itself
 * (Tensor.new{values=...} stores its bytes inside the userdata), or any
 * other owner (a BundledProgram).  When the owner can be closed, every
 * access first checks that it is still open:
 *   - an Inspector anchor (or an Event/EventBlock, whose Inspector is
 *     anchored instead): "Tensor used after its inspector was closed";
 *   - any other owner passing `alive` to et_lua_push_tensor_ex: the tensor
 *     checks `*alive != NULL` ("Tensor used after its owner was closed").
 */
#ifndef ET_L_TENSOR_H
#define ET_L_TENSOR_H

#include <lua.h>

#include "binding.h"
#include "format/tensor.h"

/* Push a Tensor viewing `t` (copied), anchored to the value at stack index
 * `anchor` (0: none; the bytes must then outlive the tensor).  `what`
 * names the tensor in error messages (NULL: "tensor"; truncated to 200
 * bytes), e.g. "block 'Execute' run 1 event 3 (instruction 2)
 * debug_data[1]".  `alive` (may be NULL) is a pointer the owner sets to
 * NULL when it is closed; it must stay valid as long as the anchor lives. */
void et_lua_push_tensor_ex(lua_State *L, const et_tensor *t, int anchor, const char *what,
                           const void *const *alive);

/* Mark the Tensor at stack index `idx` as invalid: reading its values
 * (t[i], at, tolist, bytes, statistics) raises `msg` instead; t.readable is
 * false and t.error returns `msg`.  Used for tensors whose shape is known
 * but whose bytes are out of bounds or malformed (values.h). */
void et_lua_tensor_set_error(lua_State *L, int idx, const char *msg);

/* Register the Tensor metatable (called once by luaopen_etinspect). */
void et_lua_register_tensor(lua_State *L);

/* Push the `etinspect.Tensor` table: {new = Tensor.new, is_tensor = fn}. */
void et_lua_push_tensor_class(lua_State *L);

#endif
