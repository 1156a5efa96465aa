/* l_values.c - debug values as Lua values; see l_values.h. */
#include "l_values.h"

#include <lauxlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "l_hooks.h"
#include "l_tensor.h"
#include "model/values.h"

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

/* Push the description of the Value table at `pos`. */
static void et_lua_push_raw_value(lua_State *L, const et_etdump *d, uint32_t pos)
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

/* Push tensor `t` of a value that failed et_value_decode /
 * et_value_list_tensor with `err`: a Tensor marked invalid when the shape
 * is known (its fields were readable), else raise. */
static void push_bad_tensor(lua_State *L, int insp_idx, const et_etdump *d,
                            const et_raw_value *rt, const char *what, const et_error *err)
{
    et_tensor t;
    memset(&t, 0, sizeof t);
    if (!rt->has_tensor) { /* nothing known: a 0-dim BYTE tensor marked invalid */
        et_lua_push_tensor_ex(L, &t, insp_idx, what, NULL);
        et_lua_tensor_set_error(L, -1, err->msg);
        return;
    }
    t.scalar_type = rt->scalar_type;
    t.ndim = rt->sizes.count < ET_TENSOR_MAX_DIM ? rt->sizes.count : ET_TENSOR_MAX_DIM;
    bool ok = true;
    for (uint32_t i = 0; i < t.ndim; i++) {
        t.sizes[i] = et_etdump_i64_at(d, &rt->sizes, i);
        t.strides[i] = et_etdump_i64_at(d, &rt->strides, i);
        if (t.sizes[i] < 0)
            ok = false;
    }
    /* numel when it fits, else 0 (the values cannot be read anyway) */
    uint64_t n = 1;
    for (uint32_t i = 0; i < t.ndim && ok; i++) {
        uint64_t sz = (uint64_t)t.sizes[i];
        if (sz && n > UINT64_MAX / sz)
            ok = false;
        n *= sz;
    }
    t.numel = ok ? n : 0;
    et_lua_push_tensor_ex(L, &t, insp_idx, what, NULL);
    et_lua_tensor_set_error(L, -1, err->msg);
}

/* Push the value of the Value table at `pos` (see above); tensors anchor
 * the Inspector userdata at `insp_idx`.  `what` names it in messages. */
static void et_lua_push_value(lua_State *L, int insp_idx, const et_inspector *insp, uint32_t pos,
                              const char *what)
{
    insp_idx = lua_absindex(L, insp_idx);
    et_value_buffer buf = et_inspector_value_buffer(insp);
    et_value v;
    et_error err;
    if (et_value_decode(&insp->dump, pos, buf, what, &v, &err) != 0) {
        if (v.type == ET_VAL_TENSOR) {
            push_bad_tensor(L, insp_idx, &insp->dump, &v.raw, what, &err);
            return;
        }
        et_lua_insp_warn(L, insp_idx, "%s; it reads as nil", err.msg);
        lua_pushnil(L);
        return;
    }
    switch (v.type) {
    case ET_VAL_INT:
        lua_pushinteger(L, v.int_val);
        return;
    case ET_VAL_BOOL:
        lua_pushboolean(L, v.bool_val);
        return;
    case ET_VAL_FLOAT:
    case ET_VAL_DOUBLE:
        lua_pushnumber(L, v.float_val);
        return;
    case ET_VAL_TENSOR:
        et_lua_push_tensor_ex(L, &v.tensor, insp_idx, what, NULL);
        return;
    case ET_VAL_TENSOR_LIST:
        lua_createtable(L, (int)(v.n_tensors < 1000000 ? v.n_tensors : 1000000), 0);
        for (uint32_t i = 0; i < v.n_tensors; i++) {
            char w[600];
            snprintf(w, sizeof w, "%s[%u]", what, i + 1);
            et_tensor t;
            if (et_value_list_tensor(&insp->dump, &v, i, buf, what, &t, &err) != 0) {
                et_raw_value rt;
                et_etdump_list_tensor(&insp->dump, &v.raw, i, &rt);
                push_bad_tensor(L, insp_idx, &insp->dump, &rt, w, &err);
            } else {
                et_lua_push_tensor_ex(L, &t, insp_idx, w, NULL);
            }
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        return;
    default:
        lua_pushnil(L);
    }
}

/* __len of a sequence of values holding nils (Null and String values):
 * its count of values (upvalue 1), so that trailing nils still count. */
static int values_len(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

/* Push the sequence of values of run `run` (0-based, < n_runs) of block
 * `block`: the debug entries of event `event`, or the program outputs when
 * `event` is SIZE_MAX (nil entries for Null and String values).  `raw`
 * pushes raw descriptions instead.  Tensors anchor the
 * Inspector userdata at `insp_idx`. */
static void et_lua_push_run_values(lua_State *L, int insp_idx, const et_inspector *insp, size_t block,
                                   size_t run, size_t event, int raw)
{
    insp_idx = lua_absindex(L, insp_idx);
    const et_block *b = &insp->blocks[block];
    uint32_t first = 0, n = 0;
    if (run < b->n_runs) {
        if (event == SIZE_MAX) {
            first = b->run_output_first[run];
            n = b->run_output_count[run];
        } else if (b->events[event].has_debug_data) {
            first = b->events[event].debug_first[run];
            n = b->events[event].debug_count[run];
        }
    }
    lua_createtable(L, (int)(n < 1000000 ? n : 1000000), 0);
    bool holes = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pos = b->value_pool[first + i];
        if (raw) {
            et_lua_push_raw_value(L, &insp->dump, pos);
        } else {
            char what[400];
            et_value_label(what, sizeof what, insp, block, run, event, i, pos);
            et_lua_push_value(L, insp_idx, insp, pos, what);
        }
        holes |= lua_isnil(L, -1);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    if (holes) { /* #seq is the count of values, trailing nils included */
        lua_createtable(L, 0, 1);
        lua_pushinteger(L, (lua_Integer)n);
        lua_pushcclosure(L, values_len, 1);
        lua_setfield(L, -2, "__len");
        lua_setmetatable(L, -2);
    }
}

int et_lua_child_run_values(lua_State *L, const lua_child *c, size_t event,
                            et_run_arg run, int raw)
{
    const et_block *b = &c->box->insp->blocks[c->block];
    size_t r = 0;
    if (event == SIZE_MAX)
        r = b->run_output_run; /* blk.run_output's run: the first that logged outputs */
    if (run == ET_RUN_REQUIRED || (run == ET_RUN_OPTIONAL && !lua_isnoneornil(L, 2))) {
        lua_Integer k = luaL_checkinteger(L, 2);
        if (k < 1 || (uint64_t)k > b->n_runs)
            luaL_error(L, "run %I is out of range 1..%I", k, (lua_Integer)b->n_runs);
        r = (size_t)k - 1;
    }
    et_lua_push_parent(L, 1);
    et_lua_push_run_values(L, -1, c->box->insp, c->block, r, event, raw);
    return 1;
}
