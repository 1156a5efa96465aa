/*
 * link.c - ETRecord linkage of an inspector's events (spec §3.10, §5.6,
 * §5.7); see link.h.
 */
#include "model/link.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The framework events that are never associated with graph nodes
 * (RESERVED_FRAMEWORK_EVENT_NAMES). */
static bool is_framework_event(et_str n)
{
    static const char *const names[] = {"Method::init", "Program::load_method",
                                        "Method::execute"};
    for (size_t i = 0; i < 3; i++)
        if (n.n == strlen(names[i]) && memcmp(n.p, names[i], n.n) == 0)
            return true;
    /* "Method::execute::<method>", the event name upstream proposed with
     * the block name "Execute::<method>" (pytorch/executorch PR 8033) */
    return n.n > 17 && memcmp(n.p, "Method::execute::", 17) == 0;
}

static bool str_is(et_str s, const char *z)
{
    return s.n == strlen(z) && memcmp(s.p, z, s.n) == 0;
}

/* "a, b, c" of a map's methods into buf. */
static void method_list(const et_etr_map *m, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < m->n_methods && at + 1 < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", i ? ", " : "", m->methods[i].name);
    if (!m->n_methods)
        snprintf(buf, cap, "none");
}

/* Is `name` a method of the record: in debug_handle_map or with an edge
 * program? */
static bool record_has_method(const et_etrecord *r, const char *name)
{
    return et_etr_map_method(&r->debug_handle_map, name) != NULL ||
           et_etrecord_edge_program(r, name) != NULL;
}

/* Names sorted for O(log n) lookups: the methods of a map, or the edge
 * programs' methods (a record can have many; a block's method is looked
 * up per block, and its maps per block, not per event). */
typedef struct name_ref {
    const char *name;
    size_t len;
    size_t pos;            /* index into the map's methods / r->programs */
} name_ref;

typedef struct name_index {
    name_ref *refs;
    size_t n;
} name_index;

static int cmp_name(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c)
        return c;
    return an < bn ? -1 : an > bn;
}

static int cmp_name_ref(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = cmp_name(x->name, x->len, y->name, y->len);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos; /* the first of equal names first */
}

/* The first entry named by the n bytes at p, or NULL. */
static const name_ref *find_name(const name_index *ix, const char *p, size_t n)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_name(ix->refs[mid].name, ix->refs[mid].len, p, n) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && cmp_name(ix->refs[lo].name, ix->refs[lo].len, p, n) == 0 ? &ix->refs[lo]
                                                                                   : NULL;
}

/* Index the methods of map `m`.  Returns 0, or -1 out of memory. */
static int index_map(name_index *ix, const et_etr_map *m)
{
    ix->n = 0;
    if (!m->n_methods)
        return 0;
    if (!(ix->refs = malloc(m->n_methods * sizeof *ix->refs)))
        return -1;
    for (size_t i = 0; i < m->n_methods; i++)
        ix->refs[i] = (name_ref){m->methods[i].name, strlen(m->methods[i].name), i};
    ix->n = m->n_methods;
    qsort(ix->refs, ix->n, sizeof *ix->refs, cmp_name_ref);
    return 0;
}

/* Index the edge programs of `r` by method.  Returns 0, or -1. */
static int index_edge_programs(name_index *ix, const et_etrecord *r)
{
    ix->n = 0;
    if (!r->n_programs)
        return 0;
    if (!(ix->refs = malloc(r->n_programs * sizeof *ix->refs)))
        return -1;
    for (size_t i = 0; i < r->n_programs; i++)
        if (r->programs[i].kind == ET_ETR_PROG_EDGE)
            ix->refs[ix->n++] = (name_ref){r->programs[i].key, strlen(r->programs[i].key), i};
    qsort(ix->refs, ix->n, sizeof *ix->refs, cmp_name_ref);
    return 0;
}

/* The indexes of a record: its three maps' methods, its edge programs. */
typedef struct record_index {
    const et_etrecord *r;
    name_index dh, dm, no, edge;
} record_index;

static int index_record(record_index *x, const et_etrecord *r)
{
    memset(x, 0, sizeof *x);
    x->r = r;
    return index_map(&x->dh, &r->debug_handle_map) || index_map(&x->dm, &r->delegate_map) ||
                   index_map(&x->no, &r->num_outs_map) || index_edge_programs(&x->edge, r)
               ? -1
               : 0;
}

