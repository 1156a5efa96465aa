/*
 * l_html.c - the C helpers of the HTML report (lua/etinspect/html.lua), in
 * the private table etinspect._core:
 *
 *   _core.html_plan(insp, max_slices)        -> plan (htmldata.h)
 *   _core.html_data(insp, max_slices [, dest]) -> base64 text, or nil
 *   _core.html_spread(block, groups)         -> spread per group
 *   _core.html_run(block, k)                 -> starts of run k, origin tick
 *   _core.html_starts(event, max)            -> first start ticks, count
 *   _core.html_track(event)                  -> "framework" | "operators" | "delegate"
 *
 * They exist so that the report never builds a Lua value per sample: the
 * timeline's data (a million samples for large.etdp) goes from the model
 * to the page's file in one pass.  The html_* functions run with the
 * owner of their first argument pinned (et_lua_push_pinned): they hold
 * pointers into the model across allocations, at which the collector may
 * run a user's finalizer that closes the inspector.  html_data writes to
 * an io file or an OutFile (l_outfile.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "output/htmldata.h"
#include "output/timeline.h"

/* The sample limit at `arg`: a non-negative integer (0: none). */
static size_t check_limit(lua_State *L, int arg)
{
    lua_Integer n = luaL_checkinteger(L, arg);
    luaL_argcheck(L, n >= 0, arg, "a non-negative integer expected");
    return (size_t)n;
}

/* _core.html_plan(insp, max_slices): the runs of each block the data of
 * the page holds and where (htmldata.h, et_html_plan_make).  Returns
 * {bytes = B, samples = S, [b] = {runs = R, offset = O, events = E}}. */
