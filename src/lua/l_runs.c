/*
 * l_runs.c - raw runs (RunData) and their events, for custom queries.
 *
 *   for i, run in insp:runs() do ... end        every RunData, in file order
 *   run.name, run.bundled_input_index, run.num_events (nil when the run has
 *   no events vector), run.allocators (sequence of names), run.index (1-based)
 *   for i, name, start_time, end_time, kind, instruction_id, chain_index,
 *       delegate_debug_identifier in run:events() do ... end
 *
 * run:events() is a C closure that decodes one event per call and returns
 * plain values: no table or userdata is made per event.  kind is "profile",
 * "debug", "allocation" or "empty"; name is nil when absent; times are raw
 * ticks (profile events; 0 otherwise); for allocation events start_time is
 * the allocator id and end_time the allocation size in bytes.
 */
#include <stdbool.h>
#include <string.h>

#include "binding.h"
#include "base/strbuf.h"

static const char *const kind_names[] = {"empty", "profile", "debug", "allocation"};

typedef struct run_ref {
    et_lua_obj obj;
    lua_insp_box *box;
    uint32_t run;
} run_ref;

static run_ref *check_run(lua_State *L, int arg, et_run *out)
{
    run_ref *r = luaL_checkudata(L, arg, ET_MT_RUN);
    if (!r->box->insp)
        et_lua_closed_error(L, "Run", &r->box->own);
    et_inspector *insp = r->box->insp;
    if (out)
        et_etdump_run(&insp->dump, r->run, out);
    return r;
}

/* Event names repeat (a dump has a handful of distinct names and up to
 * millions of events), so the iterator keeps the Lua strings it made in a
 * small direct-mapped cache: a hit costs a memcmp and a table read instead
 * of Lua's interning (hashing every byte, then a bucket walk). */
#define NAME_CACHE_SLOTS 64
#define NAME_UV 7 /* the events() closure's first upvalue holding a cached string */
_Static_assert(NAME_CACHE_SLOTS == 64, "push_name takes the top 6 bits of its hash");

typedef struct name_slot {
    const char *p; /* the name's bytes in the mapped dump; NULL: slot empty */
    size_t n;
} name_slot;

/* State of one events() iteration. */
typedef struct events_iter {
    run_ref *run_ud;
    et_event_cursor cur; /* the run, decoded once, and its vtables' layout */
    uint32_t next;       /* index of the next event */
    name_slot names[NAME_CACHE_SLOTS]; /* slot k's string: upvalue NAME_UV + k */
} events_iter;

/* Pushes name s (nil when absent) through the iterator's cache, whose
 * strings are the events() closure's upvalues NAME_UV.. (an upvalue is
 * read faster than a table slot).  The bytes stay valid while the
 * inspector is open, which events_next checks first.  Returns true when
 * it made a new string: an allocation, which may have run a finalizer. */
static inline bool push_name(lua_State *L, events_iter *it, et_str s)
{
    if (!s.p) {
        lua_pushnil(L);
        return false;
    }
    /* names differ near their end ("native_call_add.out"): hash the length
     * and the last 8 bytes (fewer for a short name) */
    uint64_t tail = 0;
    if (s.n >= 8) /* one load: a copy of fewer bytes stalls the load after it */
        memcpy(&tail, s.p + s.n - 8, 8);
    else
        memcpy(&tail, s.p, s.n);
    uint64_t h = (tail ^ (uint64_t)s.n * 0x9E3779B97F4A7C15u) * 0x9E3779B97F4A7C15u;
    size_t k = (size_t)(h >> 58); /* top 6 bits: NAME_CACHE_SLOTS == 64 */
    name_slot *slot = &it->names[k];
    if (slot->p && slot->n == s.n && (slot->p == s.p || et_bytes_equal(slot->p, s.p, s.n))) {
        lua_pushvalue(L, lua_upvalueindex(NAME_UV + (int)k));
        return false;
    }
    lua_pushlstring(L, s.p, s.n);
    lua_pushvalue(L, -1);
    lua_replace(L, lua_upvalueindex(NAME_UV + (int)k));
    slot->p = s.p;
    slot->n = s.n;
    return true;
}

/* The events() iterator.  Upvalues: 1 the Run userdata (anchor), 2 the
 * events_iter, 3..6 the kind names, NAME_UV.. the name cache's strings.  It
 * runs unpinned (it is called once per event: no protected call), so it
 * checks the inspector first and again after the one allocation that may
 * run a user's finalizer before it reads the dump again. */