static void free_record_index(record_index *x)
{
    free(x->dh.refs);
    free(x->dm.refs);
    free(x->no.refs);
    free(x->edge.refs);
}

/* Method `name` of map `m` (indexed by `ix`), or NULL: et_etr_map_method
 * in O(log n). */
static const et_etr_method *map_method(const name_index *ix, const et_etr_map *m,
                                       const char *name)
{
    const name_ref *f = find_name(ix, name, strlen(name));
    return f ? &m->methods[f->pos] : NULL;
}

/* The method a block gets when nothing tells its own: "forward" if
 * debug_handle_map has it, else its only method if it has one, else
 * "forward" (nothing is linked, with a warning). */
static const char *default_method(const record_index *x)
{
    const et_etr_map *m = &x->r->debug_handle_map;
    if (find_name(&x->dh, "forward", 7))
        return "forward";
    if (m->n_methods == 1)
        return m->methods[0].name;
    return "forward";
}

/* The record's own copy of the method named by the n bytes at p (in
 * debug_handle_map, or with an edge program), or NULL. */
static const char *record_method_named(const record_index *x, const char *p, size_t n)
{
    const name_ref *f = find_name(&x->dh, p, n);
    if (!f)
        f = find_name(&x->edge, p, n);
    return f ? f->name : NULL;
}

/* The reference graph for `method`: the parsed graph, or NULL when there is
 * none to use (*missing set, a warning is the caller's) or on error
 * (*missing false, err set). */
static const et_graph *reference_graph(et_etrecord *r, const char *ref, const char *method,
                                       bool *missing, et_error *err)
{
    *missing = false;
    const et_etr_program *p;
    if (strcmp(ref, ET_EDGE_GRAPH_NAME) == 0) {
        p = et_etrecord_edge_program(r, method);
        if (!p) {
            *missing = true;
            return NULL;
        }
    } else {
        p = et_etrecord_program(r, ET_ETR_PROG_GRAPH_MAP, ref);
        if (!p && strcmp(ref, "exported_program") == 0)
            p = et_etrecord_program(r, ET_ETR_PROG_EXPORTED, ref);
        if (!p) {
            char names[512];
            size_t at = (size_t)snprintf(names, sizeof names, "%s", ET_EDGE_GRAPH_NAME);
            for (size_t i = 0; i < r->n_programs && at + 1 < sizeof names; i++)
                if (r->programs[i].kind != ET_ETR_PROG_EDGE)
                    at += (size_t)snprintf(names + at, sizeof names - at, ", %s",
                                           r->programs[i].key);
            et_fail(err, ET_ERR_USAGE, "ETRecord '%s' has no reference graph '%s' (graphs: %s)",
                    r->label, ref, names);
            return NULL;
        }
    }
    return et_etrecord_graph(r, p, err);
}

/* The kinds of warnings given per block (or per delegate call of a block):
 * each kind at most ET_LINK_MAX_METHOD_WARNINGS times, the rest counted
 * in one last warning per kind (block_warning, rest_warnings). */
enum {
    LW_METHOD,     /* which method a block is linked to */
    LW_NO_HANDLES, /* the block's method is not in debug_handle_map */
    LW_NO_EDGE,    /* the block's method has no edge program */
    LW_DELEGATE,   /* a delegate call without (complete) delegate_map entries */
    LW_COUNT
};

/* The last warning of each kind: "... and N more " + this. */
static const char *const lw_rest[LW_COUNT] = {
    [LW_METHOD] = "warnings about the methods of blocks",
    [LW_NO_HANDLES] = "blocks not linked (debug_handle_map has no method for them)",
    [LW_NO_EDGE] = "blocks with debug handles only (no edge program for their method)",
    [LW_DELEGATE] = "warnings about delegate calls without delegate_map entries",
};

/* A warning to give once per (block, instruction id). */
typedef struct pending {
    int64_t iid;
    bool no_entry;         /* the delegate call has no delegate_map entry */
    size_t n_events;
    char ids[160];         /* identifiers without a mapping, clipped */
} pending;

