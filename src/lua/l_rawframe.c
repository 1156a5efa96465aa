/*
 * l_rawframe.c - insp:raw_frame(): the raw events as a Frame
 * (docs/lua-api.md, "Raw events as a Frame"; columns built in C by
 * src/core/table/fromrun.h, no Lua call per event).
 *
 *   insp:raw_frame([{include_units = false}]) -> Frame
 *     one row per raw event of every run, in file order, with the columns
 *     run, block, name, kind, start_time, end_time, duration,
 *     instruction_id, chain_index, delegate_debug_id_int,
 *     delegate_debug_id_str (fromrun.h gives each one's meaning and when
 *     a cell is missing: nil, or NaN for duration); include_units names
 *     the duration column "duration (<target_time_scale>)", as
 *     to_dataframe's include_units does.  A legacy profiler dump has no
 *     raw runs: a frame of no rows.
 *
 * Errors: "Inspector:raw_frame: unknown option 'x' (accepted: include_units)",
 * an extra argument, "inspector is closed", out of memory.
 */
#include <stdio.h>
#include <string.h>

#include "binding.h"
#include "l_hooks.h"
#include "table/fromrun.h"

#define MT_RAWTABLE "etinspect.RawTable"

static int rawtable_gc(lua_State *L)
{
    et_rawtable_free(luaL_checkudata(L, 1, MT_RAWTABLE));
    return 0;
}

/* Push the frame over the columns of `t` (the Table, src/lua/l_table.c,
 * takes a reference on each) with the column names in `names`:
 * etinspect.Frame.wrap(names, table). */
static void push_frame(lua_State *L, const et_rawtable *t, const char *const *names)
{
    et_lua_require(L, "etinspect");
    lua_getfield(L, -1, "Frame");
    lua_getfield(L, -1, "wrap");
    lua_createtable(L, ET_RAW_NCOLS, 0);
    for (int c = 0; c < ET_RAW_NCOLS; c++) {
        lua_pushstring(L, names[c]);
        lua_rawseti(L, -2, c + 1);
    }
    et_lua_push_table(L, t->cols, ET_RAW_NCOLS, t->n);
    lua_call(L, 2, 1);
}

/* The open inspector of `box` with its event blocks built (the block
 * column reads which block holds each run), but not necessarily their
 * samples and statistics: a model still pending is built without them
 * (et_inspector_ready_blocks), which the first view of the model then
 * completes (et_lua_insp).  The warnings the build found are given, as
 * et_lua_insp gives them.  Raises as et_lua_insp. */
static et_inspector *model_blocks(lua_State *L, lua_insp_box *box)
{
    et_inspector *insp = et_lua_insp_raw(L, box);
    et_error err;
    if (et_inspector_ready_blocks(insp, &err) != 0)
        luaL_error(L, "%s", err.msg);
    if (box->warnings_given < insp->warnings.n) {
        et_lua_insp_give_warnings(L, box);
        insp = et_lua_insp_raw(L, box); /* a handler may have closed it */
    }
    return insp;
}

static int insp_raw_frame(lua_State *L)
{
    static const et_lua_opt spec[] = {{"include_units", "boolean"}, {NULL, NULL}};
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_lua_check_options(L, 2, "Inspector:raw_frame", spec, 1);
    bool units = et_lua_opt_get(L, 2, "include_units") == LUA_TBOOLEAN && lua_toboolean(L, -1);
    lua_pop(L, 1);
    et_inspector *insp = model_blocks(L, box);
    et_rawtable *t = et_lua_push_holder(L, sizeof *t, MT_RAWTABLE, rawtable_gc);
    et_error err;
    if (et_rawtable_build(insp, t, &err) != 0)
        return luaL_error(L, "Inspector:raw_frame: %s", err.msg);
    const char *names[ET_RAW_NCOLS];
    char dur[64];
    memcpy(names, et_raw_column_names, sizeof names);
    if (units) {
        snprintf(dur, sizeof dur, "duration (%s)", et_time_scale_name(insp->target_time_scale));
        names[ET_RAW_DURATION] = dur;
    }
    push_frame(L, t, names);
    et_rawtable_free(t); /* the Table holds the columns now */
    return 1;
}

/* Add raw_frame to the Inspector (called by luaopen_etinspect), through
 * the object model's dispatch (binding.h): self checked, at most one
 * argument, the inspector pinned while the call runs. */
void et_lua_register_rawframe(lua_State *L)
{
    static const et_lua_method raw_frame = {"raw_frame", insp_raw_frame, 1, 0};
    et_lua_add_method(L, ET_MT_INSPECTOR, &raw_frame);
}
