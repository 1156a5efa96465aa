/*
 * l_event.c - Event: one event of an event block (spec §1.5), with the
 * Python Inspector's attribute names.
 *
 *   ev.name                       string (a delegated event: its identifier as text)
 *   ev.perf_data                  PerfData, or nil for an event with debug events only
 *   ev.op_types                   sequence of strings ({} until ETRecord linkage)
 *   ev.delegate_debug_identifier  integer, string or nil
 *   ev.debug_handles              nil until ETRecord linkage
 *   ev.stack_traces, ev.module_hierarchy   tables ({} until ETRecord linkage)
 *   ev.is_delegated_op            boolean
 *   ev.delegate_backend_name      nil until ETRecord linkage
 *   ev.debug_data                 sequence of the first run's debug values (raw
 *                                 descriptions: {kind=, scalar_type=, shape=, ...})
 *   ev.start_time                 sequence of raw start ticks per run, or nil
 *   ev.num_outputs                integer
 *   ev.instruction_id             integer (-1 when unset)
 *   ev.chain_index                integer for legacy profiler events (their
 *                                 chain_idx, -1 outside any chain); nil for
 *                                 ETDump events
 *   ev.raw_delegate_debug_metadatas  sequence of byte strings, one per run, or {}
 *   ev.delegate_debug_metadatas   the parsed metadata when the event is delegated
 *                                 and the inspector has a parser (parsed once,
 *                                 lazily); otherwise the raw sequence
 */
#include <inttypes.h>
#include <string.h>

#include "binding.h"
#include "l_hooks.h"
#include "l_values.h"
#include "pyfmt.h"

static const et_event *check_ev(lua_State *L, int arg, lua_child **out)
{
    lua_child *c = et_lua_check_child(L, arg, ET_MT_EVENT);
    if (out)
        *out = c;
    return &c->box->insp->blocks[c->block].events[c->event];
}

static int ev_name(lua_State *L)
{
    et_lua_push_str(L, et_event_name(check_ev(L, 1, NULL)));
    return 1;
}

static int ev_perf_data(lua_State *L)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    if (!ev->has_perf_data) {
        lua_pushnil(L);
        return 1;
    }
    et_lua_push_parent(L, 1);
    et_lua_push_child(L, -1, ET_MT_PERFDATA, c->block, c->event);
    return 1;
}

static int ev_empty_table(lua_State *L)
{
    check_ev(L, 1, NULL);
    lua_newtable(L);
    return 1;
}

/* A dict-typed field (stack_traces, module_hierarchy): an empty table
 * marked with the shared "etinspect.dict" metatable, so that it renders as
 * Python's {} rather than []. */
static int ev_empty_dict(lua_State *L)
{
    check_ev(L, 1, NULL);
    lua_newtable(L);
    luaL_setmetatable(L, "etinspect.dict");
    return 1;
}

static int ev_nil(lua_State *L)
{
    check_ev(L, 1, NULL);
    lua_pushnil(L);
    return 1;
}

static int ev_did(lua_State *L)
{
    const et_event *ev = check_ev(L, 1, NULL);
    switch (ev->delegate_debug_identifier_kind) {
    case ET_DID_INT: lua_pushinteger(L, ev->delegate_debug_id_int); break;
    case ET_DID_STR: et_lua_push_str(L, ev->delegate_debug_id_str); break;
    default: lua_pushnil(L);
    }
    return 1;
}

static int ev_is_delegated(lua_State *L)
{
    lua_pushboolean(L, check_ev(L, 1, NULL)->is_delegated_op);
    return 1;
}

