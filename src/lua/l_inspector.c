/*
 * l_inspector.c - Inspector: an opened ETDump and its event blocks
 * (spec §1.3).
 *
 *   etinspect.Inspector{etdump_path=PATH | etdump_data=BYTES,
 *       source_time_scale="ns", target_time_scale="ms",   -- or etinspect.TimeScale.NS ...
 *       debug_buffer_path=PATH,
 *       bundled_program_path=PATH,   -- a .bpte: reference outputs (bundled.h)
 *       program_path=PATH,           -- a .pte: each event's instruction (proglink.h)
 *       bundled_test_case=K,         -- its test case for runs without an index
 *       delegate_metadata_parser=function(raw_list) -> table | "name",
 *       delegate_time_scale_converter=function(name, ticks) -> number,
 *       etrecord=PATH | ETRecord,                          -- spec §5 (link.h)
 *       etrecord_method=NAME,        -- the record's method to link (default:
 *                                    -- per block, see link.h; the reference: "forward")
 *       reference_graph_name="edge_dialect_graph_module",  -- or a graph_map name
 *       enable_module_hierarchy=false}                     -> Inspector
 *
 * Errors (raised as Lua errors with the reference's message):
 *   "For TimeScale in cycles both the source and target time scale have to be in cycles."
 *   "Expecting exactly one of etdump_path or etdump_data to be specified."
 *   "PATH: No such file or directory", "PATH: not an ETDump: ..." (malformed input)
 *   "unknown option 'x'", "unknown delegate metadata parser 'x'",
 *   "Unsupported ETRecord type: ...", the ETRecord reader's errors ("PATH:
 *   ETRecord identifier missing: ...") and the linker's ("ETRecord 'PATH'
 *   has no method 'm' (...)").
 *
 *   insp.event_blocks      sequence of EventBlock (#, ipairs)
 *   insp.source_time_scale, insp.target_time_scale
 *   insp.warnings          sequence of the warnings found while loading
 *   insp.etdump_path       the path, or nil for etdump_data
 *
 * Legacy profiler dumps (spec §9) open the same way:
 *   etinspect.Inspector{profile_results_path=PATH | profile_results_data=BYTES,
 *       time_scale="ns"}   -- of the dump's ticks: ns, us, ms or cycles
 * giving one EventBlock per block name with one sample per iteration, in
 * ms (cycles stay cycles), and
 *   insp.format              "etdump" or "profile_results"
 *   insp.profile_results_path
 *   insp.framework_tax       sequence of {block, exec_time,
 *                            kernel_and_delegate_time, framework_tax (%)}
 *   insp.memory_allocations  sequence of {block, allocations = sequence of
 *                            {allocator_name, allocator_id,
 *                            total_allocations_done (bytes)}}
 * (both nil for an ETDump).
 *   insp.etrecord          the linked ETRecord (l_etrecord.c), or nil
 *   insp:get_exported_program([graph [, method]]) -> Graph (l_graph.c), or
 *                          nil and the reference's warning text without an
 *                          ETRecord (spec §6.6)
 *   #insp                  number of event blocks
 *   insp:close()           free it now (also __close, for `local insp <close>`)
 * Methods implemented in Lua (lua/etinspect/report.lua): to_dataframe,
 * print_data_tabular, save_data_to_tsv, find_total_for_module,
 * get_op_list.  insp:runs() is in l_runs.c.
 */
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

#include "binding.h"
#include "l_hooks.h"
#include "table/column.h"

static lua_insp_box *check_box(lua_State *L, int arg)
{
    return luaL_checkudata(L, arg, ET_MT_INSPECTOR);
}

/* ---- the gate of every model view, and the Inspector's children ---------- */

et_inspector *et_lua_insp_raw(lua_State *L, lua_insp_box *box)
{
    if (!box->insp)
        et_lua_closed_error(L, NULL, &box->own);
    return box->insp;
}

