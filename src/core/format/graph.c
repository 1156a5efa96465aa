/*
 * graph.c - serialized exported programs read into operator nodes (spec
 * §5.3, §5.9); see graph.h.  JSON through jsondoc.h; the node strings
 * point into the document's string store, which the graph keeps.
 */
#include "format/graph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/jarena.h"
#include "format/jsondoc.h"

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
 * variant's value and sets *kind to its key; ET_JNONE when none is set. */
static et_jref union_value(const et_jsondoc *d, et_jref u, const char **kind)
{
    if (et_json_type(d, u) != ET_JOBJECT)
        return ET_JNONE;
    bool single = et_json_count(d, u) == 1;
    for (et_jref k = et_json_first(d, u); k != ET_JNONE; k = et_json_next(d, u, k)) {
        et_jref v = et_json_value(k);
        if (single || et_json_type(d, v) != ET_JNULL) {
            *kind = et_json_str(d, k);
            return v;
        }
    }
    return ET_JNONE;
}

/* A list of names being gathered (reused from node to node). */
typedef struct namevec {
    char **v;
    size_t n, cap;
} namevec;

static int namevec_add(namevec *nv, const char *s)
{
    if (nv->n == nv->cap) {
        size_t cap = nv->cap ? 2 * nv->cap : 16;
        char **v = realloc(nv->v, cap * sizeof *v);
        if (!v)
            return -1;
        nv->v = v;
        nv->cap = cap;
    }
    nv->v[nv->n++] = (char *)s;
    return 0;
}

/* The gathered names as an array of the arena (*list, *n); the vector is
 * emptied.  Returns 0, or -1 out of memory. */
static int namevec_keep(namevec *nv, et_jarena *ar, char ***list, size_t *n)
{
    *n = nv->n;
    *list = NULL;
    if (nv->n) {
        if (!(*list = et_jarena_array(ar, nv->n, sizeof **list)))
            return -1;
        memcpy(*list, nv->v, nv->n * sizeof **list);
    }
    nv->n = 0;
    return 0;
}

/* Append the tensor names an Argument refers to (as_tensor, as_tensors,
 * as_optional_tensors) to `nv`. */
