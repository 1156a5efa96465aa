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

#include "jarena.h"

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

/* source_fn_name and source_fn_type: the two top-level parts of the last
 * top-level entry of source_fn_stack ("name,target;name,target"), in one
 * block "name\0target\0"; left NULL unless that entry has exactly two
 * parts.  Returns 0, or -1 out of memory. */
static int parse_source_fn(et_graph_node *nd)
{
    const char *last = nd->source_fn_stack;
    for (;;) {
        size_t len = top_part(last, ';');
        if (!last[len])
            break;
        last += len + 1;
    }
    /* the last entry runs to the end of the string */
    size_t l1 = top_part(last, ',');
    if (!last[l1])
        return 0; /* one part */
    const char *second = last + l1 + 1;
    size_t l2 = top_part(second, ',');
    if (second[l2])
        return 0; /* three parts or more */
    char *block = malloc(l1 + l2 + 2);
    if (!block)
        return -1;
    memcpy(block, last, l1);
    block[l1] = 0;
    memcpy(block + l1 + 1, second, l2);
    block[l1 + 1 + l2] = 0;
    nd->source_fn_name = block;
    nd->source_fn_type = block + l1 + 1;
    return 0;
}

/* The name torch.fx's deserializer gives a node without a "name": its
 * output's name when `outputs` has exactly one entry and that entry is
 * {"as_tensor": {"name": N}} (2023 unions: the variant set); else NULL (the
 * name is generated from the target, see generate_name). */
static const char *single_tensor_output(json_t *outputs)
{
    if (!json_is_array(outputs) || json_array_size(outputs) != 1)
        return NULL;
    const char *kind = NULL;
    json_t *v = union_value(json_array_get(outputs, 0), &kind);
    if (!v || strcmp(kind, "as_tensor") != 0)
        return NULL;
    json_t *name = json_object_get(v, "name");
    return json_is_string(name) ? json_string_value(name) : NULL;
}

/* torch.fx's graph namespace while unnamed nodes are named: the names in
 * use and, per base name, the last suffix number given to it (its
 * _base_count).  An open-addressing table of string slices that point into
 * the graph's own strings (node and input names: no copies), sized so that
 * it is never more than half full.  A used "base_k" reached while looking
 * for base's first free number keeps in `next` a number up to which all are
 * used (path compression, as in a union-find), so that the search, which
 * may restart low when a counter goes back, stays near linear overall. */
typedef struct ns_slot {
    const char *s; /* NULL: an empty slot */
    size_t len;
    size_t count;  /* the slice's counter as a base name */
    size_t next;   /* when > k for a used "base_k": base_k .. base_{next-1} are used */
    bool used;     /* the slice is a name in use */
} ns_slot;

typedef struct name_space {
    ns_slot *slots;
    size_t mask; /* capacity - 1, a power of two minus one */
} name_space;

static size_t hash_slice(const char *s, size_t len)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return (size_t)(h ^ (h >> 32));
}

/* The slot of the slice (`s`, `len`): the existing one, or with `insert` a
 * new one keyed by `s` (which must outlive the table), else NULL. */
static ns_slot *ns_slot_of(name_space *ns, const char *s, size_t len, bool insert)
{
    for (size_t i = hash_slice(s, len) & ns->mask;; i = (i + 1) & ns->mask) {
        ns_slot *sl = &ns->slots[i];
        if (!sl->s) {
            if (!insert)
                return NULL;
            sl->s = s;
            sl->len = len;
            return sl;
        }
        if (sl->len == len && memcmp(sl->s, s, len) == 0)
            return sl;
    }
}

static bool ns_used(name_space *ns, const char *s, size_t len)
{
    const ns_slot *sl = ns_slot_of(ns, s, len, false);
    return sl && sl->used;
}

/* torch.fx's split of a name into base and number ("(.+)_(\d+)$"): returns
 * the base's length and sets *num; returns `len` and sets *num to 0 when
 * there is no such suffix (or its number does not fit a size_t). */
static size_t split_suffix(const char *s, size_t len, size_t *num)
{
    size_t d = len;
    *num = 0;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    if (d == len || d < 2 || s[d - 1] != '_')
        return len;
    size_t v = 0;
    for (size_t i = d; i < len; i++) {
        if (v > (SIZE_MAX - 9) / 10)
            return len;
        v = v * 10 + (size_t)(s[i] - '0');
    }
    *num = v;
    return d - 1;
}

/* Record a name that is used as it is (a graph input's, a node's own or
 * its output's): in use, and as torch.fx's create_name does for a free
 * candidate "base_N" with N > 0, the counter of base set to N.  A name
 * already in use (a duplicate, which torch.fx would have renamed) changes
 * no counter. */
static void ns_reserve(name_space *ns, const char *name)
{
    size_t len = strlen(name), num;
    ns_slot *sl = ns_slot_of(ns, name, len, true);
    if (sl->used)
        return;
    sl->used = true;
    size_t blen = split_suffix(name, len, &num);
    if (num)
        ns_slot_of(ns, name, blen, true)->count = num;
}

