/* l_limits.c - etinspect.limits; see l_limits.h. */
#include "l_limits.h"

#include <lauxlib.h>

#include "binding.h"
#include "format/tensor.h"

int et_lua_limits(lua_State *L)
{
    static const et_lua_opt spec[] = {{"broadcast_elements", "integer|boolean"}, {NULL, NULL}};
    et_lua_check_options(L, 1, "etinspect.limits", spec, 1);
    if (lua_istable(L, 1)) {
        int t = et_lua_opt_get(L, 1, "broadcast_elements"); /* raw, as checked */
        if (t == LUA_TBOOLEAN) {
            if (lua_toboolean(L, -1))
                return luaL_error(L, "etinspect.limits: broadcast_elements must be a number of "
                                     "elements, or false for the default");
            et_tensor_set_max_broadcast(0);
        } else if (t != LUA_TNIL) {
            lua_Integer n = lua_tointeger(L, -1);
            if (n < 1)
                return luaL_error(L, "etinspect.limits: broadcast_elements must be >= 1, got %I",
                                  n);
            et_tensor_set_max_broadcast((uint64_t)n);
        }
        lua_pop(L, 1);
    }
    lua_createtable(L, 0, 1);
    lua_pushinteger(L, (lua_Integer)et_tensor_max_broadcast());
    lua_setfield(L, -2, "broadcast_elements");
    return 1;
}