static int html_plan(lua_State *L)
{
    et_inspector *insp = et_lua_insp(L, luaL_checkudata(L, 1, ET_MT_INSPECTOR));
    size_t max = check_limit(L, 2);
    et_html_plan plan;
    et_error err;
    if (et_html_plan_make(insp, max, &plan, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    lua_createtable(L, (int)plan.n_blocks, 2);
    lua_pushinteger(L, (lua_Integer)plan.bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushinteger(L, (lua_Integer)plan.samples);
    lua_setfield(L, -2, "samples");
    for (size_t b = 0; b < plan.n_blocks; b++) {
        lua_createtable(L, 0, 3);
        lua_pushinteger(L, (lua_Integer)plan.runs[b]);
        lua_setfield(L, -2, "runs");
        lua_pushinteger(L, (lua_Integer)plan.offset[b]);
        lua_setfield(L, -2, "offset");
        lua_pushinteger(L, (lua_Integer)insp->blocks[b].n_events);
        lua_setfield(L, -2, "events");
        lua_rawseti(L, -2, (lua_Integer)b + 1);
    }
    et_html_plan_free(&plan);
    return 1;
}

static int write_file(void *ud, const char *text, size_t n)
{
    return fwrite(text, 1, n, (FILE *)ud) == n ? 0 : -1;
}

static int write_buffer(void *ud, const char *text, size_t n)
{
    luaL_addlstring((luaL_Buffer *)ud, text, n);
    return 0;
}

/* _core.html_data(insp, max_slices [, dest]): the page's data (htmldata.h)
 * as base64 text, written to `dest` (an io file or an OutFile) or returned
 * as a string when there is none.  Raises "PATH: write failed: REASON"
 * (an OutFile, then aborted; "html_data: write failed: REASON" for an io
 * file). */
static int html_data(lua_State *L)
{
    et_inspector *insp = et_lua_insp(L, luaL_checkudata(L, 1, ET_MT_INSPECTOR));
    size_t max = check_limit(L, 2);
    FILE *fp = et_lua_dest_file(L, 3, "html_data");
    et_html_plan plan;
    et_error err;
    if (et_html_plan_make(insp, max, &plan, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    int rc;
    if (fp) {
        rc = et_html_write_data(insp, &plan, write_file, fp, &err);
        et_html_plan_free(&plan);
        if (rc != 0 && err.kind == ET_ERR_IO) /* the path and the reason */
            return et_lua_dest_failed(L, 3, "html_data");
        if (rc != 0)
            return luaL_error(L, "html_data: %s", err.msg);
        return 0;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    rc = et_html_write_data(insp, &plan, write_buffer, &b, &err);
    et_html_plan_free(&plan);
    if (rc != 0)
        return luaL_error(L, "html_data: %s", err.msg);
    luaL_pushresult(&b);
    return 1;
}

/* _core.html_spread(block, groups): `groups` holds, for each event of the
 * EventBlock (1-based), its group (a positive integer) or nil/0/false for
 * none.  Returns one table per group 1..max, {runs =, mean =, min =,
 * p25 =, p50 =, p75 =, max =}: the statistics over the block's runs of the
 * group's time per run (htmldata.h, et_html_group_spread). */
static int html_spread(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_BLOCK);
    luaL_checktype(L, 2, LUA_TTABLE);
    et_inspector *insp = et_lua_insp(L, c->box);
    const et_block *blk = &insp->blocks[c->block];
    size_t n = blk->n_events;
    uint32_t *group = lua_newuserdatauv(L, (n ? n : 1) * sizeof *group, 0);
    size_t n_groups = 0;
    for (size_t e = 0; e < n; e++) {
        lua_rawgeti(L, 2, (lua_Integer)e + 1);
        int isint = 0;
        lua_Integer g = lua_tointegerx(L, -1, &isint);
        if (!isint && !lua_isnil(L, -1) && !(lua_isboolean(L, -1) && !lua_toboolean(L, -1)))
            return luaL_error(L, "html_spread: groups[%d]: a group number expected, got %s",
                              (int)e + 1, luaL_typename(L, -1));
        if (g < 0 || g > (lua_Integer)n)
            return luaL_error(L, "html_spread: groups[%d]: %d is not a group (1..%d)", (int)e + 1,
                              (int)g, (int)n);
        group[e] = (uint32_t)g;
        if ((size_t)g > n_groups)
            n_groups = (size_t)g;
        lua_pop(L, 1);
    }
    et_html_spread *out = lua_newuserdatauv(L, (n_groups ? n_groups : 1) * sizeof *out, 0);
    et_error err;
    if (et_html_group_spread(insp, c->block, group, n_groups, out, &err) != 0)
        return luaL_error(L, "html_spread: %s", err.msg);
    lua_createtable(L, (int)n_groups, 0);
    static const char *const keys[] = {"mean", "min", "p25", "p50", "p75", "max"};
    for (size_t g = 0; g < n_groups; g++) {
        const double v[] = {out[g].mean, out[g].min, out[g].p25,
                            out[g].p50,  out[g].p75, out[g].max};
        lua_createtable(L, 0, 7);
        lua_pushinteger(L, (lua_Integer)out[g].runs);
        lua_setfield(L, -2, "runs");
        for (int i = 0; i < 6; i++) {
            lua_pushnumber(L, v[i]);
            lua_setfield(L, -2, keys[i]);
        }
        lua_rawseti(L, -2, (lua_Integer)g + 1);
    }
    return 1;
}

/* _core.html_run(block, k): the starts of the block's events in its run
 * k (1-based) as the page places them (et_html_run_starts): a sequence
 * with one number per event (target units from the run's origin; NaN for
 * none) and the run's origin tick.  Raises for a run out of range. */
static int html_run(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_BLOCK);
    lua_Integer k = luaL_checkinteger(L, 2);
    et_inspector *insp = et_lua_insp(L, c->box);
    const et_block *blk = &insp->blocks[c->block];
    if (k < 1 || (size_t)k > blk->n_runs)
        return luaL_error(L, "html_run: run %d is not a run of block %d (it has %d)", (int)k,
                          (int)c->block + 1, (int)blk->n_runs);
    size_t n = blk->n_events;
    double *start = lua_newuserdatauv(L, (n ? n : 1) * sizeof *start, 0);
    uint64_t origin;
    et_error err;
    if (et_html_run_starts(insp, c->block, (size_t)k - 1, start, &origin, &err) != 0)
        return luaL_error(L, "html_run: %s", err.msg);
    lua_createtable(L, (int)n, 0);
    for (size_t e = 0; e < n; e++) {
        lua_pushnumber(L, start[e]);
        lua_rawseti(L, -2, (lua_Integer)e + 1);
    }
    lua_pushinteger(L, (lua_Integer)origin);
    return 2;
}

/* _core.html_starts(event, max): the event's raw start ticks of its first
 * `max` runs (a sequence of integers) and the number of runs it has, or
 * nil when it has no start times. */
static int html_starts(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_EVENT);
    size_t max = check_limit(L, 2);
    et_inspector *insp = et_lua_insp(L, c->box);
    const et_event *ev = &insp->blocks[c->block].events[c->event];
    if (!ev->start_time) {
        lua_pushnil(L);
        return 1;
    }
    size_t n = ev->perf_data.n, k = n < max ? n : max;
    lua_createtable(L, (int)k, 0);
    for (size_t i = 0; i < k; i++) {
        lua_pushinteger(L, (lua_Integer)ev->start_time[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 2;
}

/* _core.html_track(event): the event's timeline track, by the rule the
 * trace uses too (timeline.h, et_tl_track_of). */
static int html_track(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_EVENT);
    et_inspector *insp = et_lua_insp(L, c->box);
    static const char *const names[] = {"framework", "operators", "delegate"};
    lua_pushstring(L, names[et_tl_track_of(&insp->blocks[c->block].events[c->event])]);
    return 1;
}

void et_lua_open_html(lua_State *L)
{
    static const luaL_Reg fns[] = {{"html_plan", html_plan},     {"html_data", html_data},
                                   {"html_spread", html_spread}, {"html_starts", html_starts},
                                   {"html_run", html_run},       {"html_track", html_track},
                                   {NULL, NULL}};
    for (int i = 0; fns[i].name; i++) {
        char name[32];
        snprintf(name, sizeof name, "_core.%s", fns[i].name);
        et_lua_push_pinned(L, fns[i].func, name);
        lua_setfield(L, -2, fns[i].name);
    }
}
