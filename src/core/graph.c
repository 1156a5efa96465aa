/*
 * graph.c - serialized exported programs read into operator nodes (spec
 * §5.3, §5.9); see graph.h.  JSON through jansson.
 */
#include "graph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static char *dup_s(const char *s)
{
    return s ? dup_n(s, strlen(s)) : NULL;
}

const char *et_graph_op_of_target(const char *target)
{
    static const char *const prefixes[] = {"executorch.exir.dialects.edge.ops.",
                                           "executorch.exir.dialects.backend.ops."};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(target, prefixes[i], n) == 0)
            return target + n;
    }
    if (strncmp(target, "torch.ops.", 10) == 0) {
        const char *ns_end = strchr(target + 10, '.');
        if (ns_end && ns_end[1])
            return ns_end + 1;
    }
    const char *dot = strrchr(target, '.');
    return dot ? dot + 1 : target;
}

/* The variant of a serialized union: a one-key object (current layout) or
 * an object listing every variant, all null but one (2023).  Returns the
 * variant's value and sets *kind to its key; NULL when none is set. */
static json_t *union_value(json_t *u, const char **kind)
{
    const char *k;
    json_t *v;
    if (!json_is_object(u))
        return NULL;
    json_object_foreach(u, k, v)
    {
        if (!json_is_null(v) || json_object_size(u) == 1) {
            *kind = k;
            return v;
        }
    }
    return NULL;
}

/* Append the tensor names an Argument refers to (as_tensor, as_tensors,
 * as_optional_tensors) to a list. */
static int add_names(json_t *arg, char ***list, size_t *n)
{
    const char *kind = NULL;
    json_t *v = union_value(arg, &kind);
    if (!v)
        return 0;
    json_t *items[1] = {v};
    json_t *arr = NULL;
    size_t count = 0;
    if (strcmp(kind, "as_tensor") == 0) {
        count = 1;
    } else if (strcmp(kind, "as_tensors") == 0 || strcmp(kind, "as_optional_tensors") == 0) {
        arr = v;
        count = json_is_array(v) ? json_array_size(v) : 0;
    } else {
        return 0;
    }
    for (size_t i = 0; i < count; i++) {
        json_t *t = arr ? json_array_get(arr, i) : items[0];
        if (arr && strcmp(kind, "as_optional_tensors") == 0) {
            const char *k2 = NULL;
            json_t *inner = union_value(t, &k2);
            if (!inner || strcmp(k2, "as_tensor") != 0)
                continue;
            t = inner;
        }
        json_t *name = json_object_get(t, "name");
        if (!json_is_string(name))
            continue;
        char **nl = realloc(*list, (*n + 1) * sizeof *nl);
        if (!nl)
            return -1;
        *list = nl;
        if (!(nl[*n] = dup_s(json_string_value(name))))
            return -1;
        (*n)++;
    }
    return 0;
}

/* Length of the part of `s` that ends at the first `sep` not inside () or
 * [] (or at the end of the string). */
static size_t top_part(const char *s, char sep)
{
    int depth = 0;
    const char *p = s;
    for (; *p && !(*p == sep && depth == 0); p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if ((*p == ')' || *p == ']') && depth > 0)
            depth--;
    }
    return (size_t)(p - s);
}

static void free_module_stack(et_graph_node *nd)
{
    for (size_t j = 0; j < nd->n_module_stack; j++) {
        free(nd->module_stack[j].key);
        free(nd->module_stack[j].path);
        free(nd->module_stack[j].type);
    }
    free(nd->module_stack);
    nd->module_stack = NULL;
    nd->n_module_stack = 0;
}

/* nn_module_stack: "key,path,type;key,path,type", split on separators not
 * inside () or [] (spec §5.3).  A malformed one (an entry without exactly
 * three parts) keeps the raw text only.  Returns 0, or -1 out of memory. */
