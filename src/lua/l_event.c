/*
 * l_event.c - Event: one event of an event block (spec §1.5), with the
 * Python Inspector's attribute names.
 *
 *   ev.name                       string (a delegated event: its identifier as text)
 *   ev.perf_data                  PerfData, or nil for an event with debug events only
 *   ev.op_types                   sequence of the ops of the graph nodes linked
 *                                 to the event (duplicates kept; {} without an
 *                                 ETRecord) -- link.h; without an ETRecord but
 *                                 with a program (program_path), a kernel
 *                                 call's operator -- proglink.h
 *   ev.delegate_debug_identifier  integer, string or nil
 *   ev.debug_handles              integer, sequence of integers (delegate calls
 *                                 and delegated events), or nil when unlinked
 *   ev.stack_traces               ordered dict (l_pyobj.h): operator-graph node
 *                                 name ("mul_", the node's name and "_") ->
 *                                 stack trace string, or nil (None)
 *   ev.module_hierarchy           ordered dict: node name ("mul_") -> ordered
 *                                 dict module key -> (path, type), or nil (None)
 *   ev.is_delegated_op            boolean
 *   ev.delegate_backend_name      string (the delegate_map entry's name; "" when
 *                                 it has none) or nil; without an ETRecord but
 *                                 with a program, a delegate call's backend
 *   ev.debug_data                 sequence of the first run's debug values: integer,
 *                                 boolean, number, Tensor, sequence of Tensors, or
 *                                 nil (Null, String) -- l_values.h; {} without any
 *   ev:debug_data_of_run(r)       the same for run r (1-based over the block's runs)
 *   ev.num_debug_runs             runs with debug values (the block's runs; 0 when
 *                                 the event has no debug events)
 *   ev:debug_data_raw([r])        raw descriptions of run r's (default 1) values
 *                                 ({kind=, scalar_type=, shape=, strides=, offset=})
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
#include "l_pyobj.h"
#include "model/link.h"
#include "model/proglink.h"
#include "l_values.h"
#include "base/pyfmt.h"

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

/* The graph node of link entry k of the event of child `c`. */
static const et_graph_node *link_node(const lua_child *c, const et_event *ev, uint32_t k,
                                      uint32_t *bits)
{
    const et_inspector *insp = c->box->insp;
    return et_link_node(insp, &insp->blocks[c->block], ev, k, bits);
}

static int ev_op_types(lua_State *L)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    const et_inspector *insp = c->box->insp;
    et_event_instr pi; /* the program's, as the table's rows (rows.c) */
    if (!insp->etrecord && et_event_program_instr(insp, &insp->blocks[c->block], ev, &pi) &&
        pi.op[0]) {
        lua_createtable(L, 1, 0);
        lua_pushstring(L, pi.op);
        lua_rawseti(L, -2, 1);
        return 1;
    }
    lua_createtable(L, (int)ev->node_count, 0);
    lua_Integer n = 0;
    uint32_t bits;
    for (uint32_t k = 0; k < ev->node_count; k++) {
        const et_graph_node *nd = link_node(c, ev, k, &bits);
        if (bits & ET_LINK_NODE_OP) {
            lua_pushstring(L, nd->op);
            lua_rawseti(L, -2, ++n);
        }
    }
    return 1;
}

static int ev_debug_handles(lua_State *L)
{
    const et_event *ev = check_ev(L, 1, NULL);
    if (!ev->has_debug_handles) {
        lua_pushnil(L);
    } else if (!ev->debug_handles_is_list) {
        lua_pushinteger(L, (lua_Integer)ev->debug_handles[0]);
    } else {
        lua_createtable(L, (int)ev->n_debug_handles, 0);
        for (uint32_t k = 0; k < ev->n_debug_handles; k++) {
            lua_pushinteger(L, (lua_Integer)ev->debug_handles[k]);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
    }
    return 1;
}

/* stack_traces (module false) or module_hierarchy (true): one entry per
 * distinct node, first seen first, keyed by the node's name and "_". */
static int node_dict(lua_State *L, bool module)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    et_lua_new_dict(L);
    luaL_Buffer b;
    uint32_t bits;
    for (uint32_t k = 0; k < ev->node_count; k++) {
        const et_graph_node *nd = link_node(c, ev, k, &bits);
        if (!(bits & ET_LINK_NODE_FIRST))
            continue;
        if (module)
            et_lua_push_module_stack(L, nd);
        else if (nd->stack_trace)
            lua_pushstring(L, nd->stack_trace);
        else
            lua_pushnil(L);
        luaL_buffinit(L, &b);
        luaL_addstring(&b, nd->name);
        luaL_addchar(&b, '_');
        luaL_pushresult(&b);
        size_t n;
        const char *key = lua_tolstring(L, -1, &n);
        lua_insert(L, -2); /* key below the value */
        et_lua_dict_set(L, -3, key, n);
        lua_pop(L, 1); /* the key */
    }
    return 1;
}