et_inspector *et_lua_insp(lua_State *L, lua_insp_box *box)
{
    et_inspector *insp = et_lua_insp_raw(L, box);
    if (et_inspector_model_pending(insp) || et_inspector_stats_pending(insp) ||
        et_inspector_samples_dropped(insp)) {
        et_error err;
        if (et_inspector_ready(insp, &err) != 0)
            luaL_error(L, "%s", err.msg);
    }
    if (box->warnings_given < insp->warnings.n) {
        et_lua_insp_give_warnings(L, box);
        insp = et_lua_insp_raw(L, box); /* a handler may have closed it */
        if (et_inspector_samples_dropped(insp)) {
            /* ... or given its samples back (_core.drop_samples): built
             * again, running no Lua code */
            et_error err;
            if (et_inspector_ready_samples(insp, &err) != 0)
                luaL_error(L, "%s", err.msg);
        }
    }
    return insp;
}

static void model_free(void *ctx)
{
    et_inspector_free(ctx);
}

et_col_owner *et_lua_insp_model(lua_State *L, lua_insp_box *box)
{
    et_inspector *insp = et_lua_insp_raw(L, box);
    if (!box->model && !(box->model = et_col_owner_new(model_free, insp)))
        luaL_error(L, "out of memory");
    return box->model;
}

void et_lua_push_child(lua_State *L, int insp_idx, const char *mt, size_t block, size_t event)
{
    insp_idx = lua_absindex(L, insp_idx);
    lua_insp_box *box = luaL_checkudata(L, insp_idx, ET_MT_INSPECTOR);
    et_lua_insp(L, box); /* a view of the model: its statistics are there */
    lua_child *c = lua_newuserdatauv(L, sizeof *c, 2);
    c->obj.magic = ET_LUA_OBJ_MAGIC;
    c->obj.owner = &box->own;
    c->box = box;
    c->block = block;
    c->event = event;
    luaL_setmetatable(L, mt);
    lua_pushvalue(L, insp_idx);
    lua_setiuservalue(L, -2, 1); /* the child keeps its inspector alive */
}

lua_child *et_lua_check_child(lua_State *L, int arg, const char *mt)
{
    lua_child *c = luaL_checkudata(L, arg, mt);
    if (!c->box->insp)
        et_lua_closed_error(L, strchr(mt, '.') + 1, &c->box->own);
    if (et_inspector_samples_dropped(c->box->insp)) {
        /* given back since the child was made (_core.drop_samples): built
         * again before the child reads the model; runs no Lua code */
        et_error err;
        if (et_inspector_ready_samples(c->box->insp, &err) != 0)
            luaL_error(L, "%s", err.msg);
    }
    return c;
}

void et_lua_push_parent(lua_State *L, int arg)
{
    lua_getiuservalue(L, arg, 1);
}

/* ---- Inspector ------------------------------------------------------------ */

/* A time scale option: absent -> def; "ns".. -> it; anything else -> error. */
static et_time_scale opt_time_scale(lua_State *L, int opts, const char *key, et_time_scale def)
{
    if (et_lua_opt_get(L, opts, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return def;
    }
    const char *s = lua_tostring(L, -1);
    et_time_scale ts = def;
    et_error err;
    if (!s || et_time_scale_parse(s, &ts, &err) != 0)
        luaL_error(L, "%s: %s", key, s ? err.msg : "expected a time scale name");
    lua_pop(L, 1);
    return ts;
}

/* Free what an Inspector holds (its owner class's release). */
static void insp_release(lua_State *L, et_lua_owner *o)
{
    lua_insp_box *box = (lua_insp_box *)o;
    lua_etr_box *rec = box->etrecord;
    box->etrecord = NULL;
    if (box->model) {
        /* frames may still read the model's samples: the last one frees
         * it; the dump and the debug buffer, which no frame reads, are
         * given back now (closed, they are no inputs in use) - unless the
         * samples were given back (_core.drop_samples): a frame's raw or
         * start_time cell builds them again from both */
        if (!et_inspector_samples_dropped(box->insp)) {
            et_unmap_file(&box->insp->etdump_file);
            et_unmap_file(&box->insp->debug_buffer);
        }
        et_col_owner_release(box->model);
    } else
        et_inspector_free(box->insp);
    box->model = NULL;
    box->insp = NULL;
    if (box->parser_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, box->parser_ref);
        box->parser_ref = LUA_NOREF;
    }
    if (rec) /* after the model that pointed into it */
        et_lua_owner_unuse(L, &rec->own);
}