static int ev_debug_data(lua_State *L)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    const et_block *b = &c->box->insp->blocks[c->block];
    uint32_t n = (ev->has_debug_data && b->n_runs) ? ev->debug_count[0] : 0;
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        et_lua_push_raw_value(L, &c->box->insp->dump, b->value_pool[ev->debug_first[0] + i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int ev_start_time(lua_State *L)
{
    const et_event *ev = check_ev(L, 1, NULL);
    if (!ev->start_time) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, (int)ev->perf_data.n, 0);
    for (size_t i = 0; i < ev->perf_data.n; i++) {
        lua_pushinteger(L, (lua_Integer)ev->start_time[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int ev_num_outputs(lua_State *L)
{
    lua_pushinteger(L, check_ev(L, 1, NULL)->num_outputs);
    return 1;
}

static int ev_instruction_id(lua_State *L)
{
    lua_pushinteger(L, check_ev(L, 1, NULL)->instruction_id);
    return 1;
}

static int ev_chain_index(lua_State *L)
{
    const et_event *ev = check_ev(L, 1, NULL);
    if (ev->has_chain_index)
        lua_pushinteger(L, ev->chain_index);
    else
        lua_pushnil(L);
    return 1;
}

static void push_raw_metadatas(lua_State *L, const lua_child *c, const et_event *ev)
{
    const et_block *b = &c->box->insp->blocks[c->block];
    if (!ev->raw_delegate_debug_metadatas) {
        lua_newtable(L);
        return;
    }
    lua_createtable(L, (int)b->n_runs, 0);
    for (size_t r = 0; r < b->n_runs; r++) {
        et_lua_push_str(L, ev->raw_delegate_debug_metadatas[r]);
        lua_rawseti(L, -2, (lua_Integer)r + 1);
    }
}

static int ev_raw_metadatas(lua_State *L)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    push_raw_metadatas(L, c, ev);
    return 1;
}

/* delegate_debug_metadatas: parsed once by the inspector's parser (spec
 * §3.9) and cached in the inspector's user value table. */
static int ev_metadatas(lua_State *L)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    if (!ev->is_delegated_op || c->box->parser_ref == LUA_NOREF) {
        push_raw_metadatas(L, c, ev);
        return 1;
    }
    et_lua_push_parent(L, 1);
    int insp = lua_gettop(L);
    lua_getiuservalue(L, insp, 1); /* cache table */
    int cache = lua_gettop(L);
    lua_Integer key = (lua_Integer)c->block * 4294967296 + (lua_Integer)c->event;
    if (lua_rawgeti(L, cache, key) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    push_raw_metadatas(L, c, ev);
    int raw = lua_gettop(L);
    et_lua_call_parser(L, insp, raw, 1, ev, c->block, c->event); /* leaves the result */
    lua_pushvalue(L, -1);
    lua_rawseti(L, cache, key);
    return 1;
}

static int ev_tostring(lua_State *L)
{
    lua_child *c = luaL_checkudata(L, 1, ET_MT_EVENT);
    if (!c->box->insp) {
        lua_pushstring(L, "Event (inspector closed)");
        return 1;
    }
    const et_event *ev = &c->box->insp->blocks[c->block].events[c->event];
    et_str n = et_event_name(ev);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "Event '");
    luaL_addvalue(&b);
    luaL_addlstring(&b, n.p, n.n);
    lua_pushfstring(L, "' (instruction %d%s", (int)ev->instruction_id,
                    ev->is_delegated_op ? ", delegated" : "");
    luaL_addvalue(&b);
    if (ev->has_perf_data) {
        char p50[ET_PYFMT_BUFSZ];
        et_pyfmt_g(ev->perf_data.p50, p50);
        lua_pushfstring(L, ", %d runs, p50 %s %s", (int)ev->perf_data.n, p50,
                        et_time_scale_name(c->box->insp->target_time_scale));
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, ')');
    luaL_pushresult(&b);
    return 1;
}

void et_lua_register_event(lua_State *L)
{
    static const luaL_Reg methods[] = {{NULL, NULL}};
    static const luaL_Reg getters[] = {
        {"name", ev_name},
        {"perf_data", ev_perf_data},
        {"op_types", ev_empty_table},
        {"delegate_debug_identifier", ev_did},
        {"debug_handles", ev_nil},
        {"stack_traces", ev_empty_dict},
        {"module_hierarchy", ev_empty_dict},
        {"is_delegated_op", ev_is_delegated},
        {"delegate_backend_name", ev_nil},
        {"debug_data", ev_debug_data},
        {"start_time", ev_start_time},
        {"num_outputs", ev_num_outputs},
        {"instruction_id", ev_instruction_id},
        {"chain_index", ev_chain_index},
        {"delegate_debug_metadatas", ev_metadatas},
        {"raw_delegate_debug_metadatas", ev_raw_metadatas},
        {NULL, NULL}};
    luaL_newmetatable(L, "etinspect.dict"); /* marks tables that are Python dicts */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "__pydict");
    lua_pop(L, 1);
    luaL_newmetatable(L, ET_MT_EVENT);
    et_lua_set_index(L, methods, getters);
    lua_pushcfunction(L, ev_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "Event");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}
