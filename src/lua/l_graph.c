/*
 * l_graph.c - Graph and Node: a serialized exported program of an ETRecord
 * and its operator nodes (spec §5.3, §5.9, §6.6; the C reader is
 * src/core/format/graph.h).
 *
 * A Graph comes from rec:get_exported_program(...) or
 * insp:get_exported_program(...); it keeps its ETRecord alive.
 *
 *   g.name              what it was asked as ("edge_dialect_graph_module",
 *                       "aten_dialect_output/forward", ...)
 *   g.schema_version    "5.4" (2023 records: "1.0")
 *   g.nodes             sequence of Node, in graph order (memory.alloc
 *                       nodes are left out, getitem nodes do not exist)
 *   g.inputs, g.outputs sequences of the graph's input and output names
 *   #g                  number of nodes
 *   g:node(name)        -> Node or nil (the first with that name)
 *   g:nodes_by_debug_handle(h) -> sequence of Node (graph order; {} if none)
 *   g:print([file])     writes one line per node to `file` (default
 *                       io.stdout): "name = op(inputs)  # handle N" then the
 *                       module path and the stack trace's last line
 *   tostring(g)         "Graph 'edge_dialect_graph_module' (N nodes)"
 *
 *   node.name           the node's name (without the trailing "_" the
 *                       Inspector's event dicts use as keys)
 *   node.target         e.g. "executorch.exir.dialects.edge.ops.aten.mul.Tensor"
 *   node.op             e.g. "aten.mul.Tensor" (what op_types lists)
 *   node.debug_handle   integer, or nil
 *   node.stack_trace    string, or nil
 *   node.module_hierarchy  ordered dict key -> (path, type) of its
 *                       nn_module_stack, or nil
 *   node.nn_module_stack, node.source_fn_stack, node.from_node
 *                       the metadata's raw text, or nil
 *   node.inputs, node.outputs   sequences of tensor names
 *   tostring(node)      "Node 'mul' (aten.mul.Tensor, debug handle 2)"
 */
#include <string.h>
#include <unistd.h>

#include "binding.h"
#include "l_hooks.h"
#include "l_pyobj.h"

typedef struct lua_node_box {
    et_lua_obj obj;
    lua_graph_box *graph;
    size_t i;
} lua_node_box;

static const et_graph *check_graph(lua_State *L, int arg, lua_graph_box **out)
{
    lua_graph_box *b = luaL_checkudata(L, arg, ET_MT_GRAPH);
    if (!b->rec->r)
        luaL_error(L, "Graph used after its ETRecord was closed");
    if (out)
        *out = b;
    return b->g;
}

static const et_graph_node *check_node(lua_State *L, int arg)
{
    lua_node_box *b = luaL_checkudata(L, arg, ET_MT_NODE);
    if (!b->graph->rec->r)
        luaL_error(L, "Node used after its ETRecord was closed");
    return &b->graph->g->nodes[b->i];
}

void et_lua_push_graph(lua_State *L, int rec_idx, const et_etr_program *p, const char *name)
{
    rec_idx = lua_absindex(L, rec_idx);
    lua_etr_box *rec = et_lua_check_etrecord(L, rec_idx);
    /* one Graph per (program, name), kept in the record's user value */
    int cache = lua_getiuservalue(L, rec_idx, 1) == LUA_TTABLE ? lua_gettop(L) : 0;
    lua_pushfstring(L, "%p\n%s", (const void *)p, name);
    int key = lua_gettop(L);
    lua_pushvalue(L, key);
    if (cache && lua_rawget(L, cache) == LUA_TUSERDATA) {
        lua_replace(L, cache);
        lua_settop(L, cache);
        return;
    }
    lua_settop(L, key);
    et_error err;
    const et_graph *g = et_etrecord_graph(rec->r, p, &err);
    if (!g)
        luaL_error(L, "%s", err.msg);
    lua_graph_box *b = lua_newuserdatauv(L, sizeof *b, 2);
    b->obj.magic = ET_LUA_OBJ_MAGIC;
    b->obj.owner = &rec->own;
    b->rec = rec;
    b->g = g;
    snprintf(b->name, sizeof b->name, "%s", name);
    luaL_setmetatable(L, ET_MT_GRAPH);
    lua_pushvalue(L, rec_idx);
    lua_setiuservalue(L, -2, 1);
    if (cache) {
        lua_pushvalue(L, key);
        lua_pushvalue(L, -2);
        lua_rawset(L, cache);
        lua_replace(L, cache);
        lua_settop(L, cache);
    } else {
        lua_replace(L, key);
    }
}