static int events_next(lua_State *L)
{
    events_iter *it = lua_touserdata(L, lua_upvalueindex(2));
    run_ref *r = it->run_ud;
    if (!r->box->insp)
        return et_lua_closed_error(L, "Run", &r->box->own);
    et_inspector *insp = r->box->insp;
    uint32_t i = it->next;
    if (i >= it->cur.run.events.count)
        return 0;
    it->next = i + 1;
    et_raw_event e;
    et_event_cursor_get(&it->cur, i, &e);
    lua_pushinteger(L, (lua_Integer)i + 1);
    /* closed by a finalizer that a new string's allocation ran? */
    if (push_name(L, it, e.kind == ET_EV_ALLOCATION ? (et_str){NULL, 0} : e.name) &&
        r->box->insp != insp)
        return et_lua_closed_error(L, "Run", &r->box->own);
    switch (e.kind) {
    case ET_EV_PROFILE:
        lua_pushinteger(L, (lua_Integer)e.start_time);
        lua_pushinteger(L, (lua_Integer)e.end_time);
        break;
    case ET_EV_ALLOCATION:
        lua_pushinteger(L, e.allocator_id);
        lua_pushinteger(L, (lua_Integer)e.allocation_size);
        break;
    default:
        lua_pushinteger(L, 0);
        lua_pushinteger(L, 0);
    }
    lua_pushvalue(L, lua_upvalueindex(3 + (int)e.kind));
    if (e.kind == ET_EV_PROFILE || e.kind == ET_EV_DEBUG) {
        lua_pushinteger(L, e.instruction_id);
        if (e.chain_neg)
            lua_pushinteger(L, (lua_Integer)(int64_t)e.chain_value);
        else
            lua_pushinteger(L, (lua_Integer)e.chain_value); /* u64 max wraps to -1 */
        if (e.delegate_debug_id_int != -1)
            lua_pushinteger(L, e.delegate_debug_id_int);
        else if (!e.delegate_debug_id_str.p)
            lua_pushnil(L);
        else
            push_name(L, it, e.delegate_debug_id_str); /* the last read of the dump */
        return 8;
    }
    return 5;
}

static int run_events(lua_State *L)
{
    et_run run;
    run_ref *r = check_run(L, 1, &run);
    lua_pushvalue(L, 1);
    events_iter *it = lua_newuserdatauv(L, sizeof *it, 0);
    it->run_ud = r;
    et_event_cursor_init(&it->cur, &r->box->insp->dump, r->run, &run);
    it->next = 0;
    memset(it->names, 0, sizeof it->names);
    for (int k = 0; k < 4; k++)
        lua_pushstring(L, kind_names[k]);
    luaL_checkstack(L, NAME_CACHE_SLOTS, "events()");
    for (int k = 0; k < NAME_CACHE_SLOTS; k++)
        lua_pushnil(L);
    lua_pushcclosure(L, events_next, NAME_UV - 1 + NAME_CACHE_SLOTS);
    return 1;
}

static int run_name(lua_State *L)
{
    et_run run;
    check_run(L, 1, &run);
    et_lua_push_str(L, run.name);
    return 1;
}

static int run_bii(lua_State *L)
{
    et_run run;
    check_run(L, 1, &run);
    lua_pushinteger(L, run.bundled_input_index);
    return 1;
}

static int run_num_events(lua_State *L)
{
    et_run run;
    check_run(L, 1, &run);
    if (run.has_events)
        lua_pushinteger(L, run.events.count);
    else
        lua_pushnil(L);
    return 1;
}

static int run_allocators(lua_State *L)
{
    et_run run;
    run_ref *r = check_run(L, 1, &run);
    lua_createtable(L, (int)run.allocators.count, 0);
    for (uint32_t i = 0; i < run.allocators.count; i++) {
        et_lua_push_str(L, et_etdump_allocator_name(&r->box->insp->dump, &run, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int run_index(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_run(L, 1, NULL)->run + 1);
    return 1;
}

static int run_tostring(lua_State *L)
{
    run_ref *r = luaL_checkudata(L, 1, ET_MT_RUN);
    if (!r->box->insp) {
        lua_pushliteral(L, "Run (inspector closed)");
        return 1;
    }
    et_run run;
    et_etdump_run(&r->box->insp->dump, r->run, &run);
    lua_pushfstring(L, "Run %d '", (int)r->run + 1);
    et_lua_push_str(L, run.name);
    lua_pushfstring(L, "' (%d events)", (int)run.events.count);
    lua_concat(L, 3);
    return 1;
}

/* insp:runs(): iterator over (index, Run). Upvalues: inspector, next index. */
static int runs_next(lua_State *L)
{
    lua_insp_box *box = lua_touserdata(L, lua_upvalueindex(1));
    et_inspector *insp = et_lua_insp_raw(L, box);
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    if (i >= (lua_Integer)et_etdump_num_runs(&insp->dump))
        return 0;
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    lua_pushinteger(L, i + 1);
    run_ref *r = lua_newuserdatauv(L, sizeof *r, 1);
    r->obj.magic = ET_LUA_OBJ_MAGIC;
    r->obj.owner = &box->own;
    r->box = box;
    r->run = (uint32_t)i;
    luaL_setmetatable(L, ET_MT_RUN);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setiuservalue(L, -2, 1);
    return 2;
}

static int insp_runs(lua_State *L)
{
    et_lua_insp_raw(L, luaL_checkudata(L, 1, ET_MT_INSPECTOR));
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, runs_next, 2);
    return 1;
}

void et_lua_register_runs(lua_State *L)
{
    static const et_lua_method methods[] = {{"events", run_events, 0, 0}, {NULL, NULL, 0, 0}};
    static const et_lua_getter getters[] = {{"name", run_name, 0, ET_LUA_LEAF},
                                            {"bundled_input_index", run_bii, 0, ET_LUA_LEAF},
                                            {"num_events", run_num_events, 0, ET_LUA_LEAF},
                                            {"allocators", run_allocators, 0, 0},
                                            {"index", run_index, 0, ET_LUA_LEAF},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_type type = {ET_MT_RUN, "Run", methods, getters, NULL, run_tostring,
                                     NULL, NULL, NULL};
    et_lua_define_type(L, &type);
    /* insp:runs() joins the Inspector's methods */
    static const et_lua_method runs = {"runs", insp_runs, 0, 0};
    et_lua_add_method(L, ET_MT_INSPECTOR, &runs);
}
