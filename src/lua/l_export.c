/*
 * l_export.c - exports of an Inspector beyond the reference, as methods
 * of the Inspector and EventBlock types:
 *
 *   insp:write_trace(path [, opts])   Chrome Trace Event JSON (src/core/trace.h)
 *       opts.cycles_hz     number: ticks per second for cycles dumps
 *       opts.runs          "0-3,7" or a sequence of RunData indices
 *       opts.runs_apart    boolean: one process per run
 *       opts.window        {start_us, end_us}: only slices overlapping it
 *     Delegated events carry their parsed metadata (the Inspector's
 *     delegate_metadata_parser) in args.  The file is written through a
 *     temporary file and renamed; the ETDump is never overwritten.
 *     Errors: "the source time scale is cycles: give the clock frequency
 *     ...", "runs: expected ...", the file's I/O errors.
 *   insp:to_sqlite(path [, opts])     SQLite database (src/core/sqlexport.h)
 *       opts.dump          the dump's name in the database (default: the
 *                          ETDump's file name)
 *   blk:memory_summary()   sequence of {allocator_id, allocator (nil when
 *                          unnamed), allocations, bytes, bytes_per_run,
 *                          largest} (bytes), one per allocator with
 *                          allocations, in id order (report.h)
 *   insp:write_html(path) is in the Lua library (lua/etinspect/html.lua).
 */
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "outfile.h"
#include "report.h"
#include "sqlexport.h"
#include "strbuf.h"
#include "trace.h"

/* Metadata callback state: the Lua state and the Inspector's stack index. */
typedef struct trace_md {
    lua_State *L;
    int insp;
    int json; /* index of the JSON encoder (etinspect.Frame.json) */
} trace_md;

/* json(ev.delegate_debug_metadatas) of event (block, event): arguments the
 * Inspector, the block and event (0-based) and the encoder.  Runs
 * protected: nothing may unwind through the C trace writer. */
static int metadata_json(lua_State *L)
{
    size_t block = (size_t)lua_tointeger(L, 2), event = (size_t)lua_tointeger(L, 3);
    et_lua_push_child(L, 1, ET_MT_EVENT, block, event);
    lua_getfield(L, -1, "delegate_debug_metadatas"); /* parsed once, cached */
    lua_pushvalue(L, 4);
    lua_insert(L, -2);
    lua_call(L, 1, 1);
    return 1;
}

/* JSON of an event's parsed delegate metadata, or NULL (not delegated, no
 * parser, the parser failed, or nothing to say).  The Inspector is pinned
 * by write_trace: the parser cannot close it. */
static char *trace_metadata(void *ud, size_t block, size_t event, size_t run)
{
    (void)run;
    trace_md *m = ud;
    lua_State *L = m->L;
    lua_insp_box *box = lua_touserdata(L, m->insp);
    if (!box->insp)
        return NULL;
    const et_event *ev = &box->insp->blocks[block].events[event];
    if (!ev->is_delegated_op || box->parser_ref == LUA_NOREF || !ev->raw_delegate_debug_metadatas)
        return NULL;
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 8))
        return NULL;
    /* nothing allocates before the protected call */
    lua_pushcfunction(L, metadata_json);
    lua_pushvalue(L, m->insp);
    lua_pushinteger(L, (lua_Integer)block);
    lua_pushinteger(L, (lua_Integer)event);
    lua_pushvalue(L, m->json);
    char *out = NULL;
    if (lua_pcall(L, 4, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
        size_t n;
        const char *s = lua_tolstring(L, -1, &n);
        if ((out = malloc(n + 1)))
            memcpy(out, s, n + 1);
    }
    lua_settop(L, top);
    return out;
}

/* The runs option: a string as is, or a sequence of integers joined. */
static const char *runs_option(lua_State *L, int opts, luaL_Buffer *b)
{
    int t = et_lua_opt_get(L, opts, "runs");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (t == LUA_TSTRING)
        return lua_tostring(L, -1); /* left on the stack */
    if (t != LUA_TTABLE)
        luaL_error(L, "Inspector:write_trace: runs: expected a string like \"0-3,7\" or a "
                      "sequence of run indices, got %s", luaL_typename(L, -1));
    int tbl = lua_gettop(L);
    luaL_buffinit(L, b);
    lua_Integer n = (lua_Integer)lua_rawlen(L, tbl);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, tbl, i);
        if (!lua_isinteger(L, -1))
            luaL_error(L, "Inspector:write_trace: runs[%I]: expected an integer", i);
        lua_Integer v = lua_tointeger(L, -1);
        lua_pop(L, 1);
        lua_pushfstring(L, "%s%I", i > 1 ? "," : "", v);
        luaL_addvalue(b);
    }
    luaL_pushresult(b);
    return lua_tostring(L, -1);
}