/* Push a Node: node `i` of the Graph userdata at `graph_idx`. */
static void et_lua_push_node(lua_State *L, int graph_idx, size_t i)
{
    graph_idx = lua_absindex(L, graph_idx);
    lua_graph_box *g = luaL_checkudata(L, graph_idx, ET_MT_GRAPH);
    lua_node_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    b->obj.magic = ET_LUA_OBJ_MAGIC;
    b->obj.owner = g->obj.owner;
    b->graph = g;
    b->i = i;
    luaL_setmetatable(L, ET_MT_NODE);
    lua_pushvalue(L, graph_idx);
    lua_setiuservalue(L, -2, 1);
}

/* Push the read-only sequence of the nodes of the Graph at `graph_idx`
 * (made once, kept in its user value 2: g.nodes, g:node and
 * g:nodes_by_debug_handle give the same Node userdata). */
static void push_nodes(lua_State *L, int graph_idx)
{
    graph_idx = lua_absindex(L, graph_idx);
    if (lua_getiuservalue(L, graph_idx, 2) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_graph_box *gb = luaL_checkudata(L, graph_idx, ET_MT_GRAPH);
    lua_createtable(L, (int)gb->g->n_nodes, 0);
    for (size_t i = 0; i < gb->g->n_nodes; i++) {
        et_lua_push_node(L, graph_idx, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    et_lua_push_readonly(L, -1, "Graph.nodes");
    lua_remove(L, -2);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, graph_idx, 2);
}

/* Push node i (0-based) of the Graph at `graph_idx`. */
static void push_cached_node(lua_State *L, int graph_idx, size_t i)
{
    push_nodes(L, graph_idx);
    lua_geti(L, -1, (lua_Integer)i + 1);
    lua_remove(L, -2);
}

static void push_strings(lua_State *L, char *const *v, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

void et_lua_push_module_stack(lua_State *L, const et_graph_node *nd)
{
    if (!nd->has_module_stack) {
        lua_pushnil(L);
        return;
    }
    et_lua_new_dict(L);
    for (size_t j = 0; j < nd->n_module_stack; j++) {
        const et_module_entry *m = &nd->module_stack[j];
        lua_pushstring(L, m->path);
        lua_pushstring(L, m->type);
        et_lua_push_tuple(L, 2);
        et_lua_dict_set(L, -2, m->key, strlen(m->key));
    }
}

/* ---- Graph ---- */

static int g_name(lua_State *L)
{
    lua_graph_box *b;
    check_graph(L, 1, &b);
    lua_pushstring(L, b->name);
    return 1;
}

static int g_schema(lua_State *L)
{
    const et_graph *g = check_graph(L, 1, NULL);
    lua_pushfstring(L, "%d.%d", g->schema_major, g->schema_minor);
    return 1;
}

static int g_nodes(lua_State *L)
{
    check_graph(L, 1, NULL);
    push_nodes(L, 1);
    return 1;
}

static int g_inputs(lua_State *L)
{
    const et_graph *g = check_graph(L, 1, NULL);
    push_strings(L, g->inputs, g->n_inputs);
    return 1;
}

static int g_outputs(lua_State *L)
{
    const et_graph *g = check_graph(L, 1, NULL);
    push_strings(L, g->outputs, g->n_outputs);
    return 1;
}

static int g_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_graph(L, 1, NULL)->n_nodes);
    return 1;
}

static int g_node(lua_State *L)
{
    const et_graph *g = check_graph(L, 1, NULL);
    const et_graph_node *nd = et_graph_find(g, luaL_checkstring(L, 2));
    if (!nd)
        lua_pushnil(L);
    else
        push_cached_node(L, 1, (size_t)(nd - g->nodes));
    return 1;
}

static int g_by_handle(lua_State *L)
{
    const et_graph *g = check_graph(L, 1, NULL);
    lua_Integer h = luaL_checkinteger(L, 2);
    const struct et_graph_handle *first;
    size_t n = et_graph_by_handle(g, (int64_t)h, &first);
    push_nodes(L, 1);
    int nodes = lua_gettop(L);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_geti(L, nodes, (lua_Integer)first[i].node + 1);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* The last non-blank line of a stack trace, trimmed (n bytes at *out). */
static size_t last_line(const char *s, const char **out)
{
    const char *end = s + strlen(s);
    while (end > s && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\r'))
        end--;
    const char *start = end;
    while (start > s && start[-1] != '\n')
        start--;
    while (start < end && *start == ' ')
        start++;
    *out = start;
    return (size_t)(end - start);
}

/* Add the NUL-terminated `s` to `b`: escaped (base/shown.h) when `shown`,
 * else as it is. */
static void add_text(lua_State *L, luaL_Buffer *b, const char *s, int shown)
{
    if (shown) {
        et_lua_push_shown(L, s, strlen(s));
        luaL_addvalue(b);
    } else {
        luaL_addstring(b, s);
    }
}

/* Is the value at `idx` a Lua file open on a terminal? */
static int is_terminal(lua_State *L, int idx)
{
    luaL_Stream *f = luaL_testudata(L, idx, LUA_FILEHANDLE);
    return f && f->closef && f->f && isatty(fileno(f->f));
}

/* g:print([file]): pinned (its ETRecord cannot be closed by the sink's
 * write); the write method is looked up once.  On a terminal the names
 * are escaped (base/shown.h: no escape sequence of the ETRecord reaches
 * it); a file, a pipe or another sink gets them as they are. */
static int g_print(lua_State *L)
{
    const et_graph *g = check_graph(L, 1, NULL);
    et_lua_check_sink(L, 2, "Graph:print", 1, 1);
    lua_settop(L, 2);
    if (lua_isnil(L, 2)) {
        et_lua_push_stdout(L);
        lua_replace(L, 2);
    }
    lua_getfield(L, 2, "write");
    if (!lua_isfunction(L, -1) && !luaL_getmetafield(L, -1, "__call"))
        return luaL_error(L, "Graph:print: the file's write is not a function");
    lua_settop(L, 3);
    int write = 3;
    int tty = is_terminal(L, 2);
    luaL_Buffer b;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const et_graph_node *nd = &g->nodes[i];
        luaL_buffinit(L, &b);
        add_text(L, &b, nd->name, tty);
        luaL_addstring(&b, " = ");
        add_text(L, &b, nd->op, tty);
        luaL_addchar(&b, '(');
        for (size_t k = 0; k < nd->n_inputs; k++) {
            if (k)
                luaL_addstring(&b, ", ");
            add_text(L, &b, nd->inputs[k], tty);
        }
        luaL_addchar(&b, ')');
        if (nd->has_debug_handle) {
            lua_pushfstring(L, "  # handle %I", (lua_Integer)nd->debug_handle);
            luaL_addvalue(&b);
        }
        if (nd->has_module_stack && nd->n_module_stack) {
            luaL_addstring(&b, "\n    module: ");
            const et_module_entry *m = &nd->module_stack[nd->n_module_stack - 1];
            add_text(L, &b, m->path, tty);
            luaL_addstring(&b, " (");
            add_text(L, &b, m->type, tty);
            luaL_addchar(&b, ')');
        }
        if (nd->stack_trace) {
            const char *line;
            size_t n = last_line(nd->stack_trace, &line);
            if (n) {
                luaL_addstring(&b, "\n    at: ");
                if (tty) {
                    et_lua_push_shown(L, line, n);
                    luaL_addvalue(&b);
                } else {
                    luaL_addlstring(&b, line, n);
                }
            }
        }
        luaL_addchar(&b, '\n');
        luaL_pushresult(&b);
        lua_pushvalue(L, write);
        lua_insert(L, -2);
        lua_pushvalue(L, 2);
        lua_insert(L, -2);
        lua_call(L, 2, 0);
    }
    return 0;
}

static int g_tostring(lua_State *L)
{
    lua_graph_box *b = luaL_checkudata(L, 1, ET_MT_GRAPH);
    if (!b->rec->r)
        lua_pushliteral(L, "Graph (ETRecord closed)");
    else {
        lua_pushliteral(L, "Graph '");
        et_lua_push_shown(L, b->name, strlen(b->name)); /* a display form: escaped */
        lua_pushfstring(L, "' (%d nodes)", (int)b->g->n_nodes);
        lua_concat(L, 3);
    }
    return 1;
}

/* ---- Node ---- */

static void push_opt(lua_State *L, const char *s)
{
    if (s)
        lua_pushstring(L, s);
    else
        lua_pushnil(L);
}

static int n_name(lua_State *L)
{
    push_opt(L, check_node(L, 1)->name);
    return 1;
}

static int n_target(lua_State *L)
{
    push_opt(L, check_node(L, 1)->target);
    return 1;
}

static int n_op(lua_State *L)
{
    push_opt(L, check_node(L, 1)->op);
    return 1;
}

static int n_handle(lua_State *L)
{
    const et_graph_node *nd = check_node(L, 1);
    if (nd->has_debug_handle)
        lua_pushinteger(L, (lua_Integer)nd->debug_handle);
    else
        lua_pushnil(L);
    return 1;
}

static int n_stack_trace(lua_State *L)
{
    push_opt(L, check_node(L, 1)->stack_trace);
    return 1;
}

static int n_module_hierarchy(lua_State *L)
{
    et_lua_push_module_stack(L, check_node(L, 1));
    return 1;
}

static int n_nn_module_stack(lua_State *L)
{
    push_opt(L, check_node(L, 1)->nn_module_stack);
    return 1;
}

static int n_source_fn_stack(lua_State *L)
{
    push_opt(L, check_node(L, 1)->source_fn_stack);
    return 1;
}

static int n_from_node(lua_State *L)
{
    push_opt(L, check_node(L, 1)->from_node);
    return 1;
}

static int n_inputs(lua_State *L)
{
    const et_graph_node *nd = check_node(L, 1);
    push_strings(L, nd->inputs, nd->n_inputs);
    return 1;
}

static int n_outputs(lua_State *L)
{
    const et_graph_node *nd = check_node(L, 1);
    push_strings(L, nd->outputs, nd->n_outputs);
    return 1;
}

static int n_tostring(lua_State *L)
{
    lua_node_box *b = luaL_checkudata(L, 1, ET_MT_NODE);
    if (!b->graph->rec->r) {
        lua_pushliteral(L, "Node (ETRecord closed)");
        return 1;
    }
    const et_graph_node *nd = &b->graph->g->nodes[b->i];
    /* a display form: the names escaped */
    lua_pushliteral(L, "Node '");
    et_lua_push_shown(L, nd->name, strlen(nd->name));
    lua_pushliteral(L, "' (");
    et_lua_push_shown(L, nd->op, strlen(nd->op));
    if (nd->has_debug_handle)
        lua_pushfstring(L, ", debug handle %I)", (lua_Integer)nd->debug_handle);
    else
        lua_pushliteral(L, ")");
    lua_concat(L, 5);
    return 1;
}

void et_lua_register_graph(lua_State *L)
{
    static const et_lua_method gmethods[] = {{"node", g_node, 1, 0},
                                             {"nodes_by_debug_handle", g_by_handle, 1, 0},
                                             {"print", g_print, 1, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_getter ggetters[] = {{"name", g_name, 0, ET_LUA_LEAF},
                                             {"schema_version", g_schema, 0, ET_LUA_LEAF},
                                             {"nodes", g_nodes, 0, 0},
                                             {"inputs", g_inputs, 0, 0},
                                             {"outputs", g_outputs, 0, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_type gtype = {ET_MT_GRAPH, "Graph", gmethods, ggetters, g_len,
                                      g_tostring, NULL, NULL, NULL};
    et_lua_define_type(L, &gtype);

    static const et_lua_getter ngetters[] = {{"name", n_name, 0, ET_LUA_LEAF},
                                             {"target", n_target, 0, ET_LUA_LEAF},
                                             {"op", n_op, 0, ET_LUA_LEAF},
                                             {"debug_handle", n_handle, 0, ET_LUA_LEAF},
                                             {"stack_trace", n_stack_trace, 0, ET_LUA_LEAF},
                                             {"module_hierarchy", n_module_hierarchy, 0, 0},
                                             {"nn_module_stack", n_nn_module_stack, 0, ET_LUA_LEAF},
                                             {"source_fn_stack", n_source_fn_stack, 0, ET_LUA_LEAF},
                                             {"from_node", n_from_node, 0, ET_LUA_LEAF},
                                             {"inputs", n_inputs, 0, 0},
                                             {"outputs", n_outputs, 0, 0},
                                             {NULL, NULL, 0, 0}};
    static const et_lua_type ntype = {ET_MT_NODE, "Node", NULL, ngetters, NULL, n_tostring,
                                      NULL, NULL, NULL};
    et_lua_define_type(L, &ntype);
}