/* Free what an Inspector keeps after close(): the warnings its views
 * read (its owner class's collect). */
static void insp_collect(lua_State *L, et_lua_owner *o)
{
    (void)L;
    et_warnings_free(&((lua_insp_box *)o)->warnings);
}

static const et_lua_owner_class insp_class = {
    "Inspector", "inspector", "inspector is closed",
    "Inspector is in use", insp_release, insp_collect};

/* The string options an Inspector keeps in its user value (insp.etdump_path
 * ...), whether Lua opened it or the command line handed it over. */
#define N_PATH_KEYS 7
static const char *const PATH_KEYS[N_PATH_KEYS] = {
    "etdump_path",          "profile_results_path", "debug_buffer_path",
    "bundled_program_path", "etrecord_method",      "reference_graph_name",
    "program_path"};

static int insp_new(lua_State *L)
{
    static const et_lua_opt spec[] = {{"bundled_program_path", "string"},
                                      {"bundled_test_case", "integer"},
                                      {"debug_buffer_path", "string"},
                                      {"delegate_metadata_parser", "string|callable"},
                                      {"delegate_time_scale_converter", "callable"},
                                      {"enable_module_hierarchy", "boolean"},
                                      {"etdump_data", "string"},
                                      {"etdump_path", "string"},
                                      {"etrecord", NULL},
                                      {"etrecord_json_budget", "integer"},
                                      {"etrecord_method", "string"},
                                      {"profile_results_data", "string"},
                                      {"profile_results_path", "string"},
                                      {"program_path", "string"},
                                      {"reference_graph_name", "string"},
                                      {"source_time_scale", "string"},
                                      {"target_time_scale", "string"},
                                      {"time_scale", "string"},
                                      {NULL, NULL}};
    if (!lua_istable(L, 1))
        return luaL_error(L, "etinspect.Inspector: bad argument #1 (options table expected, got "
                             "%s)",
                          lua_isnone(L, 1) ? "no value" : luaL_typename(L, 1));
    lua_settop(L, 1);
    et_lua_check_options(L, 1, "etinspect.Inspector", spec, 1);
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.keep_pages = true;  /* a script reads the raw runs again (run:events()) */
    /* the model (event blocks, samples, statistics) is made at its first
     * view (et_lua_insp): a script that reads only the raw runs never pays
     * for it */
    o.defer_stats = true;
    o.defer_model = true;
    int legacy = et_lua_opt_get(L, 1, "profile_results_path") != LUA_TNIL ||
                 et_lua_opt_get(L, 1, "profile_results_data") != LUA_TNIL;
    lua_settop(L, 1);
    et_error err;
    if (legacy && et_lua_opt_get(L, 1, "program_path") != LUA_TNIL)
        return luaL_error(L, "program_path links an ETDump's events to the program's "
                             "instructions; profile results are not linked");
    lua_settop(L, 1);
    if (legacy) {
        /* a legacy profiler dump: its ticks' time scale, output in ms */
        if (et_lua_opt_get(L, 1, "source_time_scale") != LUA_TNIL ||
            et_lua_opt_get(L, 1, "target_time_scale") != LUA_TNIL)
            return luaL_error(L, "profile results take time_scale (the unit of their ticks), "
                                 "not source_time_scale or target_time_scale");
        lua_settop(L, 1);
        o.source_time_scale = opt_time_scale(L, 1, "time_scale", ET_TS_NS);
        if (o.source_time_scale == ET_TS_S)
            return luaL_error(L, "time_scale: the legacy profiler's time scales are ns, us, ms "
                                 "and cycles");
    } else {
        if (et_lua_opt_get(L, 1, "time_scale") != LUA_TNIL)
            return luaL_error(L, "time_scale is for profile results; an ETDump takes "
                                 "source_time_scale and target_time_scale");
        lua_pop(L, 1);
        o.source_time_scale = opt_time_scale(L, 1, "source_time_scale", ET_TS_NS);
        o.target_time_scale = opt_time_scale(L, 1, "target_time_scale", ET_TS_MS);
        if (et_time_scale_check(o.source_time_scale, o.target_time_scale, &err) != 0)
            return luaL_error(L, "%s", err.msg);
    }

    /* the userdata first, so that everything below is anchored to it */
    int t;
    lua_insp_box *box = lua_newuserdatauv(L, sizeof *box, 2);
    memset(box, 0, sizeof *box);
    et_lua_owner_init(&box->own, &insp_class);
    box->parser_ref = LUA_NOREF;
    luaL_setmetatable(L, ET_MT_INSPECTOR);
    int ud = lua_gettop(L);
    lua_newtable(L); /* user value: caches and anchors */
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, ud, 1);
    int uv = lua_gettop(L);
    et_lua_insp_register(L, ud);

    /* strings are anchored in the user value (the options table is the
     * caller's: it may change) */
    const char **dst[N_PATH_KEYS] = {&o.etdump_path, &o.profile_results_path,
                                     &o.debug_buffer_path, &o.bundled_program_path,
                                     &o.etrecord_method, &o.reference_graph_name,
                                     &o.program_path};
    for (int i = 0; i < N_PATH_KEYS; i++) {
        if (et_lua_opt_get(L, 1, PATH_KEYS[i]) != LUA_TNIL)
            *dst[i] = lua_tostring(L, -1);
        lua_setfield(L, uv, PATH_KEYS[i]);
    }
    if (et_lua_opt_get(L, 1, "etdump_data") != LUA_TNIL) {
        size_t n;
        o.etdump_data = (const uint8_t *)lua_tolstring(L, -1, &n);
        o.etdump_size = n;
    }
    lua_setfield(L, uv, "etdump_data");
    if (et_lua_opt_get(L, 1, "profile_results_data") != LUA_TNIL) {
        size_t n;
        o.profile_results_data = (const uint8_t *)lua_tolstring(L, -1, &n);
        o.profile_results_size = n;
    }
    lua_setfield(L, uv, "profile_results_data");
    if (et_lua_opt_get(L, 1, "bundled_test_case") != LUA_TNIL) {
        lua_Integer k = lua_tointeger(L, -1);
        if (k < 0 || k > INT32_MAX)
            return luaL_error(L, "bundled_test_case: expected a test case index >= 0, got %I",
                              k);
        o.bundled_test_case = (int32_t)k;
    }
    lua_pop(L, 1);

    /* the ETRecord (spec §1.3 step 3): a path (parsed here, before the
     * ETDump, as the reference does) or an ETRecord; anchored in the user
     * value, linked by the core */
    if (et_lua_opt_get(L, 1, "etrecord_json_budget") != LUA_TNIL &&
        et_lua_opt_get(L, 1, "etrecord") != LUA_TSTRING)
        return luaL_error(L, "etrecord_json_budget: only with etrecord = PATH (an ETRecord is "
                             "already parsed)");
    lua_settop(L, uv);
    t = et_lua_opt_get(L, 1, "etrecord");
    if (t == LUA_TSTRING) {
        lua_pushcfunction(L, et_lua_parse_etrecord);
        lua_insert(L, -2);
        lua_createtable(L, 0, 1); /* its options: the JSON budget */
        et_lua_opt_get(L, 1, "etrecord_json_budget");
        lua_setfield(L, -2, "etrecord_json_budget");
        lua_call(L, 2, 1);
    } else if (t != LUA_TNIL && !luaL_testudata(L, -1, ET_MT_ETRECORD)) {
        return luaL_error(L, "Unsupported ETRecord type: expected a path or an ETRecord "
                             "(etinspect.parse_etrecord), got %s",
                          luaL_typename(L, -1));
    }
    /* only its box is kept here: Lua code runs below (require, a user's
     * finalizer at any allocation) and may close the record; its pointer
     * is read just before the open, with the record pinned */
    lua_etr_box *rb = t != LUA_TNIL ? et_lua_check_etrecord(L, -1) : NULL;
    lua_setfield(L, uv, "etrecord");
    if (et_lua_opt_get(L, 1, "enable_module_hierarchy") != LUA_TNIL)
        o.enable_module_hierarchy = lua_toboolean(L, -1);
    lua_pop(L, 1);

    /* delegate metadata parser: a function or the name of a built-in one */
    t = et_lua_opt_get(L, 1, "delegate_metadata_parser");
    if (t == LUA_TSTRING) {
        const char *name = lua_tostring(L, -1);
        et_lua_require(L, "etinspect.parsers");
        if (lua_type(L, -1) != LUA_TTABLE)
            return luaL_error(L, "etinspect.parsers is not a table");
        lua_pushvalue(L, -2);
        lua_rawget(L, -2);
        if (!lua_isfunction(L, -1))
            return luaL_error(L, "unknown delegate metadata parser '%s' (see etinspect.parsers)",
                              name);
        snprintf(box->parser_name, sizeof box->parser_name, "%s", name);
        box->parser_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_pop(L, 2);
    } else if (t != LUA_TNIL) {
        box->parser_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* callable (checked) */
    } else {
        lua_pop(L, 1);
    }

    /* delegate time-scale converter, called while the model is built */
    et_lua_converter conv;
    if (et_lua_opt_get(L, 1, "delegate_time_scale_converter") != LUA_TNIL) {
        conv.L = L;
        conv.fn_index = lua_gettop(L);
        conv.insp_index = ud;
        conv.what = et_lua_describe_function(L, conv.fn_index);
        lua_newtable(L);
        conv.warned_index = lua_gettop(L);
        o.converter = et_lua_time_converter;
        o.converter_ud = &conv;
    }

    /* the converter runs inside: it must not close the ETRecord the model
     * is being linked to (nothing between the check and the unpin
     * allocates or raises) */
    if (rb) {
        if (!rb->r)
            return et_lua_closed_error(L, NULL, &rb->own);
        o.etrecord = rb->r;
        et_lua_pin(&rb->own, "etinspect.Inspector");
    }
    box->insp = et_inspector_open(&o, &err);
    if (rb)
        et_lua_unpin(L, &rb->own);
    if (!box->insp)
        return luaL_error(L, "%s", err.msg);
    if (rb) {
        box->etrecord = rb;
        rb->own.users++;
    }
    /* the core's warnings join the converter's in insp.warnings; each goes
     * to on_warning once (those of a model built later, when it is) */
    et_lua_insp_give_warnings(L, box);
    lua_settop(L, ud);
    return 1;
}

