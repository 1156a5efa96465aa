/*
 * l_etrecord.c - ETRecord: an opened ETRecord archive (spec §5; the C
 * reader is src/core/format/etrecord.h).
 *
 *   etinspect.parse_etrecord(path [, {etrecord_json_budget = N}]) -> ETRecord
 *       etrecord_json_budget: JSON values (and keys) per JSON entry, 1 to
 *       268,435,455 (default 8,000,000); the caps on inflated entries follow
 *       it (16 bytes per value per entry, 4 entries in all; etrecord.h).
 *       Errors (Lua errors): "PATH: No such file or directory", "PATH:
 *       invalid ETRecord file: ...", "PATH: ETRecord identifier missing:
 *       ...", "PATH: entry 'debug_handle_map': invalid JSON at line L,
 *       column C: ...", "PATH: entry 'NAME': JSON larger than the
 *       8,000,000-node budget (raise it with ...)", the options contract's
 *       messages, and the other messages of et_etrecord_open.
 *
 *   rec.path               the path given
 *   rec.entries            sequence of {name, size (bytes, uncompressed),
 *                          compressed_size, compression ("stored",
 *                          "deflated", ...), kind (see below), companion
 *                          ("state_dict", "constants", "example_inputs" or
 *                          nil), method (edge programs) or nil}; kind is one
 *                          of "debug_handle_map", "delegate_map",
 *                          "num_outs_map", "marker", "edge_program_single",
 *                          "edge_program", "exported_program",
 *                          "reference_outputs", "representative_inputs",
 *                          "export_graph_id", "companion",
 *                          "graph_map_program".  torch.save payloads and
 *                          state dicts are listed, never decoded.
 *   rec.methods            sequence of method names: those of
 *                          debug_handle_map, then methods that only have an
 *                          edge program
 *   rec.graphs             sequence of the names get_exported_program takes:
 *                          "edge_dialect_graph_module" (when there is an
 *                          edge program), "exported_program" (when there is
 *                          an ATen program), then the graph_map names
 *   rec.export_graph_id    integer (0 when absent)
 *   rec.debug_handle_map   {method = {[instruction id] = handle | {handles}}}
 *   rec.delegate_map       {method = {[instruction id] = {name = backend,
 *                          delegate_map = {[identifier key] = {handles}}}}}
 *   rec.instruction_id_to_num_outs_map  {method = {[instruction id] = n}}, or
 *                          nil when the record has none (before 2025-09)
 *       (instruction ids are Lua integers; the reference keeps the JSON's
 *       string keys)
 *   rec:get_exported_program([graph [, method]]) -> Graph or nil
 *       graph nil or "edge_dialect_graph_module": the edge program of
 *       `method` (default "forward", else the first); "exported_program":
 *       the ATen program; a graph_map name ("aten_dialect_output/forward")
 *       or an edge program's entry name.  nil when there is no such program
 *       (as the reference's graph_map.get); a Lua error when its JSON
 *       cannot be parsed ("PATH: entry 'NAME': invalid JSON at line L,
 *       column C: ...").
 *   rec:close()            free it now (also __close); an error while an
 *                          open Inspector is linked to it, or while it is
 *                          busy (a Graph:print running)
 *   Graphs are made once per (program, name): asking again gives the same
 *   Graph userdata.
 *   tostring(rec)          "ETRecord 'PATH' (N entries, methods: forward)"
 */
#include <string.h>

#include "binding.h"
#include "l_hooks.h"
#include "model/link.h"

lua_etr_box *et_lua_check_etrecord(lua_State *L, int arg)
{
    lua_etr_box *b = luaL_checkudata(L, arg, ET_MT_ETRECORD);
    if (!b->r)
        luaL_error(L, "ETRecord used after it was closed");
    return b;
}

static void rec_release(lua_State *L, et_lua_owner *o)
{
    (void)L;
    lua_etr_box *b = (lua_etr_box *)o;
    et_etrecord_free(b->r);
    b->r = NULL;
}

static const et_lua_owner_class rec_class = {
    "ETRecord", "ETRecord", "ETRecord used after it was closed",
    "ETRecord is linked to an open Inspector; close the Inspector first", rec_release, NULL};

lua_etr_box *et_lua_new_etrecord(lua_State *L)
{
    lua_etr_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    et_lua_owner_init(&b->own, &rec_class);
    b->r = NULL;
    luaL_setmetatable(L, ET_MT_ETRECORD);
    lua_newtable(L); /* user value: the Graphs made, by program and name */
    lua_setiuservalue(L, -2, 1);
    return b;
}

