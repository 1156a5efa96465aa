/*
 * link.c - ETRecord linkage of an inspector's events (spec §3.10, §5.6,
 * §5.7); see link.h.
 */
#include "link.h"

#include <inttypes.h>
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
    return false;
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

/* The method linked to a block named `block` (see et_link_options). */
static const char *method_of_block(const et_etrecord *r, const et_link_options *o, et_str block)
{
    if (o->method)
        return o->method;
    const et_etr_map *m = &r->debug_handle_map;
    for (size_t i = 0; i < m->n_methods; i++)
        if (str_is(block, m->methods[i].name))
            return m->methods[i].name;
    if (et_etr_map_method(m, "forward"))
        return "forward";
    if (m->n_methods == 1)
        return m->methods[0].name;
    return "forward";
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

/* A warning to give once per (block, instruction id). */
typedef struct pending {
    int64_t iid;
    bool no_entry;         /* the delegate call has no delegate_map entry */
    size_t n_events;
    char ids[160];         /* identifiers without a mapping, clipped */
} pending;

typedef struct linker {
    et_inspector *insp;
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
    const char *method = method_of_block(r, o, blk->name);
    blk->method = method;
    const et_etr_method *dh = et_etr_map_method(&r->debug_handle_map, method);
    if (!dh) {
        char names[400];
        method_list(&r->debug_handle_map, names, sizeof names);
        if (et_inspector_warn(insp,
                              "ETRecord '%s': debug_handle_map has no method '%s' (its methods: "
                              "%s); the events of block '%.*s' are not linked",
                              r->label, method, names, (int)blk->name.n, blk->name.p) != 0)
            return nomem(k);
    }
    bool missing = false;
    const et_graph *g = reference_graph(r, insp->reference_graph_name, method, &missing, k->err);
    if (!g && !missing)
        return -1;
    if (missing && dh &&
        et_inspector_warn(insp,
                          "ETRecord '%s' has no edge program for method '%s': the events of "
                          "block '%.*s' get debug handles but no op types, stack traces or "
                          "module hierarchy",
                          r->label, method, (int)blk->name.n, blk->name.p) != 0)
        return nomem(k);
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
        const et_etr_handles *h = et_etrecord_debug_handles(r, method, iid);
        if (!h)
            continue;
        int64_t no;
        if (et_etrecord_num_outs(r, method, iid, &no))
            ev->num_outputs = no;
        const et_etr_delegate *d = et_etrecord_delegate(r, method, iid);
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
            const et_etr_delegate_id *id =
                ev->delegate_debug_identifier_kind == ET_DID_INT
                    ? delegate_id(d, text, strlen(text))
                    : delegate_id(d, ev->delegate_debug_id_str.p, ev->delegate_debug_id_str.n);
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
                if (et_inspector_warn(insp,
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
                     ? et_inspector_warn(insp,
                                         "block '%.*s': no delegate mapping found for the "
                                         "delegate call at instruction id %" PRId64
                                         " (ETRecord delegate_map['%s']); its %zu delegated "
                                         "event(s) take the delegate call's debug handles",
                                         (int)blk->name.n, blk->name.p, p->iid, method,
                                         p->n_events)
                     : et_inspector_warn(insp,
                                         "block '%.*s': the delegate call at instruction id "
                                         "%" PRId64 " has no delegate_map entry for delegate "
                                         "debug identifier(s) %s; %zu event(s) have no debug "
                                         "handles",
                                         (int)blk->name.n, blk->name.p, p->iid, p->ids,
                                         p->n_events);
        if (rc != 0)
            return nomem(k);
    }
    return 0;
}

int et_link_etrecord(et_inspector *insp, et_etrecord *rec, const et_link_options *o,
                     et_error *err)
{
    if (o->method && !record_has_method(rec, o->method)) {
        char names[400];
        method_list(&rec->debug_handle_map, names, sizeof names);
        return et_fail(err, ET_ERR_USAGE,
                       "ETRecord '%s' has no method '%s' (methods of its debug_handle_map: %s)",
                       rec->label, o->method, names);
    }
    linker k = {.insp = insp, .err = err};
    int rc = 0;
    for (size_t b = 0; b < insp->n_blocks && rc == 0; b++)
        rc = link_block(&k, rec, o, &insp->blocks[b]);
    free(k.stamp);
    free(k.pend);
    free(k.tmp);
    return rc;
}