/* Write "_<num>" at buf + blen (NUL-terminated); returns the new length. */
static size_t put_suffix(char *buf, size_t blen, size_t num)
{
    char digits[24];
    size_t d = 0;
    do
        digits[d++] = (char)('0' + num % 10);
    while ((num /= 10) > 0);
    size_t k = blen;
    buf[k++] = '_';
    while (d > 0)
        buf[k++] = digits[--d];
    buf[k] = 0;
    return k;
}

/* The first number m >= first with "base_m" (base: buf's first blen bytes)
 * not in use, following and then compressing the slots' `next`; leaves
 * "base_m" in buf and sets *len to its length. */
static size_t first_free(name_space *ns, char *buf, size_t blen, size_t first, size_t *len)
{
    size_t m = first, k;
    for (;;) {
        k = put_suffix(buf, blen, m);
        const ns_slot *sl = ns_slot_of(ns, buf, k, false);
        if (!sl || !sl->used)
            break;
        m = sl->next > m ? sl->next : m + 1;
    }
    for (size_t j = first; j < m;) {
        ns_slot *sl = ns_slot_of(ns, buf, put_suffix(buf, blen, j), false);
        if (!sl) /* not reached: the walk above found each of them */
            break;
        size_t nx = sl->next > j ? sl->next : j + 1;
        sl->next = m;
        j = nx;
    }
    *len = put_suffix(buf, blen, m);
    return m;
}

/* Name node `nd` from its op as torch.fx names a call_function node it is
 * given no name for (Graph._target_to_str, then _Namespace.create_name):
 * snake case ("_" before an uppercase letter that follows a lowercase one,
 * all lowercased), each run of characters other than [A-Za-z0-9_] replaced
 * by "_", "_unnamed" when empty, "_" prefixed to a leading digit; then the
 * first of base, base_<c+1>, base_<c+2>, ... not in use, c being base's
 * counter (a candidate "base_N" tries itself first, then from N + 1).
 * Returns 0, or -1 out of memory. */
static int generate_name(name_space *ns, et_graph_node *nd)
{
    const char *op = nd->op;
    size_t n = strlen(op);
    /* "_" + two characters per character; "_unnamed"; "_" + 20 digits + NUL */
    char *buf = malloc(2 * n + 32);
    if (!buf)
        return -1;
    size_t k = 0;
    bool prev_lower = false, in_run = false;
    for (size_t i = 0; i < n; i++) {
        char c = op[i];
        bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
        if (!lower && !upper && !(c >= '0' && c <= '9') && c != '_') {
            if (!in_run)
                buf[k++] = '_';
            in_run = true;
        } else {
            in_run = false;
            if (upper && prev_lower)
                buf[k++] = '_';
            buf[k++] = upper ? (char)(c - 'A' + 'a') : c;
        }
        prev_lower = lower;
    }
    if (k == 0) {
        memcpy(buf, "_unnamed", 8);
        k = 8;
    } else if (buf[0] >= '0' && buf[0] <= '9') {
        memmove(buf + 1, buf, k);
        buf[0] = '_';
        k++;
    }
    buf[k] = 0;
    size_t num, blen = split_suffix(buf, k, &num);
    if (blen != k) /* "base_007" is tried as "base_7" */
        k = put_suffix(buf, blen, num);
    if (!num) {
        const ns_slot *b = ns_slot_of(ns, buf, blen, false);
        num = b ? b->count : 0;
    }
    if (ns_used(ns, buf, k))
        num = first_free(ns, buf, blen, num + 1, &k);
    nd->name = buf;
    ns_slot_of(ns, buf, k, true)->used = true;
    ns_slot_of(ns, buf, blen, true)->count = num;
    return 0;
}

/* Give each node without a name one (generate_name), against the names of
 * the graph's inputs and of the nodes before it, in graph order as torch.fx
 * creates them.  Returns 0, or -1 out of memory. */
static int name_nodes(et_graph *g)
{
    size_t unnamed = 0;
    for (size_t i = 0; i < g->n_nodes; i++)
        unnamed += !g->nodes[i].name;
    if (!unnamed)
        return 0;
    /* at most two slots (the name and its base) per input and node */
    size_t keys = 2 * (g->n_inputs + g->n_nodes), cap = 16;
    while (cap < 2 * keys)
        cap *= 2;
    name_space ns = {calloc(cap, sizeof(ns_slot)), cap - 1};
    if (!ns.slots)
        return -1;
    for (size_t i = 0; i < g->n_inputs; i++)
        ns_reserve(&ns, g->inputs[i]);
    int rc = 0;
    for (size_t i = 0; i < g->n_nodes && rc == 0; i++) {
        if (g->nodes[i].name)
            ns_reserve(&ns, g->nodes[i].name);
        else
            rc = generate_name(&ns, &g->nodes[i]);
    }
    free(ns.slots);
    return rc;
}

typedef int (*node_cmp)(const et_graph_node *nodes, size_t a, size_t b);

