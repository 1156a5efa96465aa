/*
 * l_bundled.c - a BundledProgram's test cases in Lua (bundled.h,
 * docs/bundled-program.md).  Adds two getters to existing types:
 *
 *   blk.reference_output   the expected outputs of the test case the
 *                          block's bundled_input_index names, as a sequence
 *                          of values; nil when the Inspector has no
 *                          BundledProgram (bundled_program_path), the index
 *                          is -1, or it names no test case (a warning then)
 *   insp.bundled_program   nil without a BundledProgram, else a table
 *     .path                 the .bpte path
 *     .version              BundledProgram.version (2 today)
 *     .size_prefixed        whether the file is size-prefixed (ExecuTorch
 *                           writes it plain)
 *     .program_size         bytes of the embedded program (not decoded)
 *     .reference_method     the method whose test cases give reference
 *                           outputs ("forward", else the only one), or nil
 *     .method_test_suites   sequence of {method_name = "forward",
 *                           test_cases = sequence of {inputs = values,
 *                           expected_outputs = values}}
 *
 * Values: a Tensor (l_tensor.c; a view of the bytes inside the mapped
 * .bpte, valid while the Inspector is open), an integer (Int), a number
 * (Double) or a boolean (Bool).  Test case k of a suite is
 * test_cases[k + 1]: bundled_input_index is 0-based.  Each access builds
 * new tables.
 */
#include <stdio.h>

#include "binding.h"
#include "l_tensor.h"

/* Push value `i` of `values` (a case's inputs or expected outputs) of the
 * inspector's BundledProgram; tensors are anchored to the value at `anchor`
 * (the Inspector or an EventBlock) and named `what`[i+1] in messages. */
static void push_value(lua_State *L, const et_bundled *bp, const fb_vec *values, uint32_t i,
                       int anchor, const char *what)
{
    et_bvalue v;
    et_bundled_value(bp, values, i, &v);
    switch (v.kind) {
    case ET_BVAL_INT: lua_pushinteger(L, v.int_val); return;
    case ET_BVAL_DOUBLE: lua_pushnumber(L, v.double_val); return;
    case ET_BVAL_BOOL: lua_pushboolean(L, v.bool_val); return;
    case ET_BVAL_TENSOR: {
        char name[200];
        snprintf(name, sizeof name, "%s[%u]", what, (unsigned)i + 1);
        et_tensor t;
        et_error err;
        if (et_bundled_tensor(bp, &v, &t, name, &err) != 0)
            luaL_error(L, "%s", err.msg); /* not for a verified program */
        et_lua_push_tensor_ex(L, &t, anchor, name, NULL);
        return;
    }
    default: lua_pushnil(L); return; /* not in a verified program */
    }
}

/* Push a sequence of the values of `values`. */
static void push_values(lua_State *L, const et_bundled *bp, const fb_vec *values, int anchor,
                        const char *what)
{
    anchor = lua_absindex(L, anchor);
    lua_createtable(L, (int)values->count, 0);
    for (uint32_t i = 0; i < values->count; i++) {
        push_value(L, bp, values, i, anchor, what);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* blk.reference_output */
static int blk_reference_output(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_BLOCK);
    const et_inspector *insp = c->box->insp;
    const et_block *blk = &insp->blocks[c->block];
    et_bundled_case tc;
    if (!et_block_reference_case(insp, blk, &tc)) {
        lua_pushnil(L);
        return 1;
    }
    char what[120];
    snprintf(what, sizeof what, "event_blocks[%u] '%.*s' reference_output", (unsigned)c->block + 1,
             (int)(blk->name.n > 40 ? 40 : blk->name.n), blk->name.p ? blk->name.p : "");
    push_values(L, insp->bundled, &tc.expected_outputs, 1, what);
    return 1;
}

/* insp.bundled_program */
static int insp_bundled_program(lua_State *L)
{
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    const et_inspector *insp = et_lua_insp(L, box);
    const et_bundled *bp = insp->bundled;
    if (!bp) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 6);
    lua_pushstring(L, bp->path ? bp->path : "");
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, bp->version);
    lua_setfield(L, -2, "version");
    lua_pushboolean(L, bp->size_prefixed);
    lua_setfield(L, -2, "size_prefixed");
    lua_pushinteger(L, bp->program.count);
    lua_setfield(L, -2, "program_size");
    uint32_t n = et_bundled_num_suites(bp);
    lua_createtable(L, (int)n, 0);
    for (uint32_t s = 0; s < n; s++) {
        et_bundled_suite su;
        et_bundled_suite_at(bp, s, &su);
        lua_createtable(L, 0, 2);
        et_lua_push_str(L, su.method_name);
        if ((int32_t)s == insp->bundled_suite) {
            lua_pushvalue(L, -1);
            lua_setfield(L, -5, "reference_method");
        }
        lua_setfield(L, -2, "method_name");
        lua_createtable(L, (int)su.test_cases.count, 0);
        for (uint32_t k = 0; k < su.test_cases.count; k++) {
            et_bundled_case tc;
            et_bundled_case_at(bp, &su, k, &tc);
            char what[120];
            lua_createtable(L, 0, 2);
            snprintf(what, sizeof what, "method_test_suites[%u].test_cases[%u].inputs",
                     (unsigned)s + 1, (unsigned)k + 1);
            push_values(L, bp, &tc.inputs, 1, what);
            lua_setfield(L, -2, "inputs");
            snprintf(what, sizeof what, "method_test_suites[%u].test_cases[%u].expected_outputs",
                     (unsigned)s + 1, (unsigned)k + 1);
            push_values(L, bp, &tc.expected_outputs, 1, what);
            lua_setfield(L, -2, "expected_outputs");
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "test_cases");
        lua_rawseti(L, -2, (lua_Integer)s + 1);
    }
    lua_setfield(L, -2, "method_test_suites");
    return 1;
}

void et_lua_register_bundled(lua_State *L)
{
    static const et_lua_getter ref = {"reference_output", blk_reference_output, 0, 0};
    static const et_lua_getter bp = {"bundled_program", insp_bundled_program, 0, 0};
    et_lua_add_getter(L, ET_MT_BLOCK, &ref);
    et_lua_add_getter(L, ET_MT_INSPECTOR, &bp);
}