static int ev_stack_traces(lua_State *L)
{
    return node_dict(L, false);
}

static int ev_module_hierarchy(lua_State *L)
{
    return node_dict(L, true);
}

static int ev_backend(lua_State *L)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    const et_inspector *insp = c->box->insp;
    et_event_instr pi;
    if (ev->delegate_backend_name)
        lua_pushstring(L, ev->delegate_backend_name);
    else if (!insp->etrecord &&
             et_event_program_instr(insp, &insp->blocks[c->block], ev, &pi) && pi.backend.p)
        lua_pushlstring(L, pi.backend.p, pi.backend.n);
    else
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

/* ev.debug_data: the first run's debug values (l_values.h), {} when the
 * event has none. */
static int ev_debug_data(lua_State *L)
{
    lua_child *c;
    check_ev(L, 1, &c);
    return et_lua_child_run_values(L, c, c->event, ET_RUN_FIRST, 0);
}

/* ev:debug_data_of_run(r) -> sequence of run r's debug values (r 1-based
 * over the block's runs, 1..ev.num_debug_runs; the runs of a block may log
 * different values); a Lua error for r out of range. */
static int ev_debug_data_of_run(lua_State *L)
{
    lua_child *c;
    check_ev(L, 1, &c);
    return et_lua_child_run_values(L, c, c->event, ET_RUN_REQUIRED, 0);
}

/* ev:debug_data_raw([r]) -> sequence of raw descriptions of run r's (default
 * 1) Value tables: {kind=, scalar_type=, dtype=, shape=, strides=, offset=}
 * (l_values.h); never reads the debug buffer. */
static int ev_debug_data_raw(lua_State *L)
{
    lua_child *c;
    check_ev(L, 1, &c);
    return et_lua_child_run_values(L, c, c->event, ET_RUN_OPTIONAL, 1);
}

/* ev.num_debug_runs: how many runs' debug values the event has (the
 * block's number of runs; 0 for an event without debug events). */
static int ev_num_debug_runs(lua_State *L)
{
    lua_child *c;
    const et_event *ev = check_ev(L, 1, &c);
    lua_pushinteger(L, ev->has_debug_data ? (lua_Integer)c->box->insp->blocks[c->block].n_runs
                                          : 0);
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
    et_lua_push_shown(L, n.p ? n.p : "", n.n); /* a display form: escaped */
    luaL_addvalue(&b);
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
    static const et_lua_method methods[] = {{"debug_data_of_run", ev_debug_data_of_run, 1, 0},
                                            {"debug_data_raw", ev_debug_data_raw, 1, 0},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_getter getters[] = {
        {"name", ev_name, 0, ET_LUA_LEAF},
        {"perf_data", ev_perf_data, 2, 0},
        {"op_types", ev_op_types, 0, 0},
        {"delegate_debug_identifier", ev_did, 0, ET_LUA_LEAF},
        {"debug_handles", ev_debug_handles, 0, 0},
        {"stack_traces", ev_stack_traces, 0, 0},
        {"module_hierarchy", ev_module_hierarchy, 0, 0},
        {"is_delegated_op", ev_is_delegated, 0, ET_LUA_LEAF},
        {"delegate_backend_name", ev_backend, 0, ET_LUA_LEAF},
        {"debug_data", ev_debug_data, 0, 0},
        {"num_debug_runs", ev_num_debug_runs, 0, ET_LUA_LEAF},
        {"start_time", ev_start_time, 0, 0},
        {"num_outputs", ev_num_outputs, 0, ET_LUA_LEAF},
        {"instruction_id", ev_instruction_id, 0, ET_LUA_LEAF},
        {"chain_index", ev_chain_index, 0, ET_LUA_LEAF},
        {"delegate_debug_metadatas", ev_metadatas, 0, 0},
        {"raw_delegate_debug_metadatas", ev_raw_metadatas, 0, 0},
        {NULL, NULL, 0, 0}};
    static const et_lua_type type = {ET_MT_EVENT, "Event", methods, getters, NULL, ev_tostring,
                                     NULL, NULL, NULL};
    et_lua_define_type(L, &type);
}
