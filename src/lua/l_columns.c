/*
 * l_columns.c - the columnar path for bulk queries over raw runs
 * (docs/lua-api.md, "Columns"): one call per run fills plain arrays, and
 * event names become small integer ids shared by the whole inspector, so a
 * Lua loop over a million events indexes arrays instead of calling an
 * iterator and hashing names.
 *
 *   insp:run_columns(index [, cols])  -> cols
 *       index   1-based RunData index (run.index)
 *       cols    optional table from an earlier call, refilled in place
 *               (its arrays are reused; entries past cols.n are stale)
 *     cols.n             number of events of the run (0 without events)
 *     cols.kind[i]       0 empty, 1 profile, 2 debug, 3 allocation
 *     cols.name[i]       name id (insp:column_names()[id]), 0 without one
 *     cols.start_time[i] raw ticks (profile events; allocator id for an
 *     cols.end_time[i]   allocation event, then the size in bytes); else 0
 *   insp:column_names() -> names   id -> name string, in order of first
 *       appearance; one table per inspector, which grows as calls see
 *       new names
 *
 * Errors: "bad argument #1 to 'run_columns' (run index N out of range
 * 1..M)", "inspector is closed".
 */
#include <stdint.h>
#include <string.h>

#include "binding.h"

#define SLOTS 4096 /* name cache: power of two */

/* Kept in the Inspector's user value (field _columns): the name cache. */
typedef struct col_cache {
    struct {
        const char *p; /* the name's bytes in the mapped dump; NULL: empty */
        uint32_t n;
        uint32_t id;
    } slot[SLOTS];
} col_cache;

/* Push the Inspector's cache userdata and names table (creating them). */
static col_cache *get_cache(lua_State *L, int insp, int *names)
{
    lua_getiuservalue(L, insp, 1);
    int uv = lua_gettop(L);
    if (lua_getfield(L, uv, "_columns") != LUA_TUSERDATA) {
        lua_pop(L, 1);
        col_cache *c = lua_newuserdatauv(L, sizeof *c, 0);
        memset(c, 0, sizeof *c);
        lua_pushvalue(L, -1);
        lua_setfield(L, uv, "_columns");
        lua_newtable(L);
        lua_setfield(L, uv, "_column_names");
        lua_newtable(L);
        lua_setfield(L, uv, "_column_ids");
    }
    col_cache *c = lua_touserdata(L, -1);
    lua_getfield(L, uv, "_column_names");
    lua_getfield(L, uv, "_column_ids");
    *names = lua_gettop(L) - 1;
    return c;
}

/* The id of name s (0 when absent); names at `names`, ids at names + 1. */
static lua_Integer name_id(lua_State *L, col_cache *c, int names, et_str s)
{
    if (!s.p)
        return 0;
    uint64_t tail = 0;
    size_t m = s.n < 8 ? s.n : 8;
    memcpy(&tail, s.p + s.n - m, m);
    uint64_t h = (tail ^ (uint64_t)s.n * 0x9E3779B97F4A7C15u) * 0x9E3779B97F4A7C15u;
    size_t k = (size_t)(h >> 52) & (SLOTS - 1);
    if (c->slot[k].p && c->slot[k].n == s.n &&
        (c->slot[k].p == s.p || memcmp(c->slot[k].p, s.p, s.n) == 0))
        return c->slot[k].id;
    lua_pushlstring(L, s.p, s.n);
    lua_Integer id;
    if (lua_rawget(L, names + 1) == LUA_TNUMBER) {
        id = lua_tointeger(L, -1);
        lua_pop(L, 1);
    } else {
        lua_pop(L, 1);
        id = (lua_Integer)lua_rawlen(L, names) + 1;
        lua_pushlstring(L, s.p, s.n);
        lua_pushvalue(L, -1);
        lua_rawseti(L, names, id);
        lua_pushinteger(L, id);
        lua_rawset(L, names + 1);
    }
    if (id <= (lua_Integer)UINT32_MAX) {
        c->slot[k].p = s.p;
        c->slot[k].n = s.n;
        c->slot[k].id = (uint32_t)id;
    }
    return id;
}