typedef struct linker {
    et_inspector *insp;
    et_warnings *warnings; /* where the linkage's warnings go */
    et_error *err;
    uint32_t *stamp;       /* per node of the largest graph seen: last event id */
    size_t stamp_cap;
    uint32_t event_id;
    size_t cap_nodes;
    pending *pend;
    size_t n_pend, cap_pend;
    const struct et_graph_handle **tmp; /* nodes of one handle, to reorder */
    size_t cap_tmp;
    bool capped;           /* the cap warning was given */
    /* inferring a block's method (infer_method) */
    const et_etr_method **dm_of; /* per debug_handle_map method: its delegate_map
                                    method, or NULL */
    size_t *covered;       /* per debug_handle_map method: events it covers */
    int64_t *iids;         /* the block's evidence instruction ids */
    size_t cap_iids;
    uint64_t budget;       /* coverage checks left (ET_LINK_INFER_BUDGET) */
    size_t n_warned[LW_COUNT]; /* per-block warnings given so far, per kind */
    size_t n_quiet[LW_COUNT];  /* ... and those left out past the cap */
    const record_index *x; /* the record's name indexes */
    const char *last_method; /* the previous block's method (a record-owned or
                                static string), and its reference graph */
    const et_graph *last_graph;
    bool last_missing;
} linker;

static int nomem(linker *k)
{
    return et_fail(k->err, ET_ERR_NOMEM, "out of memory while linking the ETRecord");
}

static pending *pending_for(linker *k, int64_t iid, bool no_entry)
{
    for (size_t i = 0; i < k->n_pend; i++)
        if (k->pend[i].iid == iid && k->pend[i].no_entry == no_entry)
            return &k->pend[i];
    if (k->n_pend == k->cap_pend) {
        size_t nc = k->cap_pend ? 2 * k->cap_pend : 8;
        pending *np = realloc(k->pend, nc * sizeof *np);
        if (!np)
            return NULL;
        k->pend = np;
        k->cap_pend = nc;
    }
    pending *p = &k->pend[k->n_pend++];
    memset(p, 0, sizeof *p);
    p->iid = iid;
    p->no_entry = no_entry;
    return p;
}

static void pending_add_id(pending *p, const char *id)
{
    size_t at = strlen(p->ids);
    if (at + 8 >= sizeof p->ids) {
        if (!strstr(p->ids, ", ..."))
            snprintf(p->ids + at, sizeof p->ids - at, ", ...");
        return;
    }
    snprintf(p->ids + at, sizeof p->ids - at, "%s'%s'", at ? ", " : "", id);
    if (strlen(p->ids) + 6 >= sizeof p->ids) {
        p->ids[sizeof p->ids - 6] = 0;
        strcat(p->ids, ", ...");
    }
}

static int append_node(linker *k, uint32_t entry)
{
    et_inspector *insp = k->insp;
    if (insp->n_link_nodes >= ET_LINK_MAX_NODES)
        return 1; /* full: the caller warns */
    if (insp->n_link_nodes == k->cap_nodes) {
        size_t nc = k->cap_nodes ? 2 * k->cap_nodes : 256;
        uint32_t *np = realloc(insp->link_nodes, nc * sizeof *np);
        if (!np)
            return nomem(k);
        insp->link_nodes = np;
        k->cap_nodes = nc;
    }
    insp->link_nodes[insp->n_link_nodes++] = entry;
    return 0;
}

/* Order key of a node in the operator graph's depth-first walk (spec
 * §5.5-§5.7): flat nodes first, then module subgraphs in first-seen order. */