/* insp.event_blocks: a read-only sequence of the blocks, made once (cached
 * in user value 2 by the dispatch). */
static int insp_event_blocks(lua_State *L)
{
    et_inspector *insp = et_lua_insp(L, check_box(L, 1));
    lua_createtable(L, (int)insp->n_blocks, 0);
    for (size_t b = 0; b < insp->n_blocks; b++) {
        et_lua_push_child(L, 1, ET_MT_BLOCK, b, 0);
        lua_rawseti(L, -2, (lua_Integer)b + 1);
    }
    et_lua_push_readonly(L, -1, "Inspector.event_blocks");
    return 1;
}

static int insp_source(lua_State *L)
{
    lua_pushstring(L, et_time_scale_name(et_lua_insp_raw(L, check_box(L, 1))->source_time_scale));
    return 1;
}

static int insp_target(lua_State *L)
{
    lua_pushstring(L, et_time_scale_name(et_lua_insp_raw(L, check_box(L, 1))->target_time_scale));
    return 1;
}

/* The warnings a view of insp.warnings reads: those of its Inspector
 * (upvalue 1), or none for anything else. */
static const et_warnings *view_warnings(lua_State *L)
{
    const lua_insp_box *box = luaL_testudata(L, lua_upvalueindex(1), ET_MT_INSPECTOR);
    return box ? &box->warnings : NULL;
}