int et_lua_parse_etrecord(lua_State *L)
{
    static const et_lua_opt spec[] = {{"etrecord_json_budget", "integer"}, {NULL, NULL}};
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "etinspect.parse_etrecord: bad argument #1 (path string expected, got "
                             "%s)",
                          luaL_typename(L, 1));
    const char *path = lua_tostring(L, 1);
    et_lua_check_options(L, 2, "etinspect.parse_etrecord", spec, 2);
    et_etrecord_options o;
    et_etrecord_options_init(&o);
    o.path = path;
    if (lua_istable(L, 2)) {
        lua_pushliteral(L, "etrecord_json_budget");
        if (lua_rawget(L, 2) != LUA_TNIL) {
            lua_Integer n = lua_tointeger(L, -1);
            if (n < 1 || (uint64_t)n > ET_JSON_MAX_NODES)
                return luaL_error(L, "etinspect.parse_etrecord: option 'etrecord_json_budget' "
                                     "must be a number of JSON values from 1 to %d, got %I",
                                  (int)ET_JSON_MAX_NODES, n);
            o.json_budget = (uint64_t)n;
        }
        lua_pop(L, 1);
    }
    lua_etr_box *b = et_lua_new_etrecord(L);
    et_error err;
    if (!(b->r = et_etrecord_open(&o, &err)))
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int rec_path(lua_State *L)
{
    lua_pushstring(L, et_lua_check_etrecord(L, 1)->r->label);
    return 1;
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    if (v) {
        lua_pushstring(L, v);
        lua_setfield(L, -2, k);
    }
}

static int rec_entries(lua_State *L)
{
    const et_etrecord *r = et_lua_check_etrecord(L, 1)->r;
    lua_createtable(L, (int)r->n_entries, 0);
    for (size_t i = 0; i < r->n_entries; i++) {
        const et_etr_entry *e = &r->entries[i];
        lua_createtable(L, 0, 7);
        set_str(L, "name", e->name);
        lua_pushinteger(L, (lua_Integer)e->size);
        lua_setfield(L, -2, "size");
        lua_pushinteger(L, (lua_Integer)e->comp_size);
        lua_setfield(L, -2, "compressed_size");
        set_str(L, "compression", et_etr_compression_name(e->compression));
        set_str(L, "kind", et_etr_kind_name(e->kind));
        if (e->companion != ET_ETR_NOT_COMPANION)
            set_str(L, "companion", et_etr_companion_name(e->companion));
        set_str(L, "method", e->method);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int rec_methods(lua_State *L)
{
    const et_etrecord *r = et_lua_check_etrecord(L, 1)->r;
    lua_newtable(L);
    lua_Integer n = 0;
    const et_etr_map *m = &r->debug_handle_map;
    for (size_t i = 0; i < m->n_methods; i++) {
        lua_pushstring(L, m->methods[i].name);
        lua_rawseti(L, -2, ++n);
    }
    for (size_t i = 0; i < r->n_programs; i++) {
        const et_etr_program *p = &r->programs[i];
        if (p->kind == ET_ETR_PROG_EDGE && !et_etr_map_method(m, p->key)) {
            lua_pushstring(L, p->key);
            lua_rawseti(L, -2, ++n);
        }
    }
    return 1;
}

static int rec_graphs(lua_State *L)
{
    const et_etrecord *r = et_lua_check_etrecord(L, 1)->r;
    lua_newtable(L);
    lua_Integer n = 0;
    if (r->n_edge_programs) {
        lua_pushliteral(L, ET_EDGE_GRAPH_NAME);
        lua_rawseti(L, -2, ++n);
    }
    if (r->exported_program >= 0) {
        lua_pushliteral(L, "exported_program");
        lua_rawseti(L, -2, ++n);
    }
    for (size_t i = 0; i < r->n_programs; i++)
        if (r->programs[i].kind == ET_ETR_PROG_GRAPH_MAP) {
            lua_pushstring(L, r->programs[i].key);
            lua_rawseti(L, -2, ++n);
        }
    return 1;
}

static int rec_export_graph_id(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)et_lua_check_etrecord(L, 1)->r->export_graph_id);
    return 1;
}