/* Field `key` of the table at `cols`: an existing table, or a new one. */
static int column(lua_State *L, int cols, const char *key, int narr)
{
    if (lua_getfield(L, cols, key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, narr, 0);
        lua_pushvalue(L, -1);
        lua_setfield(L, cols, key);
    }
    return lua_gettop(L);
}

static int insp_run_columns(lua_State *L)
{
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_inspector *insp = et_lua_insp_raw(L, box);
    lua_Integer idx = luaL_checkinteger(L, 2);
    uint32_t nruns = et_etdump_num_runs(&insp->dump);
    if (idx < 1 || idx > (lua_Integer)nruns)
        return luaL_argerror(L, 2,
                             lua_pushfstring(L, "run index %I out of range 1..%I", idx,
                                             (lua_Integer)nruns));
    if (lua_isnoneornil(L, 3)) {
        lua_settop(L, 2);
        lua_newtable(L);
    } else {
        luaL_checktype(L, 3, LUA_TTABLE);
        lua_settop(L, 3);
    }
    int names;
    col_cache *c = get_cache(L, 1, &names);
    et_run run;
    uint32_t ri = (uint32_t)(idx - 1);
    et_etdump_run(&insp->dump, ri, &run);
    uint32_t n = run.has_events ? run.events.count : 0;
    int narr = n > INT32_MAX ? INT32_MAX : (int)n;
    int kind = column(L, 3, "kind", narr), name = column(L, 3, "name", narr);
    int st = column(L, 3, "start_time", narr), en = column(L, 3, "end_time", narr);
    et_event_cursor cur;
    et_event_cursor_init(&cur, &insp->dump, ri, &run);
    for (uint32_t i = 0; i < n; i++) {
        et_raw_event e;
        et_event_cursor_get(&cur, i, &e);
        lua_Integer k = (lua_Integer)e.kind, s = 0, t = 0, nm = 0;
        if (e.kind == ET_EV_PROFILE) {
            s = (lua_Integer)e.start_time;
            t = (lua_Integer)e.end_time;
        } else if (e.kind == ET_EV_ALLOCATION) {
            s = e.allocator_id;
            t = (lua_Integer)e.allocation_size;
        }
        if (e.kind == ET_EV_PROFILE || e.kind == ET_EV_DEBUG)
            nm = name_id(L, c, names, e.name);
        lua_pushinteger(L, k);
        lua_rawseti(L, kind, (lua_Integer)i + 1);
        lua_pushinteger(L, nm);
        lua_rawseti(L, name, (lua_Integer)i + 1);
        lua_pushinteger(L, s);
        lua_rawseti(L, st, (lua_Integer)i + 1);
        lua_pushinteger(L, t);
        lua_rawseti(L, en, (lua_Integer)i + 1);
    }
    lua_pushinteger(L, (lua_Integer)n);
    lua_setfield(L, 3, "n");
    lua_settop(L, 3);
    return 1;
}

static int insp_column_names(lua_State *L)
{
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_lua_insp_raw(L, box);
    int names;
    get_cache(L, 1, &names);
    lua_pushvalue(L, names);
    return 1;
}

/* Add the two methods to the Inspector (called by luaopen_etinspect),
 * through the object model's dispatch (binding.h): self checked, the
 * arguments counted, the inspector pinned while a call runs (a user's
 * finalizer run by an allocation, or a metamethod of `cols`, cannot close
 * it under the loop). */
void et_lua_register_columns(lua_State *L)
{
    static const et_lua_method run_columns = {"run_columns", insp_run_columns, 2, 0};
    static const et_lua_method column_names = {"column_names", insp_column_names, 0, 0};
    et_lua_add_method(L, ET_MT_INSPECTOR, &run_columns);
    et_lua_add_method(L, ET_MT_INSPECTOR, &column_names);
}