static int cmp_module_order(const void *a, const void *b, const et_graph *g)
{
    const struct et_graph_handle *x = *(const struct et_graph_handle *const *)a;
    const struct et_graph_handle *y = *(const struct et_graph_handle *const *)b;
    int32_t gx = g->nodes[x->node].module_group, gy = g->nodes[y->node].module_group;
    if (gx != gy)
        return gx < gy ? -1 : 1; /* -1 (flat) sorts first */
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Attach the graph nodes of the event's handles (spec §5.6 step 3).
 * Returns 0, 1 when a cap cut the list short, or -1 (err set). */
static int associate(linker *k, et_event *ev, const et_graph *g, bool module_order)
{
    ev->node_first = (uint32_t)k->insp->n_link_nodes;
    if (++k->event_id == 0) { /* wrapped: forget every stamp */
        memset(k->stamp, 0, k->stamp_cap * sizeof *k->stamp);
        k->event_id = 1;
    }
    for (uint32_t h = 0; h < ev->n_debug_handles; h++) {
        const struct et_graph_handle *first;
        size_t n = et_graph_by_handle(g, ev->debug_handles[h], &first);
        if (!n)
            continue;
        if (n > k->cap_tmp) {
            const struct et_graph_handle **nt = realloc(k->tmp, n * sizeof *nt);
            if (!nt)
                return nomem(k);
            k->tmp = nt;
            k->cap_tmp = n;
        }
        for (size_t i = 0; i < n; i++)
            k->tmp[i] = &first[i];
        if (module_order && n > 1) {
            /* insertion sort: a handle rarely has more than a few nodes */
            for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && cmp_module_order(&k->tmp[j - 1], &k->tmp[j], g) > 0;
                     j--) {
                    const struct et_graph_handle *t = k->tmp[j];
                    k->tmp[j] = k->tmp[j - 1];
                    k->tmp[j - 1] = t;
                }
        }
        for (size_t i = 0; i < n; i++) {
            size_t node = k->tmp[i]->node;
            const et_graph_node *nd = &g->nodes[node];
            uint32_t entry = (uint32_t)node;
            if (k->stamp[node] != k->event_id) {
                k->stamp[node] = k->event_id;
                entry |= ET_LINK_NODE_FIRST;
            }
            if (nd->op && nd->op[0])
                entry |= ET_LINK_NODE_OP;
            if (!(entry & ~ET_LINK_NODE_MASK))
                continue;
            int rc = k->insp->n_link_nodes - ev->node_first >= ET_LINK_MAX_NODES_PER_EVENT
                         ? 1
                         : append_node(k, entry);
            if (rc != 0) {
                ev->node_count = (uint32_t)(k->insp->n_link_nodes - ev->node_first);
                return rc;
            }
        }
    }
    ev->node_count = (uint32_t)(k->insp->n_link_nodes - ev->node_first);
    return 0;
}

/* The identifier of a delegated event as text (what str() gives). */
static void identifier_text(const et_event *ev, char *buf, size_t cap)
{
    if (ev->delegate_debug_identifier_kind == ET_DID_INT)
        snprintf(buf, cap, "%" PRId32, ev->delegate_debug_id_int);
    else
        snprintf(buf, cap, "%.*s", (int)ev->delegate_debug_id_str.n, ev->delegate_debug_id_str.p);
}

/* Does s (n bytes) contain the NUL-terminated key? */
static bool contains(const char *s, size_t n, const char *key)
{
    size_t m = strlen(key);
    if (m > n)
        return false;
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, key, m) == 0)
            return true;
    return false;
}

/* Handles of a delegated event whose identifier's text is `s` (n bytes;
 * spec §3.10 step 5): the key equal to it, else the last key in map order
 * that is a substring of it; NULL when none. */
static const et_etr_delegate_id *delegate_id(const et_etr_delegate *d, const char *s, size_t n)
{
    for (size_t i = 0; i < d->n_ids; i++)
        if (strlen(d->ids[i].key) == n && memcmp(d->ids[i].key, s, n) == 0)
            return &d->ids[i];
    const et_etr_delegate_id *id = NULL;
    for (size_t i = 0; i < d->n_ids; i++)
        if (contains(s, n, d->ids[i].key))
            id = &d->ids[i];
    return id;
}

/* Binary search of instruction `iid` among n entries of size sz sorted by
 * their first member, the int64_t instruction id (a method's entries in
 * any of the three maps); the entry or NULL. */
static const void *find_iid(const void *base, size_t n, size_t sz, int64_t iid)
{
    size_t lo = 0, hi = base ? n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t v;
        memcpy(&v, (const char *)base + mid * sz, sizeof v);
        if (v < iid)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t v;
    if (lo == (base ? n : 0))
        return NULL;
    memcpy(&v, (const char *)base + lo * sz, sizeof v);
    return v == iid ? (const char *)base + lo * sz : NULL;
}

/* The entries of instruction `iid` in one method of debug_handle_map,
 * instruction_id_to_num_outs_map or delegate_map, or NULL. */
static const et_etr_handles *method_handles(const et_etr_method *m, int64_t iid)
{
    return find_iid(m->handles, m->n, sizeof *m->handles, iid);
}

static const et_etr_num_outs *method_num_outs(const et_etr_method *m, int64_t iid)
{
    return find_iid(m->num_outs, m->n, sizeof *m->num_outs, iid);
}

static const et_etr_delegate *method_delegate(const et_etr_method *m, int64_t iid)
{
    return find_iid(m->delegates, m->n, sizeof *m->delegates, iid);
}

/* The entry of delegate `d` for the identifier of delegated event `ev`
 * (delegate_id), or NULL. */