/* The paths an output must not overwrite: the ETDump and the debug buffer. */
static void inputs_of(lua_State *L, const char *inputs[3])
{
    inputs[0] = inputs[1] = inputs[2] = NULL;
    lua_getiuservalue(L, 1, 1);
    int k = 0;
    const char *keys[2] = {"etdump_path", "debug_buffer_path"};
    for (int i = 0; i < 2; i++) {
        if (lua_getfield(L, -1, keys[i]) == LUA_TSTRING)
            inputs[k++] = lua_tostring(L, -1); /* anchored in the user value */
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static int insp_write_trace(lua_State *L)
{
    static const et_lua_opt spec[] = {{"cycles_hz", "number"},
                                      {"runs", "string|table"},
                                      {"runs_apart", "boolean"},
                                      {"window", "table"},
                                      {NULL, NULL}};
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_inspector *insp = et_lua_insp(L, box);
    const char *path = luaL_checkstring(L, 2);
    et_lua_check_options(L, 3, "Inspector:write_trace", spec, 2);
    lua_settop(L, 3);
    et_trace_options o;
    et_trace_options_init(&o);
    if (et_lua_opt_get(L, 3, "cycles_hz") != LUA_TNIL)
        o.cycles_hz = lua_tonumber(L, -1);
    lua_pop(L, 1);
    et_lua_opt_get(L, 3, "runs_apart");
    o.runs_apart = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (et_lua_opt_get(L, 3, "window") != LUA_TNIL) {
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        if (!lua_isnumber(L, -2) || !lua_isnumber(L, -1) ||
            !(lua_tonumber(L, -1) > lua_tonumber(L, -2)))
            return luaL_error(L, "Inspector:write_trace: window: expected {start_us, end_us} with "
                                 "start below end");
        o.window_start_us = lua_tonumber(L, -2);
        o.window_end_us = lua_tonumber(L, -1);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    luaL_Buffer b;
    o.runs = runs_option(L, 3, &b);
    et_lua_require(L, "etinspect");
    lua_getfield(L, -1, "Frame");
    lua_getfield(L, -1, "json");
    trace_md md = {L, 1, lua_gettop(L)};
    o.metadata = trace_metadata;
    o.metadata_ud = &md;
    const char *inputs[3];
    inputs_of(L, inputs);
    et_error err;
    et_outfile of;
    /* from here to the commit only C and protected calls run: no Lua error
     * can leave the temporary file behind */
    if (et_outfile_open(&of, path, inputs, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    if (et_trace_write(insp, &o, of.fp, &err) != 0) {
        et_outfile_abort(&of);
        return luaL_error(L, "%s", err.msg);
    }
    if (et_outfile_commit(&of, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static int insp_to_sqlite(lua_State *L)
{
    static const et_lua_opt spec[] = {{"dump", "string"}, {NULL, NULL}};
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_inspector *insp = et_lua_insp(L, box);
    const char *path = luaL_checkstring(L, 2);
    et_lua_check_options(L, 3, "Inspector:to_sqlite", spec, 2);
    const char *dump = NULL;
    if (et_lua_opt_get(L, 3, "dump") != LUA_TNIL)
        dump = lua_tostring(L, -1);
    const char *inputs[3];
    inputs_of(L, inputs);
    for (int i = 0; inputs[i]; i++)
        if (strcmp(inputs[i], path) == 0)
            return luaL_error(L, "to_sqlite: '%s' is an input", path);
    et_error err;
    if (et_sqlite_export(insp, path, dump, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static int blk_memory_summary(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_BLOCK);
    const et_block *blk = &c->box->insp->blocks[c->block];
    et_memory_row *rows;
    void **keep = et_lua_push_cbuffer(L, 1); /* frees the rows on any exit */
    long n = et_block_memory_summary(blk, &rows);
    if (n < 0)
        return luaL_error(L, "out of memory");
    *keep = rows;
    lua_createtable(L, (int)n, 0);
    for (long i = 0; i < n; i++) {
        lua_createtable(L, 0, 6);
        lua_pushinteger(L, rows[i].allocator_id);
        lua_setfield(L, -2, "allocator_id");
        et_lua_push_str(L, rows[i].allocator);
        lua_setfield(L, -2, "allocator");
        lua_pushinteger(L, (lua_Integer)rows[i].allocations);
        lua_setfield(L, -2, "allocations");
        lua_pushinteger(L, (lua_Integer)rows[i].bytes);
        lua_setfield(L, -2, "bytes");
        lua_pushnumber(L, blk->n_runs ? (double)rows[i].bytes / (double)blk->n_runs : 0.0);
        lua_setfield(L, -2, "bytes_per_run");
        lua_pushinteger(L, (lua_Integer)rows[i].largest);
        lua_setfield(L, -2, "largest");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

void et_lua_register_export(lua_State *L)
{
    static const et_lua_method trace = {"write_trace", insp_write_trace, 2, 0};
    static const et_lua_method sqlite = {"to_sqlite", insp_to_sqlite, 2, 0};
    static const et_lua_method memory = {"memory_summary", blk_memory_summary, 0, 0};
    et_lua_add_method(L, ET_MT_INSPECTOR, &trace);
    et_lua_add_method(L, ET_MT_INSPECTOR, &sqlite);
    et_lua_add_method(L, ET_MT_BLOCK, &memory);
}