static void push_handles(lua_State *L, bool is_list, size_t n, const int64_t *v)
{
    if (!is_list) {
        lua_pushinteger(L, (lua_Integer)v[0]);
        return;
    }
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_pushinteger(L, (lua_Integer)v[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

/* One of the three maps as nested Lua tables; nil when absent. */
static int push_map(lua_State *L, const et_etr_map *m)
{
    if (!m->present) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, (int)m->n_methods);
    for (size_t i = 0; i < m->n_methods; i++) {
        const et_etr_method *me = &m->methods[i];
        lua_createtable(L, 0, (int)me->n);
        for (size_t k = 0; k < me->n; k++) {
            if (me->handles) {
                const et_etr_handles *h = &me->handles[k];
                lua_pushinteger(L, (lua_Integer)h->iid);
                push_handles(L, h->is_list, h->n, h->v);
            } else if (me->num_outs) {
                lua_pushinteger(L, (lua_Integer)me->num_outs[k].iid);
                lua_pushinteger(L, (lua_Integer)me->num_outs[k].num_outs);
            } else {
                const et_etr_delegate *d = &me->delegates[k];
                lua_pushinteger(L, (lua_Integer)d->iid);
                lua_createtable(L, 0, 2);
                set_str(L, "name", d->name);
                lua_createtable(L, 0, (int)d->n_ids);
                for (size_t j = 0; j < d->n_ids; j++) {
                    push_handles(L, d->ids[j].is_list, d->ids[j].n, d->ids[j].handles);
                    lua_setfield(L, -2, d->ids[j].key);
                }
                lua_setfield(L, -2, "delegate_map");
            }
            lua_rawset(L, -3);
        }
        lua_setfield(L, -2, me->name);
    }
    return 1;
}

static int rec_debug_handle_map(lua_State *L)
{
    return push_map(L, &et_lua_check_etrecord(L, 1)->r->debug_handle_map);
}

static int rec_delegate_map(lua_State *L)
{
    return push_map(L, &et_lua_check_etrecord(L, 1)->r->delegate_map);
}

static int rec_num_outs_map(lua_State *L)
{
    return push_map(L, &et_lua_check_etrecord(L, 1)->r->num_outs_map);
}

static int rec_get_exported_program(lua_State *L)
{
    et_etrecord *r = et_lua_check_etrecord(L, 1)->r;
    const char *graph = luaL_optstring(L, 2, ET_EDGE_GRAPH_NAME);
    const char *method = luaL_optstring(L, 3, NULL);
    const et_etr_program *p = NULL;
    if (strcmp(graph, ET_EDGE_GRAPH_NAME) == 0) {
        p = et_etrecord_edge_program(r, method ? method : "forward");
        for (size_t i = 0; !p && !method && i < r->n_programs; i++)
            if (r->programs[i].kind == ET_ETR_PROG_EDGE)
                p = &r->programs[i];
    } else if (strcmp(graph, "exported_program") == 0) {
        if (r->exported_program >= 0)
            p = &r->programs[r->exported_program];
    } else {
        p = et_etrecord_program(r, ET_ETR_PROG_GRAPH_MAP, graph);
        for (size_t i = 0; !p && i < r->n_programs; i++)
            if (r->programs[i].kind == ET_ETR_PROG_EDGE &&
                strcmp(r->entries[r->programs[i].entry].name, graph) == 0)
                p = &r->programs[i];
    }
    if (!p) {
        lua_pushnil(L);
        return 1;
    }
    et_lua_push_graph(L, 1, p, graph);
    return 1;
}

static int rec_tostring(lua_State *L)
{
    lua_etr_box *b = luaL_checkudata(L, 1, ET_MT_ETRECORD);
    if (!b->r) {
        lua_pushliteral(L, "ETRecord (closed)");
        return 1;
    }
    rec_methods(L);
    int list = lua_gettop(L);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    /* a display form: the path and the method names escaped */
    luaL_addstring(&buf, "ETRecord '");
    et_lua_push_shown(L, b->r->label, strlen(b->r->label));
    luaL_addvalue(&buf);
    lua_pushfstring(L, "' (%d entries, methods: ", (int)b->r->n_entries);
    luaL_addvalue(&buf);
    int n = (int)lua_rawlen(L, list);
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addstring(&buf, ", ");
        size_t len;
        lua_rawgeti(L, list, i);
        const char *m = lua_tolstring(L, -1, &len);
        et_lua_push_shown(L, m ? m : "?", m ? len : 1);
        lua_remove(L, -2);
        luaL_addvalue(&buf);
    }
    luaL_addstring(&buf, n ? ")" : "none)");
    luaL_pushresult(&buf);
    return 1;
}

void et_lua_register_etrecord(lua_State *L)
{
    static const et_lua_method methods[] = {
        {"get_exported_program", rec_get_exported_program, 2, 0}, {NULL, NULL, 0, 0}};
    static const et_lua_getter getters[] = {{"path", rec_path, 0, 0},
                                            {"entries", rec_entries, 0, 0},
                                            {"methods", rec_methods, 0, 0},
                                            {"graphs", rec_graphs, 0, 0},
                                            {"export_graph_id", rec_export_graph_id, 0, 0},
                                            {"debug_handle_map", rec_debug_handle_map, 0, 0},
                                            {"delegate_map", rec_delegate_map, 0, 0},
                                            {"instruction_id_to_num_outs_map",
                                             rec_num_outs_map, 0, 0},
                                            {NULL, NULL, 0, 0}};
    static const et_lua_type type = {ET_MT_ETRECORD, "ETRecord", methods, getters, NULL,
                                     rec_tostring, NULL, NULL, &rec_class};
    et_lua_define_type(L, &type);
}