static const et_etr_delegate_id *event_delegate_id(const et_etr_delegate *d, const et_event *ev)
{
    if (ev->delegate_debug_identifier_kind == ET_DID_INT) {
        char text[16];
        snprintf(text, sizeof text, "%" PRId32, ev->delegate_debug_id_int);
        return delegate_id(d, text, strlen(text));
    }
    return delegate_id(d, ev->delegate_debug_id_str.p, ev->delegate_debug_id_str.n);
}

/* Is event `ev` evidence of its block's method: an event of an instruction
 * (an instruction id set), not a framework event? */
static bool is_evidence(const et_event *ev)
{
    return ev->instruction_id >= 0 && !is_framework_event(et_event_name(ev));
}

static bool has_prefix(et_str s, const char *z)
{
    size_t n = strlen(z);
    return s.n >= n && memcmp(s.p, z, n) == 0;
}

/* Does a method - `dh` its debug_handle_map entry, `dm` its delegate_map
 * entry or NULL - account for evidence event `ev`?  Its instruction id
 * must be in dh; a delegated event's identifier must be in the delegate's
 * own map (without a delegate_map entry, the instruction must be a
 * delegate call: a list of handles); a DELEGATE_CALL must be at a delegate
 * call; an OPERATOR_CALL or native_call_* event must not.  *cost grows by
 * the identifiers compared. */