static int parse_module_stack(et_graph_node *nd)
{
    const char *s = nd->nn_module_stack;
    size_t n_entries = 1;
    for (const char *p = s; *p; p++)
        n_entries += *p == ';';
    nd->module_stack = calloc(n_entries, sizeof *nd->module_stack);
    if (!nd->module_stack)
        return -1;
    for (const char *p = s;;) {
        size_t len = top_part(p, ';');
        char *entry = dup_n(p, len);
        if (!entry)
            return -1;
        const char *parts[3];
        size_t lens[3], k = 0;
        for (const char *q = entry;; k++) {
            size_t l = top_part(q, ',');
            if (k < 3)
                parts[k] = q, lens[k] = l;
            if (!q[l])
                break;
            q += l + 1;
        }
        if (k != 2) {
            free(entry);
            free_module_stack(nd);
            nd->has_module_stack = false;
            return 0;
        }
        et_module_entry *e = &nd->module_stack[nd->n_module_stack++];
        e->key = dup_n(parts[0], lens[0]);
        e->path = dup_n(parts[1], lens[1]);
        e->type = dup_n(parts[2], lens[2]);
        free(entry);
        if (!e->key || !e->path || !e->type)
            return -1;
        if (!p[len])
            break;
        p += len + 1;
    }
    nd->has_module_stack = true;
    return 0;
}