/* The view's __len: the number of warnings. */
static int warnings_len(lua_State *L)
{
    const et_warnings *w = view_warnings(L);
    lua_pushinteger(L, w ? (lua_Integer)w->n : 0);
    return 1;
}

/* The view's __index(view, k): warning k (an integer, 1-based), else nil. */
static int warnings_index(lua_State *L)
{
    const et_warnings *w = view_warnings(L);
    int isint = 0;
    lua_Integer k = lua_type(L, 2) == LUA_TNUMBER ? lua_tointegerx(L, 2, &isint) : 0;
    if (w && isint && k >= 1 && (lua_Unsigned)k <= w->n)
        lua_pushstring(L, w->items[k - 1]);
    else
        lua_pushnil(L);
    return 1;
}

/* insp.warnings: a read-only view of every warning about this Inspector,
 * in order: those found while loading (the core's and the time-scale
 * converter's), then those of later reads (parser failures, unreadable
 * values); each message once.  The same table on every read (cached in
 * the user value); it reads box->warnings, so a view taken before close()
 * still reads them after. */
static int insp_warnings(lua_State *L)
{
    et_lua_insp(L, check_box(L, 1));
    lua_getiuservalue(L, 1, 1);
    if (lua_getfield(L, -1, "warnings_view") == LUA_TTABLE)
        return 1;
    lua_pop(L, 1);
    et_lua_push_readonly_c(L, 1, warnings_len, warnings_index, "Inspector.warnings");
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "warnings_view");
    return 1;
}