static bool covers(const et_etr_method *dh, const et_etr_method *dm, const et_event *ev,
                   uint64_t *cost)
{
    const et_etr_handles *h = method_handles(dh, ev->instruction_id);
    if (!h)
        return false;
    const et_etr_delegate *d = dm ? method_delegate(dm, ev->instruction_id) : NULL;
    if (ev->delegate_debug_identifier_kind != ET_DID_NONE) {
        if (!d)
            return h->is_list;
        *cost += d->n_ids;
        return event_delegate_id(d, ev) != NULL;
    }
    et_str n = et_event_name(ev);
    if (str_is(n, "DELEGATE_CALL"))
        return h->is_list || d;
    if (str_is(n, "OPERATOR_CALL") || has_prefix(n, "native_call_"))
        return !d;
    return true;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Give a per-block warning of kind `kind` (LW_*), at most
 * ET_LINK_MAX_METHOD_WARNINGS of each kind: the rest are counted, and
 * summed up at the end (rest_warnings).  Returns 0, or -1 out of memory
 * (err set). */
static int block_warning(linker *k, int kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int block_warning(linker *k, int kind, const char *fmt, ...)
{
    if (k->n_warned[kind] == ET_LINK_MAX_METHOD_WARNINGS) {
        k->n_quiet[kind]++;
        return 0;
    }
    k->n_warned[kind]++;
    va_list ap;
    va_start(ap, fmt);
    int rc = et_warnings_vaddn(k->warnings, ET_WARNING_MAX, fmt, ap);
    va_end(ap);
    return rc != 0 ? nomem(k) : 0;
}

/* A warning about a block's method (block_warning, LW_METHOD). */
static int method_warning(linker *k, const char *msg)
{
    return block_warning(k, LW_METHOD, "%s", msg);
}

/* After the last block: per kind, the count of the warnings left out. */
static int rest_warnings(linker *k)
{
    for (int kind = 0; kind < LW_COUNT; kind++)
        if (k->n_quiet[kind] && et_warnings_add(k->warnings, "... and %zu more %s",
                                                k->n_quiet[kind], lw_rest[kind]) != 0)
            return nomem(k);
    return 0;
}

/* ", "-separated quoted names of the methods i of map `m` whose score[i]
 * is `want`, into buf (clipped with ", ..."). */
static void names_where(const et_etr_map *m, const size_t *score, size_t want, char *buf,
                        size_t cap)
{
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < m->n_methods; i++) {
        if (score[i] != want)
            continue;
        int w = snprintf(buf + at, cap - at, "%s'%s'", at ? ", " : "", m->methods[i].name);
        if (w < 0 || (size_t)w >= cap - at) {
            snprintf(buf + (cap > 8 ? cap - 8 : 0), cap > 8 ? 8 : cap, ", ...");
            return;
        }
        at += (size_t)w;
    }
}

/* Infer the method of block `blk` from its events (link.h): among the
 * methods of debug_handle_map, those that cover every evidence event
 * (covers); of these the one whose map has the fewest instructions the
 * block does not show; ties to "forward", else the first in map order,
 * with a warning.  When no method covers them all: the one that covers
 * most (ties likewise), with a warning.  Records with fewer than two
 * methods, and blocks without evidence, get default_method.  Returns the
 * method (owned by the record, or static), or NULL (err set). */
static const char *infer_method(linker *k, const et_etrecord *r, const et_block *blk,
                                bool *failed)
{
    *failed = false;
    const et_etr_map *m = &r->debug_handle_map;
    if (m->n_methods < 2)
        return default_method(k->x);
    size_t n_ev = 0;
    for (size_t e = 0; e < blk->n_events; e++)
        n_ev += is_evidence(&blk->events[e]);
    if (!n_ev)
        return default_method(k->x);
    const char *fallback = default_method(k->x);
    size_t bno = (size_t)(blk - k->insp->blocks) + 1;
    char msg[1024];
    if ((uint64_t)n_ev * m->n_methods > k->budget) {
        k->budget = 0;
        snprintf(msg, sizeof msg,
                 "block '%.*s' (event block %zu of %zu): its method is not inferred (%zu "
                 "instruction events x %zu methods of ETRecord '%s' exceed the work cap of %u "
                 "checks); linked to '%s'",
                 (int)blk->name.n, blk->name.p, bno, k->insp->n_blocks, n_ev, m->n_methods, r->label,
                 (unsigned)ET_LINK_INFER_BUDGET, fallback);
        *failed = method_warning(k, msg) != 0;
        return fallback;
    }
    if (!k->dm_of) {
        k->dm_of = calloc(m->n_methods, sizeof *k->dm_of);
        k->covered = calloc(m->n_methods, sizeof *k->covered);
        if (!k->dm_of || !k->covered) {
            *failed = true;
            nomem(k);
            return NULL;
        }
        for (size_t i = 0; i < m->n_methods; i++)
            k->dm_of[i] = map_method(&k->x->dm, &r->delegate_map, m->methods[i].name);
    }
    if (n_ev > k->cap_iids) {
        int64_t *ni = realloc(k->iids, n_ev * sizeof *ni);
        if (!ni) {
            *failed = true;
            nomem(k);
            return NULL;
        }
        k->iids = ni;
        k->cap_iids = n_ev;
    }
    size_t n_iid = 0;
    for (size_t e = 0; e < blk->n_events; e++)
        if (is_evidence(&blk->events[e]))
            k->iids[n_iid++] = blk->events[e].instruction_id;
    qsort(k->iids, n_iid, sizeof *k->iids, cmp_i64);
    size_t distinct = 0;
    for (size_t i = 0; i < n_iid; i++)
        if (!distinct || k->iids[distinct - 1] != k->iids[i])
            k->iids[distinct++] = k->iids[i];

    uint64_t cost = 0;
    size_t best_cover = 0;
    for (size_t i = 0; i < m->n_methods; i++) {
        size_t c = 0;
        for (size_t e = 0; e < blk->n_events; e++)
            if (is_evidence(&blk->events[e]))
                c += covers(&m->methods[i], k->dm_of[i], &blk->events[e], &cost);
        cost += n_ev;
        k->covered[i] = c;
        if (c > best_cover)
            best_cover = c;
    }
    k->budget = cost < k->budget ? k->budget - cost : 0;

    /* the candidates: full covers scored by the instructions of their map
     * the block does not show (fewest best); else the widest covers */
    bool full = best_cover == n_ev;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < m->n_methods; i++) {
        if (k->covered[i] != best_cover) {
            k->covered[i] = SIZE_MAX;
            continue;
        }
        k->covered[i] = full ? m->methods[i].n - distinct : 0;
        if (k->covered[i] < best)
            best = k->covered[i];
    }
    size_t n_best = 0, first = SIZE_MAX, fwd = SIZE_MAX;
    for (size_t i = 0; i < m->n_methods; i++)
        if (k->covered[i] == best) {
            n_best++;
            if (first == SIZE_MAX)
                first = i;
            if (strcmp(m->methods[i].name, "forward") == 0)
                fwd = i;
        }
    size_t pick = fwd != SIZE_MAX ? fwd : first;
    const char *method = best_cover ? m->methods[pick].name : fallback;
    char names[400];
    if (full && n_best > 1) {
        names_where(m, k->covered, best, names, sizeof names);
        snprintf(msg, sizeof msg,
                 "block '%.*s' (event block %zu of %zu): its %zu instruction events fit methods "
                 "%s of ETRecord '%s' equally well; linked to '%s' (name the block "
                 "'Execute::<method>', or choose the method with etrecord_method)",
                 (int)blk->name.n, blk->name.p, bno, k->insp->n_blocks, n_ev, names, r->label,
                 method);
        *failed = method_warning(k, msg) != 0;
    } else if (!full) {
        if (best_cover)
            snprintf(names, sizeof names, "'%s' covers %zu of them", method, best_cover);
        else
            snprintf(names, sizeof names, "none covers any; linked to '%s'", method);
        snprintf(msg, sizeof msg,
                 "block '%.*s' (event block %zu of %zu): no method of ETRecord '%s' covers its "
                 "%zu instruction events (their instruction ids in debug_handle_map, delegate "
                 "identifiers in delegate_map): %s%s",
                 (int)blk->name.n, blk->name.p, bno, k->insp->n_blocks, r->label, n_ev, names,
                 best_cover ? ", and is linked" : "");
        *failed = method_warning(k, msg) != 0;
    }
    return *failed ? NULL : method;
}

