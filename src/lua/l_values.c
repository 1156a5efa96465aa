/* l_values.c - debug values as Lua tables; see l_values.h. */
#include "l_values.h"

#include <lauxlib.h>

static void push_i64_list(lua_State *L, const et_etdump *d, const fb_vec *v)
{
    lua_createtable(L, (int)v->count, 0);
    for (uint32_t i = 0; i < v->count; i++) {
        lua_pushinteger(L, et_etdump_i64_at(d, v, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_tensor(lua_State *L, const et_etdump *d, const et_raw_value *v)
{
    lua_createtable(L, 0, 6);
    lua_pushliteral(L, "tensor");
    lua_setfield(L, -2, "kind");
    const char *st = et_scalar_type_name(v->scalar_type);
    if (st)
        lua_pushstring(L, st);
    else
        lua_pushinteger(L, v->scalar_type);
    lua_setfield(L, -2, "scalar_type");
    const char *dt = et_scalar_type_dtype(v->scalar_type);
    if (dt) {
        lua_pushstring(L, dt);
        lua_setfield(L, -2, "dtype");
    }
    push_i64_list(L, d, &v->sizes);
    lua_setfield(L, -2, "shape");
    push_i64_list(L, d, &v->strides);
    lua_setfield(L, -2, "strides");
    lua_pushinteger(L, v->offset);
    lua_setfield(L, -2, "offset");
}

void et_lua_push_raw_value(lua_State *L, const et_etdump *d, uint32_t pos)
{
    et_raw_value v;
    et_etdump_value(d, pos, &v);
    switch (v.val) {
    case ET_VAL_INT:
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, v.int_val);
        break;
    case ET_VAL_BOOL:
        lua_createtable(L, 0, 2);
        lua_pushboolean(L, v.bool_val);
        break;
    case ET_VAL_FLOAT:
    case ET_VAL_DOUBLE:
        lua_createtable(L, 0, 2);
        lua_pushnumber(L, v.val == ET_VAL_FLOAT ? (double)v.float_val : v.double_val);
        break;
    case ET_VAL_TENSOR:
        push_tensor(L, d, &v);
        return;
    case ET_VAL_TENSOR_LIST:
        lua_createtable(L, 0, 2);
        lua_pushliteral(L, "tensor_list");
        lua_setfield(L, -2, "kind");
        lua_createtable(L, (int)v.tensors.count, 0);
        for (uint32_t i = 0; i < v.tensors.count; i++) {
            et_raw_value t;
            et_etdump_list_tensor(d, &v, i, &t);
            push_tensor(L, d, &t);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "items");
        return;
    default:
        lua_pushnil(L);
        return;
    }
    /* scalar: the value is on top, its table below */
    lua_setfield(L, -2, "value");
    lua_pushstring(L, v.val == ET_VAL_INT ? "int" : v.val == ET_VAL_BOOL ? "bool" : "float");
    lua_setfield(L, -2, "kind");
}
