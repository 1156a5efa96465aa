/*
 * l_modelexplorer.c - Inspector:write_model_explorer, the Lua face of
 * src/core/output/modelexplorer.h (docs/model-explorer.md):
 *
 *   insp:write_model_explorer(dir [, opts])
 *       dir             the directory receiving graph.json and the
 *                       node_data_*.json files (created when absent; its
 *                       parent must exist)
 *       opts.baseline   another Inspector with an ETRecord (the A of an
 *                       A/B diff): also write node_data_ratio.json, this
 *                       Inspector's node p50 over the baseline's (B/A)
 *     Returns nothing.  Each file is written through a temporary file,
 *     synced and renamed; an input (the ETDump, the debug buffer, the
 *     ETRecord) is never overwritten.  Errors: "Model Explorer files need
 *     an ETRecord", "... the baseline needs an ETRecord", "DIR: not a
 *     directory ...", the files' I/O errors; unknown option keys and wrong
 *     types by the contract.
 */
#include <stddef.h>

#include "binding.h"
#include "output/modelexplorer.h"

/* The paths of the Inspector at `idx` that an output must not overwrite
 * (its ETDump and debug buffer; the ETRecord is a held input, which the
 * output guard knows).  The strings are anchored in its user value. */
static void inputs_of(lua_State *L, int idx, const char *inputs[3])
{
    inputs[0] = inputs[1] = inputs[2] = NULL;
    lua_getiuservalue(L, idx, 1);
    int k = 0;
    const char *keys[2] = {"etdump_path", "debug_buffer_path"};
    for (int i = 0; i < 2; i++) {
        if (lua_getfield(L, -1, keys[i]) == LUA_TSTRING)
            inputs[k++] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static int insp_write_model_explorer(lua_State *L)
{
    static const et_lua_opt spec[] = {{"baseline", "Inspector"}, {NULL, NULL}};
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_inspector *insp = et_lua_insp(L, box);
    const char *dir = luaL_checkstring(L, 2);
    et_lua_check_options(L, 3, "Inspector:write_model_explorer", spec, 2);
    lua_settop(L, 3);
    const et_inspector *baseline = NULL;
    if (et_lua_opt_get(L, 3, "baseline") != LUA_TNIL) {
        lua_insp_box *b = luaL_testudata(L, -1, ET_MT_INSPECTOR);
        if (!b)
            return luaL_error(L, "Inspector:write_model_explorer: baseline: expected an "
                                 "Inspector");
        baseline = et_lua_insp(L, b);
    }
    lua_settop(L, 3);
    const char *inputs[3];
    inputs_of(L, 1, inputs);
    et_error err;
    if (et_mx_write_dir(insp, baseline, dir, inputs, &err) != 0)
        return luaL_error(L, "Inspector:write_model_explorer: %s", err.msg);
    return 0;
}

void et_lua_register_modelexplorer(lua_State *L)
{
    static const et_lua_method m = {"write_model_explorer", insp_write_model_explorer, 2, 0};
    et_lua_add_method(L, ET_MT_INSPECTOR, &m);
}