/* The method linked to block `blk` (link.h): o->method; else the method a
 * block named "Execute::<method>" names, if the record has it; else the
 * method named like the block; else infer_method.  NULL when failed (err
 * set). */
static const char *method_of_block(linker *k, const et_etrecord *r, const et_link_options *o,
                                   const et_block *blk)
{
    if (o->method)
        return o->method;
    et_str b = blk->name;
    if (has_prefix(b, "Execute::")) {
        const char *m = record_method_named(k->x, b.p + 9, b.n - 9);
        if (m)
            return m;
        char names[400], msg[1024];
        method_list(&r->debug_handle_map, names, sizeof names);
        snprintf(msg, sizeof msg,
                 "block '%.*s' names method '%.*s', which ETRecord '%s' does not have (methods "
                 "of its debug_handle_map: %s); the block's method is inferred from its events",
                 (int)b.n, b.p, (int)(b.n - 9), b.p + 9, r->label, names);
        if (method_warning(k, msg) != 0)
            return NULL;
    } else {
        const name_ref *f = find_name(&k->x->dh, b.p, b.n);
        if (f)
            return f->name;
    }
    bool failed;
    const char *m = infer_method(k, r, blk, &failed);
    return failed ? NULL : m;
}

static void set_handles(et_event *ev, bool is_list, size_t n, const int64_t *v)
{
    ev->has_debug_handles = true;
    ev->debug_handles_is_list = is_list;
    ev->n_debug_handles = (uint32_t)n;
    ev->debug_handles = v;
}