static const char *meta_str(json_t *meta, const char *key)
{
    json_t *v = json_object_get(meta, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int cmp_handle(const void *a, const void *b)
{
    const struct et_graph_handle *x = a, *y = b;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static et_graph *fail_nomem(et_graph *g, et_error *err)
{
    et_graph_free(g);
    et_fail(err, ET_ERR_NOMEM, "out of memory");
    return NULL;
}

et_graph *et_graph_parse(const char *json, size_t len, const char *label, et_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(json, len, 0, &je);
    if (!root) {
        et_fail(err, ET_ERR_FORMAT, "%s: invalid JSON at line %d, column %d: %s", label, je.line,
                je.column, je.text);
        return NULL;
    }
    et_graph *g = calloc(1, sizeof *g);
    if (!g) {
        json_decref(root);
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    json_t *sv = json_object_get(root, "schema_version");
    if (json_is_integer(sv)) {
        g->schema_major = (int)json_integer_value(sv);
    } else if (json_is_object(sv)) {
        json_t *mj = json_object_get(sv, "major"), *mn = json_object_get(sv, "minor");
        g->schema_major = json_is_integer(mj) ? (int)json_integer_value(mj) : 0;
        g->schema_minor = json_is_integer(mn) ? (int)json_integer_value(mn) : 0;
    }
    json_t *graph = json_object_get(json_object_get(root, "graph_module"), "graph");
    json_t *nodes = json_object_get(graph, "nodes");
    if (!json_is_array(nodes)) {
        json_decref(root);
        et_graph_free(g);
        et_fail(err, ET_ERR_FORMAT,
                "%s: not a serialized exported program: expected an array at "
                "graph_module.graph.nodes",
                label);
        return NULL;
    }
    size_t n = json_array_size(nodes);
    g->nodes = calloc(n ? n : 1, sizeof *g->nodes);
    if (!g->nodes) {
        json_decref(root);
        return fail_nomem(g, err);
    }
    json_t *ins = json_object_get(graph, "inputs"), *outs = json_object_get(graph, "outputs");
    for (size_t i = 0; json_is_array(ins) && i < json_array_size(ins); i++)
        if (add_names(json_array_get(ins, i), &g->inputs, &g->n_inputs) != 0)
            goto nomem;
    for (size_t i = 0; json_is_array(outs) && i < json_array_size(outs); i++)
        if (add_names(json_array_get(outs, i), &g->outputs, &g->n_outputs) != 0)
            goto nomem;
    for (size_t i = 0; i < n; i++) {
        json_t *jn = json_array_get(nodes, i);
        json_t *target = json_object_get(jn, "target");
        if (!json_is_object(jn) || !json_is_string(target)) {
            json_decref(root);
            et_graph_free(g);
            et_fail(err, ET_ERR_FORMAT,
                    "%s: graph_module.graph.nodes[%zu]: expected an object with a string "
                    "\"target\"",
                    label, i);
            return NULL;
        }
        if (strcmp(json_string_value(target), "memory.alloc") == 0)
            continue; /* spec §5.5 */
        et_graph_node *nd = &g->nodes[g->n_nodes++];
        if (!(nd->target = dup_s(json_string_value(target))) ||
            !(nd->op = dup_s(et_graph_op_of_target(nd->target))))
            goto nomem;
        json_t *args = json_object_get(jn, "inputs");
        for (size_t a = 0; json_is_array(args) && a < json_array_size(args); a++)
            if (add_names(json_object_get(json_array_get(args, a), "arg"), &nd->inputs,
                          &nd->n_inputs) != 0)
                goto nomem;
        json_t *res = json_object_get(jn, "outputs");
        for (size_t a = 0; json_is_array(res) && a < json_array_size(res); a++)
            if (add_names(json_array_get(res, a), &nd->outputs, &nd->n_outputs) != 0)
                goto nomem;
        json_t *name = json_object_get(jn, "name");
        if (json_is_string(name)) {
            if (!(nd->name = dup_s(json_string_value(name))))
                goto nomem;
        } else if (nd->n_outputs) {
            /* 2023 layout: torch names the node after its output */
            if (!(nd->name = dup_s(nd->outputs[0])))
                goto nomem;
        } else {
            et_fail(err, ET_ERR_FORMAT,
                    "%s: graph_module.graph.nodes[%zu] (%s): no \"name\" and no output to name "
                    "it after",
                    label, i, nd->target);
            json_decref(root);
            et_graph_free(g);
            return NULL;
        }
        json_t *meta = json_object_get(jn, "metadata");
        const char *dh = meta_str(meta, "debug_handle");
        if (dh && *dh) {
            char *end;
            errno = 0;
            long long v = strtoll(dh, &end, 10);
            if (*end == 0 && errno == 0) {
                nd->has_debug_handle = true;
                nd->debug_handle = v;
            }
        }
        const char *st = meta_str(meta, "stack_trace"), *ms = meta_str(meta, "nn_module_stack");
        const char *sf = meta_str(meta, "source_fn_stack"), *fn = meta_str(meta, "from_node");
        if ((st && !(nd->stack_trace = dup_s(st))) || (sf && !(nd->source_fn_stack = dup_s(sf))) ||
            (fn && !(nd->from_node = dup_s(fn))) || (ms && !(nd->nn_module_stack = dup_s(ms))))
            goto nomem;
        if (ms && parse_module_stack(nd) != 0)
            goto nomem;
    }
    json_decref(root);
    root = NULL;
    size_t nh = 0;
    for (size_t i = 0; i < g->n_nodes; i++)
        nh += g->nodes[i].has_debug_handle;
    if (nh) {
        if (!(g->by_handle = calloc(nh, sizeof *g->by_handle)))
            return fail_nomem(g, err);
        for (size_t i = 0; i < g->n_nodes; i++)
            if (g->nodes[i].has_debug_handle) {
                g->by_handle[g->n_by_handle].handle = g->nodes[i].debug_handle;
                g->by_handle[g->n_by_handle++].node = i;
            }
        qsort(g->by_handle, g->n_by_handle, sizeof *g->by_handle, cmp_handle);
    }
    return g;
nomem:
    json_decref(root);
    return fail_nomem(g, err);
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

void et_graph_free(et_graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n_nodes; i++) {
        et_graph_node *nd = &g->nodes[i];
        free(nd->name);
        free(nd->target);
        free(nd->op);
        free(nd->stack_trace);
        free(nd->nn_module_stack);
        free(nd->source_fn_stack);
        free(nd->from_node);
        free_module_stack(nd);
        free_list(nd->inputs, nd->n_inputs);
        free_list(nd->outputs, nd->n_outputs);
    }
    free(g->nodes);
    free_list(g->inputs, g->n_inputs);
    free_list(g->outputs, g->n_outputs);
    free(g->by_handle);
    free(g);
}

const et_graph_node *et_graph_find(const et_graph *g, const char *name)
{
    for (size_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].name && strcmp(g->nodes[i].name, name) == 0)
            return &g->nodes[i];
    return NULL;
}

size_t et_graph_by_handle(const et_graph *g, int64_t handle, const struct et_graph_handle **first)
{
    size_t lo = 0, hi = g->n_by_handle;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->by_handle[mid].handle < handle)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < g->n_by_handle && g->by_handle[k].handle == handle)
        k++;
    *first = lo < g->n_by_handle ? &g->by_handle[lo] : NULL;
    return k - lo;
}