/* Push field `key` of the open Inspector's user value table (where the
 * constructor anchored its options). */
static int uv_field(lua_State *L, const char *key)
{
    et_lua_insp(L, check_box(L, 1));
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, key);
    return 1;
}

static int insp_path(lua_State *L)
{
    return uv_field(L, "etdump_path");
}

/* insp.delegate_metadata_parser: the parser (a function or callable), or
 * nil - for the HTML report, which shows parsed metadata only with one. */
static int insp_parser(lua_State *L)
{
    lua_insp_box *box = check_box(L, 1);
    if (box->parser_ref == LUA_NOREF)
        lua_pushnil(L);
    else
        lua_rawgeti(L, LUA_REGISTRYINDEX, box->parser_ref);
    return 1;
}

static int insp_results_path(lua_State *L)
{
    return uv_field(L, "profile_results_path");
}

static int insp_format(lua_State *L)
{
    lua_pushstring(L, et_lua_insp_raw(L, check_box(L, 1))->legacy ? "profile_results" : "etdump");
    return 1;
}

/* A Lua sequence of n numbers: integers when `ints` is given. */
static void push_numbers(lua_State *L, const double *x, const int64_t *ints, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        if (ints)
            lua_pushinteger(L, ints[i]);
        else
            lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* insp.framework_tax (profile results): sequence of {block, exec_time,
 * kernel_and_delegate_time, framework_tax} per block that has one; nil for
 * an ETDump (the framework_tax report script covers those). */
static int insp_framework_tax(lua_State *L)
{
    const et_legacy *lg = et_lua_insp(L, check_box(L, 1))->legacy;
    if (!lg) {
        lua_pushnil(L);
        return 1;
    }
    lua_newtable(L);
    lua_Integer k = 0;
    for (size_t b = 0; b < lg->n_blocks; b++) {
        const et_legacy_block *lb = &lg->blocks[b];
        if (!lb->has_tax)
            continue;
        lua_createtable(L, 0, 4);
        lua_pushlstring(L, lb->name, lb->name_len);
        lua_setfield(L, -2, "block");
        push_numbers(L, lb->exec_time, lb->exec_time_int, lb->n_iterations);
        lua_setfield(L, -2, "exec_time");
        push_numbers(L, lb->kernel_time, lb->kernel_time_int, lb->n_iterations);
        lua_setfield(L, -2, "kernel_and_delegate_time");
        push_numbers(L, lb->tax_percent, NULL, lb->n_iterations);
        lua_setfield(L, -2, "framework_tax");
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

/* insp.memory_allocations (profile results): sequence of {block,
 * allocations = sequence of {allocator_name, total_allocations_done}}, one
 * per block; nil for an ETDump (see block.allocators). */
static int insp_memory_allocations(lua_State *L)
{
    const et_legacy *lg = et_lua_insp(L, check_box(L, 1))->legacy;
    if (!lg) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, (int)lg->n_blocks, 0);
    for (size_t b = 0; b < lg->n_blocks; b++) {
        const et_legacy_block *lb = &lg->blocks[b];
        lua_createtable(L, 0, 2);
        lua_pushlstring(L, lb->name, lb->name_len);
        lua_setfield(L, -2, "block");
        lua_createtable(L, (int)lb->n_mem, 0);
        for (size_t m = 0; m < lb->n_mem; m++) {
            lua_createtable(L, 0, 3);
            if (lb->mem[m].allocator_name)
                lua_pushstring(L, lb->mem[m].allocator_name);
            else
                lua_pushnil(L);
            lua_setfield(L, -2, "allocator_name");
            lua_pushinteger(L, (lua_Integer)lb->mem[m].allocator_id);
            lua_setfield(L, -2, "allocator_id");
            lua_pushinteger(L, (lua_Integer)lb->mem[m].total);
            lua_setfield(L, -2, "total_allocations_done");
            lua_rawseti(L, -2, (lua_Integer)m + 1);
        }
        lua_setfield(L, -2, "allocations");
        lua_rawseti(L, -2, (lua_Integer)b + 1);
    }
    return 1;
}

/* insp.etrecord: the linked ETRecord, or nil. */
static int insp_etrecord(lua_State *L)
{
    return uv_field(L, "etrecord");
}

/* insp:get_exported_program([graph [, method]]) (spec §6.6): without an
 * ETRecord, nil and the reference's warning text; else as
 * rec:get_exported_program, the method defaulting to the one the first
 * block was linked to. */
static int insp_get_exported_program(lua_State *L)
{
    et_inspector *insp = et_lua_insp(L, check_box(L, 1));
    luaL_optstring(L, 2, NULL);
    luaL_optstring(L, 3, NULL);
    lua_settop(L, 3);
    lua_getiuservalue(L, 1, 1);
    if (lua_getfield(L, -1, "etrecord") == LUA_TNIL) {
        lua_pushnil(L);
        lua_pushliteral(L, "Exported program is only available when a valid etrecord_path was "
                           "provided at the time of Inspector construction");
        return 2;
    }
    int rec = lua_gettop(L);
    if (lua_isnil(L, 3) && insp->n_blocks && insp->blocks[0].method)
        lua_pushstring(L, insp->blocks[0].method);
    else
        lua_pushvalue(L, 3);
    int method = lua_gettop(L);
    lua_getfield(L, rec, "get_exported_program");
    lua_pushvalue(L, rec);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, method);
    lua_call(L, 3, 1);
    return 1;
}

static int insp_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)et_lua_insp(L, check_box(L, 1))->n_blocks);
    return 1;
}