static int link_block(linker *k, et_etrecord *r, const et_link_options *o, et_block *blk)
{
    et_inspector *insp = k->insp;
    const char *method = method_of_block(k, r, o, blk);
    if (!method)
        return -1;
    blk->method = method;
    const et_etr_method *dh = map_method(&k->x->dh, &r->debug_handle_map, method);
    const et_etr_method *dmm = map_method(&k->x->dm, &r->delegate_map, method);
    const et_etr_method *nom = map_method(&k->x->no, &r->num_outs_map, method);
    if (!dh) {
        char names[400];
        method_list(&r->debug_handle_map, names, sizeof names);
        if (block_warning(k, LW_NO_HANDLES,
                          "ETRecord '%s': debug_handle_map has no method '%s' (its methods: "
                          "%s); the events of block '%.*s' are not linked",
                          r->label, method, names, (int)blk->name.n, blk->name.p) != 0)
            return -1;
    }
    bool missing = false;
    const et_graph *g;
    if (k->last_method && method == k->last_method) { /* consecutive blocks share it */
        g = k->last_graph;
        missing = k->last_missing;
    } else {
        g = reference_graph(r, insp->reference_graph_name, method, &missing, k->err);
        if (!g && !missing)
            return -1;
        k->last_method = method;
        k->last_graph = g;
        k->last_missing = missing;
    }
    if (missing && dh &&
        block_warning(k, LW_NO_EDGE,
                      "ETRecord '%s' has no edge program for method '%s': the events of "
                      "block '%.*s' get debug handles but no op types, stack traces or "
                      "module hierarchy",
                      r->label, method, (int)blk->name.n, blk->name.p) != 0)
        return -1;
    blk->graph = g;
    if (g && g->n_nodes > k->stamp_cap) {
        uint32_t *ns = realloc(k->stamp, g->n_nodes * sizeof *ns);
        if (!ns)
            return nomem(k);
        memset(ns + k->stamp_cap, 0, (g->n_nodes - k->stamp_cap) * sizeof *ns);
        k->stamp = ns;
        k->stamp_cap = g->n_nodes;
    }
    k->n_pend = 0;
    for (size_t e = 0; dh && e < blk->n_events; e++) {
        et_event *ev = &blk->events[e];
        int64_t iid = ev->instruction_id;
        const et_etr_handles *h = method_handles(dh, iid);
        if (!h)
            continue;
        const et_etr_num_outs *no = nom ? method_num_outs(nom, iid) : NULL;
        if (no)
            ev->num_outputs = no->num_outs;
        const et_etr_delegate *d = dmm ? method_delegate(dmm, iid) : NULL;
        if (ev->delegate_debug_identifier_kind == ET_DID_NONE) {
            set_handles(ev, h->is_list, h->n, h->v);
            if (d && str_is(et_event_name(ev), "DELEGATE_CALL"))
                ev->delegate_backend_name = d->name ? d->name : "";
        } else if (!d) {
            set_handles(ev, h->is_list, h->n, h->v);
            pending *p = pending_for(k, iid, true);
            if (!p)
                return nomem(k);
            p->n_events++;
        } else {
            ev->delegate_backend_name = d->name ? d->name : "";
            char text[64];
            identifier_text(ev, text, sizeof text); /* clipped: for messages */
            const et_etr_delegate_id *id = event_delegate_id(d, ev);
            if (id) {
                set_handles(ev, id->is_list, id->n, id->handles);
            } else {
                pending *p = pending_for(k, iid, false);
                if (!p)
                    return nomem(k);
                p->n_events++;
                pending_add_id(p, text);
            }
        }
        if (g && ev->has_debug_handles && !is_framework_event(et_event_name(ev))) {
            int rc = associate(k, ev, g, insp->enable_module_hierarchy);
            if (rc < 0)
                return -1;
            if (rc > 0 && !k->capped) {
                k->capped = true;
                et_str n = et_event_name(ev);
                if (et_warnings_add(k->warnings,
                                    "block '%.*s', event '%.*s' (instruction id %" PRId64
                                    "): its debug handles name more graph nodes than the "
                                    "cap (%u per event, %u in all); the list is cut short",
                                    (int)blk->name.n, blk->name.p, (int)n.n, n.p, iid,
                                    (unsigned)ET_LINK_MAX_NODES_PER_EVENT,
                                    (unsigned)ET_LINK_MAX_NODES) != 0)
                    return nomem(k);
            }
        }
    }
    for (size_t i = 0; i < k->n_pend; i++) {
        const pending *p = &k->pend[i];
        int rc = p->no_entry
                     ? block_warning(k, LW_DELEGATE,
                                     "block '%.*s': no delegate mapping found for the "
                                     "delegate call at instruction id %" PRId64
                                     " (ETRecord delegate_map['%s']); its %zu delegated "
                                     "event(s) take the delegate call's debug handles",
                                     (int)blk->name.n, blk->name.p, p->iid, method,
                                     p->n_events)
                     : block_warning(k, LW_DELEGATE,
                                     "block '%.*s': the delegate call at instruction id "
                                     "%" PRId64 " has no delegate_map entry for delegate "
                                     "debug identifier(s) %s; %zu event(s) have no debug "
                                     "handles",
                                     (int)blk->name.n, blk->name.p, p->iid, p->ids,
                                     p->n_events);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int et_link_etrecord(et_inspector *insp, et_etrecord *rec, const et_link_options *o,
                     et_warnings *warnings, et_error *err)
{
    if (o->method && !record_has_method(rec, o->method)) {
        char names[400];
        method_list(&rec->debug_handle_map, names, sizeof names);
        return et_fail(err, ET_ERR_USAGE,
                       "ETRecord '%s' has no method '%s' (methods of its debug_handle_map: %s)",
                       rec->label, o->method, names);
    }
    record_index x;
    if (index_record(&x, rec) != 0) {
        free_record_index(&x);
        return et_fail(err, ET_ERR_NOMEM, "out of memory while linking the ETRecord");
    }
    linker k = {.insp = insp, .warnings = warnings, .err = err, .budget = ET_LINK_INFER_BUDGET, .x = &x};
    int rc = 0;
    for (size_t b = 0; b < insp->n_blocks && rc == 0; b++)
        rc = link_block(&k, rec, o, &insp->blocks[b]);
    if (rc == 0)
        rc = rest_warnings(&k);
    free(k.stamp);
    free(k.pend);
    free(k.tmp);
    free(k.dm_of);
    free(k.covered);
    free(k.iids);
    free_record_index(&x);
    return rc;
}