static int cmp_name(const et_graph_node *nodes, size_t a, size_t b)
{
    return strcmp(nodes[a].name, nodes[b].name);
}

static int cmp_source_fn(const et_graph_node *nodes, size_t a, size_t b)
{
    int c = strcmp(nodes[a].source_fn_name, nodes[b].source_fn_name);
    return c ? c : strcmp(nodes[a].source_fn_type, nodes[b].source_fn_type);
}

/* Stable bottom-up merge sort of `n` node indices by `cmp` (equal keys
 * keep their order), with `tmp` room for `n` more. */
static void sort_nodes(size_t *idx, size_t *tmp, size_t n, const et_graph_node *nodes,
                       node_cmp cmp)
{
    size_t *src = idx, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                dst[k++] = cmp(nodes, src[b], src[a]) < 0 ? src[b++] : src[a++];
            while (a < mid)
                dst[k++] = src[a++];
            while (b < hi)
                dst[k++] = src[b++];
        }
        size_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof *idx);
}

/* Index the nodes by name (g->by_name) and number the module groups (each
 * node's module_group, g->n_module_groups) in O(n log n); `scratch` has
 * room for 2 * n_nodes indices. */
static void index_nodes(et_graph *g, size_t *scratch)
{
    size_t n = g->n_nodes, *elig = scratch, *tmp = scratch + n;
    for (size_t i = 0; i < n; i++)
        g->by_name[i] = i;
    sort_nodes(g->by_name, scratch, n, g->nodes, cmp_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        et_graph_node *nd = &g->nodes[i];
        nd->module_group = -1;
        if (nd->source_fn_name && nd->nn_module_stack)
            elig[m++] = i;
    }
    sort_nodes(elig, tmp, m, g->nodes, cmp_source_fn);
    /* a run of equal pairs is one group, first seen at its first node */
    for (size_t a = 0, b; a < m; a = b) {
        for (b = a + 1; b < m && cmp_source_fn(g->nodes, elig[a], elig[b]) == 0;)
            b++;
        g->nodes[elig[a]].module_group = -2;
    }
    for (size_t i = 0; i < n; i++)
        if (g->nodes[i].module_group == -2)
            g->nodes[i].module_group = (int32_t)g->n_module_groups++;
    for (size_t a = 0, b; a < m; a = b) {
        int32_t grp = g->nodes[elig[a]].module_group;
        for (b = a + 1; b < m && cmp_source_fn(g->nodes, elig[a], elig[b]) == 0; b++)
            g->nodes[elig[b]].module_group = grp;
    }
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
    et_jarena ar = {0};
    json_t *root = et_jarena_load(&ar, json, len, 0, &je);
    if (!root) {
        if (ar.failed)
            et_fail(err, ET_ERR_NOMEM, "%s: out of memory parsing %zu bytes of JSON", label, len);
        else
            et_fail(err, ET_ERR_FORMAT, "%s: invalid JSON at line %d, column %d: %s", label,
                    je.line, je.column, je.text);
        et_jarena_free(&ar);
        return NULL;
    }
    et_graph *g = calloc(1, sizeof *g);
    if (!g) {
        et_jarena_free(&ar);
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
        et_jarena_free(&ar);
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
        et_jarena_free(&ar);
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
            et_jarena_free(&ar);
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
        /* without a "name" (2023, early 2025): named after its one tensor
         * output, else by name_nodes once all names are known */
        json_t *name = json_object_get(jn, "name");
        const char *nm = json_is_string(name) ? json_string_value(name) : single_tensor_output(res);
        if (nm && !(nd->name = dup_s(nm)))
            goto nomem;
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
        if ((ms && parse_module_stack(nd) != 0) || (sf && parse_source_fn(nd) != 0))
            goto nomem;
    }
    et_jarena_free(&ar);
    root = NULL;
    if (name_nodes(g) != 0)
        return fail_nomem(g, err);
    size_t *scratch = malloc(2 * (g->n_nodes ? g->n_nodes : 1) * sizeof *scratch);
    g->by_name = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *g->by_name);
    if (!scratch || !g->by_name) {
        free(scratch);
        return fail_nomem(g, err);
    }
    index_nodes(g, scratch);
    free(scratch);
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
    et_jarena_free(&ar);
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
        free(nd->source_fn_name); /* source_fn_type is in the same block */
        free(nd->from_node);
        free_module_stack(nd);
        free_list(nd->inputs, nd->n_inputs);
        free_list(nd->outputs, nd->n_outputs);
    }
    free(g->nodes);
    free_list(g->inputs, g->n_inputs);
    free_list(g->outputs, g->n_outputs);
    free(g->by_handle);
    free(g->by_name);
    free(g);
}

const et_graph_node *et_graph_find(const et_graph *g, const char *name)
{
    size_t lo = 0, hi = g->n_nodes; /* the first entry not below `name` */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(g->nodes[g->by_name[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g->n_nodes && strcmp(g->nodes[g->by_name[lo]].name, name) == 0)
        return &g->nodes[g->by_name[lo]];
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
