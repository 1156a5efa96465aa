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
 *                          ETDump's file name, or more of its path when
 *                          another file's dump has that name)
 *       opts.replace       with opts.dump: replace another file's dump of
 *                          that name (else an error)
 *     Options are checked by the contract (unknown keys, wrong types).
 *   blk:memory_summary()   sequence of {allocator_id, allocator (nil when
 *                          unnamed), allocations, bytes, bytes_per_run,
 *                          largest} (bytes), one per allocator with
 *                          allocations, in id order (report.h)
 *   insp:write_html(path) is in the Lua library (lua/etinspect/html.lua).
 *
 * and, for several dumps as one dataset (lua/etinspect/many.lua), into
 * the private table etinspect._core (et_lua_open_export):
 *   _core.expand_dumps(patterns)               -> paths (dumpset.h)
 *   _core.dump_names(paths)                    -> names (dumpset.h)
 *   _core.sqlite_export(path, inspectors, names) one export of them all
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binding.h"
#include "dumpset.h"
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

/* json(ev.delegate_debug_metadatas): arguments the Event and the encoder. */
static int metadata_json(lua_State *L)
{
    lua_getfield(L, 1, "delegate_debug_metadatas"); /* parsed once, cached */
    lua_call(L, 1, 1);
    return 1;
}

/* JSON of an event's parsed delegate metadata, or NULL (not delegated, no
 * parser, the parser failed, or nothing to say). */
static char *trace_metadata(void *ud, size_t block, size_t event, size_t run)
{
    (void)run;
    trace_md *m = ud;
    lua_State *L = m->L;
    lua_insp_box *box = lua_touserdata(L, m->insp);
    const et_event *ev = &box->insp->blocks[block].events[event];
    if (!ev->is_delegated_op || box->parser_ref == LUA_NOREF || !ev->raw_delegate_debug_metadatas)
        return NULL;
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 8))
        return NULL;
    lua_pushcfunction(L, metadata_json);
    et_lua_push_child(L, m->insp, ET_MT_EVENT, block, event);
    lua_pushvalue(L, m->json);
    char *out = NULL;
    /* protected: nothing may unwind through the C trace writer */
    if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
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
    int t = lua_getfield(L, opts, "runs");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (t == LUA_TSTRING)
        return lua_tostring(L, -1); /* left on the stack */
    if (t != LUA_TTABLE)
        luaL_error(L, "write_trace: runs: expected a string like \"0-3,7\" or a sequence of "
                      "run indices, got %s", luaL_typename(L, -1));
    int tbl = lua_gettop(L);
    luaL_buffinit(L, b);
    lua_Integer n = (lua_Integer)lua_rawlen(L, tbl);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, tbl, i);
        if (!lua_isinteger(L, -1))
            luaL_error(L, "write_trace: runs[%d]: expected an integer", (int)i);
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
    lua_insp_box *box = luaL_checkudata(L, 1, ET_MT_INSPECTOR);
    et_inspector *insp = et_lua_insp(L, box);
    const char *path = luaL_checkstring(L, 2);
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    luaL_checktype(L, 3, LUA_TTABLE);
    et_trace_options o;
    et_trace_options_init(&o);
    if (lua_getfield(L, 3, "cycles_hz") != LUA_TNIL)
        o.cycles_hz = luaL_checknumber(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 3, "runs_apart");
    o.runs_apart = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, 3, "window") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        if (!lua_isnumber(L, -2) || !lua_isnumber(L, -1) ||
            !(lua_tonumber(L, -1) > lua_tonumber(L, -2)))
            return luaL_error(L, "write_trace: window: expected {start_us, end_us} with start "
                                 "below end");
        o.window_start_us = lua_tonumber(L, -2);
        o.window_end_us = lua_tonumber(L, -1);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    luaL_Buffer b;
    o.runs = runs_option(L, 3, &b);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "Frame");
    lua_getfield(L, -1, "json");
    trace_md md = {L, 1, lua_gettop(L)};
    o.metadata = trace_metadata;
    o.metadata_ud = &md;
    const char *inputs[3];
    inputs_of(L, inputs);
    et_error err;
    et_outfile of;
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
    if (lua_istable(L, 3)) {
        if (lua_getfield(L, 3, "dump") == LUA_TSTRING)
            o.name = lua_tostring(L, -1); /* anchored in the options table */
        lua_getfield(L, 3, "replace");
        o.replace = lua_toboolean(L, -1);
        lua_pop(L, 2);
    }
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

static int blk_memory_summary(lua_State *L)
{
    lua_child *c = et_lua_check_child(L, 1, ET_MT_BLOCK);
    const et_block *blk = &c->box->insp->blocks[c->block];
    et_memory_row *rows;
    long n = et_block_memory_summary(blk, &rows);
    if (n < 0)
        return luaL_error(L, "out of memory");
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
    free(rows);
    return 1;
}

/* ---- several dumps (dumpset.h; lua/etinspect/many.lua) ---- */

void et_lua_open_export(lua_State *L); /* called by l_module.c */

/* Raise the message of `err` after freeing `l`. */
static int fail_list(lua_State *L, et_pathlist *l, const et_error *err)
{
    lua_pushstring(L, err->msg);
    et_pathlist_free(l);
    return lua_error(L);
}