static int add_names(const et_jsondoc *d, et_jref arg, namevec *nv)
{
    const char *kind = NULL;
    et_jref v = union_value(d, arg, &kind);
    if (v == ET_JNONE)
        return 0;
    if (strcmp(kind, "as_tensor") == 0) {
        const char *name = et_json_str(d, et_json_get(d, v, "name"));
        return name ? namevec_add(nv, name) : 0;
    }
    bool optional = strcmp(kind, "as_optional_tensors") == 0;
    if (!optional && strcmp(kind, "as_tensors") != 0)
        return 0;
    for (et_jref t = et_json_first(d, v); t != ET_JNONE; t = et_json_next(d, v, t)) {
        et_jref x = t;
        if (optional) {
            const char *k2 = NULL;
            x = union_value(d, t, &k2);
            if (x == ET_JNONE || strcmp(k2, "as_tensor") != 0)
                continue;
        }
        const char *name = et_json_str(d, et_json_get(d, x, "name"));
        if (name && namevec_add(nv, name) != 0)
            return -1;
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

/* nn_module_stack: "key,path,type;key,path,type", split on separators not
 * inside () or [] (spec §5.3), into the arena: one copy of the text whose
 * separators become NULs, the entries pointing into it.  A malformed one
 * (an entry without exactly three parts) keeps the raw text only.
 * Returns 0, or -1 out of memory. */
static int parse_module_stack(et_jarena *ar, et_graph_node *nd)
{
    size_t len = strlen(nd->nn_module_stack), n_entries = 1;
    for (const char *p = nd->nn_module_stack; *p; p++)
        n_entries += *p == ';';
    char *s = et_jarena_strndup(ar, nd->nn_module_stack, len);
    et_module_entry *es = et_jarena_array(ar, n_entries, sizeof *es);
    if (!s || !es)
        return -1;
    size_t k_entries = 0;
    for (char *p = s;;) {
        size_t l = top_part(p, ';');
        bool last = !p[l];
        p[l] = 0;
        char *parts[3];
        size_t k = 0;
        for (char *q = p;; k++) {
            size_t lq = top_part(q, ',');
            bool end = !q[lq];
            if (k < 3)
                parts[k] = q;
            if (end)
                break;
            q[lq] = 0;
            q += lq + 1;
        }
        if (k != 2) {
            nd->has_module_stack = false;
            return 0; /* the arena keeps the copy until the graph goes */
        }
        es[k_entries++] = (et_module_entry){parts[0], parts[1], parts[2]};
        if (last)
            break;
        p += l + 1;
    }
    nd->module_stack = es;
    nd->n_module_stack = k_entries;
    nd->has_module_stack = true;
    return 0;
}

/* source_fn_name and source_fn_type: the two top-level parts of the last
 * top-level entry of source_fn_stack ("name,target;name,target"), in one
 * block "name\0target\0" of the arena; left NULL unless that entry has
 * exactly two parts.  Returns 0, or -1 out of memory. */
static int parse_source_fn(et_jarena *ar, et_graph_node *nd)
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
    char *block = et_jarena_strndup(ar, last, l1 + 1 + l2);
    if (!block)
        return -1;
    block[l1] = 0;
    nd->source_fn_name = block;
    nd->source_fn_type = block + l1 + 1;
    return 0;
}

/* The name torch.fx's deserializer gives a node without a "name": its
 * output's name when `outputs` has exactly one entry and that entry is
 * {"as_tensor": {"name": N}} (2023 unions: the variant set); else NULL (the
 * name is generated from the target, see generate_name). */
static const char *single_tensor_output(const et_jsondoc *d, et_jref outputs)
{
    if (et_json_type(d, outputs) != ET_JARRAY || et_json_count(d, outputs) != 1)
        return NULL;
    const char *kind = NULL;
    et_jref v = union_value(d, et_json_first(d, outputs), &kind);
    if (v == ET_JNONE || strcmp(kind, "as_tensor") != 0)
        return NULL;
    return et_json_str(d, et_json_get(d, v, "name"));
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
static int generate_name(name_space *ns, et_jarena *ar, et_graph_node *nd)
{
    const char *op = nd->op;
    size_t n = strlen(op);
    /* "_" + two characters per character; "_unnamed"; "_" + 20 digits + NUL */
    char *buf = et_jarena_alloc(ar, 2 * n + 32);
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
            rc = generate_name(&ns, &g->arena, &g->nodes[i]);
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

static et_graph *fail_nomem(et_graph *g, const char *label, et_error *err)
{
    et_graph_free(g);
    et_fail(err, ET_ERR_NOMEM, "%s: out of memory", label);
    return NULL;
}

/* A metadata value that is a string, or NULL. */
static const char *meta_str(const et_jsondoc *d, et_jref meta, const char *key)
{
    return et_json_str(d, et_json_get(d, meta, key));
}

/* One node of the JSON into nd (its fields are strings of the document or
 * of the graph's arena).  Returns 0, or -1 out of memory. */
static int read_node(et_graph *g, const et_jsondoc *d, et_jref jn, const char *target,
                     et_graph_node *nd, namevec *nv)
{
    nd->target = (char *)target;
    nd->op = (char *)et_graph_op_of_target(target);
    et_jref args = et_json_get(d, jn, "inputs");
    for (et_jref a = et_json_first(d, args); a != ET_JNONE; a = et_json_next(d, args, a))
        if (add_names(d, et_json_get(d, a, "arg"), nv) != 0)
            return -1;
    if (namevec_keep(nv, &g->arena, &nd->inputs, &nd->n_inputs) != 0)
        return -1;
    et_jref res = et_json_get(d, jn, "outputs");
    for (et_jref a = et_json_first(d, res); a != ET_JNONE; a = et_json_next(d, res, a))
        if (add_names(d, a, nv) != 0)
            return -1;
    if (namevec_keep(nv, &g->arena, &nd->outputs, &nd->n_outputs) != 0)
        return -1;
    /* without a "name" (2023, early 2025): named after its one tensor
     * output, else by name_nodes once all names are known */
    const char *nm = et_json_str(d, et_json_get(d, jn, "name"));
    nd->name = (char *)(nm ? nm : single_tensor_output(d, res));
    et_jref meta = et_json_get(d, jn, "metadata");
    const char *dh = meta_str(d, meta, "debug_handle");
    if (dh && *dh) {
        char *end;
        errno = 0;
        long long v = strtoll(dh, &end, 10);
        if (*end == 0 && errno == 0) {
            nd->has_debug_handle = true;
            nd->debug_handle = v;
        }
    }
    nd->stack_trace = (char *)meta_str(d, meta, "stack_trace");
    nd->nn_module_stack = (char *)meta_str(d, meta, "nn_module_stack");
    nd->source_fn_stack = (char *)meta_str(d, meta, "source_fn_stack");
    nd->from_node = (char *)meta_str(d, meta, "from_node");
    if ((nd->nn_module_stack && parse_module_stack(&g->arena, nd) != 0) ||
        (nd->source_fn_stack && parse_source_fn(&g->arena, nd) != 0))
        return -1;
    return 0;
}

et_graph *et_graph_from_doc(et_jsondoc *d, const char *label, et_error *err)
{
    et_graph *g = calloc(1, sizeof *g);
    if (!g)
        return fail_nomem(g, label, err);
    et_jref root = et_json_root(d);
    et_jref sv = et_json_get(d, root, "schema_version");
    if (et_json_type(d, sv) == ET_JINT) {
        g->schema_major = (int)et_json_int(d, sv);
    } else if (et_json_type(d, sv) == ET_JOBJECT) {
        g->schema_major = (int)et_json_int(d, et_json_get(d, sv, "major"));
        g->schema_minor = (int)et_json_int(d, et_json_get(d, sv, "minor"));
    }
    et_jref graph = et_json_get(d, et_json_get(d, root, "graph_module"), "graph");
    et_jref nodes = et_json_get(d, graph, "nodes");
    if (et_json_type(d, nodes) != ET_JARRAY)
    {
        et_graph_free(g);
        et_fail(err, ET_ERR_FORMAT,
                "%s: not a serialized exported program: expected an array at "
                "graph_module.graph.nodes",
                label);
        return NULL;
    }
    size_t n = et_json_count(d, nodes);
    namevec nv = {0};
    if (!(g->nodes = calloc(n ? n : 1, sizeof *g->nodes)))
        return fail_nomem(g, label, err);
    et_jref ins = et_json_get(d, graph, "inputs"), outs = et_json_get(d, graph, "outputs");
    for (et_jref a = et_json_first(d, ins); a != ET_JNONE; a = et_json_next(d, ins, a))
        if (add_names(d, a, &nv) != 0)
            goto nomem;
    if (namevec_keep(&nv, &g->arena, &g->inputs, &g->n_inputs) != 0)
        goto nomem;
    for (et_jref a = et_json_first(d, outs); a != ET_JNONE; a = et_json_next(d, outs, a))
        if (add_names(d, a, &nv) != 0)
            goto nomem;
    if (namevec_keep(&nv, &g->arena, &g->outputs, &g->n_outputs) != 0)
        goto nomem;
    size_t i = 0;
    for (et_jref jn = et_json_first(d, nodes); jn != ET_JNONE; jn = et_json_next(d, nodes, jn), i++) {
        const char *target = et_json_str(d, et_json_get(d, jn, "target"));
        if (et_json_type(d, jn) != ET_JOBJECT || !target) {
            free(nv.v);
            et_graph_free(g);
            et_fail(err, ET_ERR_FORMAT,
                    "%s: graph_module.graph.nodes[%zu]: expected an object with a string "
                    "\"target\"",
                    label, i);
            return NULL;
        }
        if (strcmp(target, "memory.alloc") == 0)
            continue; /* spec §5.5 */
        if (read_node(g, d, jn, target, &g->nodes[g->n_nodes++], &nv) != 0)
            goto nomem;
    }
    free(nv.v);
    nv.v = NULL;
    if (g->arena.failed || name_nodes(g) != 0)
        goto nomem;
    size_t *scratch = malloc(2 * (g->n_nodes ? g->n_nodes : 1) * sizeof *scratch);
    g->by_name = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *g->by_name);
    if (!scratch || !g->by_name) {
        free(scratch);
        goto nomem;
    }
    index_nodes(g, scratch);
    free(scratch);
    size_t nh = 0;
    for (size_t k = 0; k < g->n_nodes; k++)
        nh += g->nodes[k].has_debug_handle;
    if (nh) {
        if (!(g->by_handle = calloc(nh, sizeof *g->by_handle)))
            goto nomem;
        for (size_t k = 0; k < g->n_nodes; k++)
            if (g->nodes[k].has_debug_handle) {
                g->by_handle[g->n_by_handle].handle = g->nodes[k].debug_handle;
                g->by_handle[g->n_by_handle++].node = k;
            }
        qsort(g->by_handle, g->n_by_handle, sizeof *g->by_handle, cmp_handle);
    }
    /* the node strings point into the document's store: the graph keeps it */
    g->strings = et_jsondoc_take_strings(d, &g->strings_bytes);
    return g;
nomem:
    free(nv.v);
    return fail_nomem(g, label, err);
}

et_graph *et_graph_parse(const char *json, size_t len, const char *label, et_error *err)
{
    et_jsondoc *d = et_jsondoc_parse(json, len, label, NULL, err);
    if (!d)
        return NULL;
    et_graph *g = et_graph_from_doc(d, label, err);
    et_jsondoc_free(d);
    return g;
}

void et_graph_free(et_graph *g)
{
    if (!g)
        return;
    free(g->nodes);
    free(g->by_handle);
    free(g->by_name);
    et_jarena_free(&g->arena);
    free(g->strings);
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