static int insp_tostring(lua_State *L)
{
    lua_insp_box *box = check_box(L, 1);
    if (!box->insp) {
        lua_pushliteral(L, "Inspector (closed)");
        return 1;
    }
    const et_inspector *insp = et_lua_insp(L, box); /* counts the model's blocks */
    size_t events = 0;
    for (size_t b = 0; b < insp->n_blocks; b++)
        events += insp->blocks[b].n_events;
    /* singular where a count is 1 ("1 event block"), as the reference's prose */
    lua_pushfstring(L, "Inspector '%s' (%d event block%s, %d event%s, %s -> %s)",
                    insp->etdump_label, (int)insp->n_blocks, insp->n_blocks == 1 ? "" : "s",
                    (int)events, events == 1 ? "" : "s",
                    et_time_scale_name(insp->source_time_scale),
                    et_time_scale_name(insp->target_time_scale));
    return 1;
}

void et_lua_register_inspector(lua_State *L)
{
    static const et_lua_method methods[] = {
        {"get_exported_program", insp_get_exported_program, 2, 0}, {NULL, NULL, 0, 0}};
    static const et_lua_getter getters[] = {{"event_blocks", insp_event_blocks, 2, 0},
                                            {"source_time_scale", insp_source, 0, ET_LUA_LEAF},
                                            {"target_time_scale", insp_target, 0, ET_LUA_LEAF},
                                            {"warnings", insp_warnings, 0, 0},
                                            {"etdump_path", insp_path, 0, ET_LUA_LEAF},
                                            {"delegate_metadata_parser", insp_parser, 0, 0},
                                            {"profile_results_path", insp_results_path, 0,
                                             ET_LUA_LEAF},
                                            {"format", insp_format, 0, ET_LUA_LEAF},
                                            {"framework_tax", insp_framework_tax, 0, 0},
                                            {"memory_allocations", insp_memory_allocations, 0, 0},
                                            {"etrecord", insp_etrecord, 0, ET_LUA_LEAF},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_type type = {ET_MT_INSPECTOR, "Inspector", methods, getters,
                                     insp_len, insp_tostring, NULL, NULL, &insp_class};
    et_lua_define_type(L, &type);
}

/* et_lua_adopt_inspector: see etinspect.h. */
int et_lua_adopt_inspector(lua_State *L)
{
    et_inspector *insp = lua_touserdata(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    bool *owned = lua_touserdata(L, 3);
    luaL_argcheck(L, insp && owned, 1, "an inspector and an ownership flag");
    lua_settop(L, 3);
    /* the types are registered when the module is loaded */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect");
    lua_call(L, 1, 0);
    if (luaL_getmetatable(L, ET_MT_INSPECTOR) != LUA_TTABLE)
        return luaL_error(L, "the etinspect module did not register its types");
    lua_settop(L, 3);
    lua_etr_box *rb = NULL;
    if (insp->etrecord && et_inspector_owns_etrecord(insp))
        rb = et_lua_new_etrecord(L);
    else
        lua_pushnil(L);
    int rec = lua_gettop(L); /* 4 */
    lua_insp_box *box = lua_newuserdatauv(L, sizeof *box, 2);
    memset(box, 0, sizeof *box);
    et_lua_owner_init(&box->own, &insp_class);
    box->parser_ref = LUA_NOREF;
    luaL_setmetatable(L, ET_MT_INSPECTOR);
    int ud = lua_gettop(L); /* 5 */
    lua_newtable(L); /* user value, as insp_new fills it */
    lua_setiuservalue(L, ud, 1);
    /* nothing raises from here until the box owns the inspector */
    box->insp = insp;
    if (rb) {
        rb->r = insp->etrecord;
        rb->own.users = 1;
        et_inspector_disown_etrecord(insp);
        box->etrecord = rb;
    }
    *owned = true;
    lua_getiuservalue(L, ud, 1);
    for (int i = 0; i < N_PATH_KEYS; i++) {
        if (lua_getfield(L, 2, PATH_KEYS[i]) != LUA_TNIL && !lua_isstring(L, -1))
            return luaL_error(L, "%s: expected a string", PATH_KEYS[i]);
        lua_setfield(L, -2, PATH_KEYS[i]);
    }
    lua_pushvalue(L, rec);
    lua_setfield(L, -2, "etrecord");
    lua_settop(L, ud);
    /* the command line's --delegate_metadata_parser (a function) */
    if (lua_getfield(L, 2, "delegate_metadata_parser") == LUA_TFUNCTION) {
        if (lua_getfield(L, 2, "delegate_metadata_parser_name") == LUA_TSTRING)
            snprintf(box->parser_name, sizeof box->parser_name, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        box->parser_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_settop(L, ud);
    et_lua_insp_register(L, ud);
    /* the warnings the command line printed, in insp.warnings (not again) */
    for (size_t i = 0; i < insp->warnings.n; i++)
        et_lua_insp_warnings_add(L, ud, insp->warnings.items[i]);
    box->warnings_given = insp->warnings.n;
    return 1;
}

/* etinspect.Inspector, exported to l_module.c */
int et_lua_inspector_new(lua_State *L)
{
    return insp_new(L);
}
