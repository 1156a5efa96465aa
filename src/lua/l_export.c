/*
 * l_export.c - exports of an Inspector beyond the reference, as methods
 * of the Inspector and EventBlock types:
 *
 *   insp:write_trace(path [, opts])   Chrome Trace Event JSON (src/core/output/trace.h)
 *       opts.cycles_hz     number: ticks per second for cycles dumps
 *       opts.format        "json" or "perfetto" (Perfetto's native TrackEvent
 *                          protobuf); default: perfetto when path ends in
 *                          .pftrace or .perfetto-trace, else json
 *       opts.runs          "0-3,7" or a sequence of RunData indices
 *       opts.runs_apart    boolean: one process per run
 *       opts.window        {start_us, end_us}: only slices overlapping it
 *     Delegated events carry their parsed metadata (the Inspector's
 *     delegate_metadata_parser) in args.  The file is written through a
 *     temporary file and renamed; the ETDump is never overwritten.
 *     Errors: "the source time scale is cycles: give the clock frequency
 *     ...", "runs: expected ...", "trace format: expected json or perfetto,
 *     found 'X'", the file's I/O errors.
 *   insp:to_sqlite(path [, opts])     SQLite database (src/core/output/sqlexport.h)
 *       opts.dump          the dump's name in the database (default: the
 *                          ETDump's file name, or more of its path when
 *                          another file's dump has that name)
 *       opts.replace       with opts.dump: replace another file's dump of
 *                          that name (else an error)
 *     Options are checked by the contract (unknown keys, wrong types).
 *   insp:to_parquet(dir [, opts])     Parquet dataset (src/core/output/parquet.h):
 *       opts.dump          the dump's name, the column `dump` (default: the
 *                          ETDump's file name; "etdump_data" for bytes)
 *     DIR/TABLE/part-ID.parquet for each table, ID the dump's content
 *     hash; the dump's earlier files are replaced.  Errors: the writer's
 *     ("DIR: not a directory ...", "PATH: write failed: ...").
 *   blk:memory_summary()   sequence of {allocator_id, allocator (nil when
 *                          unnamed), allocations, bytes, bytes_per_run,
 *                          largest} (bytes), one per allocator with
 *                          allocations, in id order (memsummary.h)
 *   insp:write_html(path) is in the Lua library (lua/etinspect/html.lua).
 *
 * and, for several dumps as one dataset (lua/etinspect/many.lua), into
 * the private table etinspect._core (et_lua_open_export):
 *   _core.expand_dumps(patterns)               -> paths (dumpset.h)
 *   _core.dump_names(paths)                    -> names (dumpset.h)
 *   _core.sqlite_export(path, inspectors, names) one export of them all
 *   _core.parquet_export(dir, inspectors, names) the same as Parquet
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binding.h"
#include "files/dumpset.h"
#include "files/outfile.h"
#include "output/memsummary.h"
#include "output/parquet.h"
#include "output/sqlexport.h"
#include "base/strbuf.h"
#include "output/trace.h"

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
                                      {"format", "string"},
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
    o.format = et_trace_format_of_path(path);
    if (et_lua_opt_get(L, 3, "format") != LUA_TNIL) {
        et_error ferr;
        if (et_trace_parse_format(lua_tostring(L, -1), &o.format, &ferr) != 0)
            return luaL_error(L, "Inspector:write_trace: %s", ferr.msg);
    }
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
        if (err.kind == ET_ERR_IO) /* name the path and the reason */
            et_outfile_fail(&of, &err);
        else
            et_outfile_abort(&of);
        return luaL_error(L, "%s", err.msg);
    }
    if (et_outfile_commit(&of, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static int insp_to_sqlite(lua_State *L)
{
    static const et_lua_opt spec[] = {{"dump", "string"}, {"replace", "boolean"}, {NULL, NULL}};
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_inspector *insp = et_lua_insp(L, box);
    const char *path = luaL_checkstring(L, 2);
    et_lua_check_options(L, 3, "Inspector:to_sqlite", spec, 2);
    et_sqlite_dump_options o = {0};
    if (et_lua_opt_get(L, 3, "dump") != LUA_TNIL)
        o.name = lua_tostring(L, -1); /* anchored in the options table */
    et_lua_opt_get(L, 3, "replace");
    o.replace = lua_toboolean(L, -1);
    lua_pop(L, 2);
    if (o.replace && !o.name)
        return luaL_error(L, "Inspector:to_sqlite: option 'replace' needs option 'dump' (the "
                             "name whose rows it replaces)");
    const char *inputs[3];
    inputs_of(L, inputs);
    for (int i = 0; inputs[i]; i++)
        if (strcmp(inputs[i], path) == 0)
            return luaL_error(L, "to_sqlite: '%s' is an input", path);
    et_error err;
    if (et_sqlite_export(insp, path, &o, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static int insp_to_parquet(lua_State *L)
{
    static const et_lua_opt spec[] = {{"dump", "string"}, {NULL, NULL}};
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_inspector *insp = et_lua_insp(L, box);
    const char *dir = luaL_checkstring(L, 2);
    et_lua_check_options(L, 3, "Inspector:to_parquet", spec, 2);
    const char *name = NULL;
    if (et_lua_opt_get(L, 3, "dump") != LUA_TNIL)
        name = lua_tostring(L, -1); /* anchored in the options table */
    lua_pop(L, 1);
    if (!name) {
        const char *label = insp->etdump_label;
        const char *slash = label ? strrchr(label, '/') : NULL;
        name = !label || label[0] == '<' ? "etdump_data" : slash && slash[1] ? slash + 1 : label;
    }
    et_error err;
    if (et_parquet_export(insp, dir, name, &err) != 0)
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

/* ---- several dumps (dumpset.h; lua/etinspect/many.lua) ---- */

/* A path list that the collector frees whatever happens (a userdata with
 * __gc), so that no error between its filling and its use leaks it. */
static int pathlist_gc(lua_State *L)
{
    et_pathlist *l = lua_touserdata(L, 1);
    et_pathlist_free(l);
    *l = (et_pathlist){0};
    return 0;
}

static et_pathlist *push_pathlist(lua_State *L)
{
    return et_lua_push_holder(L, sizeof(et_pathlist), "etinspect.PathList", pathlist_gc);
}

/* _core.expand_dumps(patterns [, keep_dirs]) -> sequence of paths: each
 * string of the sequence `patterns` expanded by et_dumpset_expand (files,
 * directories, glob patterns), in order; with `keep_dirs` a directory
 * stands for itself (debug buffers have no header to find them by).
 * Raises the expansion's errors. */
static int core_expand_dumps(lua_State *L)
{
    lua_settop(L, 2);
    size_t n;
    const char **patterns = et_lua_check_strings(L, 1, "expand_dumps", "paths", &n); /* 3 */
    bool keep_dirs = lua_toboolean(L, 2);
    et_pathlist *l = push_pathlist(L); /* 4 */
    et_error err;
    for (size_t i = 0; i < n; i++) {
        const char *arg = patterns[i];
        struct stat st;
        int rc = keep_dirs && stat(arg, &st) == 0 && S_ISDIR(st.st_mode)
                     ? et_pathlist_add(l, arg, &err)
                     : et_dumpset_expand(arg, l, &err);
        if (rc != 0)
            return luaL_error(L, "%s", err.msg);
    }
    lua_createtable(L, l->n > INT_MAX ? 0 : (int)l->n, 0);
    for (size_t i = 0; i < l->n; i++) {
        lua_pushstring(L, l->v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* The names of et_dumpset_names, freed by the collector (see pathlist). */
typedef struct {
    char **names;
    size_t n;
} names_box;

static int names_gc(lua_State *L)
{
    names_box *b = lua_touserdata(L, 1);
    if (b->names)
        et_dumpset_names_free(b->names, b->n);
    b->names = NULL;
    return 0;
}

/* _core.dump_names(paths) -> sequence of names (et_dumpset_names).
 * Raises "X and Y are the same file". */
static int core_dump_names(lua_State *L)
{
    lua_settop(L, 1);
    size_t n;
    const char **paths = et_lua_check_strings(L, 1, "dump_names", "paths", &n);
    names_box *b = et_lua_push_holder(L, sizeof *b, "etinspect.DumpNames", names_gc);
    b->n = n;
    et_error err;
    if (et_dumpset_names(paths, n, &b->names, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, b->names[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* Give back the samples and the dump's resident pages of the Inspector
 * of `box` (as _core.drop_samples and _core.drop_pages do, with their
 * conditions: opened from a path, complete, not in use); whether the
 * samples were given back.  Runs no Lua code. */
static bool give_back(lua_insp_box *box)
{
    et_inspector *insp = box->insp;
    if (!insp || !insp->etdump_file.data || box->own.pins != 0 ||
        !et_inspector_drop_samples(insp))
        return false;
    et_map_drop_pages(&insp->etdump_file);
    return true;
}

/* _core.sqlite_export(path, inspectors, names) -> nothing: every
 * Inspector of the sequence into the database at `path` in one export
 * (one transaction, in place; sqlexport.h), dump k under
 * names[k] as preferred name (et_sqlite_dump_options.preferred).  Raises
 * the export's errors; the database is then as it was.  The arguments
 * are read raw and everything that allocates comes first: the inspectors
 * are read from their boxes just before the export, which runs no Lua
 * code (a user's finalizer cannot close one under it). */
static int core_sqlite_export(lua_State *L)
{
    lua_settop(L, 3);
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "sqlite_export: bad argument #1 (a path expected, got %s)",
                          luaL_typename(L, 1));
    const char *path = lua_tostring(L, 1);
    if (lua_type(L, 2) != LUA_TTABLE)
        return luaL_error(L, "sqlite_export: bad argument #2 (a sequence of Inspectors "
                             "expected, got %s)",
                          luaL_typename(L, 2));
    size_t n = (size_t)lua_rawlen(L, 2), n_names;
    const char **names = et_lua_check_strings(L, 3, "sqlite_export", "names", &n_names);
    if (n_names != n)
        return luaL_error(L, "sqlite_export: %d inspectors, %d names", (int)n, (int)n_names);
    lua_insp_box **boxes = lua_newuserdatauv(L, (n ? n : 1) * sizeof *boxes, 0);
    const et_inspector **insps = lua_newuserdatauv(L, (n ? n : 1) * sizeof *insps, 0);
    const char **inputs = lua_newuserdatauv(L, (2 * n + 1) * sizeof *inputs, 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        boxes[i] = luaL_testudata(L, -1, ET_MT_INSPECTOR);
        if (!boxes[i])
            return luaL_error(L, "sqlite_export: inspectors[%d]: an Inspector expected, got %s",
                              (int)i + 1, luaL_typename(L, -1));
        lua_pop(L, 1); /* anchored in the table */
    }
    /* every model complete (a warning handler may run, and close one);
     * with several dumps, each one's samples are given back at once, and
     * built again one dump at a time by the export below, so that its
     * memory does not grow with the number of dumps; then from here no
     * Lua code runs until the export is over */
    for (size_t i = 0; i < n; i++) {
        et_inspector *raw = et_lua_insp_raw(L, boxes[i]);
        if (et_inspector_model_pending(raw) || et_inspector_stats_pending(raw) ||
            boxes[i]->warnings_given < raw->warnings.n || n == 1)
            et_lua_insp(L, boxes[i]);
        if (n > 1)
            give_back(boxes[i]);
    }
    size_t n_inputs = 0;
    for (size_t i = 0; i < n; i++) {
        insps[i] = et_lua_insp_raw(L, boxes[i]);
        if (et_inspector_model_pending(insps[i]) || et_inspector_stats_pending(insps[i]))
            return luaL_error(L, "sqlite_export: inspectors[%d]: its model is not complete",
                              (int)i + 1);
        const char *label = insps[i]->etdump_label;
        if (label && strcmp(label, "<etdump_data>") != 0 &&
            strcmp(label, "<profile_results_data>") != 0)
            inputs[n_inputs++] = label;
        if (insps[i]->etrecord)
            inputs[n_inputs++] = insps[i]->etrecord->label;
    }
    inputs[n_inputs] = NULL;
    et_error err;
    et_sqlite *s;
    if (et_sqlite_begin(&s, path, inputs, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    for (size_t i = 0; i < n; i++) {
        et_sqlite_dump_options o = {.preferred = names[i]};
        /* one dump's samples at a time: built again, written, given back */
        bool dropped = et_inspector_samples_dropped(insps[i]);
        int rc = et_inspector_ready_samples(boxes[i]->insp, &err);
        if (rc == 0)
            rc = et_sqlite_add(s, insps[i], &o, &err);
        if (dropped)
            give_back(boxes[i]);
        if (rc != 0) {
            et_sqlite_abort(s);
            return luaL_error(L, "%s", err.msg);
        }
    }
    if (et_sqlite_commit(s, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

/* _core.parquet_export(dir, inspectors, names) -> nothing: every
 * Inspector of the sequence into the Parquet dataset at `dir`
 * (parquet.h), dump k named names[k].  Raises the writer's errors (the
 * files of the dumps written before stay: each is complete).  As
 * sqlite_export: arguments read raw, models completed first, then no Lua
 * code runs until the export is over. */
static int core_parquet_export(lua_State *L)
{
    lua_settop(L, 3);
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "parquet_export: bad argument #1 (a directory expected, got %s)",
                          luaL_typename(L, 1));
    const char *dir = lua_tostring(L, 1);
    if (lua_type(L, 2) != LUA_TTABLE)
        return luaL_error(L, "parquet_export: bad argument #2 (a sequence of Inspectors "
                             "expected, got %s)",
                          luaL_typename(L, 2));
    size_t n = (size_t)lua_rawlen(L, 2), n_names;
    const char **names = et_lua_check_strings(L, 3, "parquet_export", "names", &n_names);
    if (n_names != n)
        return luaL_error(L, "parquet_export: %d inspectors, %d names", (int)n, (int)n_names);
    lua_insp_box **boxes = lua_newuserdatauv(L, (n ? n : 1) * sizeof *boxes, 0);
    const et_inspector **insps = lua_newuserdatauv(L, (n ? n : 1) * sizeof *insps, 0);
    const char **inputs = lua_newuserdatauv(L, (2 * n + 1) * sizeof *inputs, 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        boxes[i] = luaL_testudata(L, -1, ET_MT_INSPECTOR);
        if (!boxes[i])
            return luaL_error(L, "parquet_export: inspectors[%d]: an Inspector expected, got %s",
                              (int)i + 1, luaL_typename(L, -1));
        lua_pop(L, 1);
    }
    for (size_t i = 0; i < n; i++)
        et_lua_insp(L, boxes[i]);
    size_t n_inputs = 0;
    for (size_t i = 0; i < n; i++) {
        insps[i] = et_lua_insp_raw(L, boxes[i]);
        const char *label = insps[i]->etdump_label;
        if (label && label[0] != '<')
            inputs[n_inputs++] = label;
        if (insps[i]->etrecord)
            inputs[n_inputs++] = insps[i]->etrecord->label;
    }
    inputs[n_inputs] = NULL;
    et_error err;
    et_parquet *p;
    if (et_parquet_begin(&p, dir, inputs, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    for (size_t i = 0; i < n; i++) {
        if (et_parquet_add(p, insps[i], names[i], &err) != 0) {
            et_error e2;
            et_parquet_commit(p, &e2); /* the dumps before it land */
            et_parquet_end(p);
            return luaL_error(L, "%s", err.msg);
        }
    }
    int rc = et_parquet_commit(p, &err);
    et_parquet_end(p);
    if (rc != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

void et_lua_open_export(lua_State *L)
{
    static const luaL_Reg fns[] = {{"expand_dumps", core_expand_dumps},
                                   {"dump_names", core_dump_names},
                                   {"sqlite_export", core_sqlite_export},
                                   {"parquet_export", core_parquet_export},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}

void et_lua_register_export(lua_State *L)
{
    static const et_lua_method trace = {"write_trace", insp_write_trace, 2, 0};
    static const et_lua_method sqlite = {"to_sqlite", insp_to_sqlite, 2, 0};
    static const et_lua_method parquet = {"to_parquet", insp_to_parquet, 2, 0};
    static const et_lua_method memory = {"memory_summary", blk_memory_summary, 0, 0};
    et_lua_add_method(L, ET_MT_INSPECTOR, &trace);
    et_lua_add_method(L, ET_MT_INSPECTOR, &sqlite);
    et_lua_add_method(L, ET_MT_INSPECTOR, &parquet);
    et_lua_add_method(L, ET_MT_BLOCK, &memory);
}