/* _core.expand_dumps(patterns [, keep_dirs]) -> sequence of paths: each
 * string of the sequence `patterns` expanded by et_dumpset_expand (files,
 * directories, glob patterns), in order; with `keep_dirs` a directory
 * stands for itself (debug buffers have no header to find them by).
 * Raises the expansion's errors. */
static int core_expand_dumps(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    for (lua_Integer i = 1; i <= n; i++)
        if (lua_rawgeti(L, 1, i) != LUA_TSTRING || (lua_pop(L, 1), 0))
            return luaL_error(L, "paths[%I]: expected a string, got %s", i,
                              luaL_typename(L, -1));
    bool keep_dirs = lua_toboolean(L, 2);
    et_pathlist l = {0};
    et_error err;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        const char *arg = lua_tostring(L, -1);
        struct stat st;
        int rc = keep_dirs && stat(arg, &st) == 0 && S_ISDIR(st.st_mode)
                     ? et_pathlist_add(&l, arg, &err)
                     : et_dumpset_expand(arg, &l, &err);
        lua_pop(L, 1);
        if (rc != 0)
            return fail_list(L, &l, &err);
    }
    if (!lua_checkstack(L, 4)) {
        et_pathlist_free(&l);
        return luaL_error(L, "out of memory");
    }
    lua_createtable(L, l.n > INT_MAX ? 0 : (int)l.n, 0);
    for (size_t i = 0; i < l.n; i++) {
        lua_pushstring(L, l.v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    et_pathlist_free(&l);
    return 1;
}

/* _core.dump_names(paths) -> sequence of names (et_dumpset_names).
 * Raises "X and Y are the same file". */
static int core_dump_names(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t n = (size_t)luaL_len(L, 1);
    const char **paths = lua_newuserdatauv(L, (n ? n : 1) * sizeof *paths, 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (lua_Integer)i + 1);
        paths[i] = lua_tostring(L, -1); /* anchored in the table */
        if (!paths[i])
            return luaL_error(L, "paths[%d]: expected a string", (int)i + 1);
        lua_pop(L, 1);
    }
    char **names;
    et_error err;
    if (et_dumpset_names(paths, n, &names, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    if (!lua_checkstack(L, 4)) {
        et_dumpset_names_free(names, n);
        return luaL_error(L, "out of memory");
    }
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, names[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    et_dumpset_names_free(names, n);
    return 1;
}

/* _core.sqlite_export(path, inspectors, names) -> nothing: every
 * Inspector of the sequence into the database at `path` in one export
 * (one copy, one transaction, one rename; sqlexport.h), dump k under
 * names[k] as preferred name (et_sqlite_dump_options.preferred).  Raises
 * the export's errors; the database is then as it was. */
static int core_sqlite_export(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    size_t n = (size_t)luaL_len(L, 2);
    if ((size_t)luaL_len(L, 3) != n)
        return luaL_error(L, "sqlite_export: %d inspectors, %d names", (int)n,
                          (int)luaL_len(L, 3));
    /* everything that can raise before the export starts */
    const et_inspector **insps = lua_newuserdatauv(L, (n ? n : 1) * sizeof *insps, 0);
    const char **names = lua_newuserdatauv(L, (n ? n : 1) * sizeof *names, 0);
    const char **inputs = lua_newuserdatauv(L, (2 * n + 1) * sizeof *inputs, 0);
    size_t n_inputs = 0;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        lua_insp_box *box = luaL_checkudata(L, -1, ET_MT_INSPECTOR);
        insps[i] = et_lua_insp(L, box);
        lua_pop(L, 1); /* anchored in the table */
        lua_rawgeti(L, 3, (lua_Integer)i + 1);
        names[i] = lua_tostring(L, -1);
        if (!names[i])
            return luaL_error(L, "sqlite_export: names[%d]: expected a string", (int)i + 1);
        lua_pop(L, 1);
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
        if (et_sqlite_add(s, insps[i], &o, &err) != 0) {
            et_sqlite_abort(s);
            return luaL_error(L, "%s", err.msg);
        }
    }
    if (et_sqlite_commit(s, &err) != 0)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

void et_lua_open_export(lua_State *L)
{
    static const luaL_Reg fns[] = {{"expand_dumps", core_expand_dumps},
                                   {"dump_names", core_dump_names},
                                   {"sqlite_export", core_sqlite_export},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}

/* Add `fn` as method `name` of the type `mt` (its __methods table). */
static void add_method(lua_State *L, const char *mt, const char *name, lua_CFunction fn)
{
    luaL_getmetatable(L, mt);
    lua_getfield(L, -1, "__methods");
    lua_pushcfunction(L, fn);
    lua_setfield(L, -2, name);
    lua_pop(L, 2);
}

void et_lua_register_export(lua_State *L)
{
    add_method(L, ET_MT_INSPECTOR, "write_trace", insp_write_trace);
    add_method(L, ET_MT_INSPECTOR, "to_sqlite", insp_to_sqlite);
    add_method(L, ET_MT_BLOCK, "memory_summary", blk_memory_summary);
}
