/*
 * l_block.c - EventBlock: identical runs merged (spec §1.4, §3.5).
 *
 *   blk.name                 string ("Default", "Execute", ...)
 *   blk.events               sequence of Event
 *   blk.bundled_input_index  integer (-1 when unset)
 *   blk.run_output           sequence of the first run's program outputs (values
 *                            flagged output=true: Tensors, sequences of Tensors;
 *                            see l_values.h)
 *   blk:run_output_of_run(r) the same for run r (1-based, 1..blk.num_runs)
 *   blk:run_output_raw([r])  raw descriptions of run r's (default 1) outputs
 *   blk.reference_output     nil (BundledProgram support comes later)
 *   blk.source_time_scale, blk.target_time_scale   "ns", "us", "ms", "s", "cycles"
 *   blk.allocators           sequence of allocator names (allocator id k is
 *                            allocators[k]); from the block's first run
 *   blk.num_runs             how many runs were merged into the block
 *   blk.etrecord_method      the ETRecord method its events are linked to
 *                            (src/core/model/link.h), or nil
 *   #blk                     number of events
 * Methods implemented in Lua (lua/etinspect/report.lua): blk:to_dataframe{...}.
 */
#include <stdint.h>

#include "binding.h"
#include "l_hooks.h"
#include "l_values.h"

static const et_block *check_blk(lua_State *L, int arg, lua_child **out)
{
    lua_child *c = et_lua_check_child(L, arg, ET_MT_BLOCK);
    if (out)
        *out = c;
    return &c->box->insp->blocks[c->block];
}

static int blk_name(lua_State *L)
{
    et_lua_push_str(L, check_blk(L, 1, NULL)->name);
    return 1;
}

/* block.etrecord_method: the ETRecord method its events were linked to
 * (link.h), or nil without an ETRecord. */
static int blk_method(lua_State *L)
{
    const char *m = check_blk(L, 1, NULL)->method;
    if (m)
        lua_pushstring(L, m);
    else
        lua_pushnil(L);
    return 1;
}

/* blk.events: a read-only sequence of the block's events, made once
 * (cached in user value 2 by the dispatch): the same Event userdata on
 * every read, so `blk.events[k]` costs a table read and events can be
 * table keys. */
static int blk_events(lua_State *L)
{
    lua_child *c;
    const et_block *b = check_blk(L, 1, &c);
    et_lua_push_parent(L, 1);
    int insp = lua_gettop(L);
    lua_createtable(L, (int)b->n_events, 0);
    for (size_t e = 0; e < b->n_events; e++) {
        et_lua_push_child(L, insp, ET_MT_EVENT, c->block, e);
        lua_rawseti(L, -2, (lua_Integer)e + 1);
    }
    et_lua_push_readonly(L, -1, "EventBlock.events");
    return 1;
}

static int blk_bii(lua_State *L)
{
    lua_pushinteger(L, check_blk(L, 1, NULL)->bundled_input_index);
    return 1;
}

/* blk.run_output: the first run's program outputs as values (l_values.h). */
static int blk_run_output(lua_State *L)
{
    return et_lua_child_run_values(L, et_lua_check_child(L, 1, ET_MT_BLOCK), SIZE_MAX,
                                   ET_RUN_FIRST, 0);
}

/* blk:run_output_of_run(r) -> run r's (1-based) program outputs. */
static int blk_run_output_of_run(lua_State *L)
{
    return et_lua_child_run_values(L, et_lua_check_child(L, 1, ET_MT_BLOCK), SIZE_MAX,
                                   ET_RUN_REQUIRED, 0);
}

/* blk:run_output_raw([r]) -> raw descriptions of run r's (default 1)
 * program outputs (l_values.h). */
static int blk_run_output_raw(lua_State *L)
{
    return et_lua_child_run_values(L, et_lua_check_child(L, 1, ET_MT_BLOCK), SIZE_MAX,
                                   ET_RUN_OPTIONAL, 1);
}

static int blk_nil(lua_State *L)
{
    check_blk(L, 1, NULL);
    lua_pushnil(L);
    return 1;
}

static int blk_source(lua_State *L)
{
    lua_child *c;
    check_blk(L, 1, &c);
    lua_pushstring(L, et_time_scale_name(c->box->insp->source_time_scale));
    return 1;
}

static int blk_target(lua_State *L)
{
    lua_child *c;
    check_blk(L, 1, &c);
    lua_pushstring(L, et_time_scale_name(c->box->insp->target_time_scale));
    return 1;
}

static int blk_allocators(lua_State *L)
{
    const et_block *b = check_blk(L, 1, NULL);
    lua_createtable(L, (int)b->n_allocators, 0);
    for (size_t i = 0; i < b->n_allocators; i++) {
        et_lua_push_str(L, b->allocators[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int blk_num_runs(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_blk(L, 1, NULL)->n_runs);
    return 1;
}

static int blk_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_blk(L, 1, NULL)->n_events);
    return 1;
}

static int blk_tostring(lua_State *L)
{
    lua_child *c = luaL_checkudata(L, 1, ET_MT_BLOCK);
    if (!c->box->insp) {
        lua_pushstring(L, "EventBlock (inspector closed)");
        return 1;
    }
    const et_block *b = &c->box->insp->blocks[c->block];
    lua_pushliteral(L, "EventBlock '");
    et_lua_push_shown(L, b->name.p ? b->name.p : "", b->name.n); /* a display form: escaped */
    lua_pushfstring(L, "' (%d run%s, %d event%s)", (int)b->n_runs, b->n_runs == 1 ? "" : "s",
                    (int)b->n_events, b->n_events == 1 ? "" : "s"); /* "1 run" */
    lua_concat(L, 3);
    return 1;
}

void et_lua_register_block(lua_State *L)
{
    static const et_lua_method methods[] = {{"run_output_of_run", blk_run_output_of_run, 1, 0},
                                            {"run_output_raw", blk_run_output_raw, 1, 0},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_getter getters[] = {{"name", blk_name, 0, ET_LUA_LEAF},
                                            {"events", blk_events, 2, 0},
                                            {"bundled_input_index", blk_bii, 0, ET_LUA_LEAF},
                                            {"run_output", blk_run_output, 0, 0},
                                            {"reference_output", blk_nil, 0, 0},
                                            {"source_time_scale", blk_source, 0, ET_LUA_LEAF},
                                            {"target_time_scale", blk_target, 0, ET_LUA_LEAF},
                                            {"allocators", blk_allocators, 0, 0},
                                            {"num_runs", blk_num_runs, 0, ET_LUA_LEAF},
                                            {"etrecord_method", blk_method, 0, ET_LUA_LEAF},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_type type = {ET_MT_BLOCK, "EventBlock", methods, getters, blk_len,
                                     blk_tostring, NULL, NULL, NULL};
    et_lua_define_type(L, &type);
}
